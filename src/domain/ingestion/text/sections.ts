import { headingText } from './markdownInline.js';

/**
 * A part of a markdown document as the folder import's `--sections` mode makes entries of it:
 * the text before the first section heading, or one section (see `markdownSections`).
 */
export interface MarkdownSection {
  /** The section's heading (an explicit `{#id}` left out); for the part before the first section, the document's `#` title (or null when it has none). */
  title: string | null;
  /** The headings from the top section down to this one (the page's `#` title not included); [] for the part before the first section. */
  path: string[];
  /** The section's anchor: its `{#id}` where written, else its heading as GitHub slugs it; '' for the part before the first section. */
  slug: string;
  /** The section's markdown, its heading included; never blank. */
  text: string;
}

/**
 * A section longer than this (characters, its sub-sections included) is split at its
 * sub-headings. Half of the `##` sections of Vite's, Express's and Lore's docs are under 1,100
 * characters; the long tail (API pages' `## Methods` of 20,000–53,000, a migration guide's
 * 17,000) is what makes a hit useless. Measured with bench:answers: splitting at 4,000 or
 * 8,000 also split mid-size sections of Lore's README, and their focused sub-sections then
 * outranked the sections that answer (Lore's docs −3 to −4 points of gold in answer); at
 * 10,000 only the long tail is split.
 */
export const SPLIT_OVER = 10_000;
/** A sub-section shorter than this stays in its parent's entry rather than making a fragment of its own. */
export const KEEP_UNDER = 400;

const FENCE = /^\s{0,3}(```|~~~)/;
const HEADING = /^(#{1,6})\s+(\S.*?)\s*#*\s*$/;
const EXPLICIT_ID = /\s*\{#([\w-]+)\}$/;

/** A heading and what it holds, in document order: its own lines, then its sub-sections. */
interface Outline {
  level: number;
  title: string | null;
  slug: string;
  lines: string[];
  children: Outline[];
}

/**
 * Splits markdown into sections of a size worth a search hit, as DocSearch keeps a record per
 * heading level. The page is the first `#` heading (the text before any other heading is its
 * part); every heading below it at the top level present (usually `##`; `###` when a page skips
 * `##`) starts a section. A section over `SPLIT_OVER` characters is split in turn at its own
 * top sub-heading level (`###`, then `####`…): its heading and intro stay one section, each
 * sub-section becomes one, except sub-sections under `KEEP_UNDER` characters, which stay in
 * their parent's text. So a page that uses `##` as its title level, or a long `##` section
 * with `###` sub-headings, still makes entries of a useful size. Code fences never split, and
 * headings inside them are text. Blank parts are left out; slugs are counted over all headings,
 * repeat-proof like GitHub's (`limits`, `limits-1`).
 */
export function markdownSections(markdown: string): MarkdownSection[] {
  const root = outline(markdown);
  const sections: MarkdownSection[] = [];
  const push = (title: string | null, path: string[], slug: string, lines: string[]) => {
    const text = lines.join('\n').trim();
    if (text !== '') sections.push({ title, path, slug, text });
  };
  const emit = (node: Outline, path: string[]) => {
    const all = allLines(node);
    if (node.children.length === 0 || all.join('\n').length <= SPLIT_OVER) return push(node.title, path, node.slug, all);
    const kept = node.children.filter((child) => allLines(child).join('\n').trim().length < KEEP_UNDER);
    push(node.title, path, node.slug, [...node.lines, ...kept.flatMap(allLines)]);
    for (const child of node.children) if (!kept.includes(child)) emit(child, [...path, child.title!]);
  };
  push(root.title, [], '', root.lines);
  for (const child of root.children) emit(child, [child.title!]);
  return sections;
}

/** A section of a document as an entry of its own (see `sectionParts`). */
export interface SectionPart {
  /** What the entry's source_id adds to the document's: `#slug`; '' for the text before the first section. */
  fragment: string;
  /** What its source_url adds to the document's: `#` and the id the page gives the section's heading where `anchors` has it, else `fragment`. */
  link: string;
  /** The section's heading path (`sectionTitle`); for the text before the first section, the document's title (null when it has none). */
  title: string | null;
  /** The document's title, which the heading path leaves out; null for the text before the first section (titled by it) and for a document without one. */
  pageTitle: string | null;
  text: string;
  /**
   * The ids of its headings (its own and its sub-headings') whose text the document has once,
   * for citations of the words under one of them (`sectionUrl`); null when it has none.
   */
  anchors: Anchors | null;
}

