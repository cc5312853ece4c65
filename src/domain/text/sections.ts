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
