import { useEffect, useState } from 'preact/hooks';
import { THEMES, VARIANTS, WIDGET_LOCALES } from '../../src/shared/widgetSettings.js';
import { call } from './api.js';
import type { Widget } from './resources.js';
import { ErrorNote, useAction } from './ui.js';

const PREVIEW_KEY = 'lore-console-preview-key';

interface Sdk {
  chat(key: string, options: Record<string, unknown>): { mount(): { destroy(): void } };
  search(key: string, options: Record<string, unknown>): { mount(): { destroy(): void } };
}

/** Loads Lore's own browser SDK into the console once (same origin, allowed by the CSP). */
function loadSdk(): Promise<Sdk> {
  const w = window as unknown as { ServiceSdk?: Sdk; __loreSdk?: Promise<Sdk> };
  if (w.ServiceSdk) return Promise.resolve(w.ServiceSdk);
  w.__loreSdk ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = '/widget/v1/service.js';
    script.onload = () => (w.ServiceSdk ? resolve(w.ServiceSdk) : reject(new Error('no ServiceSdk')));
    script.onerror = () => reject(new Error('The widget script could not be loaded.'));
    document.head.append(script);
  });
  return w.__loreSdk;
}

/**
 * The key the preview calls the widget with: the console is not on the widget's websites, so
 * it uses an organisation API key (search, chat, summarize) named "Console preview", made
 * once for this tab and listed with the other keys, where it can be revoked.
 */
async function previewKey(token: string): Promise<string> {
  const kept = sessionStorage.getItem(PREVIEW_KEY);
  if (kept) return kept;
  const { key } = await call<{ key: string }>(token, 'POST', '/api-keys', { name: 'Console preview', permissions: ['search', 'chat', 'summarize'] });
  sessionStorage.setItem(PREVIEW_KEY, key);
  return key;
}

