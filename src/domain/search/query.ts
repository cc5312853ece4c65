/** A search's query: its BM25 terms and language, and its embedding (kept for repeated queries). */
import { LRUCache } from 'lru-cache';
import { UnavailableError } from '../errors.js';
import { EmbedderError, type Embedder } from '../ingestion/port.js';
import { analyze, analyzedWords, detectLanguage, editedStems, isMistypeable, isStopWord, typedBeginning, typedWord } from '../ingestion/text/tokenize.js';
import { separableVerb } from '../ingestion/text/separableVerbs.js';
import type { LooseMatching, MistypeableTerm } from './port.js';

/**
 * The query's BM25 terms and its language. A query is analysed in `language` when the caller
 * knows it (a question searched without its scaffolding, in the whole question's), else in
 * its detected language; when that is unsure, in every language the collections hold (read
 * only then: most searches skip that statement), so stems match however the documents were
 * stemmed. Read as undetermined ('und': a code-only chunk's language), it keeps no word that
 * another of those languages stops ("The Origins" would otherwise search for "the"). The
 * language is the given or detected one, else the collections' only one besides 'und', else
 * 'und'. `words`: how many words the query has as its languages read it (the most terms one
 * of them gives): read in several languages, a word's variants ("page", "pag") are terms of
 * their own but one word.
 */
export async function analyseQuery(query: string, collectionLanguages: () => Promise<string[]>, language?: string): Promise<{ terms: string[]; language: string; words: number }> {
  const detected = language && language !== 'und' ? language : detectLanguage(query);
  const languages = detected !== 'und' ? [detected] : await collectionLanguages();
  const analysed = languages.length > 0 ? languages : ['und'];
  const named = analysed.filter((lang) => lang !== 'und');
  const termsIn = (lang: string) => {
    const { terms } = analyze(query, lang);
    return lang === 'und' && named.length > 0 ? terms.filter((term) => !named.some((other) => isStopWord(term, other))) : terms;
  };
  const read = analysed.map(termsIn);
  return {
    terms: [...new Set(read.flat())],
    language: detected !== 'und' ? detected : named.length === 1 ? named[0]! : 'und',
    words: Math.max(0, ...read.map((terms) => new Set(terms).size)),
  };
}

/**
 * Query embeddings by query text, `cacheSize` of them kept (0: none). A search box asks again
 * as the visitor types and pauses, and visitors ask the same popular questions: a repeated
 * query skips the model, which is most of a search's CPU. In-flight embeddings are shared;
 * failed ones are not kept. A failing embedder rejects with UnavailableError.
 */
export function queryEmbedder(embedder: Embedder, cacheSize: number): (query: string) => Promise<Float32Array> {
  const cache = cacheSize > 0 ? new LRUCache<string, Promise<Float32Array>>({ max: cacheSize }) : null;
  return function embedQuery(query) {
    const cached = cache?.get(query);
    if (cached) return cached;
    const embedding = embedder.embed([query]).then(
      ([vector]) => vector!,
      (error: unknown) => {
        if (cache?.peek(query) === embedding) cache.delete(query);
        if (error instanceof EmbedderError) throw new UnavailableError('The embedding provider is unavailable.');
        throw error;
      },
    );
    cache?.set(query, embedding);
    return embedding;
  };
}

/**
 * What a match counts for beside an exact one: a term the word being typed begins, and a term
 * one or two edits from a query term found nowhere. Below 1, so an exact match always
 * outranks them (docs/SEARCH.md "Prefixes and typos"). Two words written as one ("shut down",
 * the text's "shutdown") are what the visitor wrote: 1 (bench:answers Express en 87.5 → 89.1 %,
 * Vite 73.5 → 75.0 % gold in answer; Lore's docs unchanged).
 */
export const LOOSE_WEIGHTS = { prefix: 0.6, typo: [0.6, 0.35] as const, joined: 1 };

/** The word being typed needs this many letters to match the terms it begins ("po" does, "p" does not). */
const MIN_PREFIX = 2;
/** A term of this many letters may hold one typo, of TWO_TYPOS two (as Algolia counts). */
const ONE_TYPO = 4;
const TWO_TYPOS = 8;
/** The last words whose one-edit corrections are stemmed (storage corrects at most three words a search). */
const CORRECTED_WORDS = 3;
/** Corrections a word carries at most (a word of 20 letters has about 40 one-edit forms; most stem to nothing known). */
const MAX_CORRECTIONS = 40;

/**
 * A word's one-edit corrections, stemmed (editedStems): about 25 stemmer calls a word, ~0.1 ms,
 * so they are kept for the words asked again — a search box asks as the visitor types.
 */
const correctionCache = new LRUCache<string, readonly string[]>({ max: 5_000 });
function corrections(word: string, language: string): readonly string[] {
  const key = `${language}\0${word}`;
  let found = correctionCache.get(key);
  if (found === undefined) correctionCache.set(key, (found = editedStems(word, language, MAX_CORRECTIONS)));
  return found;
}

/**
 * How the query's words may match more than their own terms (port.ts LooseMatching): the word
 * being typed — the last, when `typing` (the query did not end in a space) — the terms it
 * begins; and with `typos`, each term of letters only (no digits, `_`, not in a script written
 * without spaces, where an edit is another word) whose word has four letters or more the terms
 * within one edit, eight or more two, when it is found nowhere. Edits are counted between
 * terms (stems: "pasword" → "password", "recieve" → "receiv"), by storage.
 */
