import type { Widget } from '../../domain/widgets/service.js';
import { WIDGET_DEFAULTS, type WidgetConfig, type WidgetSettings, type WidgetType } from '../../shared/widgetSettings.js';

/**
 * The whole config of a widget, as the config endpoint and the management API show it: the
 * defaults of its type overlaid with the stored settings. Branding is always true: it belongs
 * to the organisation's plan, and there is no plan model yet, so no client can turn it off.
 */
export function presentConfig(type: WidgetType, name: string, stored: WidgetSettings): WidgetConfig {
  return {
    ...WIDGET_DEFAULTS[type],
    ...stored,
    type: type === 'chat' ? 'chatbot' : 'search',
    name,
    branding: true,
  };
}

/** A widget as the management API returns it (never its secrets), its config whole. */
export function presentWidget(widget: Widget): Omit<Widget, 'config'> & { config: WidgetConfig } {
  return { ...widget, config: presentConfig(widget.type, widget.name, widget.config) };
}
