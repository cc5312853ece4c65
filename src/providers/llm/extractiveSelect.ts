/**
 * Sentence selection for the extractive answer provider: which sentences of the passages
 * answer the question, and in what order. Tuned on XQuAD with `npm run bench:extractive`.
 *
 * Score of a sentence = its coverage, the idf-weighted share of the question's content terms
 * it contains (idf over all the passages' sentences, so words every passage repeats count
 * little and the rare question words most; question words such as "how many", "wie viele",
 * "多少", "กี่" never count)
 *   + NEIGHBOUR_SHARE × the better coverage of the sentences just before and after it
 *   + a bonus for its passage's retrieval rank (earlier passages were found more relevant)
 *   + a bonus when the question asks for a number or a date and the sentence has digits
 *   + a bonus when an English "What is X?" meets the sentence that opens "X is …" (a
 *     definition: otherwise any sentence naming X ties with it, and runs of table rows that
 *     all name X win on their neighbours)
 *   − a penalty for very short or very long sentences.
 * Terms come from the search tokeniser (stemming, folding, Chinese/Japanese bigrams, Thai
 * words), applied in each passage's own language.
 */
import { analyze, detectLanguage } from '../../domain/text/tokenize.js';
import { splitSentences } from './sentences.js';

/** A sentence chosen for the answer, with the ref of the passage it comes from. */
export interface Selected {
  ref: number;
  text: string;
}

/** A retrieved passage, in retrieval order (only what selection reads). */
export interface Passage {
  ref: number;
  text: string;
}

/** By passage rank; more would let a passage's rank outweigh what its sentences say. */
const RANK_BONUS = [0.12, 0.06, 0.03, 0.015];
/**
 * Answers often sit next to the sentence that matches the question ("Peyton Manning became …
 * He is also the oldest quarterback …"): +2 points of answers holding the gold string on
 * XQuAD for about 10% longer answers.
 */
const NEIGHBOUR_SHARE = 0.4;
const NUMERIC_BONUS = 0.08;
const DEFINITION_QUESTION = /^\s*(?:what|who)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?([^?]{2,60}?)\s*\?*\s*$/i;
const DEFINITION_BONUS = 0.6;
/** Lengths below/above these (in characters, CJK counted triple) cost up to the penalty. */
const SHORT_CHARS = 40;
const LONG_CHARS = 300;
const LENGTH_PENALTY = 0.15;
/** A further sentence must score at least this share of the best one (higher: shorter answers). */
const FOLLOW_SHARE = 0.6;
/** Term-set Jaccard similarity at which a sentence repeats one already chosen. */
const DUPLICATE_JACCARD = 0.6;
const PREFIX_MIN = 5;
const PREFIX_CREDIT = 0.6;

/**
 * Question words, copulas and auxiliaries per language: they say what kind of answer is
 * wanted, not what it is about, so they never count as overlap ("Wie hieß …" must not pick
 * "Im Dezember hieß es …"). For de, el, hi, tr and zh also the commonest function words the
 * tokeniser keeps (0.5–1 point on XQuAD there; no gain in ar, th, vi).
 */
const QUESTION_WORDS: Readonly<Record<string, string>> = {
  en: 'what which who whom whose when where why how many much did does do is was were are be been name named called known kind type',
  de: 'was wer wen wem wessen wann wo woher wohin warum wieso wie viele viel welche welcher welches welchem welchen hat haben hatte hatten wurde wurden ist sind war waren heißt hieß hießen heißen genannt nennt beim vom ins zur zum um nach über',
  es: 'qué que cuál cuáles quién quiénes cuándo dónde cómo cuántos cuántas cuánto cuánta por fue es son era eran llama llamaba nombre',
  fr: 'que quoi qui quel quelle quels quelles quand où comment combien pourquoi est sont était nom appelle',
  ro: 'ce care cine când unde cum câți câte cât de a fost este sunt au numele numit',
  ru: 'что кто когда где как сколько какой какая какие каком какого почему чем чего кого был была было были является называется',
  el: 'τι ποιος ποια ποιο ποιοι ποιες ποιον ποιας πότε πού πώς πόσα πόσοι πόσες πόσο γιατί ήταν είναι ο η το οι τα του της των στο στη στην σε και',
  tr: 'ne kim nerede nasıl hangi kaç neden nedir kimdir zaman hangisi bir ve',
  vi: 'gì nào đâu ai bao nhiêu khi là tại sao thế như mấy',
  hi: 'क्या कौन कब कहाँ कहां कैसे कितने कितना कितनी किस किसने किसको क्यों है था थे थी के की का में को से ने और',
  ar: 'ما ماذا من متى أين كيف كم لماذا هل أي التي الذي',
  zh: '什么 谁 哪 哪里 哪个 哪些 何时 什么时候 为什么 怎么 怎样 如何 多少 几 是 的 了 吗 呢 在 和',
  ja: '何 誰 いつ どこ どの どれ なぜ どう いくつ いくら',
  th: 'อะไร ใคร ที่ไหน เมื่อไร เมื่อไหร่ อย่างไร ทำไม เท่าไร เท่าไหร่ กี่ ไหน ใด คือ',
};

