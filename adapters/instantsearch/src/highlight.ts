// Highlighting: Lore's snippet (HTML-escaped text with <mark> around the query's words) read
// into plain-text parts, other attributes (the title, meta values) marked with the same words,
// and both written out with the tags the request asked for.

/** A run of text (plain, not HTML) and whether it matched the query. */
export interface Part {
  text: string;
  marked: boolean;
}

/** InstantSearch's placeholder tags: it escapes the value itself, then turns them into <mark>. */
export const AIS_PRE_TAG = '__ais-highlight__';

const ENTITY = /&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|(amp|lt|gt|quot|apos));/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the character references an escaper writes (Lore writes `&#60;` and the like). */
export function decodeEntities(text: string): string {
  return text.replace(ENTITY, (ref, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    const code = dec !== undefined ? Number(dec) : hex !== undefined ? parseInt(hex, 16) : -1;
    if (code >= 0) return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ref;
    return NAMED[name!.toLowerCase()] ?? ref;
  });
}

/** Escapes text for HTML, the characters lodash's escape (InstantSearch's) does. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Lore's snippet as parts. Only `<mark>` and `</mark>` are read as tags: any other `<` (Lore
 * never sends one) stays text, so nothing in a snippet becomes markup but the caller's tags.
 */
export function parseSnippet(html: string): Part[] {
  const parts: Part[] = [];
  let marked = false;
  for (const token of html.split(/(<\/?mark>)/)) {
    if (token === '<mark>' || token === '</mark>') marked = token === '<mark>';
    else if (token !== '') push(parts, decodeEntities(token), marked);
  }
  return parts;
}

function push(parts: Part[], text: string, marked: boolean): void {
  const last = parts[parts.length - 1];
  if (last && last.marked === marked) last.text += text;
  else parts.push({ text, marked });
}

const WORD = /[\p{L}\p{N}_]+/gu;

/** The query's words, lower-cased, and the one being typed (no space after it), which also matches as a prefix. */
export interface Terms {
  words: Set<string>;
  prefix: string | undefined;
}

/** The words to mark: those Lore marked in its snippets (stems matched: "invoices" for "invoice") and the query's own. */
export function termsOf(query: string, snippets: readonly Part[][]): Terms {
  const words = new Set<string>();
  for (const part of snippets.flat()) if (part.marked) for (const w of part.text.match(WORD) ?? []) words.add(w.toLowerCase());
  const queryWords = (query.match(WORD) ?? []).map((w) => w.toLowerCase());
  for (const w of queryWords) words.add(w);
  const typing = queryWords.length > 0 && !/\s$/u.test(query);
  return { words, prefix: typing ? queryWords[queryWords.length - 1] : undefined };
}

/** `text` with the words in `terms` marked (whole words; the typed word as a prefix). */
export function markWords(text: string, terms: Terms): Part[] {
  const parts: Part[] = [];
  let cursor = 0;
  for (const m of text.matchAll(WORD)) {
    const word = m[0].toLowerCase();
    const start = m.index!;
    let end = start;
    if (terms.words.has(word)) end = start + m[0].length;
    else if (terms.prefix && word.startsWith(terms.prefix)) end = start + terms.prefix.length;
    if (end === start) continue;
    if (start > cursor) push(parts, text.slice(cursor, start), false);
    push(parts, text.slice(start, end), true);
    cursor = end;
  }
  if (cursor < text.length) push(parts, text.slice(cursor), false);
  return parts;
}

/** The request's tags, and whether the text between them must be escaped here. */
export interface Tags {
  pre: string;
  post: string;
  /**
   * InstantSearch's placeholder tags mean it escapes the whole value itself (its default
   * `escapeHTML`), so the text goes out as it is; escaping it here too would show `&amp;`.
   * Any other tags are HTML inserted as it comes (Algolia's default is `<em>`): the text is
   * escaped, so a value can never carry markup of its own.
   */
  escape: boolean;
}

export function tagsOf(pre: string | undefined, post: string | undefined): Tags {
  return { pre: pre ?? '<em>', post: post ?? '</em>', escape: pre !== AIS_PRE_TAG };
}

export function render(parts: readonly Part[], tags: Tags): string {
  const text = (s: string) => (tags.escape ? escapeHtml(s) : s);
  return parts.map((p) => (p.marked ? tags.pre + text(p.text) + tags.post : text(p.text))).join('');
}

/** The distinct marked words, lower-cased, as Algolia's `matchedWords`. */
export function matchedWords(parts: readonly Part[]): string[] {
  return [...new Set(parts.filter((p) => p.marked).map((p) => p.text.toLowerCase()))];
}

/** Algolia's matchLevel: full when every query word matched, partial when some did. */
export function matchLevel(parts: readonly Part[], query: string): 'none' | 'partial' | 'full' {
  const matched = matchedWords(parts);
  if (matched.length === 0) return 'none';
  const queryWords = (query.match(WORD) ?? []).map((w) => w.toLowerCase());
  return queryWords.every((q) => matched.some((m) => m === q || m.startsWith(q))) ? 'full' : 'partial';
}

/**
 * At most `words` words of `parts`, starting a few words before the first match (Algolia's
 * `attribute:N` snippet), with `ellipsis` where text was cut.
 */
export function crop(parts: readonly Part[], words: number, ellipsis: string): Part[] {
  const text = parts.map((p) => p.text).join('');
  const spans = [...text.matchAll(/\S+/g)].map((m) => ({ start: m.index!, end: m.index! + m[0].length }));
  if (spans.length <= words) return parts.map((p) => ({ ...p }));
  const marks: { start: number; end: number }[] = [];
  let offset = 0;
  for (const p of parts) {
    if (p.marked) marks.push({ start: offset, end: offset + p.text.length });
    offset += p.text.length;
  }
  const first = marks.length ? spans.findIndex((s) => s.end > marks[0]!.start) : 0;
  const from = Math.max(0, Math.min(first - Math.floor(words / 4), spans.length - words));
  const to = from + words - 1;
  const start = spans[from]!.start;
  const end = spans[to]!.end;
  const out: Part[] = [];
  if (from > 0) push(out, ellipsis, false);
  offset = 0;
  for (const p of parts) {
    const a = Math.max(start, offset);
    const b = Math.min(end, offset + p.text.length);
    if (a < b) push(out, p.text.slice(a - offset, b - offset), p.marked);
    offset += p.text.length;
  }
  if (to < spans.length - 1) push(out, ellipsis, false);
  return out;
}
