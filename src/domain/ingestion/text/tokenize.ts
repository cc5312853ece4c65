/**
 * App-side multilingual tokenisation for the BM25 index. The same `analyze` runs on chunks at
 * ingestion and on queries, so any choice here only has to be deterministic, not "correct".
 *
 * Pipeline per word: NFKC → word splitting → lower-casing → stop words (a few languages) →
 * stemming with @orama/stemmers (Snowball; Porter for English) on the lower-cased, still
 * accented word (the stemmers expect accents: Romanian "orașe", Russian "книгой", Spanish and
 * Turkish stem better that way, measured on XQuAD) → folding (accents stripped for Latin,
 * Greek and Arabic script; Cyrillic loses only stress marks and ё; Devanagari, Thai, kana etc.
 * keep their marks, which are letters there).
 *
 * Segmentation. Intl.Segmenter is ~2 MB/s and quadratic on long strings in V8, so words are
 * found with a UAX #29-like regex, and only runs in scripts written without spaces (Han, kana,
 * Thai, Lao, Khmer, Myanmar) go through ICU's dictionary segmentation, in bounded slices.
 *
 * Chinese and Japanese: the ICU words are the primary terms, plus every character bigram of
 * each Han/Katakana run (and of each Hangul word: Korean attaches particles to words, so
 * "연구를" also yields "연구"). Bigrams make a query match however ICU happens to cut the
 * text around it: on XQuAD-zh, answer spans used as queries find their paragraph at rank 1
 * in 94.9% of cases with bigrams vs 93.0% with ICU words alone, questions MRR@10 0.956 vs
 * 0.949; the price is about twice as many terms for CJK text.
 *
 * Vietnamese: syllables are the terms and keep their diacritics. Tones tell words apart;
 * stripping them merges many syllables and cost 3 points of MRR@10 on XQuAD-vi (0.918 vs
 * 0.947). A query typed without diacritics therefore only matches the vector side.
 *
 * Unknown language ('und'): Latin-script words get the English stemmer, as do Latin-script
 * words inside a non-Latin-script language (names and borrowed terms are mostly English). This
 * keeps 'und' chunks and queries compatible with English ones, which no-stemming would not
 * ("running" in an 'und' chunk vs "run" from an English query); applied to other languages
 * it mostly just strips plural -s.
 *
 * Cost: linear in the text; per-word results are cached per language, so repeated words cost
 * a Map lookup. On one core, English with detectLanguage per chunk: ~6 MB/s on text never seen
 * before (7.8 MB of SciFact; the Porter stemmer is most of it), 12–20 MB/s once the cache is warm.
 */
import { stemmer as arabic } from '@orama/stemmers/arabic';
import { stemmer as armenian } from '@orama/stemmers/armenian';
import { stemmer as bulgarian } from '@orama/stemmers/bulgarian';
import { stemmer as danish } from '@orama/stemmers/danish';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as english } from '@orama/stemmers/english';
import { stemmer as finnish } from '@orama/stemmers/finnish';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as greek } from '@orama/stemmers/greek';
import { stemmer as hungarian } from '@orama/stemmers/hungarian';
import { stemmer as indonesian } from '@orama/stemmers/indonesian';
import { stemmer as irish } from '@orama/stemmers/irish';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as lithuanian } from '@orama/stemmers/lithuanian';
import { stemmer as nepali } from '@orama/stemmers/nepali';
import { stemmer as norwegian } from '@orama/stemmers/norwegian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as romanian } from '@orama/stemmers/romanian';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as serbian } from '@orama/stemmers/serbian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';
import { stemmer as tamil } from '@orama/stemmers/tamil';
import { stemmer as turkish } from '@orama/stemmers/turkish';
import { stemmer as ukrainian } from '@orama/stemmers/ukrainian';
import { segmentsOf, wordSegmenter } from './segments.js';

/** Language codes we can stem (ISO 639-1), plus 'und' for unknown. */
export type Language = string;

type Stemmer = (word: string) => string;

// ---------------------------------------------------------------------------------------------
// Stemmers
// ---------------------------------------------------------------------------------------------

/** The Bulgarian stemmer writes into its argument's characters, which throws on a string. */
function bulgarianStem(word: string): string {
  const chars = Object.assign(Array.from(word), {
    substring(this: string[], start: number, end: number): string {
      return this.slice(start, end).join('');
    },
  });
  return bulgarian(chars as unknown as string);
}

/**
 * Light Hindi stemmer (Ramanathan & Rao 2003, as in Lucene): removes the longest inflectional
 * suffix. The package's "indian" stemmer deletes every vowel sign instead (पुस्तक → पसतक),
 * which merges unrelated words; this one keeps them and scored as well on XQuAD-hi.
 */
