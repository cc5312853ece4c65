/**
 * Sentence splitting for the extractive answer provider: a paragraph (./passageBlocks.ts
 * reads the Markdown structure around it) → the sentences an answer can quote, cleaned for
 * display.
 *
 * ICU's sentence segmentation (Intl.Segmenter) handles . ! ? and their CJK, Devanagari and
 * Arabic forms (。！？ । ؟). Around it:
 * - Blank lines end a sentence; inline code (`./.lore`) is never broken; a "?" or "!" followed
 *   by a lower-case word does not end one.
 * - ICU breaks after abbreviations and initials it does not know ("Dr. ", "J. R. R. ",
 *   "z. B.", German "am 3. Oktober"): such pieces are glued back to the next one.
 * - Thai, Lao and Khmer have no sentence punctuation; spaces separate clauses (and also
 *   surround names and numbers). ICU returns whole paragraphs there, so they are cut at
 *   spaces between two letters of the script once a clause is long enough to stand alone.
 * - Citation markers already in the text ("[12]") are removed, so an answer never carries a
 *   number that is not one of its own citations.
 */
import { segmentsOf, sentenceSegmenter } from '../../domain/ingestion/text/segments.js';

// Thai/Lao/Khmer clauses (see clauses()).
const MIN_CLAUSE_CHARS_STRONG = 15;
const MAX_CLAUSE_CHARS = 300;
const MIN_CLAUSE_CHARS = 100;
const MIN_RUN_CHARS = 6;

