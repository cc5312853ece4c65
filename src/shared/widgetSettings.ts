/**
 * A widget's presentation settings as the server validates them, the console edits them and
 * the widget reads them (SPEC.md "Widget"): values and types only, no behaviour.
 */
export const WIDGET_TYPES = ['search', 'chat'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

/** The widget UI locales of SPEC.md (the fallback UI language must be one of them). */
export const WIDGET_LOCALES = ['en', 'nl', 'de', 'fr', 'es', 'it', 'pt-BR', 'zh-Hans', 'zh-Hant', 'zh-HK', 'ja', 'ko', 'th'] as const;
export const VARIANTS: Record<WidgetType, readonly string[]> = { chat: ['bubble', 'sidebar', 'inline'], search: ['modal', 'inline'] };
export const THEMES = ['auto', 'light', 'dark'] as const;
export const MAX_PROMPTS = 6;
export const MAX_PROMPT_LENGTH = 100;
export const DEBOUNCE = { min: 0, max: 5_000 } as const;

/** The presentation config (SPEC.md "Widget"), as the config endpoint returns it. */
export interface WidgetConfig {
  type: 'chatbot' | 'search';
  name: string;
  variant: string;
  accent_light: string;
  accent_dark: string;
  theme: string;
  branding: boolean;
  summary: boolean;
  speech_input: boolean;
  placeholder: string;
  greeting: string;
  prompts: string[];
  avatar: string | null;
  debounce: number;
  default_language: string;
}

/** The fields a client may set; `type`, `name` and `branding` are not among them. */
export type WidgetSettings = Partial<Omit<WidgetConfig, 'type' | 'name' | 'branding'>>;

/** What a widget shows for each setting no client set, by type (the config endpoint overlays the stored settings on these). */
export const WIDGET_DEFAULTS: Record<WidgetType, Omit<WidgetConfig, 'type' | 'name'>> = {
  chat: {
    variant: 'bubble', accent_light: '#2563eb', accent_dark: '#60a5fa', theme: 'auto', branding: true, summary: false,
    speech_input: false, placeholder: 'Ask a question…', greeting: 'Hi! How can I help you?', prompts: [], avatar: null,
    debounce: 1000, default_language: 'en',
  },
  search: {
    variant: 'modal', accent_light: '#2563eb', accent_dark: '#60a5fa', theme: 'auto', branding: true, summary: true,
    speech_input: false, placeholder: 'Search…', greeting: '', prompts: [], avatar: null, debounce: 1000, default_language: 'en',
  },
};
