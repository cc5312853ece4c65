import type { HeadlessClient } from '../core/headless.js';
import { loadStrings, resolveLocale, translator, type Locale } from '../core/locales.js';
import { mergeSettings, requireElement, type MountOptions, type Settings } from '../core/options.js';
import type { Action } from '../core/headless.js';
import { applyTheme, createHost } from './dom.js';

/** What a page action handler receives (docs/WIDGET.md "Page action detail"). */
export interface ActionDetail {
  action: Action;
  conversationId: string;
  answerId: string;
  widget: string;
}

/** Everything a widget UI needs, prepared by `createHandle` once the config has loaded. */
export interface WidgetContext {
  client: HeadlessClient;
  settings: Settings;
  locale: Locale;
  t: ReturnType<typeof translator>;
  /** Not yet in the page: the UI places it (body, or its target). Carries lang and data-theme. */
  host: HTMLElement;
  root: ShadowRoot;
  /** Dispatches `service:action` on window and calls the `on('action')` handlers. */
  confirmAction(detail: Omit<ActionDetail, 'widget'>): void;
}

/** A mounted widget UI: the handle's imperative methods, each a plain function. */
export interface WidgetUi {
  destroy(): void;
  [method: string]: (...args: never[]) => unknown;
}

const enum State { New, Mounting, Ready, Destroyed }

export type WidgetFactory = (context: WidgetContext) => WidgetUi;

/** The handle of SPEC.md "Handle methods"; imperative methods queue until the widget is ready. */
export interface SearchHandle {
  mount(): this;
  destroy(): void;
  open(): void;
  close(): void;
}

export interface ChatHandle extends SearchHandle {
  toggle(): void;
  prefill(text: string): void;
  ask(text: string): void;
  on(event: 'action', handler: (detail: ActionDetail) => void): this;
  off(event: 'action', handler: (detail: ActionDetail) => void): this;
}

/**
 * The public handle of a chat or search widget. `mount()` (once; later calls do nothing)
 * loads the config, merges the caller's options over it, builds the UI with `factory`, then
 * replays the imperative calls made before it was ready, in order. `destroy()` before that
 * cancels the mount. A failed mount is reported on the console, never thrown into the page.
 */
export function createHandle<H extends SearchHandle>(
  base: string,
  kind: 'chat' | 'search',
  client: HeadlessClient,
  options: MountOptions,
  css: string[],
  factory: WidgetFactory,
  methods: readonly string[],
): H {
  let ui: WidgetUi | undefined;
  let stopTheme = () => {};
  let state = State.New;
  const queue: [string, unknown[]][] = [];
  const handlers = new Set<(detail: ActionDetail) => void>();
  const handle: Record<string, (...args: unknown[]) => unknown> = {};

  const start = async () => {
    const browser = navigator.languages?.length ? navigator.languages : [navigator.language];
    // The browser's locale (when supported) loads alongside the config (loadStrings keeps it);
    // else the config decides.
    void loadStrings(base, resolveLocale(browser, 'en'));
    const settings = mergeSettings(await client.fetchConfig(), options);
    const locale = resolveLocale(browser, settings.default_language);
    const strings = await loadStrings(base, locale);
    if (state === State.Destroyed) return;
    const { host, root } = createHost(kind, css);
    host.lang = locale;
    stopTheme = applyTheme(host, settings);
    ui = factory({
      client, settings, locale, t: translator(strings), host, root,
      confirmAction(detail) {
        const full: ActionDetail = { ...detail, widget: client.key };
        const event = new CustomEvent('service:action', { detail: full, bubbles: true, cancelable: true });
        window.dispatchEvent(event);
        for (const handler of [...handlers]) {
          try {
            handler(full);
          } catch (error) {
            console.error('Lore: an action handler failed', error);
          }
        }
      },
    });
    state = State.Ready;
    for (const [name, args] of queue.splice(0)) call(name, args);
  };

  const call = (name: string, args: unknown[]) => {
    if (state === State.Ready) (ui![name] as (...a: unknown[]) => unknown)?.(...args);
    else if (state !== State.Destroyed) queue.push([name, args]);
  };

  handle.mount = () => {
    if (state !== State.New) return handle;
    // SPEC.md: mount() is called once the named nodes exist; a typo should fail here, loudly.
    for (const option of ['target', 'trigger', 'content'] as const) {
      if (options[option] !== undefined) requireElement(String(options[option]), option);
    }
    state = State.Mounting;
    start().catch((error) => {
      state = State.Destroyed;
      console.error(`Lore: the ${kind} widget could not be mounted.`, error);
    });
    return handle;
  };
  handle.destroy = () => {
    if (state === State.Ready) ui!.destroy();
    stopTheme();
    state = State.Destroyed;
    queue.length = 0;
  };
  for (const name of methods) handle[name] = (...args: unknown[]) => void call(name, args);
  if (kind === 'chat') {
    handle.on = (event, handler) => {
      if (event === 'action' && typeof handler === 'function') handlers.add(handler as (detail: ActionDetail) => void);
      return handle;
    };
    handle.off = (event, handler) => {
      if (event === 'action') handlers.delete(handler as (detail: ActionDetail) => void);
      return handle;
    };
  }
  return handle as unknown as H;
}