const CITATION_MARKER = /\s*\[\d{1,4}\](?!\()/g;
/**
 * What ICU must not break inside or start a sentence in: inline code, a Markdown link (its
 * text may hold code), a URL, a path or anchor (`./config.md#server-proxy`, `/guide/`).
 */
const UNBREAKABLE = /`[^`\n]+`|\[(?:`[^`\n]*`|[^\[\]`\n])*\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*\)|\b(?:https?|ftp):\/\/[^\s<>()\]]*[^\s<>()\].,;:!?'"]|(?<![\w/.])\.{0,2}\/[\w.~%/-]*\w(?:#[\w-]+)?|(?<![\w#])#[\w][\w-]*/gu;
/** Emphasis closed right after a sentence's end ("**Label.** Text"). */
const CLOSING_EMPHASIS = /^(\*{1,3}|_{1,3})(?=\s|$)/;
const INVISIBLE = /[\uFEFF\u200B\u00AD]/g;
const SPACE_NO_PUNCTUATION_SCRIPT = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}]/u;
const SCRIPT_END = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}]$/u;
const SCRIPT_START = /^[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}]/u;
/** Single letters (initials), and abbreviations that ICU may take for a sentence end. */
const ABBREVIATION =
  /(?:^|[\s(])(?:\p{L}|Dr|Mr|Mrs|Ms|Prof|St|Mt|Jr|Sr|Gen|Col|Capt|Lt|Gov|Sen|Rev|Hon|No|Nr|Nos|vs|ca|cf|approx|fig|Fig|Inc|Ltd|Co|Corp|bzw|usw|vgl|evtl|ggf|Abb|Jh|Mio|Mrd|Str|z\.\s?B|d\.\s?h|u\.\s?a|(?:\p{Lu}\.)+\p{Lu})\.\s*$/u;
/** Languages that write ordinals with a dot ("am 3. Oktober", "3. sınıf"). */
const ORDINAL_DOT_LANGUAGES = new Set(['de', 'da', 'nb', 'nn', 'no', 'fi', 'is', 'et', 'lv', 'tr', 'hu', 'cs', 'sk', 'sl', 'hr', 'sr', 'pl']);
const ORDINAL_END = /(?:^|\s)\d{1,3}\.\s*$/;

/**
 * The sentences of `text` in order, trimmed, with whitespace collapsed and Markdown markers
 * and citation markers removed; empty ones dropped. `language` (ISO 639-1, as detected by the
 * tokeniser) only refines abbreviation handling. Pure and deterministic.
 */
export function splitSentences(text: string, language = 'und'): string[] {
  const out: string[] = [];
  for (const block of blocks(text)) {
    for (const sentence of icuSentences(block, language)) {
      if (SPACE_NO_PUNCTUATION_SCRIPT.test(sentence)) out.push(...clauses(sentence));
      else out.push(sentence);
    }
  }
  return out.map(clean).filter((s) => s !== '');
}

/** Paragraphs: lines joined until a blank line, with two spaces, which Thai clause splitting reads as a clear boundary. */
function blocks(text: string): string[] {
  return text
    .replace(INVISIBLE, '')
    .split(/\r?\n\s*\r?\n/)
    .map((block) => block.split(/\r?\n/).map((line) => line.trim()).filter(Boolean).join('  '))
    .filter((block) => block !== '');
}

/** ICU sentences of one block, with pieces that end in an abbreviation glued to the next. */
function icuSentences(block: string, language: string): string[] {
  const out: string[] = [];
  let pending = '';
  // ICU must not break inside inline code (`./.lore`, `a.b()`), a link or a URL: it segments a
  // copy where these are letters (a link's text keeps its letters, so a capital still starts a
  // sentence), and the pieces are cut from the original at the same places.
  const masked = block.replace(UNBREAKABLE, mask);
  for (const { segment: piece, index } of segmentsOf(sentenceSegmenter(), masked)) {
    let segment = block.slice(index, index + piece.length);
    // ICU breaks after the full stop inside "**Exact scores.** The union …": the closing
    // marker belongs to the sentence before.
    const closing = pending === '' && out.length > 0 ? CLOSING_EMPHASIS.exec(segment) : null;
    if (closing) {
      out[out.length - 1] = out[out.length - 1]!.trimEnd() + closing[1]!;
      segment = segment.slice(closing[1]!.length);
      if (segment.trim() === '') continue;
    }
    // A sentence does not start in lower case: ICU broke after a question or exclamation
    // inside the sentence ('a definition ("What is X?") is answered by …').
    if (pending === '' && out.length > 0 && /^\s*\p{Ll}/u.test(segment) && /[?!]["')\]”’]*\s*$/u.test(out[out.length - 1]!)) {
      pending = out.pop()!;
    }
    pending += segment;
    if (ABBREVIATION.test(pending) || (ORDINAL_DOT_LANGUAGES.has(language) && ORDINAL_END.test(pending))) continue;
    out.push(pending);
    pending = '';
  }
  if (pending.trim() !== '') out.push(pending);
  return out;
}

/** `span` as letters of the same length: code and URLs as x, a link's text as itself without sentence punctuation. */
function mask(span: string): string {
  if (span.startsWith('`')) return '`' + 'x'.repeat(span.length - 2) + '`';
  const link = /^\[((?:`[^`\n]*`|[^\[\]`\n])*)\]/.exec(span);
  if (!link) return 'x'.repeat(span.length);
  const text = link[1]!.replace(/`[^`\n]*`/g, (code) => 'x'.repeat(code.length)).replace(/[^\p{L}\p{N}]/gu, 'x');
  return `${text}xx${'x'.repeat(span.length - link[0].length)}`;
}

/**
 * Clauses of a sentence in a script written without sentence punctuation. Double spaces and
 * line breaks end a clause first. A clause still longer than MAX_CLAUSE_CHARS is cut at single
 * spaces between two letters of the script (a space next to a digit or a Latin word usually
 * just sets that word apart) once it has MIN_CLAUSE_CHARS, and only before a run of at least
 * MIN_RUN_CHARS: short runs are mostly particles and parts of names that belong to their
 * neighbours. A short remainder joins the clause before it.
 */
function clauses(sentence: string): string[] {
  const out: string[] = [];
  for (const part of pack(sentence.trim().split(/(\s+)/), (gap) => gap.length >= 2, MIN_CLAUSE_CHARS_STRONG)) {
    if (part.length <= MAX_CLAUSE_CHARS) out.push(part);
    else out.push(...pack(part.split(/( )/), (_gap, before, after) => SCRIPT_END.test(before) && SCRIPT_START.test(after) && after.length >= MIN_RUN_CHARS, MIN_CLAUSE_CHARS));
  }
  return out;
}

/** Joins `parts` (text, gap, text, …) into pieces of at least `min` characters, cut at gaps `cut` accepts. */
function pack(parts: string[], cut: (gap: string, before: string, after: string) => boolean, min: number): string[] {
  const out: string[] = [];
  let current = parts[0] ?? '';
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const next = parts[i + 1]!;
    if (current.length >= min && cut(parts[i]!, current, next)) {
      out.push(current);
      current = next;
    } else current += ' ' + next;
  }
  if (out.length > 0 && current.length < MIN_CLAUSE_CHARS_STRONG) out[out.length - 1] += ' ' + current;
  else out.push(current);
  return out;
}

function clean(sentence: string): string {
  return sentence
    .split(/(`[^`\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(CITATION_MARKER, '')))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Where the inline code span left open at the end of `text` starts (a run of backticks that
 * no run as long closes), or -1 when every span is closed.
 */
export function openCodeSpan(text: string): number {
  let open = -1;
  let length = 0;
  for (const run of text.matchAll(/`+/g)) {
    if (open === -1) [open, length] = [run.index, run[0].length];
    else if (run[0].length === length) open = -1;
  }
  return open;
}
