/**
 * Evidence an answer may rest on (docs/ANSWERS.md): a passage close to a question by the
 * embedding model's cosine is not enough in a language the model knows badly, where unrelated
 * texts get high cosines too. There the passage must also hold the question's informative
 * words — its coverage, the share of the question's weight (each word's idf in the
 * collections; a word they lack weighs as much as their rarest; question words weigh
 * nothing) whose words it holds, none of it when it lacks a name the question asks about
 * (where the language's gate says so). How much it must hold depends on how close it is:
 * coverage + slope × (similarity − EVIDENCE_SIMILARITY) must reach the language's floor (its
 * EvidenceGate, measured by bench/evidence.ts).
 */
import { analyze, analyzedWords, type Language } from '../ingestion/text/tokenize.js';
import { questionTerms, scaffoldBigrams } from '../ingestion/text/questionWords.js';
import { markdownHeadings } from '../ingestion/text/sections.js';
import type { EvidenceGate, TermMatch } from './port.js';

/** A question as evidence weighs it: each of its words (a slot) with the terms that count for it, and its weight. */
export interface EvidenceQuery extends EvidenceGate {
  language: string;
  /** `named`: the word is a name the question asks about (see `namedTerms`), and the gate counts names. */
  slots: { terms: string[]; weight: number; named?: true }[];
}

/**
 * The similarity at which a passage needs exactly the floor's coverage (the chat threshold the
 * gates were measured at): a closer passage needs less, by the gate's slope, a farther one more.
 */
export const EVIDENCE_SIMILARITY = 0.4;

/**
 * A word's weight in coverage is its idf less this: a word in more than about a fifth of the
 * collections' passages (idf ≤ 1.5) weighs nothing. Most languages have no stop list in the
 * tokeniser (Romanian "la", "se", "un" stay terms), and such words, held by every passage,
 * gave any passage a tenth of a question's weight. (Less where the question's rarest word's
 * idf is under twice this: see evidenceQuery.) Measured by bench/evidence.ts on XQuAD
 * (each way calibrated on the calibration half; rows `gate` and `common words`), held-back
 * unrelated questions answered, mean of 12 languages: 17.6 % at idf, 15.2 % at idf − 1.5
 * (ro 42.9 → 31.4 %, hi 30.0 → 24.4 %), gold paragraphs as evidence within 0.1 point; 1 and
 * 2 did less (scratch replays of the same data).
 */
export const COMMON_IDF = 1.5;

/**
 * The question's words (`terms`, a slot each) with what they matched in the collections:
 * a slot counts its own term and the terms its typos matched, at its best match's idf. The
 * language's question words ("hangi", "nedir", "which") are left out: they are rare in the
 * passages that answer, so their idf was the largest share of many a question's weight, held
 * by no passage, and it hid the difference between a passage holding the question's subject
 * and one holding a few of its common words. Measured by bench/evidence.ts (each way
 * calibrated on XQuAD's calibration half; rows `gate` and `question words`): held-back
 * unrelated questions answered, mean of 12 languages, 17.3 % with question words weighed,
 * 15.2 % without.
 *
 * A character bigram spanning two of the question's words (Chinese and Japanese terms are
 * their words and every bigram of a run: "商人们资助的公司" gives 们资, 助的, 的公) that
 * the collections lack weighs nothing: it is no word, and a passage holding every word of the
 * question lacks it. Weighed as a missing word, such bigrams were half of a Chinese question's
 * weight, held by no passage.
 */