/**
 * A document's sections (`markdownSections`) as the folder import's `--sections` mode and the
 * crawler's make entries of them: named by the slug, titled by the heading path (the text
 * before the first section by the document's title), linked at the page's own heading ids
 * where `anchors` (a web page's, `anchorsOf`) has them. A repeated heading's id is not known
 * (anchors hold the first of a text), so it is linked at its slug.
 */
export function sectionParts(document: { title: string | null; text: string }, anchors: Anchors | null = null): SectionPart[] {
  // A heading the document repeats has no known id (anchors hold the first of a text): no link for it.
  const times = new Map<string, number>();
  for (const { text } of markdownHeadings(document.text)) {
    const key = slugify(text);
    times.set(key, (times.get(key) ?? 0) + 1);
  }
  const ids = anchors ?? markdownAnchors(document.text) ?? {};
  const within = (text: string) =>
    anchorsOf(
      markdownHeadings(text)
        .map(({ text: heading }) => slugify(heading))
        .filter((key) => times.get(key) === 1 && Object.hasOwn(ids, key))
        .map((key) => ({ text: key, id: ids[key]! })),
    );
  return markdownSections(document.text).map((section) => {
    if (section.slug === '') return { fragment: '', link: '', title: document.title ?? section.title, pageTitle: null, text: section.text, anchors: within(section.text) };
    const fragment = `#${section.slug}`;
    const key = slugify(section.title!);
    const id = anchors !== null && section.slug === key && Object.hasOwn(anchors, key) ? anchors[key] : undefined;
    return { fragment, link: id ? `#${encodeURIComponent(id)}` : fragment, title: sectionTitle(section.path), pageTitle: document.title, text: section.text, anchors: within(section.text) };
  });
}

/** A document's headings as a tree under its page (the first `#` heading before any other). */
function outline(markdown: string): Outline {
  const root: Outline = { level: 0, title: null, slug: '', lines: [], children: [] };
  const stack = [root];
  const anchor = anchors();
  let inFence = false;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : HEADING.exec(line);
    if (!heading) {
      stack.at(-1)!.lines.push(line);
      continue;
    }
    const level = heading[1]!.length;
    const explicit = EXPLICIT_ID.exec(heading[2]!);
    const written = explicit ? heading[2]!.slice(0, explicit.index) : heading[2]!;
    const title = plain(written);
    // From the heading as written: its title again would read a literal `\<Badge\>` as a tag.
    const slug = explicit ? explicit[1]! : anchor(written);
    if (level === 1 && root.title === null && root.children.length === 0) {
      root.title = title;
      root.lines.push(line);
      continue;
    }
    while (stack.at(-1)!.level >= level) stack.pop();
    const node: Outline = { level, title, slug, lines: [line], children: [] };
    stack.at(-1)!.children.push(node);
    stack.push(node);
  }
  return root;
}

/** A heading's lines and its sub-sections', in document order. */
function allLines(node: Outline): string[] {
  return [...node.lines, ...node.children.flatMap(allLines)];
}

/** Separates the headings of a section's title. */
const TITLE_SEPARATOR = ' › ';
/** Longer titles lose their outer headings. */
const TITLE_LENGTH = 80;

/**
 * A section's title as search results and citations show it: its heading path under the page
 * title, `server.proxy › Rewrite` (a top section's title is its heading, as before sections
 * were split: the page title in every title would match a question about the page everywhere);
 * a heading repeating the one above it is said once, and a path over 80 characters loses its
 * outer headings.
 */
export function sectionTitle(path: readonly string[]): string {
  const parts: string[] = [];
  for (const part of path) if (part !== '' && part.toLowerCase() !== parts.at(-1)?.toLowerCase()) parts.push(part);
  while (parts.length > 1 && parts.join(TITLE_SEPARATOR).length > TITLE_LENGTH) parts.shift();
  return parts.join(TITLE_SEPARATOR);
}

/**
 * Anchors for a document's headings in order, unique like GitHub's: the second `Limits`
 * becomes `limits-1`. Both the demo's entries and its rendered pages use it, so links match.
 */
