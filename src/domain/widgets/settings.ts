import { ValidationError } from '../errors.js';
import type { JsonObject } from '../model.js';
import { VARIANTS, type WidgetConfig, type WidgetSettings, type WidgetType } from '../../shared/widgetSettings.js';

const DEFAULTS: Record<WidgetType, Omit<WidgetConfig, 'type' | 'name'>> = {
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

/**
 * The whole config of a widget: defaults for its type overlaid with the stored settings.
 * Branding is always true: it belongs to the organisation's plan, and there is no plan model
 * yet, so no client can turn it off.
 */
export function presentConfig(type: WidgetType, name: string, stored: JsonObject): WidgetConfig {
  return {
    ...DEFAULTS[type],
    ...(stored as WidgetSettings),
    type: type === 'chat' ? 'chatbot' : 'search',
    name,
    branding: true,
  };
}

/**
 * Checks the rules the schema cannot express (the variant depends on the widget type);
 * ValidationError with `config.variant` otherwise. Returns the settings to store.
 */
export function checkSettings(type: WidgetType, settings: WidgetSettings): JsonObject {
  if (settings.variant !== undefined && !VARIANTS[type].includes(settings.variant)) {
    throw ValidationError.field('config.variant', `The selected config.variant is invalid; use one of: ${VARIANTS[type].join(', ')}.`);
  }
  return settings as JsonObject;
}