export function evidenceQuery(query: string, terms: readonly string[], matches: readonly TermMatch[], language: string, gate: EvidenceGate): EvidenceQuery {
  const rarest = Math.max(1, ...matches.map((m) => m.idf));
  // In a small collection no word's idf reaches far (one passage of five: 1.39): the question's
  // rarest word keeps at least half its weight there.
  const common = Math.min(COMMON_IDF, rarest / 2);
  const asked = questionTerms(language as Language);
  const joined = scaffoldBigrams(query, language as Language);
  const names = gate.names ? namedTerms(query, language) : NO_NAMES;
  let words: Set<string> | undefined;
  const isWord = (term: string) => (words ??= new Set([...analyzedWords(query, language as Language)].flatMap((w) => w.terms))).has(term);
  const slots = terms.flatMap((term, slot) => {
    if (asked.has(term) || joined.has(term)) return [];
    const own = matches.filter((m) => m.slot === slot);
    if (own.length === 0 && !isWord(term)) return [];
    const idf = own.length > 0 ? Math.max(...own.map((m) => m.idf)) : rarest;
    const weight = Math.max(0, idf - common);
    // A name the collection's passages commonly hold (its own product's, in its own docs:
    // "Why does Lore weigh BM25 more …" of Lore's docs) tells no passage from another.
    const named = gate.names === true && names.has(term) && weight > 0;
    return [{ terms: [...new Set([term, ...own.map((m) => m.term)])], weight, ...(named && { named: true as const }) }];
  });
  return { language, floor: gate.floor, slope: gate.slope, ...(gate.names && { names: true }), slots };
}

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * The terms of the names `query` asks about: its words written with a capital letter (its
 * first word aside: a sentence begins so) or numbers of three digits or more, but question
 * words ("Which Florida city …" → florida; "… established in 1564?" → 1564). An unrelated
 * passage the model puts close to a question shares its subject's common words ("school",
 * "colony"), seldom the names that make it this question and not another: by them, English
 * questions whose article is absent were answered 7.3 → 3.5 % (bench/evidence.ts, XQuAD's
 * held-back half; chat 7.3 → 2.0 %). A language's gate counts them where the calibration says
 * so (EvidenceGate.names): English's for now (bench/evidence.ts says why). A passage lacking
 * them may still pass on its cosine, by the gate's slope: refusing it at any similarity cost
 * a twentieth of the gold paragraphs (English at 0.28/1.5, replayed from `--sets evidence
 * --dump`: held back 96.7 → 92.6 %, unrelated answered 3.1 → 2.8 %; refusing only a passage
 * lacking two names or every name of two or more was no better than the slope).
 */
export function namedTerms(query: string, language: string): Set<string> {
  const asked = questionTerms(language as Language);
  const names = new Set<string>();
  let first = true;
  for (const word of analyzedWords(query, language as Language)) {
    const text = query.slice(word.start, word.end);
    if (!first && (/^\p{Lu}/u.test(text) || /^\d{3,}$/.test(text))) for (const term of word.terms) if (!asked.has(term)) names.add(term);
    first = false;
  }
  return names;
}

/**
 * A word of at least this many letters is also held by a passage word beginning with the
 * same letters: stemmers leave inflections of agglutinative and highly inflected languages
 * apart (Turkish "Newton'dan" / "Newton'un", Greek, Hindi cases), and the gold passage then
 * lacked words it holds. Measured by bench/evidence.ts on XQuAD's calibration half against
 * exact terms: held-back unrelated questions answered at the same gold budget Greek 41.8 →
 * 25.8 %, Turkish 56.4 → 44.9 %, Hindi 55.7 → 48.4 %, Romanian 41.5 → 41.1 %.
 */
export const PREFIX_LETTERS = 5;

/**
 * Scripts written without spaces and cut into words by ICU's dictionary alone (Thai, Lao,
 * Khmer, Myanmar): a word of them is also held by a text holding its letters. The dictionary
 * cuts a name it does not know by its context ("ของบรอนคอส", of the Broncos, is read ขอ|งบ|
 * รอน|คอส in a question, otherwise in the paragraph holding it). Measured by bench/evidence.ts
 * on XQuAD Thai (calibrated each way): held-back unrelated questions answered 11.8 → 9.4 %,
 * gold paragraphs as evidence 95.9 → 96.3 %. (Chinese and Japanese have bigrams for this.)
 */
const UNSPACED = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/**
 * The share of the question's weight whose words `text` holds, in [0, 1] (0 for a question
 * without words, and for a text lacking a name the question asks about: see `namedTerms`).
 * `prefixLetters` is PREFIX_LETTERS; the bench compares exact terms (Infinity).
 */