/** Questions asking for a quantity or a date: sentences with digits are likelier answers. */
const NUMERIC_QUESTION =
  /\bhow (?:many|much|long|old)\b|\bwhen\b|\bwhat year\b|\bwie (?:viele?|lange|alt)\b|\bwann\b|\bcuánt|\bcuándo\b|\bcâ[țt]|\bcând\b|сколько|когда|в каком году|πόσ|πότε|\bkaç\b|ne zaman|bao nhiêu|\bmấy\b|khi nào|năm nào|कितन|कब|\bكم\b|متى|多少|几|何时|什么时候|哪一年|哪年|กี่|เท่าไ|เมื่อไ|ปีใด|ปีไหน|いつ|いくつ|何年/iu;
const DIGIT = /\p{Nd}/u;
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

interface Candidate {
  ref: number;
  rank: number;
  position: number;
  text: string;
  language: string;
  terms: Set<string>;
  coverage: number;
  score: number;
}

const questionStops = new Map<string, Set<string>>();

/**
 * The sentences of `passages` (in retrieval order) that best answer `question`: at most
 * `maxSentences`, together within about `maxChars` (the best sentence alone may be longer:
 * it is then cut at a word boundary with "…"), no near-duplicates. Passages are ordered by
 * their best chosen sentence, and a passage's sentences keep their order in it, so the
 * strongest evidence comes first and sentences that refer back to the one before still
 * follow it. Empty only when no passage has any text.
 */
export function selectSentences(question: string, passages: readonly Passage[], limits: { maxSentences: number; maxChars: number }): Selected[] {
  const candidates = score(question, sentencesOf(passages));
  candidates.sort((a, b) => b.score - a.score || a.rank - b.rank || a.position - b.position);
  const best = candidates[0];
  if (!best) return [];
  const chosen: Candidate[] = [];
  let used = 0;
  for (const c of candidates) {
    if (chosen.length >= limits.maxSentences) break;
    if (chosen.length > 0) {
      if (c.coverage === 0 || c.score < FOLLOW_SHARE * best.score) break;
      if (chosen.some((d) => similar(c.terms, d.terms)) || used + citedLength(c) > limits.maxChars) continue;
    }
    chosen.push(c);
    used += citedLength(c);
  }
  const order = new Map<number, number>();
  for (const [i, c] of chosen.entries()) if (!order.has(c.rank)) order.set(c.rank, i);
  chosen.sort((a, b) => order.get(a.rank)! - order.get(b.rank)! || a.position - b.position);
  return chosen.map((c) => ({ ref: c.ref, text: c.text.length > limits.maxChars ? truncate(c.text, limits.maxChars) : c.text }));
}

function sentencesOf(passages: readonly Passage[]): Candidate[] {
  const out: Candidate[] = [];
  passages.forEach((passage, rank) => {
    const language = detectLanguage(passage.text);
    splitSentences(passage.text, language).forEach((text, position) => {
      out.push({ ref: passage.ref, rank, position, text, language, terms: new Set(analyze(text, language).terms), coverage: 0, score: 0 });
    });
  });
  return out;
}

