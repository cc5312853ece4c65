// The presentation config served by `GET …/widgets/{widget}/config` (SPEC.md "Widget"): the
// server's own type, so the two cannot drift apart (the SDK imports only types from src/).
import type { WidgetConfig } from '../../../src/shared/widgetSettings.js';

export type { WidgetConfig };

export interface VisitorUser {
  id: string;
  hash?: string;
}

/** Options of every client (chat, search, headless). */
export interface SharedOptions {
  user?: VisitorUser | null;
  /** Extra page context sent with chat; default the page URL and title; false sends none. */
  context?: Record<string, unknown> | false;
  /** Preview bearer token (in-app preview only). */
  token?: string;
}

/** Options of the chat and search widgets: the shared ones, placement, and config overrides. */
export interface MountOptions extends SharedOptions, Partial<Omit<WidgetConfig, 'type' | 'name' | 'branding'>> {
  target?: string;
  trigger?: string;
  side?: 'left' | 'right';
  width?: number;
  content?: string;
  show_images?: boolean;
  show_result_thumbnails?: boolean;
}

/** The effective settings of a mounted widget: config, overridden by the caller's options. */
export type Settings = WidgetConfig & Omit<MountOptions, keyof WidgetConfig>;

/** Limits of SPEC.md: prompts (count, length), prefill length, sidebar width (default, range), debounce default. */
const MAX_PROMPTS = 6;
const PROMPT_LENGTH = 100;
export const PREFILL_LENGTH = 280;
const WIDTH = 380;
const MIN_WIDTH = 280;
const MAX_WIDTH = 720;
const DEBOUNCE = 1000;

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/**
 * The caller's options over the dashboard config (SPEC.md: options win, except `branding`),
 * with every value checked: a wrong type or out-of-range value keeps the config's value.
 */
export function mergeSettings(config: WidgetConfig, options: MountOptions): Settings {
  const merged: Settings = { ...config };
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && name !== 'branding' && name !== 'type' && name !== 'name') (merged as unknown as Record<string, unknown>)[name] = value;
  }
  const check = <K extends keyof WidgetConfig>(name: K, ok: (value: unknown) => boolean, fallback = config[name]) => {
    if (!ok(merged[name])) merged[name] = fallback;
  };
  const hex = (value: unknown) => typeof value === 'string' && HEX.test(value);
  check('accent_light', hex);
  check('accent_dark', hex);
  check('theme', (v) => v === 'auto' || v === 'light' || v === 'dark');
  check('debounce', (v) => typeof v === 'number' && v >= 0 && v <= 10_000, config.debounce ?? DEBOUNCE);
  merged.prompts = (Array.isArray(merged.prompts) ? merged.prompts : [])
    .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
    .slice(0, MAX_PROMPTS)
    .map((p) => p.slice(0, PROMPT_LENGTH));
  const width = Number(merged.width ?? WIDTH);
  merged.width = Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, Number.isFinite(width) ? width : WIDTH));
  merged.side = merged.side === 'left' ? 'left' : 'right';
  return merged;
}

/** The page context sent with a chat message (SPEC.md `context`). */
export function pageContext(context: SharedOptions['context']): Record<string, unknown> | undefined {
  if (context === false) return undefined;
  const base = { url: location.href.slice(0, 2048), title: document.title.slice(0, 300) };
  return context && typeof context === 'object' ? { ...base, ...context } : base;
}

/**
 * The first element matching `selector`, or a clear error naming the option: a widget whose
 * target is missing should fail loudly at mount, not render nowhere.
 */
export function requireElement<T extends Element = HTMLElement>(selector: string, option: string): T {
  let found: Element | null = null;
  try {
    found = document.querySelector(selector);
  } catch {
    throw new Error(`Lore: the ${option} option ${JSON.stringify(selector)} is not a valid CSS selector.`);
  }
  if (!found) throw new Error(`Lore: the ${option} option ${JSON.stringify(selector)} matches no element; call mount() after it exists.`);
  return found as T;
}
