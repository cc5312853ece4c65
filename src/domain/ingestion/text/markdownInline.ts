/**
 * Markdown and MDX read as what a reader sees, for quoting: the syntax imported docs carry for
 * their renderer (VitePress containers, GitHub alerts, MDX imports and components, inline
 * HTML, entities, relative links) becomes text or goes, and code is never altered. Pure.
 *
 * Two steps: `markdownStructure` rewrites block syntax line by line before the Markdown is
 * parsed, `inlineText` rewrites one inline run (a paragraph, an item, a cell) after.
 */

/** A fence line (``` or ~~~, up to 3 spaces in). */
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
/** An ESM line of an MDX page (`import X from '…'`, `import '…'`, `export const …`). */
const ESM_LINE = /^\s*(?:import\s+(?:[\w*{}\s,]+\s+from\s+)?['"][^'"]*['"];?\s*$|export\s+(?:default|const|function|let|var|\{))/;
/** A VitePress container opening (`::: tip`, `::: details Title`, `:::warning`) or closing (`:::`). */
const CONTAINER = /^\s*:{3,}\s*([\w-]*)\s*(.*?)\s*$/;
/** A GitHub alert (`> [!NOTE]`). */
const ALERT = /^(\s*>\s*)\[!(\w+)\]\s*$/;
/** An MDX callout component on its own line (`<Alert type="warning">`). */
const CALLOUT_TAG = /^\s*<(?:Alert|Callout|Admonition|Aside)\b[^<>]*?\btype=["'](\w+)["'][^<>]*>\s*$/;
/** An MDX parameter component on its own line (`<Param name="limit" type="Number" default='"100kb"'>`). */
const PARAM_TAG = /^\s*<(?:Param|Property|Prop|Option)\b([^<>]*)>\s*$/;
/** A VitePress snippet import (`<<< ./example.yaml#content [deploy.yml]`): a file the page renders, not text. */
const SNIPPET_IMPORT = /^\s*<<<\s+\S/;
/** Containers that carry no label of their own. */
const UNLABELLED = new Set(['code-group', 'raw', 'v-pre']);

/**
 * `markdown` with its renderer's block syntax rewritten outside code fences: MDX ESM lines and
 * VitePress snippet imports (`<<< ./file`) dropped; a container (`::: tip Title` … `:::`), a GitHub alert (`> [!NOTE]`), a callout
 * component (`<Alert type="warning">`) or a parameter component (`<Param name="limit" …>`)
 * becomes a label ("Title:", "Note:", "Warning:", "`limit` (default: "100kb"):") in front of
 * the next line of text — or goes when a fence, list, table or heading follows —, and a
 * container's closing marker goes. Lines are never merged or split: positions in lines stay
 * comparable.
 */
export function markdownStructure(markdown: string): string {
  const lines = markdown.split('\n');
  const code = fencedLines(lines);
  let label: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (code[i]) {
      // A label goes when a fence follows it.
      label = null;
      continue;
    }
    const own = ownLabel(line);
    if (own !== undefined) {
      lines[i] = ALERT.test(line) ? ALERT.exec(line)![1]!.trimEnd() : '';
      label = own;
      continue;
    }
    if (ESM_LINE.test(line) || SNIPPET_IMPORT.test(line)) {
      lines[i] = '';
      continue;
    }
    if (label !== null && line.trim() !== '' && !/^\s*>?\s*$/.test(line)) {
      // Text takes the label; a heading, list, table or HTML line does not (the label goes).
      const start = /^\s*(?:>\s*)*/.exec(line)![0];
      const rest = line.slice(start.length);
      if (!/^(?:#{1,6}\s|[-*+]\s|\d{1,3}[.)]\s|\||<)/.test(rest)) lines[i] = `${start}${label} ${rest}`;
      label = null;
    }
  }
  return lines.join('\n');
}

/** Whether each line is part of a fenced code block (its fence lines included). */
export function fencedLines(lines: readonly string[]): boolean[] {
  const inside: boolean[] = [];
  let fence: string | null = null;
  for (const line of lines) {
    const marker = FENCE.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      inside.push(true);
    } else if (fence !== null) {
      inside.push(true);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
    } else inside.push(false);
  }
  return inside;
}

/** The label a block-syntax line gives the text after it ('' for none), or undefined when it is no such line. */
function ownLabel(line: string): string | null | undefined {
  const container = CONTAINER.exec(line);
  if (container) {
    const [, type, title] = container;
    if (!type || UNLABELLED.has(type.toLowerCase())) return null;
    const text = title ? caseOf(inlineText(title.replace(/\{[^{}]*\}\s*$/, '').trim())) : caseOf(type);
    return /[.?!:]$/.test(text) ? text : `${text}:`;
  }
  const alert = ALERT.exec(line) ?? CALLOUT_TAG.exec(line);
  if (alert) return `${caseOf(alert[alert.length - 1]!)}:`;
  const param = PARAM_TAG.exec(line);
  if (param) {
    const name = attribute(param[1]!, 'name');
    if (!name) return null;
    const fallback = attribute(param[1]!, 'default');
    return `\`${name}\`${fallback ? ` (default: \`${fallback}\`)` : ''}:`;
  }
  return undefined;
}

function attribute(attributes: string, name: string): string | null {
  const m = new RegExp(`(?:^|\\s)${name}=(?:"([^"]*)"|'([^']*)')`).exec(attributes);
  const value = m ? (m[1] ?? m[2] ?? '').trim() : '';
  return value !== '' && !value.includes('`') ? value : null;
}

/** A callout's type or title as its label's words: "NOTE" and "tip" → "Note", "Tip"; a title in mixed case stays. */
export function caseOf(text: string): string {
  const word = text === text.toUpperCase() || text === text.toLowerCase() ? text.toLowerCase() : text;
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * Named entities docs use (others and numeric ones are decoded by code point; an unknown name
 * stays as written).
 */
const ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ensp: ' ', emsp: ' ', thinsp: ' ', shy: '',
  mdash: '—', ndash: '–', hellip: '…', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»',
  copy: '©', reg: '®', trade: '™', deg: '°', times: '×', divide: '÷', plusmn: '±', middot: '·', bull: '•',
  larr: '←', rarr: '→', uarr: '↑', darr: '↓', harr: '↔', rArr: '⇒', lArr: '⇐', hArr: '⇔', le: '≤', ge: '≥', ne: '≠',
  sect: '§', para: '¶', euro: '€', pound: '£', yen: '¥', cent: '¢', check: '✓', zwj: '', zwnj: '',
};

/** `text` with HTML character references decoded (`&mdash;` → —, `&#39;` → ', `&lt;` → <). */
export function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return ENTITIES[name] ?? whole;
    const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
  });
}