/** Every presentation setting of a widget, with the real widget beside it showing them before they are saved. */
export function WidgetEditor({ token, widget, onClose }: { token: string; widget: Widget; onClose: (saved: boolean) => void }) {
  const [name, setName] = useState(widget.name);
  const [websites, setWebsites] = useState(widget.websites.join('\n'));
  const [config, setConfig] = useState(widget.config);
  const [preview, setPreview] = useState<string | null>(null);
  const save = useAction();
  const set = (field: string, value: unknown) => setConfig({ ...config, [field]: value });
  const chat = widget.type === 'chat';

  // The preview: the real widget mounted with the settings as they stand, remounted on each change.
  useEffect(() => {
    let mounted: { destroy(): void } | null = null;
    let live = true;
    const timer = setTimeout(async () => {
      try {
        const [sdk, key] = await Promise.all([loadSdk(), previewKey(token)]);
        if (!live) return;
        const { prompts, avatar, ...rest } = config;
        const options: Record<string, unknown> = { ...rest, prompts: prompts.filter((p) => p.trim()), token: key, context: false };
        if (avatar) options.avatar = avatar;
        if (config.variant === 'inline') options.target = '#lore-preview';
        if (!chat && config.variant === 'modal') options.trigger = '#lore-preview-open';
        mounted = (chat ? sdk.chat(widget.key, options) : sdk.search(widget.key, options)).mount();
        setPreview(null);
      } catch (error) {
        setPreview((error as Error).message);
      }
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer);
      mounted?.destroy();
    };
  }, [config, token, widget.key, chat]);

  const text = (field: keyof Widget['config'], label: string, max: number) => (
    <label class="block">
      {label} <input value={String(config[field] ?? '')} maxLength={max} onInput={(e) => set(field, (e.target as HTMLInputElement).value)} />
    </label>
  );
  return (
    <div class="card editor" role="dialog" aria-labelledby="widget-editor-title">
      <div class="card-head">
        <h2 id="widget-editor-title">Settings of {widget.name}</h2>
        <button type="button" class="link" onClick={() => onClose(false)}>Close</button>
      </div>
      <div class="split-editor">
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const { prompts, avatar, ...rest } = config;
            const body = {
              name,
              websites: websites.split(/[\s,]+/).filter(Boolean),
              config: { ...pick(rest, chat), ...(chat && { prompts: prompts.filter((p) => p.trim()), avatar: avatar || null }) },
            };
            if (await save.run(() => call(token, 'PATCH', `/widgets/${widget.id}`, body))) onClose(true);
          }}
        >
          <label class="block">
            Name <input value={name} maxLength={255} required onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <label class="block">
            Websites (one host a line, e.g. docs.example.com)
            <textarea rows={2} value={websites} onInput={(e) => setWebsites((e.target as HTMLTextAreaElement).value)} />
          </label>
          <div class="filters">
            <label>
              Variant
              <select value={config.variant} onChange={(e) => set('variant', (e.target as HTMLSelectElement).value)}>
                {VARIANTS[widget.type].map((v) => (
                  <option key={v} value={v}>{v}</option>
                ))}
              </select>
            </label>
            <label>
              Theme
              <select value={config.theme} onChange={(e) => set('theme', (e.target as HTMLSelectElement).value)}>
                {THEMES.map((v) => (
                  <option key={v} value={v}>{v}</option>
                ))}
              </select>
            </label>
            <label>
              Accent (light) <input type="color" value={config.accent_light} onInput={(e) => set('accent_light', (e.target as HTMLInputElement).value)} />
            </label>
            <label>
              Accent (dark) <input type="color" value={config.accent_dark} onInput={(e) => set('accent_dark', (e.target as HTMLInputElement).value)} />
            </label>
            <label>
              Language
              <select value={config.default_language} onChange={(e) => set('default_language', (e.target as HTMLSelectElement).value)}>
                {WIDGET_LOCALES.map((l) => (
                  <option key={l} value={l}>{l}</option>
                ))}
              </select>
            </label>
          </div>
          {text('placeholder', 'Placeholder', 200)}
          {chat ? (
            <>
              {text('greeting', 'Greeting', 1000)}
              <label class="block">
                Suggested questions (one a line, at most 6)
                <textarea rows={3} value={config.prompts.join('\n')} onInput={(e) => set('prompts', (e.target as HTMLTextAreaElement).value.split('\n').slice(0, 6))} />
              </label>
              <label class="block">
                Avatar URL <input type="url" value={config.avatar ?? ''} maxLength={2048} onInput={(e) => set('avatar', (e.target as HTMLInputElement).value)} />
              </label>
              <label class="check">
                <input type="checkbox" checked={config.speech_input} onChange={(e) => set('speech_input', (e.target as HTMLInputElement).checked)} /> Voice input
              </label>
            </>
          ) : (
            <>
              <label class="check">
                <input type="checkbox" checked={config.summary} onChange={(e) => set('summary', (e.target as HTMLInputElement).checked)} /> AI summary above the results
              </label>
              <label>
                Debounce (ms) <input type="number" class="short" min="0" max="5000" step="50" value={config.debounce} onInput={(e) => set('debounce', Number((e.target as HTMLInputElement).value))} />
              </label>
            </>
          )}
          <ErrorNote error={save.error} />
          <div class="actions">
            <button type="submit" disabled={save.busy}>Save</button>
          </div>
        </form>
        <div class="preview" aria-label="Live preview">
          <p class="muted">
            Live preview: the real widget with these settings{chat && config.variant !== 'inline' ? ', at the corner of this page' : ''}. It calls Lore with an API key named “Console preview”.
          </p>
          {!chat && config.variant === 'modal' && (
            <button type="button" id="lore-preview-open">Open the search</button>
          )}
          <div id="lore-preview" />
          <ErrorNote error={preview} />
        </div>
      </div>
    </div>
  );
}

/** The settings the API takes for a widget type (SPEC.md "Widget"). */
function pick(config: Record<string, unknown>, chat: boolean): Record<string, unknown> {
  const common = ['variant', 'accent_light', 'accent_dark', 'theme', 'placeholder', 'default_language'];
  const own = chat ? ['greeting', 'speech_input'] : ['summary', 'debounce'];
  return Object.fromEntries([...common, ...own].filter((k) => config[k] !== undefined).map((k) => [k, config[k]]));
}
