import { analyzedWords, detectLanguage } from './text/tokenize.js';

const MAX_SNIPPET = 240;

/**
 * The passage of `text` around the densest run of query terms, at most ~240 characters,
 * with matching words wrapped in <mark>…</mark>. Everything else is HTML-escaped, so the
 * snippet is safe to insert as HTML. Words are analysed in `language`, the one a chunk's
 * terms were made in when it was written (detected from the text when unknown).
 */
export function snippet(text: string, queryTerms: readonly string[], language?: string | null): string {
  const wanted = new Set(queryTerms);
  const body = text.length > 20_000 ? text.slice(0, 20_000) : text;
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
  const to = Math.min(text.length, from + MAX_SNIPPET);
  let out = from > 0 ? '…' : '';
  let cursor = from;
  for (const w of words) {
    if (w.start < from || w.end > to || !w.hit) continue;
    out += escape(text.slice(cursor, w.start)) + '<mark>' + escape(text.slice(w.start, w.end)) + '</mark>';
    cursor = w.end;
  }
  out += escape(text.slice(cursor, to)) + (to < text.length ? '…' : '');
  return out.replace(/\s+/g, ' ').trim();
}

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