/** A link destination: no spaces, balanced parentheses one deep (`…/Foo_(bar)`). */
const DESTINATION = String.raw`<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*`;
/** Link text: code spans or anything but brackets and backticks, nested brackets one deep. */
const LINK_TEXT = String.raw`(?:\`+[^\`]*?\`+|\[[^\[\]\n]*\]|[^\[\]\`])*`;
/**
 * One pass over an inline run, left to right: a code span (kept), an image, an inline link, a
 * reference link, an autolink, an HTML or JSX tag, an entity.
 */
const INLINE = new RegExp(
  [
    String.raw`(?<code>\`+)[^\`][\s\S]*?\k<code>(?!\`)`,
    String.raw`(?<image>!\[${LINK_TEXT}\](?:\((?:${DESTINATION})(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)|\[[^\[\]]*\])?)`,
    String.raw`\[(?<text>${LINK_TEXT})\]\((?<href>${DESTINATION})(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)`,
    String.raw`\[(?<reftext>${LINK_TEXT})\]\[[^\[\]\n]*\]`,
    String.raw`\[(?<loosetext>${LINK_TEXT})\]\([^()\n]*\)`,
    String.raw`<(?<autolink>(?:https?|mailto):[^\s<>]+)>`,
    String.raw`(?<tag></?[A-Za-z][\w.:-]*(?:\s+[^<>]*?)?/?>|<!--[\s\S]*?-->)`,
    String.raw`(?<entity>&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});)`,
  ].join('|'),
  'g',
);

/**
 * One inline run (a paragraph, list item or table cell) as a reader sees it: code spans
 * untouched; images dropped; links whose target is http(s) kept as `[text](url)`, relative
 * ones (`./config.md#server-proxy`, `/guide/`, `#anchor`) resolved against `base` (the page
 * the passage comes from; `.md`/`.mdx` dropped from the path) or shown as their text when
 * there is no base or the target does not resolve; reference links and links to no valid URL (`[guide]({{ page.lang }}/guide)`) as their text; autolinks as
 * their URL; HTML and JSX tags and comments dropped, their content kept; entities decoded.
 */