function score(question: string, candidates: Candidate[]): Candidate[] {
  const byLanguage = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const group = byLanguage.get(c.language);
    if (group) group.push(c);
    else byLanguage.set(c.language, [c]);
  }
  // Coverage per language: the question is analysed as each passage language would analyse it.
  for (const [language, group] of byLanguage) {
    const terms = contentTerms(question, language);
    const matches = group.map((c) => terms.map((t) => match(t, c.terms)));
    const weights = terms.map((_, j) => {
      const n = matches.reduce((sum, m) => sum + (m[j]! > 0 ? 1 : 0), 0);
      return n === 0 ? 0 : Math.log(1 + (candidates.length - n + 0.5) / (n + 0.5));
    });
    const total = weights.reduce((a, b) => a + b, 0);
    group.forEach((c, i) => {
      c.coverage = total > 0 ? weights.reduce((sum, w, j) => sum + w * matches[i]![j]!, 0) / total : 0;
    });
  }
  const numeric = NUMERIC_QUESTION.test(question);
  const subject = DEFINITION_QUESTION.exec(question)?.[1]?.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const definition = subject ? new RegExp(`^(?:an?\\s+|the\\s+)?${subject}\\s+(?:is|are|was|were)\\b`, 'i') : null;
  for (const [i, c] of candidates.entries()) {
    const before = candidates[i - 1]?.rank === c.rank ? candidates[i - 1]!.coverage : 0;
    const after = candidates[i + 1]?.rank === c.rank ? candidates[i + 1]!.coverage : 0;
    c.score =
      c.coverage +
      NEIGHBOUR_SHARE * Math.max(before, after) +
      (RANK_BONUS[c.rank] ?? 0) +
      (numeric && c.coverage > 0 && DIGIT.test(c.text) ? NUMERIC_BONUS : 0) +
      (definition?.test(c.text) ? DEFINITION_BONUS : 0) -
      lengthPenalty(c.text);
  }
  return candidates;
}

/**
 * How far a sentence's terms contain `term`: 1 when exactly, PREFIX_CREDIT when a term shares
 * its first two thirds (at least PREFIX_MIN characters) — compounds and inflections the
 * stemmer leaves apart ("Warschauer"/"Warschau", Turkish and Greek case endings); on XQuAD
 * this adds 1–1.5 points in de, el, ru, tr and costs nothing elsewhere.
 */
function match(term: string, terms: Set<string>): number {
  if (terms.has(term)) return 1;
  if (term.length < PREFIX_MIN) return 0;
  for (const t of terms) {
    if (t.length < PREFIX_MIN) continue;
    const need = Math.max(PREFIX_MIN, Math.ceil((2 / 3) * Math.min(t.length, term.length)));
    let k = 0;
    while (k < need && t.charCodeAt(k) === term.charCodeAt(k)) k++;
    if (k === need) return PREFIX_CREDIT;
  }
  return 0;
}

/** The question's distinct terms in `language`, without question words (unless that leaves none). */
function contentTerms(question: string, language: string): string[] {
  let stops = questionStops.get(language);
  if (!stops) {
    // Unknown-language text is stemmed as English by the tokeniser.
    const words = QUESTION_WORDS[language] ?? (language === 'und' ? QUESTION_WORDS.en : undefined);
    stops = new Set(words ? analyze(words, language).terms : []);
    questionStops.set(language, stops);
  }
  const terms = [...new Set(analyze(question, language).terms)];
  const content = terms.filter((t) => !stops.has(t));
  return content.length > 0 ? content : terms;
}

function lengthPenalty(text: string): number {
  const length = text.length + 2 * (text.match(WIDE)?.length ?? 0);
  if (length < SHORT_CHARS) return LENGTH_PENALTY * (1 - length / SHORT_CHARS);
  if (length > LONG_CHARS) return LENGTH_PENALTY * Math.min(1, (length - LONG_CHARS) / LONG_CHARS);
  return 0;
}

function similar(a: Set<string>, b: Set<string>): boolean {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 || shared / union >= DUPLICATE_JACCARD;
}

/** Length with its citation (" [12]"). */
function citedLength(c: Candidate): number {
  return c.text.length + String(c.ref).length + 3;
}

let wordSegmenter: Intl.Segmenter | undefined;

/** The longest prefix of `text` that ends at a word boundary within `max` characters, without trailing punctuation, plus "…". */
function truncate(text: string, max: number): string {
  wordSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  let end = 0;
  for (const { index, segment } of wordSegmenter.segment(text)) {
    if (index + segment.length > max - 1) break;
    end = index + segment.length;
  }
  return text.slice(0, end || max - 1).replace(/[\s\p{P}]+$/u, '') + '…';
}
