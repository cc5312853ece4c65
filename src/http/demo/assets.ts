/**
 * The demo pages' script and style sheet, served as /demo.js and /demo.css (external files:
 * the pages' CSP allows no inline script or style).
 */

/**
 * Mounts the search widget on `#lore-demo-search` (its shortcut hint ⌘ K on a Mac) and the chat
 * bubble with the keys the page carries in `<meta name="lore-search-key|lore-chat-key">`;
 * `#lore-demo-ask` asks the chat its `data-question`; a confirmed `navigate` action opens its
 * same-origin `url`.
 */
export const DEMO_JS = `(function () {
  'use strict';
  function meta(name) {
    var element = document.querySelector('meta[name="' + name + '"]');
    return element ? element.getAttribute('content') : null;
  }
  var sdk = window.ServiceSdk;
  // The shortcut hint as a Mac user presses it.
  var hint = document.querySelector('#lore-demo-search kbd');
  if (hint && /Mac|iP(hone|ad|od)/.test(navigator.platform || navigator.userAgent)) hint.textContent = '\u2318 K';
  var searchKey = meta('lore-search-key');
  var chatKey = meta('lore-chat-key');
  if (!sdk || !searchKey || !chatKey) return;
  sdk.search(searchKey, { trigger: '#lore-demo-search' }).mount();
  var chat = sdk.chat(chatKey).mount();
  var ask = document.getElementById('lore-demo-ask');
  if (ask) ask.addEventListener('click', function () { chat.ask(ask.getAttribute('data-question')); });
  chat.on('action', function (detail) {
    var action = detail.action;
    if (action.type !== 'navigate' || typeof action.url !== 'string') return;
    var url = new URL(action.url, location.href);
    if (url.origin === location.origin) location.assign(url.href);
  });
})();
`;

export const DEMO_CSS = `:root {
  color-scheme: light dark;
  --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa; --line: #d1d9e0; --accent: #2563eb;
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --line: #3d444d; --accent: #60a5fa; }
}
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
.top { display: flex; align-items: center; justify-content: space-between; gap: 1rem; padding: 0.75rem 1.5rem; border-bottom: 1px solid var(--line); }
.top nav { display: flex; gap: 1.25rem; }
.brand { font-weight: 700; font-size: 1.2rem; color: var(--fg); text-decoration: none; }
main { max-width: 56rem; margin: 0 auto; padding: 2rem 1.5rem 6rem; }
.home h1 { font-size: 2.2rem; line-height: 1.2; margin: 1rem 0; }
.lead { font-size: 1.15rem; color: var(--muted); }
.search-trigger {
  display: flex; align-items: center; justify-content: space-between; width: 100%; max-width: 32rem; margin: 1.5rem 0 1rem;
  padding: 0.7rem 1rem; font: inherit; color: var(--muted); background: var(--panel); border: 1px solid var(--line); border-radius: 0.6rem; cursor: pointer;
}
.search-trigger:hover, .search-trigger:focus-visible { border-color: var(--accent); }
kbd { font: 0.8rem ui-monospace, monospace; padding: 0.1rem 0.4rem; border: 1px solid var(--line); border-radius: 0.3rem; }
.link { font: inherit; color: var(--accent); background: none; border: 0; padding: 0; cursor: pointer; text-decoration: underline; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; margin-top: 2.5rem; }
.card { display: block; padding: 1rem 1.2rem; color: var(--fg); text-decoration: none; background: var(--panel); border: 1px solid var(--line); border-radius: 0.6rem; }
.card:hover { border-color: var(--accent); }
.card h2 { margin: 0 0 0.4rem; font-size: 1.1rem; }
.card p { margin: 0; color: var(--muted); }
.doc-list { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; font-size: 0.9rem; }
.doc-list [aria-current] { font-weight: 700; color: var(--fg); }
article pre { overflow-x: auto; padding: 0.8rem 1rem; background: var(--panel); border-radius: 0.4rem; }
article code { font: 0.9em ui-monospace, monospace; }
article table { border-collapse: collapse; display: block; overflow-x: auto; }
article th, article td { padding: 0.3rem 0.6rem; border: 1px solid var(--line); text-align: left; vertical-align: top; }
.bottom { padding: 1.5rem; text-align: center; color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--line); }
/* A phone: the search box high enough that the chat bubble in the corner never covers it. */
@media (max-width: 640px) {
  main { padding: 1.25rem 1rem 6rem; }
  .home h1 { font-size: 1.6rem; margin: 0.5rem 0; }
  .lead { font-size: 1rem; }
}
/* No keyboard shortcut to show where there is no keyboard (a touch-only phone or tablet). */
@media (hover: none) and (pointer: coarse) {
  .search-trigger kbd { display: none; }
}
`;
