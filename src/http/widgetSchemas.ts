import { Type } from 'typebox';
import { DEBOUNCE, MAX_PROMPT_LENGTH, MAX_PROMPTS, THEMES, WIDGET_LOCALES, WIDGET_TYPES, type WidgetType } from '../shared/widgetSettings.js';
import { Timestamp, Uuid } from './schemas.js';

const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const Colour = Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: '#rgb or #rrggbb' });
const Text = (maxLength: number) => Type.String({ maxLength });
// A host, optionally with a port: no scheme, path, wildcard or space.
const Website = Type.String({
  maxLength: 260,
  pattern: '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(?::[0-9]{1,5})?$',
  description: 'host[:port], e.g. docs.example.com or localhost:8080',
});

/** Client-settable presentation fields (not `type`, `name` nor `branding`; unknown fields are dropped). */
const Settings = Type.Object({
  variant: Type.Optional(enumOf(['bubble', 'sidebar', 'inline', 'modal'])),
  accent_light: Type.Optional(Colour),
  accent_dark: Type.Optional(Colour),
  theme: Type.Optional(enumOf(THEMES)),
  summary: Type.Optional(Type.Boolean()),
  speech_input: Type.Optional(Type.Boolean()),
  placeholder: Type.Optional(Text(200)),
  greeting: Type.Optional(Text(1000)),
  prompts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: MAX_PROMPT_LENGTH }), { maxItems: MAX_PROMPTS })),
  avatar: Type.Optional(Type.Union([Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$' }), Type.Null()])),
  debounce: Type.Optional(Type.Integer({ minimum: DEBOUNCE.min, maximum: DEBOUNCE.max })),
  default_language: Type.Optional(enumOf(WIDGET_LOCALES)),
}, { additionalProperties: false });

export const WidgetConfig = Type.Object({
  type: Type.String(),
  name: Type.String(),
  variant: Type.String(),
  accent_light: Type.String(),
  accent_dark: Type.String(),
  theme: Type.String(),
  branding: Type.Boolean(),
  summary: Type.Boolean(),
  speech_input: Type.Boolean(),
  placeholder: Type.String(),
  greeting: Type.String(),
  prompts: Type.Array(Type.String()),
  avatar: Type.Union([Type.String(), Type.Null()]),
  debounce: Type.Integer(),
  default_language: Type.String(),
});

export const Widget = Type.Object({
  id: Type.String(),
  key: Type.String({ description: '`{organisation}/{widget}`: safe to place in HTML' }),
  type: enumOf<WidgetType>(WIDGET_TYPES),
  name: Type.String(),
  integration_id: Uuid,
  websites: Type.Array(Type.String()),
  config: WidgetConfig,
  created_at: Timestamp,
  updated_at: Timestamp,
});

const writable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  integration_id: Type.String({ maxLength: 64 }),
  websites: Type.Array(Website, { maxItems: 50 }),
  config: Settings,
};
export const WidgetCreate = Type.Object({
  type: enumOf<WidgetType>(WIDGET_TYPES),
  name: writable.name,
  integration_id: writable.integration_id,
  websites: Type.Optional(writable.websites),
  config: Type.Optional(writable.config),
});
export const WidgetUpdate = Type.Object({
  name: Type.Optional(writable.name),
  integration_id: Type.Optional(writable.integration_id),
  websites: Type.Optional(writable.websites),
  config: Type.Optional(writable.config),
});
