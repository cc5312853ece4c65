import DOMPurify from 'dompurify';
import type { SearchHit, Source } from '../core/headless.js';
import { markdown } from '../core/markdown.js';
import { requireElement } from '../core/options.js';
import { focusTrap, h, icon, linkCitations, safeUrl } from './dom.js';
import type { WidgetFactory } from './handle.js';
import { speechButton } from './speech.js';

/** Search styles (DocSearch-like): launcher, modal (a top-layer <dialog>), inline panel, hits, summary. */
export const SEARCH_CSS = `
:host{display:contents!important}
.btn{display:inline-flex;align-items:center;gap:8px;height:40px;min-width:220px;padding:0 8px 0 12px;border:1px solid var(--line);border-radius:10px;background:var(--bg2);color:var(--fg2)}
.btn:hover{border-color:var(--lore-accent)}
.ph{flex:1;text-align:left}
kbd{padding:1px 5px;margin-left:4px;border:1px solid var(--line);border-bottom-width:2px;border-radius:5px;font:600 11px system-ui}
dialog{position:fixed;inset:0;z-index:2147483000;width:100%;height:100%;max-width:none;max-height:none;margin:0;padding:10vh 16px 16px;border:0;background:rgba(15,18,25,.45);color:var(--fg);overflow:hidden;overscroll-behavior:contain}
.box{display:flex;flex-direction:column;max-width:640px;max-height:80vh;margin:auto;background:var(--bg);border-radius:var(--radius);box-shadow:var(--shadow);overflow:hidden;animation:in .2s ease-out}
@keyframes in{from{opacity:0;transform:translateY(6px)}}
.head{display:flex;align-items:center;gap:6px;padding:12px}
.field{flex:1;display:flex;align-items:center;gap:6px;height:48px;padding:0 6px 0 12px;border-radius:10px;box-shadow:inset 0 0 0 2px var(--lore-accent);color:var(--lore-accent)}
.field input{flex:1;min-width:0;height:100%;border:0;outline:0;background:none;color:var(--fg);font-size:17px}
input::-webkit-search-cancel-button{display:none}
.body,.pane{padding:2px 12px 12px;background:var(--bg2)}
.body{flex:1;overflow:auto;overscroll-behavior:contain;border-top:1px solid var(--line)}
.pane{margin-top:8px;border:1px solid var(--line);border-radius:var(--radius)}
.inl .field:not(:focus-within){box-shadow:inset 0 0 0 1px var(--line)}
p{margin:0}
.status,.empty,.hit p,.foot{color:var(--fg2)}
.status{padding:12px 4px 0}
.empty{padding:28px 8px 16px;text-align:center}
ul{list-style:none;margin:0;padding:0}
.hit{position:relative;margin-top:8px;padding:10px 36px 10px 44px;border-radius:10px;background:var(--bg);box-shadow:0 1px 3px rgba(0,0,0,.1)}
.th{padding-left:76px;min-height:72px}
.hit>.icon{position:absolute;left:13px;top:12px;color:var(--fg2)}
.hit>.icon:last-child{left:auto;right:10px;top:calc(50% - 10px);opacity:0}
.hit:hover{box-shadow:inset 0 0 0 1px var(--lore-accent)}
.hit[aria-selected=true]{background:color-mix(in srgb,var(--lore-accent) 9%,var(--bg));box-shadow:inset 0 0 0 2px var(--lore-accent)}
.hit[aria-selected=true]>.icon{color:var(--lore-accent);opacity:1}
.hit a{display:block;color:var(--fg);font-weight:600;text-decoration:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;outline:0}
.hit a::after{content:"";position:absolute;inset:0}
.hit:focus-within{outline:2px solid var(--lore-accent)}
.hit img{position:absolute;left:10px;top:10px;width:52px;height:52px;border-radius:8px;object-fit:cover}
.hit p{margin-top:2px;font-size:13px;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.sum{margin-top:10px;padding:12px 14px;border-radius:10px;background:var(--bg);border:1px solid color-mix(in srgb,var(--lore-accent) 40%,var(--line))}
.sum b{font-size:12px;color:var(--lore-accent);text-transform:uppercase;letter-spacing:.04em}
[data-state=streaming] .md>:last-child::after{content:"";display:inline-block;width:.45em;height:1em;margin-left:2px;vertical-align:-.15em;background:currentColor;opacity:.5;animation:blink 1s steps(2) infinite}
@keyframes blink{to{opacity:0}}
.foot{display:flex;align-items:center;padding:8px 12px;border-top:1px solid var(--line)}
.branding{margin-left:auto}
@media (max-width:640px){dialog{padding:0}.box{max-width:none;height:100%;max-height:none;border-radius:0}.keys{display:none}}
@media (prefers-reduced-motion:reduce){*,::before,::after{animation:none!important;transition:none!important}}
`;

