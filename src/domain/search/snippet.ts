import { analyzedWords, detectLanguage } from '../ingestion/text/tokenize.js';

const MAX_SNIPPET = 240;
/** Longer texts are read up to here: a snippet is a window, and the best one is rarely further. */
const MAX_READ = 20_000;

/**
 * The passage of `text` around the densest run of query terms, at most ~240 characters, as
 * plain text (the Markdown read as ./plainText would show it) with matching words wrapped in
 * <mark>…</mark>. Everything else is HTML-escaped, so the snippet is safe to insert as HTML.
 * Words are analysed in `language`, the one a chunk's terms were made in when it was written
 * (detected from the text when unknown).
 */
export function snippet(text: string, queryTerms: readonly string[], language?: string | null): string {
  const wanted = new Set(queryTerms);
  const body = plainText(text.length > MAX_READ ? text.slice(0, MAX_READ) : text);
  const words: { start: number; end: number; hit: boolean }[] = [];
  for (const w of analyzedWords(body, language ?? detectLanguage(body))) {
    words.push({ start: w.start, end: w.end, hit: w.terms.some((t) => wanted.has(t)) });
  }
  // Window start with the most hits within MAX_SNIPPET characters.
  let bestStart = 0;
  let bestHits = -1;
  let j = 0;
  let hits = 0;
  for (let i = 0; i < words.length; i++) {
    while (j < words.length && words[j]!.end - words[i]!.start <= MAX_SNIPPET) hits += words[j++]!.hit ? 1 : 0;
    if (hits > bestHits) {
      bestHits = hits;
      bestStart = i;
    }
    hits -= words[i]!.hit ? 1 : 0;
  }
  const from = words[bestStart]?.start ?? 0;
  let to = Math.min(body.length, from + MAX_SNIPPET);
  // Not in the middle of a word (or a path: "./.l…").
  if (to < body.length && /\S/.test(body[to]!)) {
    const space = body.slice(from, to).search(/\s\S*$/);
    if (space > MAX_SNIPPET / 2) to = from + space;
  }
  let out = body.slice(0, from).trim() !== '' ? '…' : '';
  let cursor = from;
  for (const w of words) {
    if (w.start < from || w.end > to || !w.hit) continue;
    out += escape(body.slice(cursor, w.start)) + '<mark>' + escape(body.slice(w.start, w.end)) + '</mark>';
    cursor = w.end;
  }
  out += escape(body.slice(cursor, to)) + (to < body.length || text.length > MAX_READ ? '…' : '');
  return out.replace(/\s+/g, ' ').trim();
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$|^\s*\|\s*:?-+:?\s*\|\s*$/;
const RULE = /^ {0,3}(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})$/;
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:\s+\S+/;
const BLOCK_PREFIX = /^\s{0,3}(?:>\s?|#{1,6}(?=\s|$)|(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?)/;
const CODE_SPAN = /(`+)(?!`)([^]*?[^`])\1(?!`)/g;
const CELL = /(?<!\\)\|/;
const INLINE: readonly [RegExp, string][] = [
  [/(?<!\\)!\[([^\]]*)\]\([^)]*\)/g, '$1'], // images: their alt text
  [/(?<!\\)\[([^\]]+)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, '$1'], // [text](url)
  [/(?<!\\)\[([^\]]+)\]\[[^\]]*\]/g, '$1'], // [text][ref]
  [/<((?:https?|mailto):[^<>\s]+)>/gi, '$1'], // autolinks
  [/<!--[^]*?-->|<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g, ''], // HTML tags and comments
  [/(?<![\\*])(\*{1,3})(?=[^\s*])([^*]*?[^\s*\\])\1(?!\*)/g, '$2'], // *, **, ***
  [/(?<![\\\p{L}\p{N}_])(_{1,3})(?=[^\s_])([^_]*?[^\s_\\])\1(?![\p{L}\p{N}_])/gu, '$2'], // _, __, ___ (not snake_case)
  [/(?<!\\)~~(?=\S)([^~]*?\S)~~/g, '$1'], // strikethrough
  [/\\([!-/:-@[-`{-~])/g, '$1'], // backslash escapes
];

/**
 * `markdown` as plain text, line for line: code blocks keep their lines without the fences
 * (nor the info string), inline code its content without backticks; headings, blockquotes and
 * list markers lose their markers, table rows their pipes (cells separated by " · ") and
 * separator rows, links and images keep their text, emphasis its words; HTML tags, rules and
 * link definitions are dropped. Text that is not Markdown mostly comes back as it was.
 */
export function plainText(markdown: string): string {
  const lines = markdown.split(/\r?\n/);
  const table = tableRows(lines);
  const out: string[] = [];
  let fence: string | null = null;
  for (const [i, line] of lines.entries()) {
    const marker = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      else out.push(line);
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    if (table.has(i) && TABLE_SEPARATOR.test(line)) continue;
    if (RULE.test(line) || LINK_DEFINITION.test(line)) continue;
    let rest = line;
    for (let prefix = BLOCK_PREFIX.exec(rest); prefix && prefix[0] !== ''; prefix = BLOCK_PREFIX.exec(rest)) rest = rest.slice(prefix[0].length);
    if (/^\s*#/.test(line)) rest = rest.replace(/\s+#+\s*$/, '');
    if (table.has(i)) rest = rest.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '').split(CELL).map((cell) => inline(cell.trim())).join(' · ');
    else rest = inline(rest);
    out.push(rest);
  }
  return out.join('\n');
}

/** Indexes of the lines of GFM tables: a header row, its separator row, and the rows after it. */
function tableRows(lines: readonly string[]): Set<number> {
  const rows = new Set<number>();
  for (let i = 1; i < lines.length; i++) {
    if (!TABLE_SEPARATOR.test(lines[i]!) || !lines[i - 1]!.includes('|')) continue;
    rows.add(i - 1);
    rows.add(i);
    for (let j = i + 1; j < lines.length && lines[j]!.includes('|') && lines[j]!.trim() !== ''; j++) rows.add(j);
  }
  return rows;
}

/**
 * One line's inline Markdown as plain text. Code spans keep their content as written: they
 * stand as private-use placeholders while the rest is read (emphasis may wrap them: **`x`**).
 */
function inline(text: string): string {
  if (text.includes('\uE000')) text = text.replace(/[\uE000\uE001]/g, '');
  const spans: string[] = [];
  const marked = text.replace(CODE_SPAN, (_span, _ticks, code: string) => `\uE000${spans.push(code.replace(/^ (.*) $/, '$1')) - 1}\uE001`);
  return INLINE.reduce((s, [pattern, replacement]) => s.replace(pattern, replacement), marked).replace(/\uE000(\d+)\uE001/g, (_p, i: string) => spans[Number(i)]!);
}

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