export function looseMatching(query: string, terms: readonly string[], language: string, options: { typing: boolean; typos: boolean }): LooseMatching {
  const typed = options.typing ? typedWord(query, language) : null;
  let prefix: LooseMatching['prefix'] = null;
  if (typed !== null && [...typed].length >= MIN_PREFIX) {
    const own = analyze(typed, language).terms.find((t) => terms.includes(t));
    const slot = own === undefined ? terms.length : terms.indexOf(own);
    // A word typed past its stem ("listin", stem "list") begins no term: its stems do.
    const beginning = typedBeginning(typed, language);
    const letters = [...beginning];
    const stems = [];
    for (let n = Math.max(4, Math.ceil(letters.length / 2)); n < letters.length; n++) stems.push(letters.slice(0, n).join(''));
    // Arabic's article stripped ("المدي" begins "مدين"), the word as typed may still be a term of its own.
    if (beginning !== typed) stems.push(typed);
    prefix = { typed: beginning, slot, stems };
  }
  const typos: (MistypeableTerm & { written: string })[] = [];
  let joined: LooseMatching['joined'] = [];
  if (options.typos) {
    const words = [...analyzedWords(query, language)];
    joined = joinedWords(query, words, terms, language);
    const seen = new Set<string>();
    for (const word of words) {
      const written = query.slice(word.start, word.end);
      // Numbers, codes and identifiers (p53, http2, max_len) are typed with care, or pasted.
      if (/[\p{N}_]/u.test(written)) continue;
      const letters = [...written].length;
      if (letters < ONE_TYPO) continue;
      for (const term of word.terms) {
        const slot = terms.indexOf(term);
        if (slot < 0 || seen.has(term) || !isMistypeable(term)) continue;
        seen.add(term);
        typos.push({ term, slot, edits: letters >= TWO_TYPOS ? 2 : 1, corrections: [], written });
      }
    }
    // Storage corrects the last MISTYPED_TERMS terms it finds nowhere; the words that may be
    // those (the last few) carry their corrections, stemmed here where the stemmer is.
    for (const typo of typos.slice(-CORRECTED_WORDS)) typo.corrections = corrections(typo.written, language);
  }
  return { prefix, typos: typos.map(({ written: _, ...typo }) => typo), joined, weights: LOOSE_WEIGHTS };
}

/** Pairs of words joined a query at most (a query is a few words; each pair is one more term looked up). */
const MAX_JOINED = 8;
/**
 * Joined terms shorter than this are left out, and words of one letter are joined to nothing:
 * "how do I set up" would look up "doi" and "iset", "a web server" "aweb".
 */
const MIN_JOINED = 5;
/** Words of letters (and their marks) only, hyphens between them ("shut-down"). */
const LETTERS = /^[\p{L}\p{M}]+(?:-[\p{L}\p{M}]+)*$/u;
const ASCII_LETTERS = /^[A-Za-z]+(?:-[A-Za-z]+)*$/;

/**
 * Words the collections may hold as one (LooseMatching.joined), of the query's `analysed`
 * words: each two adjacent words of letters, one space apart, joined ("shut down" → shutdown,
 * "set up" → setup, "log in" → login; two letters or more each, MIN_JOINED letters joined),
 * and each hyphenated word without its hyphens ("shut-down" → shutdown), when the joined word
 * is one term that is not already one of the query's; in German, first, the verb a question
 * splits, its particle last ("Wie richte ich … ein?" → einrichten: separableVerb). Not in
 * scripts written without spaces, where the segmenter decides what a word is.
 */
function joinedWords(query: string, analysed: readonly { start: number; end: number; terms: readonly string[] }[], terms: readonly string[], language: string): LooseMatching['joined'] {
  const joined: { term: string; slots: number[] }[] = [];
  const add = (text: string, parts: readonly string[]) => {
    const [term, more] = analyze(text, language).terms;
    if (term === undefined || more !== undefined || term.length < MIN_JOINED || !isMistypeable(term) || terms.includes(term)) return;
    const slots = parts.map((part) => terms.indexOf(part)).filter((slot) => slot >= 0);
    if (slots.length === 0) return;
    const known = joined.find((j) => j.term === term);
    if (known) {
      for (const slot of slots) if (!known.slots.includes(slot)) known.slots.push(slot);
    } else if (joined.length < MAX_JOINED) {
      joined.push({ term, slots: [...new Set(slots)] });
    }
  };
  // A German verb the question splits first: it is what the question asks about.
  const verb = language === 'de' ? separableVerb(query, analysed) : null;
  if (verb) add(verb.text, verb.parts);
  let previous: { text: string; end: number; terms: readonly string[] } | null = null;
  for (const word of analysed) {
    const text = query.slice(word.start, word.end);
    if (!isLetters(text)) {
      previous = null;
      continue;
    }
    const hyphenated = text.includes('-');
    if (hyphenated) add(text.replaceAll('-', ''), word.terms);
    // One space apart, two letters or more each, neither hyphenated.
    if (previous && !hyphenated && word.start === previous.end + 1 && query[previous.end] === ' ' && text.length > 1 && previous.text.length > 1) {
      add(previous.text + text, [...previous.terms, ...word.terms]);
    }
    previous = hyphenated ? null : { text, end: word.end, terms: word.terms };
  }
  return joined;
}

/** Whether `text` is letters only (and their marks), hyphens between them: ASCII first, as most queries are. */
function isLetters(text: string): boolean {
  return ASCII_LETTERS.test(text) || LETTERS.test(text);
}
