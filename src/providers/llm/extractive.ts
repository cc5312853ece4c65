/**
 * The embedded default answer provider: extractive, no model and no network. It quotes what
 * in the passages best answers the question, in the passages' own words and language, as
 * Markdown: sentences, items or table rows as statements, and the code block a how-to needs,
 * each quoted run followed by its passage's citation `[ref]`, streamed like an LLM.
 * The selection itself lives in ./extractiveSelect.ts; this file formats and streams.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AnswerChunk, AnswerProvider, AnswerRequest } from '../../domain/answers/port.js';
import type { Embedder } from '../../domain/ingestion/port.js';
import { wordSegmenter } from '../../domain/ingestion/text/segments.js';
import { estimateTokens } from '../../domain/ingestion/text/tokenEstimate.js';
import { escapeMarkers } from '../../domain/answers/citations.js';
import { selectAnswer, type Piece, type Similarity } from './extractiveSelect.js';

export interface ExtractiveProviderOptions {
  /** Most sentences (items, rows) quoted in an answer, besides a block a sentence introduces; default 3. */
  maxSentences?: number;
  /** About how long an answer may be, in characters (citations included); default 600. */
  maxChars?: number;
  /** Meaning-based re-scoring of the best candidate units (from the local embedding model); lexical only without. */
  similarity?: Similarity;
}

/** Word-like pieces per streamed delta: small enough that a UI sees the text flow. */
const WORDS_PER_DELTA = 3;
const TERMINAL = /[.!?。！？।॥؟:：]+$/u;
const CITATION = /(\s*\[\d+\][.!?。！？।॥؟]*)/u;
// Chinese and Japanese (and their full-width punctuation) take no space before a citation or
// between sentences; closing/opening quotes and brackets do not change that.
const WIDE_END = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303F\uFF00-\uFFEF][\p{Pe}\p{Pf}"']*$/u;
const WIDE_START = /^[\p{Ps}\p{Pi}"']*[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/**
 * Creates the extractive answer provider (`provider: 'lore'`, `model: 'extractive-1'`).
 * It reads `request.question` and `request.passages` (not `messages`), picks up to
 * `maxSentences` sentences within about `maxChars`, and cites only refs of the given
 * passages. It always answers when some passage has text (the domain calls it only when
 * search found relevant passages), and never writes words that are not in the passages.
 * `locale` is not used: quoted sentences stay in their passage's language. Usage is
 * estimated (question + passages read, answer written). Pure and deterministic; stops
 * between deltas when `signal` aborts, rejecting with its reason.
 */
export function createExtractiveProvider(options: ExtractiveProviderOptions = {}): AnswerProvider {
  const limits = { maxSentences: options.maxSentences ?? 3, maxChars: options.maxChars ?? 600 };
  return {
    provider: 'lore',
    model: 'extractive-1',
    stream: (request, signal) => streamAnswer(request, limits, options.similarity, signal),
  };
}

/**
 * Similarity by an embedding model: the cosine of the question's and each text's vectors
 * (the local model's vectors are normalised; others are normalised here), for at most
 * `maxConcurrent` answers at a time.
 */
export function embeddingSimilarity(embedder: Embedder, maxConcurrent = 1): Similarity {
  let running = 0;
  return async (question, texts) => {
    // Under load the model is the scarce resource: in bench:soak (8 clients, PGlite) its
    // worker was 89 % busy, and re-scoring every answer took chat from 299 to 964 ms p50 and
    // the whole mix from 41.5 to 28.4 requests/s. An answer that would wait for another's
    // re-scoring is written from the words alone (empty: no unit gains).
    if (running >= maxConcurrent) return [];
    running++;
    try {
      const [q, ...vectors] = await embedder.embed([question, ...texts]);
      return vectors.map((v) => cosine(q!, v));
    } finally {
      running--;
    }
  };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

async function* streamAnswer(
  request: AnswerRequest,
  limits: { maxSentences: number; maxChars: number },
  similarity: Similarity | undefined,
  signal: AbortSignal,
): AsyncGenerator<AnswerChunk> {
  signal.throwIfAborted();
  const pieces = await selectAnswer(request.question, request.passages, { ...limits, terms: request.terms }, similarity);
  const answer = compose(pieces);
  signal.throwIfAborted();
  for (const piece of pieces) if (piece.headings && piece.headings.length > 0) yield { type: 'section', ref: piece.ref, headings: piece.headings };
  let first = true;
  for (const delta of deltas(answer)) {
    // Yield to the event loop between deltas, so each one is written out and a client
    // disconnect is noticed; the first goes out at once.
    if (!first) await nextTurn();
    signal.throwIfAborted();
    first = false;
    yield { type: 'text', delta };
  }
  const promptTokens = estimateTokens(request.question) + request.passages.reduce((sum, p) => sum + estimateTokens(p.text), 0);
  yield { type: 'end', reason: 'stop', usage: { promptTokens, completionTokens: estimateTokens(answer) } };
}

/**
 * The answer as Markdown: each run of sentences with its citation before its final
 * punctuation ("… 308 points [1]." / "……308分[1]。"), runs separated by a space except
 * between Chinese or Japanese ones; items as a list cited after the last one; code blocks
 * fenced, after the sentence that introduces them, uncited. Blocks are separated by a
 * blank line.
 */
function compose(pieces: readonly Piece[]): string {
  let out = '';
  let previous: Piece['kind'] | undefined;
  for (const piece of pieces) {
    const text = render(piece);
    if (previous === 'sentences' && piece.kind === 'sentences') {
      if (!(WIDE_END.test(out) && WIDE_START.test(text))) out += ' ';
    } else if (previous !== undefined) out += '\n\n';
    out += text;
    previous = piece.kind;
  }
  return out;
}

function render(piece: Piece): string {
  switch (piece.kind) {
    case 'sentences': {
      let text = '';
      for (const sentence of piece.sentences) {
        if (text !== '' && !(WIDE_END.test(text) && WIDE_START.test(sentence))) text += ' ';
        text += sentence;
      }
      return cite(escapeMarkers(text), piece.ref);
    }
    case 'items':
      return piece.items.map((item, i) => `${piece.ordered ? `${i + 1}.` : '-'} ${piece.cited && i === piece.items.length - 1 ? cite(escapeMarkers(item), piece.ref) : escapeMarkers(item)}`).join('\n');
    case 'code': {
      const longest = Math.max(2, ...[...piece.text.matchAll(/`+/g)].map((m) => m[0].length));
      const fence = '`'.repeat(longest + 1);
      return `${fence}${piece.lang}\n${piece.text}\n${fence}`;
    }
  }
}

function cite(sentence: string, ref: number): string {
  const end = TERMINAL.exec(sentence);
  const body = end ? sentence.slice(0, end.index) : sentence;
  return `${body}${WIDE_END.test(body) ? '' : ' '}[${ref}]${end ? end[0] : ''}`;
}

/** Splits the answer into deltas of a few words each, never inside a citation marker. */
function deltas(answer: string): string[] {
  const segmenter = wordSegmenter();
  const out: string[] = [];
  let current = '';
  let words = 0;
  // split() with a capture group puts the citations (with the punctuation after them) at odd indexes.
  for (const [i, piece] of answer.split(CITATION).entries()) {
    if (i % 2 === 1) {
      current += piece;
      continue;
    }
    for (const { segment, isWordLike } of segmenter.segment(piece)) {
      if (isWordLike && words === WORDS_PER_DELTA) {
        out.push(current);
        current = '';
        words = 0;
      }
      current += segment;
      if (isWordLike) words++;
    }
  }
  if (current !== '') out.push(current);
  return out;
}