const HINDI_SUFFIXES: readonly (readonly string[])[] = [
  [],
  ['ो', 'े', 'ू', 'ु', 'ी', 'ि', 'ा'],
  ['कर', 'ाओ', 'िए', 'ाई', 'ाए', 'ने', 'नी', 'ना', 'ते', 'ीं', 'ती', 'ता', 'ाँ', 'ां', 'ों', 'ें'],
  ['ाकर', 'ाइए', 'ाईं', 'ाया', 'ेगी', 'ेगा', 'ोगी', 'ोगे', 'ाने', 'ाना', 'ाते', 'ाती', 'ाता', 'तीं', 'ाओं', 'ाएं', 'ुओं', 'ुएं', 'ुआं'],
  ['ाएगी', 'ाएगा', 'ाओगी', 'ाओगे', 'एंगी', 'ेंगी', 'एंगे', 'ेंगे', 'ूंगी', 'ूंगा', 'ातीं', 'नाओं', 'नाएं', 'ताओं', 'ताएं', 'ियाँ', 'ियों', 'ियां'],
  ['ाएंगी', 'ाएंगे', 'ाऊंगी', 'ाऊंगा', 'ाइयाँ', 'ाइयों', 'ाइयां'],
];
function hindiStem(word: string): string {
  for (let n = 5; n >= 1; n--) {
    if (word.length <= n + 1) continue;
    for (const suffix of HINDI_SUFFIXES[n]!) if (word.endsWith(suffix)) return word.slice(0, -n);
  }
  return word;
}

const STEMMERS: Readonly<Record<string, Stemmer>> = {
  ar: arabic, bg: bulgarianStem, da: danish, de: german, el: greek, en: english, es: spanish, fi: finnish,
  fr: french, ga: irish, hi: hindiStem, hu: hungarian, hy: armenian, id: indonesian, it: italian, lt: lithuanian,
  nb: norwegian, ne: nepali, nl: dutch, nn: norwegian, no: norwegian, pt: portuguese, ro: romanian, ru: russian,
  sr: serbian, sv: swedish, ta: tamil, tr: turkish, uk: ukrainian,
};

/** Languages written in Latin script (their own stemmer, or none, applies to Latin words). */
const LATIN_LANGUAGES = new Set(
  'af az ca cs cy da de en es et eu fi fr ga gl hr hu id is it lt lv ms mt nb nl nn no pl pt ro sk sl sq sv sw tl tr vi'.split(' '),
);

// ---------------------------------------------------------------------------------------------
// Stop words: short lists of articles, conjunctions and prepositions, no negations. On XQuAD
// they cost ≤0.3 points of MRR (noise) and remove a third of the term occurrences, including
// the longest posting lists. Checked on the lower-cased word before stemming.
// ---------------------------------------------------------------------------------------------

const STOP_WORDS: Readonly<Record<string, string>> = {
  en: 'a an and are as at be but by for from has have in into is its of on or that the their then there these they this to was were with',
  de: 'der die das den dem des ein eine einer eines einem einen und oder ist sind war zu zum zur im in von mit auf für an am bei aus sich auch als es',
  es: 'el la los las un una unos unas de del al y o en que se por con para es su sus lo como',
  fr: 'le la les un une des du de et ou en à au aux que qui se ce est sont dans par pour sur',
  it: 'il lo la i gli le un uno una di del della dei delle e o in che per con su da al alla è si',
  pt: 'o a os as um uma de do da dos das e ou em no na nos nas que se por para com ao',
  nl: 'de het een en of in van op te dat die is met voor aan',
  ru: 'и в во на с со к у о об от по за из что как а но же бы ли это то',
};
const STOP = new Map(Object.entries(STOP_WORDS).map(([lang, words]) => [lang, new Set(words.split(' '))]));

/** Elided articles and prepositions before an apostrophe: l'homme, dell'anno, qu'il. */
const ELISIONS = new Set('l d j m n s t c qu jusqu lorsqu puisqu quoiqu presqu dell all dall nell sull coll pell un quest quell nessun tutt'.split(' '));

// ---------------------------------------------------------------------------------------------
// Per-language pipeline
// ---------------------------------------------------------------------------------------------

interface Entry {
  readonly terms: readonly string[];
  /** Stop words removed from this word, kept in case the whole text is stop words. */
  readonly stopped: readonly string[];
}

interface Pipeline {
  /** Stemmer for words not in Latin script. */
  readonly stem: Stemmer | undefined;
  /** Stemmer for Latin-script words. */
  readonly latinStem: Stemmer | undefined;
  readonly stop: ReadonlySet<string> | undefined;
  /** Turkish and Azerbaijani: I ↔ ı, İ ↔ i when lower-casing; apostrophes start suffixes. */
  readonly turkic: boolean;
  /** English keeps apostrophe prefixes (o'clock); other languages drop elisions (l'homme). */
  readonly english: boolean;
  /** Vietnamese keeps its diacritics. */
  readonly keepMarks: boolean;
  readonly cache: WordCache;
}

/**
 * Word → terms, bounded: two generations of up to MAX_CACHED entries; when the current one is
 * full it becomes the previous one, and words found there move back, so frequent words survive.
 */
class WordCache {
  private current = new Map<string, Entry>();
  private previous = new Map<string, Entry>();

  get(word: string): Entry | undefined {
    const hit = this.current.get(word);
    if (hit !== undefined) return hit;
    const old = this.previous.get(word);
    if (old !== undefined) this.set(word, old);
    return old;
  }

  set(word: string, entry: Entry): void {
    if (this.current.size >= MAX_CACHED) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(word, entry);
  }
}

const MAX_PIPELINES = 64;
/**
 * Entries a word cache generation holds (about 240 bytes each: at most ~24 MB a language in
 * the two generations). A collection's vocabulary is larger than one might think (SciFact's
 * 5,183 abstracts: 56,325 word forms), and a cache smaller than it is rotated by every text
 * read: 20,000 made `analyze` 244 µs an abstract against 140 µs at 50,000 (every abstract
 * read repeatedly, as a search's snippets and ingest read them), and a search's snippets
 * (15 hits) are most of its hydrate stage.
 */
const MAX_CACHED = 50_000;
const pipelines = new Map<Language, Pipeline>();

