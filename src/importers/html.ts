/**
 * A web page's readable content as Markdown: the main text (Mozilla's Readability, on a
 * linkedom document), not its navigation, header, footer or cookie banner, with headings,
 * lists, tables and code blocks kept as Markdown (turndown with GitHub-flavoured tables).
 * Used by the folder import for .html files; meant for the crawler too.
 */
import { Readability } from '@mozilla/readability';
import { gfm } from '@joplin/turndown-plugin-gfm';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { caseOf } from '../domain/ingestion/text/markdownInline.js';
import { anchorsOf, type Anchors } from '../domain/ingestion/text/sections.js';

export interface HtmlDocument {
  /** The page's title: Readability's, else `<title>`, else its first `<h1>`. */
  title: string | null;
  markdown: string;
  /** `<link rel="canonical">`, as written. */
  canonical: string | null;
  /** The ids of its headings (sections.ts), null when none has one. */
  anchors: Anchors | null;
}

/** Elements that are never content. */
const CHROME = 'script, style, noscript, template, iframe, nav, header, footer, aside, form, [role="navigation"], [role="banner"], [role="contentinfo"], [aria-hidden="true"]';
/** Cookie and consent banners, by the names sites give them. */
const BANNERS = '[id*="cookie" i], [class*="cookie" i], [id*="consent" i], [class*="consent" i]';
/** Below this much text, Readability's pick is not trusted over the page's main element. */
const MIN_READABLE_CHARS = 200;

/** A code block's language as docs put it in a class (`language-sh`, `lang-js`), on the code, the pre or their wrapper. */
const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang)-([\w+#-]+)/;

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
turndown.use(gfm);
// A code block keeps its language from `class="language-x"` on <pre> or <code>.
turndown.addRule('fencedCode', {
  filter: (node) => node.nodeName === 'PRE',
  replacement: (_content, node) => {
    const element = node as HTMLElement;
    const code = element.querySelector('code') ?? element;
    // Docs themes put the language on a wrapper (VitePress: <div class="language-sh"><pre>).
    const wrapper = element.parentElement;
    const classes = `${code.getAttribute('class') ?? ''} ${element.getAttribute('class') ?? ''} ${wrapper?.getAttribute('class') ?? ''}`;
    const language = LANGUAGE_CLASS.exec(classes)?.[1] ?? '';
    const text = (code.textContent ?? '').replace(/\n$/, '');
    const fence = text.includes('```') ? '~~~' : '```';
    return `\n\n${fence}${language}\n${text}\n${fence}\n\n`;
  },
});

export function htmlToMarkdown(html: string): HtmlDocument {
  const { document } = parseHTML(html);
  withoutThemeChrome(document);
  const canonical = document.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? null;
  const pageTitle = visible(document.querySelector('title')?.textContent) || null;
  const heading = visible(document.querySelector('h1')?.textContent) || null;
  const anchors = anchorsOf([...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) => ({ text: h.textContent ?? '', id: headingId(h) })));

  for (const element of document.querySelectorAll(`${CHROME}, ${BANNERS}`)) element.remove();
  const main = document.querySelector('main, [role="main"], article') ?? document.body;
  const mainHtml = main?.innerHTML ?? '';
  let article: { title?: string | null; content?: string | null; textContent?: string | null } | null = null;
  try {
    article = new Readability(document as unknown as Document, { keepClasses: true }).parse();
  } catch {
    article = null;
  }
  const readable = article?.content && (article.textContent?.trim().length ?? 0) >= Math.min(MIN_READABLE_CHARS, (main?.textContent ?? '').trim().length * 0.5);
  const markdown = visible(turndown.turndown(readable ? article!.content! : mainHtml)).replace(/\n{3,}/g, '\n\n').trim();
  return { title: heading ?? (visible(article?.title) || null) ?? pageTitle, markdown, canonical, anchors };
}

/** Zero-width characters (a permalink's text) are not text. */
function visible(text: string | null | undefined): string {
  return (text ?? '').replace(/[\u200B-\u200D\uFEFF]/g, '').trim();
}

/** What a permalink shows: nothing, or a mark. */
const PERMALINK_TEXT = /^(?:#|¶|§|🔗|link)?$/i;
/** Titles of callouts, as docs themes mark them (VitePress, Docusaurus, Sphinx and MkDocs). */
const CALLOUT_TITLE = '.custom-block-title, [class*="admonitionHeading"], .admonition-heading, .admonition-title';

/**
 * A docs theme's furniture removed from `document`, its content made plain: permalinks in
 * headings (`<a class="header-anchor" href="#x">​</a>`, "¶") go, buttons (copy, tabs) go, a
 * code block's language label beside it goes, and a callout's title ("TIP") becomes the label
 * of its text ("Tip: …"), as the Markdown import reads `::: tip`.
 */
function withoutThemeChrome(document: Document): void {
  for (const link of document.querySelectorAll('h1 a, h2 a, h3 a, h4 a, h5 a, h6 a')) {
    if ((link.getAttribute('href') ?? '').startsWith('#') && PERMALINK_TEXT.test(visible(link.textContent))) link.remove();
  }
  for (const button of document.querySelectorAll('button')) button.remove();
  for (const pre of document.querySelectorAll('pre')) {
    const wrapper = pre.parentElement;
    if (!wrapper || !LANGUAGE_CLASS.test(wrapper.getAttribute('class') ?? '')) continue;
    for (const sibling of [...wrapper.children]) if (sibling !== pre && sibling.tagName !== 'PRE' && (sibling.textContent ?? '').trim().length <= 20) sibling.remove();
  }
  for (const title of document.querySelectorAll(CALLOUT_TITLE)) {
    const text = visible(title.textContent).replace(/:$/, '');
    const next = title.nextElementSibling;
    if (text !== '' && next?.tagName === 'P') {
      next.insertBefore(document.createTextNode(`${caseOf(text)}: `), next.firstChild);
      title.remove();
    }
  }
}

/**
 * The id a link to a heading names: its own, an anchor's inside it (`<a id>`, `<a name>`), or
 * that of the section it opens (`<section id="x"><h2>`, as Sphinx writes it); '' when none.
 */
function headingId(heading: Element): string {
  if (heading.id) return heading.id;
  const inner = heading.querySelector('[id], a[name]');
  if (inner) return inner.id || inner.getAttribute('name') || '';
  const parent = heading.parentElement;
  return parent && parent.firstElementChild === heading && parent.id && parent.tagName !== 'BODY' && parent.tagName !== 'MAIN' ? parent.id : '';
}