export function coverage(query: EvidenceQuery, text: string, prefixLetters = PREFIX_LETTERS): number {
  const total = query.slots.reduce((sum, s) => sum + s.weight, 0);
  if (total <= 0) return 0;
  const terms = analyze(text, query.language).terms;
  const held = new Set(terms);
  const begun = new Set(terms.filter((t) => t.length >= prefixLetters).map((t) => t.slice(0, prefixLetters)));
  const holds = (t: string) => held.has(t) || (t.length >= prefixLetters && begun.has(t.slice(0, prefixLetters))) || (t.length >= 2 && UNSPACED.test(t) && text.includes(t));
  if (query.slots.some((s) => s.named && !s.terms.some(holds))) return 0;
  return query.slots.reduce((sum, s) => sum + (s.terms.some(holds) ? s.weight : 0), 0) / total;
}

/** Whether a passage holding `held` of the question (its coverage) at `similarity` to it passes `gate`. */
export function passesGate(gate: EvidenceGate, held: number, similarity: number): boolean {
  return held + gate.slope * (similarity - EVIDENCE_SIMILARITY) >= gate.floor;
}

/**
 * Entries up to this long are read whole instead of their best chunk, by the extractive
 * writer and by the evidence gate: a chunk may start in the middle of a sentence, cut a table
 * in two or leave out the code block its last sentence introduces, and a documentation
 * section is rarely longer. A chunk is 200 tokens by the model's count: three to five of them
 * make a paragraph in most languages the model reads badly, where it spends a token a syllable.
 */
const WHOLE_ENTRY_CHARS = 8000;

/**
 * What is read of a passage, by the evidence gate and by the extractive writer: its whole
 * entry when not empty and at most WHOLE_ENTRY_CHARS long; in a longer entry, the sub-section
 * holding the chunk (`sectionAround`), its chunk when none fits — what an
 * answer quotes from, and what the gates were measured on (bench/evidence.ts reads the hits'
 * entries). Read from the chunk alone, a passage lacked the words its entry holds in the
 * chunks beside it: most XQuAD paragraphs in Arabic, Russian or Hindi are four or five chunks.
 * Read from its chunk alone, a long documentation section lost the sentence introducing the
 * chunk's code and the sub-heading naming it; its sub-section (bench:writer on the captured
 * passages: Vite gold 76.5 → 79.4 %, Express cited 82.8 → 83.4 %, Lore's docs cited 92.0 →
 * 93.3 %, nothing lower; sub-sections of at most 3,000 characters gained less).
 */
export function passageText(chunk: string, entry: string | undefined): string {
  if (!entry) return chunk;
  return entry.length <= WHOLE_ENTRY_CHARS ? entry : sectionAround(chunk, entry, WHOLE_ENTRY_CHARS);
}

/**
 * The sub-section of a long entry holding `chunk`: from the heading before it to the next
 * heading of the same or a higher level, widened to its parent sections while they fit in
 * `budget` characters; the chunk alone when it is not found in the entry or its section does not fit.
 */
function sectionAround(chunk: string, entry: string, budget: number): string {
  const start = entry.indexOf(chunk);
  if (start < 0) return chunk;
  const end = start + chunk.length;
  const headings = markdownHeadings(entry);
  // The section a heading opens (the entry's start, before any: the text up to the next heading), to past the chunk.
  const span = (h: { at: number; level: number } | undefined): [number, number] => {
    const next = headings.find((n) => n.at >= end && (h === undefined || n.level <= h.level));
    return [h?.at ?? 0, next?.at ?? entry.length];
  };
  let best: [number, number] | null = null;
  const before = headings.filter((h) => h.at <= start);
  // From the nearest heading outwards: each shallower heading before it opens a wider section.
  let level = Infinity;
  for (let i = before.length - 1; i >= -1; i--) {
    const h = i >= 0 ? before[i] : undefined;
    if (h && h.level >= level) continue;
    const [from, to] = span(h);
    if (to - from > budget) break;
    best = [from, to];
    if (h) level = h.level;
  }
  return best ? entry.slice(best[0], best[1]).trim() : chunk;
}

/** Whether a passage of `text` at `similarity` to the question is evidence for it. */
export function isEvidence(query: EvidenceQuery, text: string, similarity: number): boolean {
  return query.floor <= 0 || passesGate(query, coverage(query, text), similarity);
}