function pipelineFor(language: Language): Pipeline {
  let p = pipelines.get(language);
  if (p) return p;
  const base = language.toLowerCase().split(/[-_]/)[0] ?? '';
  const own = STEMMERS[base];
  const latin = LATIN_LANGUAGES.has(base);
  p = {
    stem: latin ? undefined : own,
    latinStem: latin ? own : english,
    stop: STOP.get(base),
    turkic: base === 'tr' || base === 'az',
    english: base === 'en',
    keepMarks: base === 'vi',
    cache: new WordCache(),
  };
  if (pipelines.size >= MAX_PIPELINES) pipelines.clear();
  pipelines.set(language, p);
  return p;
}

// ---------------------------------------------------------------------------------------------
// Character classes
// ---------------------------------------------------------------------------------------------

/**
 * A word: letters, marks, digits, connectors (_), soft hyphen, ZWJ/ZWNJ (inside Indic and
 * Persian words), joined by single hyphens, apostrophes, dots, commas and middle dots, which
 * `addCompound` then interprets (covid-19, l'homme, U.S., 3.14, 1,000, col·lecció).
 */
const WORD_CHARS = '\\p{L}\\p{M}\\p{N}\\p{Pc}\\u00AD\\u200C\\u200D';
const WORD_SOURCE = `[${WORD_CHARS}]+(?:[-'.,\\u00B7\\u2010\\u2011\\u2019][${WORD_CHARS}]+)*`;
const WORD = new RegExp(WORD_SOURCE, 'gu');
/** A second instance for re-splitting inside `entryOf` while WORD is mid-scan. */
const WORD_INNER = new RegExp(WORD_SOURCE, 'gu');

const ASCII = /^[\x00-\x7f]*$/;
const DIGIT = /\p{N}/u;
const NUMBER = /^[\p{N}.,]+$/u;
const SEPARATORS = /[-'.,_\u00B7\u2010\u2011]/;
const HYPHENS = /[-\u2010\u2011]/;
/** Scripts written without spaces, segmented with ICU's dictionaries. */
const DICTIONARY_SCRIPT = /[\u0E00-\u0EFF\u1000-\u109F\u1780-\u17FF\u19E0-\u19FF\u3005-\u3007\u3040-\u30FF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uFF66-\uFF9F\u{20000}-\u{3134F}]/u;
/** Runs that get character bigrams: Han (with 々 〆), Katakana, Hangul syllables. */
const BIGRAM_RUN = /[\u3005\u3006\u30A0-\u30FF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\uAC00-\uD7AF\u{20000}-\u{3134F}]{2,}/gu;
const HANGUL = /[\uAC00-\uD7AF]/;
const LATIN_START = /^[a-z\u00C0-\u024F\u1E00-\u1EFF]/;
/** Words whose marks are accents: Latin, Greek, Arabic (harakat), Hebrew (niqqud). */
const ACCENTED_SCRIPTS = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Common}\p{Script=Inherited}]+$/u;
const CYRILLIC = /[\u0400-\u052F]/;
const MARKS = /\p{M}/gu;
const LETTER_FOLDS: Readonly<Record<string, string>> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ς: 'σ' };
const LETTERS_TO_FOLD = /[ßæœøłđðþıςـ\u00AD\u200C\u200D]/g;
const VULGAR_FRACTION = /(\p{N})([\u00BC-\u00BE\u2150-\u215E])/gu;
const FRACTION = /[\u00BC-\u00BE\u2150-\u215E]/;

const MAX_TERM = 64;
/** Longer words cannot stem down to MAX_TERM: dropped before any work. */
const MAX_WORD = 96;
/** ICU segmentation gets slow on long strings: dictionary-script runs go in slices. */
const ICU_SLICE = 1000;

// ---------------------------------------------------------------------------------------------
// Word processing
// ---------------------------------------------------------------------------------------------

/**
 * NFKC, except that Thai/Lao SARA AM stay precomposed (NFKC splits them into NIKHAHIT + SARA
 * AA, which ICU's dictionary does not know: Thai segmentation would fall apart), and "6½"
 * does not become "61⁄2".
 */
function nfkc(text: string): string {
  let n = text.normalize('NFKC');
  if (n !== text && FRACTION.test(text)) n = text.replace(VULGAR_FRACTION, '$1 $2').normalize('NFKC');
  if (n.includes('\u0E4D') || n.includes('\u0ECD')) n = n.replace(/\u0E4D\u0E32/g, '\u0E33').replace(/\u0ECD\u0EB2/g, '\u0EB3');
  return n;
}

function lower(word: string, turkic: boolean): string {
  if (ASCII.test(word)) return word.toLowerCase();
  if (turkic) return word.replace(/I/g, 'ı').replace(/İ/g, 'i').toLowerCase();
  return word.replace(/İ/g, 'i').toLowerCase();
}

/** Accent and letter folding, applied after stemming. */
function fold(word: string, keepMarks: boolean): string {
  if (ASCII.test(word)) return word;
  let w = word;
  if (CYRILLIC.test(w)) {
    // Stress accents and ё go; й, ї, ў keep their marks: they are letters of their own.
    w = w.normalize('NFD').replace(/[\u0300\u0301]/g, '').normalize('NFC').replace(/ё/g, 'е');
  } else if (!keepMarks && ACCENTED_SCRIPTS.test(w)) {
    w = w.normalize('NFD').replace(MARKS, '').normalize('NFC');
  }
  // Vietnamese đ is a letter of its own (đây ≠ dây), like its marked vowels.
  return w.replace(LETTERS_TO_FOLD, (c) => (keepMarks && c === 'đ' ? c : (LETTER_FOLDS[c] ?? '')));
}