export function anchors(): (heading: string) => string {
  const seen = new Map<string, number>();
  return (heading) => {
    const base = slugify(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return count === 0 ? base : `${base}-${count}`;
  };
}

/** A heading's anchor as GitHub makes it: lower-cased, punctuation dropped, spaces → hyphens. */
export function slugify(heading: string): string {
  return plain(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** Markdown's backslash escapes (of ASCII punctuation), held as private-use characters while the markup goes. */
const ESCAPED = /\\([!-/:-@[-`{-~])/g;
const LITERAL = 0xe000;
const LITERALS = /[\ue021-\ue07e]/g;

/**
 * Heading text without inline markdown (code ticks, emphasis, links, tags: `headingText`); `LORE_LLM` keeps its
 * underscore, and a backslash-escaped character is the character itself, never markup
 * (`LORE\_LLM`, `\[beta\]`: turndown writes a web page's headings so).
 */
function plain(heading: string): string {
  return headingText(heading.replace(ESCAPED, (_escape, char: string) => String.fromCharCode(LITERAL + char.charCodeAt(0))))
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .replace(/(^|[^\p{L}\p{N}_])_+|_+(?=[^\p{L}\p{N}_]|$)/gu, '$1')
    .replace(LITERALS, (char) => String.fromCharCode(char.charCodeAt(0) - LITERAL))
    .trim();
}

/**
 * Where a page's sections can be linked: `meta.anchors` of an entry, written by the crawler
 * and the folder import — the slug of each heading's text (slugify) → the id the page gives
 * that heading. The first heading of a text wins; a page's anchors are capped in size.
 */
export type Anchors = Readonly<Record<string, string>>;

/** At most this much JSON of anchors in an entry's meta (meta holds 16 KiB in all). */
const MAX_ANCHORS_BYTES = 8 * 1024;

/** Anchors from headings (in order) and their ids; null when none. */
export function anchorsOf(headings: ReadonlyArray<{ text: string; id: string }>): Anchors | null {
  const out: Record<string, string> = {};
  let bytes = 2;
  for (const { text, id } of headings) {
    const key = slugify(text);
    if (key === '' || id === '' || Object.hasOwn(out, key)) continue;
    const cost = Buffer.byteLength(JSON.stringify(key) + JSON.stringify(id), 'utf8') + 2;
    if (bytes + cost > MAX_ANCHORS_BYTES) break;
    out[key] = id;
    bytes += cost;
  }
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * A Markdown document's ATX headings outside code fences, in order: where each line starts
 * (an offset into `markdown`, split at its `\n`s), its level and its text.
 */
export function markdownHeadings(markdown: string): { at: number; level: number; text: string }[] {
  const headings: { at: number; level: number; text: string }[] = [];
  let inFence = false;
  let at = 0;
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : HEADING.exec(line);
    if (heading) headings.push({ at, level: heading[1]!.length, text: heading[2]! });
    at += line.length + 1;
  }
  return headings;
}

/** The anchors of a Markdown document's headings (ATX, outside code fences) as a site slugging them like GitHub links them. */
export function markdownAnchors(markdown: string): Anchors | null {
  const anchor = anchors();
  // An explicit id (`## Install {#setup}`, as Docusaurus and MkDocs write it) is the heading's own.
  const headings = markdownHeadings(markdown.replace(/\r\n?/g, '\n')).map(({ text }) => ({ text, id: /\{#([\w-]+)\}$/.exec(text)?.[1] ?? anchor(plain(text)) }));
  return anchorsOf(headings);
}

/**
 * The link to the section a passage stands in: `url` with the anchor of the deepest of
 * `headings` (a chunk's heading trail) that `anchors` knows, in place of the fragment `url`
 * has (a section entry's anchors are its sub-headings'). `url` unchanged when no heading has
 * an anchor.
 */
export function sectionUrl(url: string, anchors: unknown, headings: readonly string[]): string {
  if (url === '' || typeof anchors !== 'object' || anchors === null || Array.isArray(anchors)) return url;
  const page = url.split('#')[0]!;
  for (let i = headings.length - 1; i >= 0; i--) {
    const key = slugify(headings[i]!);
    const id = Object.hasOwn(anchors, key) ? (anchors as Record<string, unknown>)[key] : undefined;
    if (typeof id === 'string' && id !== '') return `${page}#${encodeURIComponent(id)}`;
  }
  return url;
}
