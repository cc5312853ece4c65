import type { DemoKeys } from '../../domain/widgets/demo.js';
import { docPath } from '../../loreDocs.js';

/**
 * The policy the demo pages are served with: no inline script or style anywhere, so they prove
 * the browser SDK runs under a strict Content-Security-Policy.
 */
export const DEMO_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data: https:; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Where a document of Lore's is shown (`/demo/docs/` for README.md, `/demo/docs/SEARCH` for docs/SEARCH.md). */
export const docHref = docPath;

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * A demo page: the widget keys in `<meta name="lore-search-key|lore-chat-key">` for /demo.js,
 * the SDK and the analytics beacon (search widget key) from /widget/v1/, then `main`, which is
 * trusted HTML.
 */
function layout(keys: DemoKeys, title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<meta name="lore-search-key" content="${escape(keys.search)}">
<meta name="lore-chat-key" content="${escape(keys.chat)}">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/demo.css">
<script src="/widget/v1/service.js" defer></script>
<script src="/widget/v1/service-analytics.js" data-widget="${escape(keys.search)}" defer></script>
<script src="/demo.js" defer></script>
</head>
<body>
<header class="top">
<a class="brand" href="/">Lore</a>
<nav><a href="${docHref('README.md')}">Documentation</a><a href="/docs">API reference</a></nav>
</header>
${main}
<footer class="bottom">Lore is free software you run yourself. This demo answers from Lore’s own documentation, with no API keys and no network.</footer>
</body>
</html>
`;
}

/**
 * The search box that opens the search widget. Its shortcut hint says Ctrl K (demo.js makes it
 * ⌘ K on a Mac) and is hidden on touch-only devices (demo.css), where no key can press it.
 */
const SEARCH_TRIGGER =
  '<button id="lore-demo-search" class="search-trigger" type="button" aria-label="Search the Lore docs" aria-keyshortcuts="Control+K Meta+K"><span>Search the Lore docs…</span><kbd>Ctrl K</kbd></button>';

const CARDS = [
  { title: 'Hybrid search', text: 'BM25 and vectors fused, with filters, boosts and a score breakdown per result.', doc: 'SEARCH.md' },
  { title: 'Grounded answers', text: 'Summaries and multi-turn chat that cite the passages they were given, streamed.', doc: 'ANSWERS.md' },
  { title: 'Embeddable widgets', text: 'One script tag for a search modal and a chat bubble, under a strict CSP like this page’s.', doc: 'WIDGET.md' },
];

/**
 * The demo home page. Element ids the SDK tests rely on: `#lore-demo-search` (the search
 * widget's `trigger`), `#lore-demo-ask` (asks the chat its `data-question`); the chat widget
 * is the default bubble.
 */
export function demoHomePage(keys: DemoKeys): string {
  const cards = CARDS.map(
    (c) =>
      `<a class="card" href="${docHref(c.doc)}" data-dl-click data-dl-source="demo"><h2>${escape(c.title)}</h2><p>${escape(c.text)}</p></a>`,
  ).join('\n');
  return layout(
    keys,
    'Lore: knowledge search, summaries and chat',
    `<main id="lore-demo" class="home">
<h1>Search, summaries and chat over your own knowledge</h1>
<p class="lead">Lore is a self-hostable knowledge service: put your docs, help articles and product pages into collections, and it serves hybrid semantic search, AI summaries and grounded chat with citations, through a REST API and widgets for your website.</p>
${SEARCH_TRIGGER}
<p class="ask">Or ask: <button id="lore-demo-ask" class="link" type="button" data-question="How do I embed the chat widget?">How do I embed the chat widget?</button></p>
<p>Everything on this page runs on this server: search Lore’s documentation, or ask the assistant in the corner.</p>
<section class="cards">
${cards}
</section>
</main>`,
  );
}

/** A document of Lore's (`html` already rendered and sanitised) and links to the others (`names`), with both widgets. */
export function demoDocPage(keys: DemoKeys, name: string, html: string, names: readonly string[]): string {
  const links = names.map((n) => `<a href="${docHref(n)}"${n === name ? ' aria-current="page"' : ''}>${escape(n)}</a>`).join('');
  return layout(
    keys,
    `${name} · Lore`,
    `<main id="lore-demo" class="doc">
<nav class="doc-list" aria-label="Documents">${links}</nav>
${SEARCH_TRIGGER}
<article>
${html}
</article>
</main>`,
  );
}