export function inlineText(text: string, base?: string | null): string {
  const out = text.replace(INLINE, (whole, ...args) => {
    const g = args[args.length - 1] as Record<string, string | undefined>;
    if (g.code !== undefined) return whole;
    if (g.image !== undefined) return '';
    if (g.href !== undefined) return link(inlineText(g.text ?? '', base), g.href, base);
    if (g.reftext !== undefined) return inlineText(g.reftext, base);
    if (g.loosetext !== undefined) return inlineText(g.loosetext, base);
    if (g.autolink !== undefined) return g.autolink.replace(/^mailto:/, '');
    if (g.tag !== undefined) return BREAKING_TAG.test(g.tag) ? ' ' : '';
    return decodeEntities(g.entity ?? whole);
  });
  // Tags left outside code were written as entities (`&lt;div&gt;`): markup named in text, shown as code.
  return withoutStrayLinkTails(out.replace(NAMED_TAG, (whole, code?: string) => (code !== undefined ? whole : `\`${whole}\``)));
}

/**
 * A heading as its reader sees it (inlineText, no page to resolve links against): a component
 * in it goes (VitePress's `## optimizeDeps.include <NonInheritBadge />`, `<Badge text="beta"
 * />`), and so does phrasing markup (`<sup>`, `<span>`), its text kept; a tag no heading can
 * hold is a name written in it ("The <script> element", as turndown writes a web page's
 * `&lt;script&gt;`), kept as code. Code spans stay as written, entities are decoded; spaces a
 * tag leaves are one.
 */
export function headingText(heading: string): string {
  const named = heading.replace(NAMED_TAG, (whole, code?: string) => {
    const name = code === undefined ? /^<\/?([\w.:-]+)/.exec(whole)![1]! : '';
    // An HTML element's name is lower case; a component's is capitalised or hyphenated (inlineText drops those).
    return !/^[a-z][a-z0-9]*$/.test(name) || PHRASING.has(name) ? whole : whole.replace(/</g, '&lt;').replace(/>/g, '&gt;');
  });
  return inlineText(named).replace(/\s+/g, ' ').trim();
}
/** The elements a heading's text may be marked up with (HTML's phrasing content). */
const PHRASING = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'br', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'img', 'ins', 'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var', 'wbr']);

/** A link's `](target)` whose `[` the author left out ("Express 5.x](/api)"), outside code and whole links: the target goes. */
function withoutStrayLinkTails(text: string): string {
  // One pass, left to right: code spans and whole links are matched first and kept.
  return text.includes('](') ? text.replace(STRAY_LINK_TAIL, (whole) => (whole.startsWith('](') ? '' : whole)) : text;
}

/** Tags that separate words (`<br>`, `</p>`, `<td>`); other tags wrap them (`<span>`, `<a>`). */
const BREAKING_TAG = /^<\/?(?:br|p|div|li|ul|ol|tr|td|th|hr|table|section|details|summary)\b/i;
const NAMED_TAG = /(\`+)[^\`][\s\S]*?\1(?!\`)|<\/?[A-Za-z][\w.:-]*(?:\s+[^<>]*?)?\/?>/g;

/** A Markdown link as inlineText writes them: `[text](url)`, the text's brackets escaped. */
export const MARKDOWN_LINK = /(?<!\\)\[((?:\\.|[^\[\]\\\n])*)\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*\)/g;

const STRAY_LINK_TAIL = new RegExp(String.raw`(\`+)[^\`][\s\S]*?\1(?!\`)|${MARKDOWN_LINK.source}|\]\([^()\s]*\)`, 'g');

/** `text` as a reader sees it rendered: each link as its text (what its words and length are). */
export function linkTexts(text: string): string {
  return text.replace(MARKDOWN_LINK, '$1');
}

function link(text: string, destination: string, base: string | null | undefined): string {
  const href = destination.replace(/^<|>$/g, '');
  const label = text.trim();
  if (label === '') return '';
  const url = resolve(href, base);
  return url ? `[${label.replace(/[[\]]/g, '\\$&')}](${url.replace(/[()\s]/g, encodeURIComponent)})` : label;
}

/** The absolute http(s) URL `href` names, read from page `base`; null when there is none. */
function resolve(href: string, base: string | null | undefined): string | null {
  if (/^https?:\/\//i.test(href)) return parse(href);
  if (!base || /\{\{|\{%|^[a-z][\w+.-]*:/i.test(href)) return null;
  const baseUrl = parse(base);
  if (!baseUrl) return null;
  const url = parse(href, baseUrl);
  if (!url) return null;
  const resolved = new URL(url);
  resolved.pathname = resolved.pathname.replace(/\.mdx?$/i, '').replace(/\/index$/, '/');
  return resolved.href;
}

function parse(href: string, base?: string): string | null {
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
