/** The presentation config served by `GET …/widgets/{widget}/config` (SPEC.md "Widget"). */
export interface WidgetConfig {
  type: string;
  name: string;
  variant: string;
  accent_light: string;
  accent_dark: string;
  theme: 'auto' | 'light' | 'dark';
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

export const LIMITS = { prompts: 6, promptLength: 100, prefill: 280, width: { min: 280, max: 720, default: 380 }, debounce: 1000 } as const;

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/**
 * The caller's options over the dashboard config (SPEC.md: options win, except `branding`),
 * with every value checked: a wrong type or out-of-range value keeps the config's value.
 */
export function mergeSettings(config: WidgetConfig, options: MountOptions): Settings {
  const merged: Settings = { ...config };
  for (const [name, value] of Object.entries(options) as [keyof MountOptions, unknown][]) {
    if (value === undefined || (name as string) === 'branding' || (name as string) === 'type' || (name as string) === 'name') continue;
    (merged as unknown as Record<string, unknown>)[name] = value;
  }
  merged.branding = config.branding;
  const pick = <T>(value: unknown, ok: (v: unknown) => boolean, fallback: T): T => (ok(value) ? (value as T) : fallback);
  merged.accent_light = pick(merged.accent_light, (v) => typeof v === 'string' && HEX.test(v), config.accent_light);
  merged.accent_dark = pick(merged.accent_dark, (v) => typeof v === 'string' && HEX.test(v), config.accent_dark);
  merged.theme = pick(merged.theme, (v) => v === 'auto' || v === 'light' || v === 'dark', config.theme);
  merged.debounce = pick(merged.debounce, (v) => typeof v === 'number' && v >= 0 && v <= 10_000, config.debounce ?? LIMITS.debounce);
  merged.prompts = (Array.isArray(merged.prompts) ? merged.prompts : [])
    .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
    .slice(0, LIMITS.prompts)
    .map((p) => p.slice(0, LIMITS.promptLength));
  const width = Number(merged.width ?? LIMITS.width.default);
  merged.width = Math.min(LIMITS.width.max, Math.max(LIMITS.width.min, Number.isFinite(width) ? width : LIMITS.width.default));
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
