import type { Source } from '../core/headless.js';
import { markdown } from '../core/markdown.js';

type Child = Node | string | null | undefined | false;
type Props = Record<string, unknown>;

/**
 * Creates an element: `lore` sets `data-lore` (the DOM contract of docs/WIDGET.md), `text` the
 * text content, `on<event>` functions (event name in lower case) become listeners,
 * `false`/`null`/`undefined` values are skipped, every other prop is an attribute. Never sets
 * inline styles (strict CSP).
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === false || value == null) continue;
    if (name === 'text') element.textContent = value as string;
    else if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value as EventListener);
    else element.setAttribute(name === 'lore' ? 'data-lore' : name, value === true ? '' : (value as string));
  }
  for (const child of children) if (child != null && child !== false) element.append(child);
  return element;
}

const ICONS = {
  chat: 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z',
  close: 'M6 6l12 12M18 6L6 18',
  send: 'M4 12l16-8-6 16-2-7-8-1z',
  search: 'M11 4a7 7 0 1 1 0 14 7 7 0 0 1 0-14zm5 12l4 4',
  mic: 'M12 3a3 3 0 0 1 3 3v6a3 3 0 0 1-6 0V6a3 3 0 0 1 3-3zM5 11a7 7 0 0 0 14 0M12 18v3',
  up: 'M7 11v9H4v-9h3zm0 0l4-8a2 2 0 0 1 2 2v4h5a2 2 0 0 1 2 2l-2 7a2 2 0 0 1-2 1H7',
  down: 'M7 13V4H4v9h3zm0 0l4 8a2 2 0 0 0 2-2v-4h5a2 2 0 0 0 2-2l-2-7a2 2 0 0 0-2-1H7',
  plus: 'M12 5v14M5 12h14',
  enter: 'M20 5v7a3 3 0 0 1-3 3H6m4-4l-4 4 4 4',
  page: 'M6 3h9l4 4v14H6zM14 3v5h5',
} as const;

/** A stroked 24×24 icon, hidden from assistive technology (its button carries the label). */
export function icon(name: keyof typeof ICONS): SVGSVGElement {
  const svg = svgElement('svg', { viewBox: '0 0 24 24', 'aria-hidden': 'true', class: 'icon' });
  svg.append(svgElement('path', { d: ICONS[name] }));
  return svg;
}

function svgElement<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string>): SVGElementTagNameMap[K] {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const name in attributes) element.setAttribute(name, attributes[name]!);
  return element;
}

/** An icon button labelled `label` (also its tooltip, unless `props` sets `title: null`). */
export const iconButton = (label: string, glyph: keyof typeof ICONS, props: Props = {}) =>
  h('button', { class: 'iconbtn', 'aria-label': label, title: label, ...props }, icon(glyph));

const sheets = new Map<string, CSSStyleSheet>();

function sheet(css: string): CSSStyleSheet {
  let made = sheets.get(css);
  if (!made) {
    made = new CSSStyleSheet();
    made.replaceSync(css);
    sheets.set(css, made);
  }
  return made;
}

/**
 * A host element for one widget with an open shadow root holding `css`. Styles are adopted
 * constructable stylesheets, which a strict CSP allows (no inline <style>); browsers without
 * them get a <style> element instead.
 */
export function createHost(kind: 'chat' | 'search', css: string[]): { host: HTMLElement; root: ShadowRoot } {
  const host = h('div', { 'data-lore-widget': kind });
  const root = host.attachShadow({ mode: 'open' });
  try {
    // `new CSSStyleSheet()` throws where stylesheets cannot be constructed (Safari before 16.4).
    if (!('adoptedStyleSheets' in root)) throw new Error();
    root.adoptedStyleSheets = css.map(sheet);
  } catch {
    root.append(h('style', { text: css.join('\n') }));
  }
  return { host, root };
}

/**
 * Keeps `host`'s `data-theme` on light or dark (`auto` follows the system setting live) and its
 * accent colour variable on the matching accent. Returns a function that stops following.
 */
export function applyTheme(host: HTMLElement, settings: { theme: string; accent_light: string; accent_dark: string }): () => void {
  const query = window.matchMedia?.('(prefers-color-scheme: dark)');
  const update = () => {
    const dark = settings.theme === 'dark' || (settings.theme === 'auto' && query?.matches);
    host.setAttribute('data-theme', dark ? 'dark' : 'light');
    host.style.setProperty('--lore-accent', dark ? settings.accent_dark : settings.accent_light);
  };
  update();
  if (settings.theme !== 'auto' || !query) return () => {};
  query.addEventListener('change', update);
  return () => query.removeEventListener('change', update);
}

const FOCUSABLE = 'a[href],:is(button,input,textarea):not([disabled]),select,[tabindex]:not([tabindex="-1"])';

/**
 * Traps Tab and Shift+Tab inside `container` (in a shadow root) and calls `onEscape` on
 * Escape. Returns the keydown listener to attach to `container`.
 */
export function focusTrap(container: HTMLElement, onEscape: () => void): (event: KeyboardEvent) => void {
  return (event) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onEscape();
      return;
    }
    if (event.key !== 'Tab') return;
    const items = [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
    const active = (container.getRootNode() as ShadowRoot).activeElement;
    const [first] = items;
    const last = items.at(-1);
    // Shift+Tab on the first item (or from outside) goes to the last one; Tab on the last, to the first.
    const to = event.shiftKey ? (active === first || !container.contains(active)) && last : active === last && first;
    if (to) {
      event.preventDefault();
      to.focus();
    }
  };
}

/**
 * Renders the markdown of an answer into `element` (images only when `images`), its `[n]`
 * citation markers linked to the n-th source (`ref`, else its position from 1).
 */
export function renderAnswer(element: HTMLElement, text: string, sources: Source[], images = false): void {
  element.innerHTML = markdown(text, { images });
  linkCitations(element, new Map(sources.map((source, i) => [source.ref ?? i + 1, source])));
}

/** Replaces `[n]` citation markers in the text nodes of `element` with links to `urls[n]`. */
function linkCitations(element: HTMLElement, urls: ReadonlyMap<number, Source>): void {
  // streaming-markdown reads a bare `[1]` as a link without href: back to the marker text.
  for (const link of element.querySelectorAll('a:not([href])')) if (/^\d{1,3}$/.test(link.textContent!)) link.replaceWith(`[${link.textContent}]`);
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node; (node = walker.nextNode()); ) if (/\[\d{1,3}\]/.test(node.nodeValue!) && !node.parentElement!.closest('a, code, pre')) nodes.push(node as Text);
  for (const node of nodes) {
    // Odd parts are the numbers of the markers.
    node.replaceWith(...node.nodeValue!.split(/\[(\d{1,3})\]/).map((part, i) => {
      const source = i % 2 ? urls.get(+part) : undefined;
      if (!source) return i % 2 ? `[${part}]` : part;
      const href = safeUrl(source.url);
      return h(href ? 'a' : 'sup', { class: 'cite', href, target: href && '_blank', rel: href && 'noopener noreferrer', title: source.title, text: part });
    }));
  }
}

/**
 * `url` when it is safe to put in an href or src (http, https, or relative to the page),
 * else undefined: a `javascript:` or `data:` URL from content never reaches the DOM.
 */
export function safeUrl(url: unknown): string | undefined {
  if (typeof url !== 'string' || !url.trim()) return undefined;
  try {
    const parsed = new URL(url, location.href);
    return /^https?:$/.test(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
