/** A part of a markdown document: the text before the first `##` heading, or one `##` section. */
export interface MarkdownSection {
  /** The `##` heading; for the part before it, the document's `#` title (or null when it has none). */
  title: string | null;
  /** GitHub-style anchor of the heading; '' for the part before the first `##`. */
  slug: string;
  /** The section's markdown, its heading included; never blank. */
  text: string;
}

const FENCE = /^\s{0,3}(```|~~~)/;
const H1 = /^#\s+(\S.*?)\s*#*\s*$/;
const H2 = /^##\s+(\S.*?)\s*#*\s*$/;

/**
 * Splits markdown into one section per `##` heading (deeper headings stay inside theirs),
 * plus the text before the first one. Headings inside code fences are text. Blank sections
 * are left out; slugs repeat-proof like GitHub's (`limits`, `limits-1`).
 */
export function markdownSections(markdown: string): MarkdownSection[] {
  const sections: MarkdownSection[] = [];
  const anchor = anchors();
  let current: { title: string | null; slug: string; lines: string[] } = { title: null, slug: '', lines: [] };
  let inFence = false;
  const close = () => {
    const text = current.lines.join('\n').trim();
    if (text !== '') sections.push({ title: current.title, slug: current.slug, text });
  };
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const h2 = inFence ? null : H2.exec(line);
    if (h2) {
      close();
      const title = plain(h2[1]!);
      current = { title, slug: anchor(title), lines: [line] };
      continue;
    }
    const h1 = inFence || current.slug !== '' || current.title !== null ? null : H1.exec(line);
    if (h1) current.title = plain(h1[1]!);
    current.lines.push(line);
  }
  close();
  return sections;
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

/** Heading text without inline markdown (code ticks, emphasis, links); `LORE_LLM` keeps its underscore. */
function plain(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .replace(/(^|[^\p{L}\p{N}_])_+|_+(?=[^\p{L}\p{N}_]|$)/gu, '$1')
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

/** The anchors of a Markdown document's headings (ATX, outside code fences) as a site slugging them like GitHub links them. */
export function markdownAnchors(markdown: string): Anchors | null {
  const anchor = anchors();
  const headings: { text: string; id: string }[] = [];
  let inFence = false;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(\S.*?)\s*#*\s*$/.exec(line);
    // An explicit id (`## Install {#setup}`, as Docusaurus and MkDocs write it) is the heading's own.
    const explicit = heading ? /\{#([\w-]+)\}$/.exec(heading[1]!)?.[1] : undefined;
    if (heading) headings.push({ text: heading[1]!, id: explicit ?? anchor(plain(heading[1]!)) });
  }
  return anchorsOf(headings);
}

/**
 * The link to the section a passage stands in: `url` with the anchor of the deepest of
 * `headings` (a chunk's heading trail) that `anchors` knows. `url` unchanged when it already
 * has a fragment, or when no heading has an anchor.
 */
export function sectionUrl(url: string, anchors: unknown, headings: readonly string[]): string {
  if (url === '' || url.includes('#') || typeof anchors !== 'object' || anchors === null || Array.isArray(anchors)) return url;
  for (let i = headings.length - 1; i >= 0; i--) {
    const key = slugify(headings[i]!);
    const id = Object.hasOwn(anchors, key) ? (anchors as Record<string, unknown>)[key] : undefined;
    if (typeof id === 'string' && id !== '') return `${url}#${encodeURIComponent(id)}`;
  }
  return url;
}
