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
  const slugs = new Map<string, number>();
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
      const base = slugify(title);
      const seen = slugs.get(base) ?? 0;
      slugs.set(base, seen + 1);
      current = { title, slug: seen === 0 ? base : `${base}-${seen}`, lines: [line] };
      continue;
    }
    const h1 = inFence || current.slug !== '' || current.title !== null ? null : H1.exec(line);
    if (h1) current.title = plain(h1[1]!);
    current.lines.push(line);
  }
  close();
  return sections;
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
