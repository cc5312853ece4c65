import { ValidationError } from '../errors.js';
import type { JsonObject } from '../model.js';
import { VARIANTS, type WidgetSettings, type WidgetType } from '../../shared/widgetSettings.js';

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
