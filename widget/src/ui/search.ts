import type { SearchHit, Source } from '../core/headless.js';
import { snippetHtml } from '../core/markdown.js';
import { requireElement } from '../core/options.js';
import { focusTrap, h, icon, iconButton, renderAnswer, safeUrl } from './dom.js';
import type { WidgetFactory } from './handle.js';
import { speechButton } from './speech.js';

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
    snippet.innerHTML = snippetHtml(hit.snippet ?? '');
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
  const summarize = (query: string, signal: AbortSignal) => {
    const sources: Source[] = [];
    const state = (value: string) => summary.setAttribute('data-state', value);
    summary.hidden = false;
    state('streaming');
    text.replaceChildren(h('p', { text: t('thinking') }));
    client.summarize(query, { signal, onToken: (_, full) => signal.aborted || renderAnswer(text, full, sources), onSource: (source) => sources.push(source) }).then((result) => {
      if (signal.aborted) return;
      summary.hidden = !result.summarized;
      renderAnswer(text, result.text, result.sources);
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
    const query = typed(input.value);
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
      } else if (typed(input.value) !== shown) run(typed(input.value));
    } else if (key === 'Escape' && modal) event.preventDefault(); // closes the modal without clearing the field
  });

  const dialog = modal && h('dialog', { lore: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('search'), 'data-open': 'false', onclose: () => (dialog as HTMLDialogElement).open || close() });
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
      h('div', { class: 'head' }, field, iconButton(t('closeSearch'), 'close', { type: 'button', title: null, onclick: close })),
      body,
      // Key hints are hidden on touch-only devices (SEARCH_CSS); the footer too, when it holds nothing else.
      h('div', { class: brand ? 'foot' : 'foot bare' }, h('span', { class: 'keys', 'aria-hidden': 'true' }, ...['↵', '↑', '↓', 'esc'].map(kbd)), brand));
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

/**
 * What is typed, as the search is asked: without leading spaces, and with one trailing space
 * when there were any — Lore reads a query not ending in a space as ending in the word being
 * typed, which also matches the words it begins; a space says the word is complete.
 */
function typed(value: string): string {
  const query = value.trimStart();
  return query.trim() === '' ? '' : query.replace(/\s+$/u, ' ');
}