function stemWord(word: string, p: Pipeline): string {
  if (DIGIT.test(word)) return word; // p53, 1990s, 2020: as written
  const stem = LATIN_START.test(word) ? p.latinStem : p.stem;
  return stem ? stem(word) : word;
}

/** One lower-cased word without separators. */
function addWord(word: string, p: Pipeline, terms: string[], stopped: string[]): void {
  if (word.length === 0 || word.length > MAX_WORD) return;
  if (p.stop?.has(word)) {
    stopped.push(fold(word, p.keepMarks));
    return;
  }
  const term = fold(stemWord(word, p), p.keepMarks);
  if (term.length > 0 && term.length <= MAX_TERM) terms.push(term);
}

/** Apostrophes: elisions (l'homme → homme), Turkish suffixes (Ankara'nın → ankara), possessives. */
function apostrophes(word: string, p: Pipeline): string {
  const i = word.indexOf("'");
  if (i < 0) return word;
  if (p.turkic) return word.slice(0, i);
  let w = word;
  if (!p.english && ELISIONS.has(w.slice(0, i)) && w.length - i > 2) w = w.slice(i + 1);
  if (w.endsWith("'s")) w = w.slice(0, -2);
  return w.replace(/'/g, ''); // don't → dont, aujourd'hui → aujourdhui
}

/** Splits a dotted part: acronyms join (U.S. → us), anything else splits (node.js → node, js). */
function dotted(part: string, out: string[]): void {
  const pieces = part.split('.');
  if (pieces.every((x) => x.length <= 1)) out.push(pieces.join(''));
  else for (const x of pieces) out.push(x);
}

/** A word possibly joined by hyphens, apostrophes, dots, commas, underscores. */
function addCompound(raw: string, p: Pipeline, terms: string[], stopped: string[]): void {
  let w = lower(raw, p.turkic);
  if (!ASCII.test(w)) w = w.replace(/\u2019/g, "'").replace(/\u00B7/g, '');
  if (!SEPARATORS.test(w)) return addWord(w, p, terms, stopped);
  const parts = w.split(HYPHENS);
  const joined: string[] = [];
  for (const hyphenPart of parts) {
    const part = apostrophes(hyphenPart, p);
    if (NUMBER.test(part)) {
      // 3.14, 1,000, 1.2.3: numbers keep their separators.
      addWord(part, p, terms, stopped);
      joined.push(part);
      continue;
    }
    const pieces: string[] = [];
    for (const sub of part.split(/[,_]/)) {
      if (sub.includes('.')) dotted(sub, pieces);
      else pieces.push(sub);
    }
    for (const x of pieces) addWord(x, p, terms, stopped);
    joined.push(pieces.join(''));
  }
  // covid-19 → covid19, IL-6 → il6, SARS-CoV-2 → sarscov2, e-mail → email: the joined form is
  // how such words are often typed. Not for number ranges (1990-2000) or long chains.
  if (joined.length >= 2 && joined.length <= 4) {
    const letters = joined.filter((x) => !NUMBER.test(x));
    const digits = joined.some((x) => DIGIT.test(x));
    const short = letters.some((x) => x.length <= 2);
    if (letters.length > 0 && (digits || short)) {
      const whole = joined.join('');
      if (whole.length <= MAX_TERM) terms.push(fold(stemWord(whole, p), p.keepMarks));
    }
  }
}

/** A run containing a script written without spaces: ICU words, then CJK bigrams. */
function addSegmented(run: string, p: Pipeline, terms: string[], stopped: string[]): void {
  const segmenter = wordSegmenter();
  for (let start = 0; start < run.length; start += ICU_SLICE) {
    const slice = run.length > ICU_SLICE ? run.slice(start, start + ICU_SLICE) : run;
    for (const { segment, isWordLike } of segmenter.segment(slice)) {
      if (!isWordLike) continue;
      if (DICTIONARY_SCRIPT.test(segment)) addWord(lower(segment, p.turkic), p, terms, stopped);
      else addCompound(segment, p, terms, stopped);
    }
  }
  addBigrams(run, terms);
}

function addBigrams(text: string, terms: string[]): void {
  for (const m of text.matchAll(BIGRAM_RUN)) {
    const run = m[0];
    // Code points, so CJK extension characters (surrogate pairs) stay whole.
    const chars = run.length === [...run].length ? null : [...run];
    if (chars === null) for (let i = 0; i + 2 <= run.length; i++) terms.push(run.slice(i, i + 2));
    else for (let i = 0; i + 2 <= chars.length; i++) terms.push(chars[i]! + chars[i + 1]!);
  }
}

/** Terms of one regex word (uncached). */
function entryOf(raw: string, p: Pipeline): Entry {
  const terms: string[] = [];
  const stopped: string[] = [];
  const ascii = ASCII.test(raw);
  const text = ascii ? raw : nfkc(raw);
  // NFKC can produce separators (① → 1, ㍿ → 株式会社, ½ → 1⁄2): re-split when it changed anything.
  const pieces = text === raw ? [raw] : Array.from(text.matchAll(WORD_INNER), (m) => m[0]);
  for (const piece of pieces) {
    if (ascii) addCompound(piece, p, terms, stopped);
    else if (DICTIONARY_SCRIPT.test(piece)) addSegmented(piece, p, terms, stopped);
    else if (HANGUL.test(piece)) {
      addCompound(piece, p, terms, stopped);
      addBigrams(piece, terms);
    } else addCompound(piece, p, terms, stopped);
  }
  return { terms, stopped };
}

/** A copy that does not keep a large parent string alive (V8 substrings ≥ 13 chars are slices). */
function detach(s: string): string {
  return s.length < 13 ? s : (s + ' ').slice(0, -1);
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/**
 * Turn text into BM25 terms: word segmentation, case + accent folding, stop-word removal (only
 * for languages where it is safe), stemming in `language` (detected when omitted).
 * Deterministic; the same function is used for documents and queries. A text made only of
 * stop words keeps them, so a query never becomes empty.
 */
export function analyze(text: string, language: Language = detectLanguage(text)): { language: Language; terms: string[] } {
  const p = pipelineFor(language);
  const terms: string[] = [];
  let stopped: string[] | undefined;
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    const entry = cachedEntry(m[0], p);
    for (const term of entry.terms) terms.push(term);
    if (terms.length === 0 && entry.stopped.length > 0) (stopped ??= []).push(...entry.stopped);
  }
  WORD.lastIndex = 0;
  return { language, terms: terms.length === 0 && stopped ? stopped : terms };
}

/**
 * The words of `text` with their offsets and terms (as `analyze` makes them), for
 * highlighting. Runs in scripts written without spaces are cut into ICU words, so a match
 * marks a word rather than a whole sentence.
 */
export function* analyzedWords(text: string, language: Language): Generator<{ start: number; end: number; terms: readonly string[] }> {
  const p = pipelineFor(language);
  const finder = new RegExp(WORD_SOURCE, 'gu');
  for (let m = finder.exec(text); m !== null; m = finder.exec(text)) {
    const raw = m[0];
    if (!DICTIONARY_SCRIPT.test(raw)) {
      yield { start: m.index, end: m.index + raw.length, terms: cachedEntry(raw, p).terms };
      continue;
    }
    for (const { segment, index, isWordLike } of segmentsOf(wordSegmenter(), raw, ICU_SLICE)) {
      if (isWordLike) yield { start: m.index + index, end: m.index + index + segment.length, terms: cachedEntry(segment, p).terms };
    }
  }
}

/** A run of letters and digits ending the text (the last piece of its last word). */
const LAST_PIECE = /[\p{L}\p{M}\p{N}]+$/u;

/**
 * The word being typed at the end of `text`: its last piece (words split at hyphens, dots,
 * apostrophes and underscores, as `analyze` splits them), lower-cased and folded as terms are,
 * not stemmed — what the terms it may begin start with. Null when the text ends in anything
 * else (a space, punctuation), or the piece is a number or in a script written without spaces.
 */
export function typedWord(text: string, language: Language): string | null {
  const raw = LAST_PIECE.exec(text)?.[0];
  if (!raw || NUMBER.test(raw) || DICTIONARY_SCRIPT.test(raw) || HANGUL.test(raw)) return null;
  const p = pipelineFor(language);
  const word = fold(lower(ASCII.test(raw) ? raw : nfkc(raw), p.turkic), p.keepMarks);
  return word.length > 0 && word.length <= MAX_TERM ? word : null;
}

/**
 * Arabic writes the article and the particles before it as one word with the noun
 * ("والمدينة": and the city); its stemmer strips them, so the terms a word being typed may
 * begin start after them ("المدي" → "مدي", the beginning of "مدين"). The rest keeps two letters.
 */
const ARABIC_ARTICLE = /^[وف]?(?:بال|كال|فال|لل|ال)(?=\p{L}{2})/u;

/**
 * Where the terms a word being typed (`typedWord`) may begin start: the word itself, or in
 * Arabic the word without its article and the particles joined to it.
 */
export function typedBeginning(word: string, language: Language): string {
  return language === 'ar' ? word.replace(ARABIC_ARTICLE, '') : word;
}

/**
 * The terms `word` (one word as written) would have with one letter dropped or two neighbours
 * swapped — the typo's undoing for a doubled letter, a stray one and a swap — other than its
 * own, at most `limit`. A typo breaks the suffix a stemmer reads, so a mistyped word and its
 * dictionary term can be far apart ("dnyamic" is 3 edits from "dynam", "dependeencies" 5 from
 * "depend"); its corrections stemmed are not. Kept out of the word cache (typos would crowd real words out).
 */
export function editedStems(word: string, language: Language, limit: number): string[] {
  const p = pipelineFor(language);
  const letters = [...lower(word, p.turkic)];
  const own = new Set(entryOf(letters.join(''), p).terms);
  const out = new Set<string>();
  const add = (variant: string[]) => {
    for (const term of entryOf(variant.join(''), p).terms) if (!own.has(term) && isMistypeable(term)) out.add(term);
  };
  for (let i = 0; i < letters.length && out.size < limit; i++) {
    if (i > 0 && letters[i] === letters[i - 1]) continue; // the same deletion as the previous
    add([...letters.slice(0, i), ...letters.slice(i + 1)]);
    if (i + 1 < letters.length && letters[i] !== letters[i + 1]) add([...letters.slice(0, i), letters[i + 1]!, letters[i]!, ...letters.slice(i + 2)]);
  }
  return [...out].slice(0, limit);
}

/** Whether `word` (lower-cased, as analysed) is one of `language`'s stop words (its pipeline's list). */
export function isStopWord(word: string, language: Language): boolean {
  return pipelineFor(language).stop?.has(word) ?? false;
}

/** Whether `term` is a word an edit may have mistyped: letters only (no digits, `_` or dots), not in a script written without spaces. */
export function isMistypeable(term: string): boolean {
  return /^[\p{L}\p{M}]+$/u.test(term) && !DICTIONARY_SCRIPT.test(term) && !HANGUL.test(term);
}

/** The terms of one regex word, from the pipeline's cache when it was seen before. */
function cachedEntry(raw: string, p: Pipeline): Entry {
  let entry = p.cache.get(raw);
  if (entry === undefined) {
    entry = entryOf(raw, p);
    if (raw.length <= 40) p.cache.set(detach(raw), { terms: entry.terms.map(detach), stopped: entry.stopped });
  }
  return entry;
}

/** Term frequencies of analyze(text).terms; the document length is `terms.length`. */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

// ---------------------------------------------------------------------------------------------
// Language detection
// ---------------------------------------------------------------------------------------------

/** Function words, and question words so that short queries are recognised too. */
const MARKERS: Readonly<Record<string, string>> = {
  en: 'the of and to is are was were that for with from this which what who whom when where why how does did do not have has had been by on at its their they there many much after before during would could should into than up out about just also only more some such other those will can you we he she his her our your be an may might must it if my or any',
  de: 'der die das und ist nicht mit den als von zu ein eine einer einem einen eines auf für dem des sich auch im wie was wer wo wann welche welcher welches welchem welchen warum wurde wurden sind hat haben hatte hatten werden oder aus bei nach viele vielen seiner seine sein ihre ihr über zum zur durch gegen ob ich kann mich mir',
  es: 'el la los las y que del se por una con para es su al lo como más pero fue en qué cuál cuáles cuándo dónde quién quiénes cómo cuántos cuántas cuánto cuánta son ha sus entre también sobre desde hasta durante hay tiene tienen muy cuantos donde cuando quien',
  fr: 'le les et des est que pour dans qui par sur au aux pas une du ce sont il elle quel quelle quels quelles quand où comment combien pourquoi avec été cette ces ont leur mais',
  it: 'il di che è per gli non sono una con nel nella alla dei delle anche chi quale quali quando dove come perché quanti quante della degli ha hanno sul stato',
  pt: 'o não uma os do da em para com dos das no na ao foi são seu sua qual quais quando onde quem como quantos quantas também pelo pela às tem foram',
  nl: 'het een en van is op te dat die voor met zijn niet aan er ook wat wie waar wanneer hoe welke werd door bij naar hij zij heeft',
  ro: 'și în este pe care sunt din pentru nu mai ca cu lui ce cine când unde cum câți câte cât fost au sau fie această acest după fără dintre lor ale avut poate despre',
  tr: 've bir bu için ile olarak olan gibi daha çok ama değil ne kim nerede nasıl hangi kaç neden mi mı mu mü ise neyi neydi nedir kimdir kimin hangisi zaman sonra kadar göre tarafından olduğu oldu',
  vi: 'và của là có các được trong những một cho với không này người đã gì nào đâu ai bao nhiêu khi để từ',
  sv: 'och att det som på är av för med till den inte har om var vad vem hur när',
  da: 'og at det som på er af for med til den ikke har hvad hvem hvor hvordan hvornår',
  no: 'og at det som på er av for med til den ikke har hva hvem hvor hvordan når',
  fi: 'ja on ei että se oli hän mutta kun myös ovat tai mikä kuka missä milloin miten',
  hu: 'az és hogy nem is egy meg van ez volt mi ki hol mikor hogyan',
  id: 'dan yang di dari untuk dengan ini itu dalam tidak adalah apa siapa',
  pl: 'nie się że jest oraz przez dla który która które jak',
  cs: 'že jsou jako pro které který byl není jak',
};
const MARKER_LANGUAGES = new Map<string, Language[]>();
for (const [lang, words] of Object.entries(MARKERS)) {
  for (const w of words.split(' ')) MARKER_LANGUAGES.set(w, [...(MARKER_LANGUAGES.get(w) ?? []), lang]);
}

/** Letters pointing to Latin-script languages, with weights. */
const LETTER_HINTS: Readonly<Record<string, readonly (readonly [Language, number])[]>> = {
  ß: [['de', 2]], ä: [['de', 0.5], ['sv', 0.5], ['fi', 0.5]], ö: [['de', 0.3], ['sv', 0.3], ['fi', 0.3], ['tr', 0.3], ['hu', 0.3]],
  ü: [['de', 0.5], ['tr', 0.5], ['hu', 0.3]], ñ: [['es', 1.5]], ã: [['pt', 1.5]], õ: [['pt', 1.5]],
  ç: [['pt', 0.5], ['fr', 0.5], ['tr', 0.5]], œ: [['fr', 2]], è: [['fr', 0.5], ['it', 0.5]], ê: [['fr', 0.5], ['pt', 0.3]],
  ù: [['fr', 1]], ò: [['it', 1]], ì: [['it', 1]], ș: [['ro', 2]], ț: [['ro', 2]], ţ: [['ro', 1.5]], ş: [['tr', 1], ['ro', 0.5]],
  ă: [['ro', 1.5]], î: [['ro', 1], ['fr', 0.3]], â: [['ro', 0.5], ['pt', 0.3], ['fr', 0.3]], ğ: [['tr', 2]], ı: [['tr', 2]],
  å: [['sv', 1], ['da', 0.5], ['no', 0.5]], æ: [['da', 1], ['no', 1]], ø: [['da', 1], ['no', 1]], ő: [['hu', 2]], ű: [['hu', 2]],
  ł: [['pl', 2]], ą: [['pl', 2]], ę: [['pl', 2]], ś: [['pl', 1]], ź: [['pl', 1]], ż: [['pl', 1.5]], ř: [['cs', 2]], ě: [['cs', 2]],
  ů: [['cs', 2]], ơ: [['vi', 2]], ư: [['vi', 2]], đ: [['vi', 2]],
};

const enum Script {
  Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, Devanagari, Bengali, Gurmukhi, Gujarati, Tamil, Telugu, Kannada,
  Malayalam, Sinhala, Thai, Lao, Myanmar, Georgian, Khmer, Hangul, Kana, Han, Count,
}
const SCRIPT_LANGUAGE: readonly Language[] = [
  'und', 'el', 'ru', 'hy', 'he', 'ar', 'hi', 'bn', 'pa', 'gu', 'ta', 'te', 'kn', 'ml', 'si', 'th', 'lo', 'my', 'ka', 'km', 'ko', 'ja', 'zh',
];

/** The script of a UTF-16 code unit, for letters only; -1 for anything else. */
function scriptOf(c: number): Script | -1 {
  if (c < 0x80) return (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a ? Script.Latin : -1;
  if (c < 0x250) return c < 0xc0 || c === 0xd7 || c === 0xf7 ? -1 : Script.Latin;
  if (c < 0x370) return -1;
  if (c < 0x400) return Script.Greek;
  if (c < 0x530) return Script.Cyrillic;
  if (c < 0x590) return Script.Armenian;
  if (c < 0x5d0) return -1;
  if (c < 0x600) return Script.Hebrew;
  if (c < 0x900) return (c >= 0x620 && c < 0x64b) || (c >= 0x66e && c < 0x6d4) || (c >= 0x750 && c < 0x780) || c >= 0x8a0 ? Script.Arabic : -1;
  if (c < 0x980) return Script.Devanagari;
  if (c < 0xa00) return Script.Bengali;
  if (c < 0xa80) return Script.Gurmukhi;
  if (c < 0xb00) return Script.Gujarati;
  if (c < 0xb80) return -1;
  if (c < 0xc00) return Script.Tamil;
  if (c < 0xc80) return Script.Telugu;
  if (c < 0xd00) return Script.Kannada;
  if (c < 0xd80) return Script.Malayalam;
  if (c < 0xe00) return Script.Sinhala;
  if (c < 0xe80) return Script.Thai;
  if (c < 0xf00) return Script.Lao;
  if (c < 0x1000) return -1;
  if (c < 0x10a0) return Script.Myanmar;
  if (c < 0x1100) return Script.Georgian;
  if (c < 0x1200) return Script.Hangul;
  if (c >= 0x1780 && c < 0x1800) return Script.Khmer;
  if (c >= 0x1e00 && c < 0x1f00) return Script.Latin;
  if (c >= 0x1f00 && c < 0x2000) return Script.Greek;
  if (c < 0x3040) return -1;
  if (c < 0x3100) return c === 0x30fb || c === 0x30fc ? -1 : Script.Kana;
  if (c >= 0x3130 && c < 0x3190) return Script.Hangul;
  if (c >= 0x31f0 && c < 0x3200) return Script.Kana;
  if ((c >= 0x3400 && c < 0x4dc0) || (c >= 0x4e00 && c < 0xa000) || (c >= 0xf900 && c < 0xfb00)) return Script.Han;
  if (c >= 0xac00 && c < 0xd7b0) return Script.Hangul;
  if (c >= 0xd840 && c < 0xd8c0) return Script.Han; // high surrogates of CJK extensions B–H
  if ((c >= 0xfb50 && c < 0xfe00) || (c >= 0xfe70 && c < 0xff00)) return Script.Arabic;
  if ((c >= 0xff21 && c <= 0xff3a) || (c >= 0xff41 && c <= 0xff5a)) return Script.Latin;
  if (c >= 0xff66 && c < 0xffa0) return Script.Kana;
  return -1;
}

/** Characters examined: a paragraph's worth, so detection is O(1) in the text length. */
const SAMPLE = 3000;
const LATIN_WORDS = 400;

/**
 * Guess the dominant language of a text from its script and stop words. Cheap (no model).
 * Returns 'und' when unsure.
 *
 * Script first: Han → zh, unless kana make up ≥5% of Han + kana → ja; Hangul → ko; Thai → th;
 * Devanagari → hi; Arabic → ar (fa, ur by their letters); Greek → el; Cyrillic → ru (uk, sr,
 * bg by their letters); and so on. A non-Latin script wins unless Latin letters outweigh it
 * three times (Han, kana and Hangul count triple: a character carries about a short word).
 * Latin text is scored by distinct function words plus a capped bonus for distinctive letters
 * (ß, ș ț, ğ ı, Vietnamese tone marks…); the best language needs ≥2 points and 1.3× the
 * runner-up, otherwise 'und'.
 */
export function detectLanguage(text: string): Language {
  const n = Math.min(text.length, SAMPLE);
  const counts = new Array<number>(Script.Count).fill(0);
  for (let i = 0; i < n; i++) {
    const s = scriptOf(text.charCodeAt(i));
    if (s >= 0) counts[s]!++;
  }
  const han = counts[Script.Han]!;
  const kana = counts[Script.Kana]!;
  const weights = counts.map((c, s) => (s === Script.Hangul ? 3 * c : c));
  weights[Script.Han] = 3 * (han + kana);
  weights[Script.Kana] = 0;
  let other: Script = Script.Latin;
  let otherWeight = 0;
  for (let s = Script.Greek; s < Script.Count; s++) {
    if (weights[s]! > otherWeight) {
      other = s;
      otherWeight = weights[s]!;
    }
  }
  const latinWeight = weights[Script.Latin]!;
  if (latinWeight === 0 && otherWeight === 0) return 'und';
  const sample = text.length > n ? text.slice(0, n) : text;
  if (latinWeight > 3 * otherWeight) {
    // With a fair amount of another script, Latin needs clearer evidence to win.
    const latin = latinLanguage(sample, otherWeight < 12 ? 2 : 4);
    if (latin !== 'und' || otherWeight < 12) return latin;
  }
  switch (other) {
    case Script.Han:
      return kana > 0 && kana >= 0.05 * (han + kana) ? 'ja' : 'zh';
    case Script.Cyrillic:
      return cyrillicLanguage(sample);
    case Script.Arabic:
      return arabicLanguage(sample);
    default:
      return SCRIPT_LANGUAGE[other] ?? 'und';
  }
}

function countOf(text: string, re: RegExp): number {
  return text.match(re)?.length ?? 0;
}

const BULGARIAN_WORDS = new Set('че са ще това тези които която който което във със към след няма беше'.split(' '));
const RUSSIAN_WORDS = new Set('что это как который которые которая было были была его она они этот эти уже'.split(' '));

function cyrillicLanguage(text: string): Language {
  const serbian = countOf(text, /[ђјљњћџЂЈЉЊЋЏ]/g);
  const ukrainian = countOf(text, /[іїєґІЇЄҐ]/g);
  const russian = countOf(text, /[ыэёЫЭЁ]/g);
  if (serbian >= 2 && serbian > russian) return 'sr';
  if (ukrainian >= 2 && ukrainian > russian) return 'uk';
  if (russian > 0) return 'ru';
  // No ы, э, ё: Bulgarian if ъ is used as a vowel (Russian writes it only before е, ё, ю, я)
  // or its function words outnumber Russian ones.
  if (countOf(text, /[ъЪ](?![еёюяЕЁЮЯ])/g) > 0) return 'bg';
  let votes = 0;
  for (const m of text.toLowerCase().matchAll(/[а-я]+/g)) votes += BULGARIAN_WORDS.has(m[0]) ? 1 : RUSSIAN_WORDS.has(m[0]) ? -1 : 0;
  return votes > 0 ? 'bg' : 'ru';
}

function arabicLanguage(text: string): Language {
  const urdu = countOf(text, /[\u0679\u0688\u0691\u06BA\u06BE\u06D2]/g);
  const persian = countOf(text, /[\u067E\u0686\u0698\u06AF\u06A9\u06CC]/g);
  const arabic = countOf(text, /[\u064A\u0643\u0629]/g);
  if (urdu >= 2 && urdu >= arabic) return 'ur';
  if (persian >= 2 && persian > arabic) return 'fa';
  return 'ar';
}

const LATIN_WORD = /[\p{L}\p{M}]+/gu;

function latinLanguage(text: string, minScore: number): Language {
  const lowered = text.toLowerCase().normalize('NFC');
  const scores = new Map<Language, number>();
  const add = (lang: Language, points: number) => scores.set(lang, (scores.get(lang) ?? 0) + points);
  // Each function word counts once: a repeated name ("Los Angeles") must not decide.
  const seen = new Set<string>();
  let words = 0;
  for (const m of lowered.matchAll(LATIN_WORD)) {
    const langs = MARKER_LANGUAGES.get(m[0]);
    if (langs && !seen.has(m[0])) {
      seen.add(m[0]);
      for (const lang of langs) add(lang, 1);
    }
    if (++words >= LATIN_WORDS) break;
  }
  // Letters break ties between function-word counts: at most 4 points per language.
  const letters = new Map<string, number>();
  let vietnamese = 0;
  for (let i = 0; i < lowered.length; i++) {
    const c = lowered.charCodeAt(i);
    if (c < 0xc0) continue;
    if (c >= 0x1ea0 && c <= 0x1ef9) vietnamese++;
    else {
      const ch = lowered[i]!;
      if (LETTER_HINTS[ch]) letters.set(ch, (letters.get(ch) ?? 0) + 1);
    }
  }
  const hints = new Map<Language, number>();
  for (const [ch, count] of letters) {
    for (const [lang, weight] of LETTER_HINTS[ch]!) hints.set(lang, (hints.get(lang) ?? 0) + weight * Math.min(count, 3));
  }
  if (vietnamese > 0) hints.set('vi', (hints.get('vi') ?? 0) + Math.min(vietnamese, 4));
  if (lowered.includes('¿') || lowered.includes('¡')) hints.set('es', (hints.get('es') ?? 0) + 2);
  for (const [lang, points] of hints) add(lang, Math.min(points, 4));

  let best: Language = 'und';
  let first = 0;
  let second = 0;
  for (const [lang, score] of scores) {
    if (score > first) {
      second = first;
      first = score;
      best = lang;
    } else if (score > second) second = score;
  }
  return first >= minScore && first >= 1.3 * second ? best : 'und';
}