const MAC = /Mac|iP(hone|ad|od)/.test(navigator.platform || navigator.userAgent);

/**
 * The search widget UI. `modal` (default): a <dialog> opened by the `search-button` launcher
 * (rendered into `target`), by the `trigger` elements, by Cmd/Ctrl+K or `open()`. `inline`:
 * results after the `trigger` input (or in `target`), or an SDK input plus results in `target`.
 */
export const createSearch: WidgetFactory = (context) => {
  const { client, settings: s, t, host, root } = context;
  const modal = s.variant !== 'inline';
  const target = s.target ? requireElement(s.target, 'target') : null;
  const triggers = modal && s.trigger;
  const found = !modal && s.trigger ? requireElement(s.trigger, 'trigger') : null;
  const ext = found instanceof HTMLInputElement && found;
  if (!modal && !ext && !target) throw new Error('Lore: inline search needs a target or a trigger input.');
  const placeholder = s.placeholder || t('searchPlaceholder');
  const input = ext || h('input', {
    type: 'search', lore: 'search-input', role: 'combobox', 'aria-expanded': 'false', 'aria-controls': 'lore-hits', 'aria-autocomplete': 'list',
    'aria-label': t('search'), placeholder, autocomplete: 'off',
  });
  const kbd = (text: string) => h('kbd', { text });
  const status = h('p', { class: 'status', role: 'status', hidden: true });
  const empty = h('p', { lore: 'empty', class: 'empty' });
  const text = h('div', { class: 'md' });
  const summary = h('section', { lore: 'summary', class: 'sum', hidden: true }, h('b', { text: t('summary') }), text);
  const list = h('ul', { lore: 'results', id: 'lore-hits', role: 'listbox', 'aria-label': t('results'), hidden: true });
  const brand = s.branding && h('div', { class: 'branding', lore: 'branding', text: t('poweredBy') });
  // Results and summary links are reported (a beacon survives navigation); a result closes the modal.
  const body = h('div', {
    class: modal ? 'body' : 'pane',
    hidden: true,
    onclick(event: MouseEvent) {
      const link = (event.target as Element).closest('a');
      const rank = link?.getAttribute('data-rank');
      if (!link) return;
      client.trackEvent('click', { url: link.href, rank: rank ? +rank : null, source: rank ? 'result' : 'summary' });
      if (rank) close();
    },
  }, status, summary, list, !modal && brand);
  const life = new AbortController();
  const on = (node: EventTarget, type: string, listener: (event: never) => void, capture?: boolean) =>
    node.addEventListener(type, listener as EventListener, { capture, signal: life.signal });
  let timer: number | undefined;
  let ctrl: AbortController | undefined;
  let shown = '';
  let active = -1;
  let opener: Element | null = null;

  const say = (message: string) => {
    status.textContent = message;
    status.hidden = body.hidden = false;
  };
  const rows = () => [...list.children];
  const select = (i: number) => {
    active = i;
    rows().forEach((row, n) => row.setAttribute('aria-selected', String(n === i)));
    if (!ext) input.setAttribute('aria-activedescendant', i < 0 ? '' : `r${i}`);
    return rows()[i];
  };
  const row = (hit: SearchHit, i: number) => {
    const image = s.show_result_thumbnails && safeUrl(hit.meta?.image ?? hit.searchable_meta?.image);
    const snippet = h('p');
    snippet.innerHTML = DOMPurify.sanitize(hit.snippet ?? '', { ALLOWED_TAGS: ['mark', 'b', 'em'], ALLOWED_ATTR: [] });
    return h('li', { id: `r${i}`, role: 'option', 'aria-selected': 'false', class: image ? 'hit th' : 'hit' },
      !image && icon('page'),
      h('a', { lore: 'result', 'data-rank': i + 1, href: safeUrl(hit.source_url) }, image && h('img', { lore: 'result-thumb', src: image, alt: '', loading: 'lazy' }), hit.title || hit.source_url || ''),
      snippet,
      icon('enter'));
  };
  const view = (hits: SearchHit[] | null, query = '') => {
    status.hidden = summary.hidden = true;
    body.hidden = !hits;
    list.replaceChildren(...(hits ?? []).map(row));
    list.hidden = !hits?.length;
    empty.textContent = t('noResults', { query });
    hits && !hits.length ? list.after(empty) : empty.remove();
    if (!ext) input.setAttribute('aria-expanded', String(!list.hidden));
    select(hits?.length && modal ? 0 : -1);
  };
  const paint = (markdownText: string, sources: Source[]) => {
    text.innerHTML = markdown(markdownText, { images: false });
    linkCitations(text, new Map(sources.map((source, i) => [source.ref ?? i + 1, source])));
  };
  const summarize = (query: string, signal: AbortSignal) => {
    const sources: Source[] = [];
    const state = (value: string) => summary.setAttribute('data-state', value);
    summary.hidden = false;
    state('streaming');
    text.replaceChildren(h('p', { text: t('thinking') }));
    client.summarize(query, { signal, onToken: (_, full) => signal.aborted || paint(full, sources), onSource: (source) => sources.push(source) }).then((result) => {
      if (signal.aborted) return;
      summary.hidden = !result.summarized;
      paint(result.text, result.sources);
      state('done');
    }, () => signal.aborted || (summary.hidden = true));
  };
  // Searches now: aborts the previous search and summary; stale answers are dropped.
  const run = (query: string) => {
    clearTimeout(timer);
    ctrl?.abort();
    shown = query;
    if (!query) return view(null);
    const { signal } = (ctrl = new AbortController());
    client.searchPage(query, { limit: 8, signal }).then((page) => {
      if (signal.aborted) return;
      view(page.data, query);
      if (s.summary && page.summarisable) summarize(query, signal);
    }, () => signal.aborted || say(t('answerFailed')));
  };
  on(input, 'input', () => {
    const query = input.value.trim();
    clearTimeout(timer);
    select(-1);
    if (query === shown) return;
    if (!query) return run('');
    say(t('searching'));
    timer = setTimeout(run, s.debounce, query);
  });
  on(input, 'keydown', (event: KeyboardEvent) => {
    const { key } = event;
    const count = rows().length;
    const link = rows()[active]?.querySelector('a');
    if ((key === 'ArrowDown' || key === 'ArrowUp') && count) {
      event.preventDefault();
      select(key === 'ArrowUp' ? (active < 1 ? count : active) - 1 : (active + 1) % count)?.scrollIntoView({ block: 'nearest' });
    } else if (key === 'Enter' && !event.isComposing) {
      if (link) {
        event.preventDefault();
        link.click();
      } else if (input.value.trim() !== shown) run(input.value.trim());
    } else if (key === 'Escape' && modal) event.preventDefault(); // closes the modal without clearing the field
  });

  const dialog = modal && h('dialog', { lore: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('search'), 'data-open': 'false', onclose: () => close() });
  const open = () => {
    if (!dialog) return input.focus();
    if (dialog.open) return;
    const focused = document.activeElement;
    opener = focused === host ? root.activeElement : focused;
    dialog.showModal();
    dialog.setAttribute('data-open', 'true');
    input.focus();
    input.select();
  };
  // Also runs on the dialog's own close event (Escape handled by the browser).
  const close = () => {
    if (!dialog || dialog.getAttribute('data-open') !== 'true') return;
    dialog.close();
    dialog.setAttribute('data-open', 'false');
    (opener as HTMLElement | null)?.focus?.();
  };
  on(document, 'keydown', (event: KeyboardEvent) => {
    if ((event.key === 'k' || event.key === 'K') && (event.metaKey || event.ctrlKey) && !event.altKey && !event.shiftKey) {
      event.preventDefault();
      dialog && dialog.open ? close() : open();
    }
  });
  on(document, 'click', (event: MouseEvent) => {
    if (!triggers || !(event.target as Element).closest?.(triggers)) return;
    event.preventDefault();
    open();
  }, true);

  const field = !ext && h('div', { class: 'field' }, icon('search'), input, speechButton(context, input, run));
  if (dialog) {
    const box = h('div', { class: 'box' },
      h('div', { class: 'head' }, field, h('button', { type: 'button', class: 'iconbtn', 'aria-label': t('closeSearch'), onclick: close }, icon('close'))),
      body,
      h('div', { class: 'foot' }, h('span', { class: 'keys', 'aria-hidden': 'true' }, ...['↵', '↑', '↓', 'esc'].map(kbd)), brand));
    box.addEventListener('keydown', focusTrap(box, close));
    dialog.append(box);
    on(dialog, 'mousedown', (event: MouseEvent) => event.target === dialog && close());
    const button = target && !triggers && h('button', {
      type: 'button', lore: 'search-button', class: 'btn', 'aria-label': t('search'), 'aria-haspopup': 'dialog', onclick: open,
    }, icon('search'), h('span', { class: 'ph', text: placeholder }), h('span', { class: 'keys' }, kbd(MAC ? '⌘' : 'Ctrl'), kbd('K')));
    root.append(button || '', dialog);
    (button ? target! : document.body).append(host);
  } else {
    root.append(h('div', { class: 'inl' }, field, body));
    ext && !target ? ext.after(host) : target!.append(host);
  }

  return {
    open,
    close,
    destroy() {
      clearTimeout(timer);
      ctrl?.abort();
      life.abort();
      close();
      host.remove();
    },
  };
};
