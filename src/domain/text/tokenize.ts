import { stemmer as ar } from '@orama/stemmers/arabic';
import { stemmer as da } from '@orama/stemmers/danish';
import { stemmer as de } from '@orama/stemmers/german';
import { stemmer as el } from '@orama/stemmers/greek';
import { stemmer as en } from '@orama/stemmers/english';
import { stemmer as es } from '@orama/stemmers/spanish';
import { stemmer as fi } from '@orama/stemmers/finnish';
import { stemmer as fr } from '@orama/stemmers/french';
import { stemmer as hu } from '@orama/stemmers/hungarian';
import { stemmer as it } from '@orama/stemmers/italian';
import { stemmer as nl } from '@orama/stemmers/dutch';
import { stemmer as no } from '@orama/stemmers/norwegian';
import { stemmer as pt } from '@orama/stemmers/portuguese';
import { stemmer as ro } from '@orama/stemmers/romanian';
import { stemmer as ru } from '@orama/stemmers/russian';
import { stemmer as sv } from '@orama/stemmers/swedish';
import { stemmer as tr } from '@orama/stemmers/turkish';

/** ISO 639-1 code, or 'und' when unknown. */
export type Language = string;

const STEMMERS: Record<string, (word: string) => string> = { ar, da, de, el, en, es, fi, fr, hu, it, nl, no, pt, ro, ru, sv, tr };

/** Scripts whose combining marks carry meaning (vowel signs): never stripped. */
const KEEP_MARKS = /[\p{Script=Devanagari}\p{Script=Thai}\p{Script=Bengali}\p{Script=Tamil}]/u;

const STOP: Record<string, Set<string>> = {
  en: new Set('a an and are as at be by for from has have in is it its of on or that the this to was were will with'.split(' ')),
};

/** Function words that identify a Latin-script language. */
const MARKERS: Record<string, string[]> = {
  en: 'the and of to in is that for with was are this from by which'.split(' '),
  de: 'der die das und ist nicht mit den von zu ein eine auf für dem des sich auch'.split(' '),
  es: 'el la de que y en los las del se por una con para es su al lo como'.split(' '),
  fr: 'le la les de et des en un une du est que pour dans qui par sur au pas'.split(' '),
  it: 'il di che la e per un del della le gli non sono una con al nel'.split(' '),
  pt: 'o a de que e do da em um para com não uma os no se na por mais as dos'.split(' '),
  nl: 'de het een en van in is op te dat die voor met zijn niet aan er'.split(' '),
  ro: 'și în de la cu pe care este un o din pentru nu mai ca sunt al lui'.split(' '),
  tr: 've bir bu da de için ile olarak olan gibi daha çok en ama ne değil'.split(' '),
  vi: 'và của là có các được trong những một cho với không này người đã'.split(' '),
  sv: 'och att det som en på är av för med till den inte har om'.split(' '),
  da: 'og at det som en på er af for med til den ikke har de'.split(' '),
  no: 'og at det som en på er av for med til den ikke har de'.split(' '),
  fi: 'ja on ei että se oli hän mutta kun myös ovat tai'.split(' '),
  hu: 'a az és hogy nem is egy meg van ez volt de'.split(' '),
};
const MARKER_LOOKUP = new Map<string, string[]>();
for (const [lang, words] of Object.entries(MARKERS)) for (const w of words) MARKER_LOOKUP.set(w, [...(MARKER_LOOKUP.get(w) ?? []), lang]);

const SCRIPTS: [RegExp, Language][] = [
  [/\p{Script=Hangul}/u, 'ko'],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja'],
  [/\p{Script=Han}/u, 'zh'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Devanagari}/u, 'hi'],
  [/\p{Script=Arabic}/u, 'ar'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Cyrillic}/u, 'ru'],
];

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * Guesses the dominant language of a text: by script first, then for Latin script by
 * counting function words over the first 2,000 characters. 'und' when unsure.
 */
export function detectLanguage(text: string): Language {
  const sample = text.slice(0, 2000);
  const counts = new Map<Language, number>();
  let latin = 0;
  for (const ch of sample) {
    if (/\p{Script=Latin}/u.test(ch)) {
      latin++;
      continue;
    }
    for (const [re, lang] of SCRIPTS) {
      if (re.test(ch)) {
        counts.set(lang, (counts.get(lang) ?? 0) + 1);
        break;
      }
    }
  }
  // Kana anywhere means Japanese even when Han characters dominate.
  if ((counts.get('ja') ?? 0) > 0 && (counts.get('zh') ?? 0) + (counts.get('ja') ?? 0) >= latin) return 'ja';
  let best: Language = 'und';
  let bestCount = 0;
  for (const [lang, n] of counts) if (n > bestCount) [best, bestCount] = [lang, n];
  if (bestCount > latin) return best;
  if (latin === 0) return 'und';

  const votes = new Map<Language, number>();
  for (const word of sample.toLowerCase().split(/[^\p{L}]+/u)) {
    for (const lang of MARKER_LOOKUP.get(word) ?? []) votes.set(lang, (votes.get(lang) ?? 0) + 1);
  }
  if (/[ăâîșşțţ]/.test(sample)) votes.set('ro', (votes.get('ro') ?? 0) + 2);
  if (/[ğış]/.test(sample)) votes.set('tr', (votes.get('tr') ?? 0) + 2);
  if (/[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹđơư]/.test(sample)) votes.set('vi', (votes.get('vi') ?? 0) + 3);
  if (/ß|[äöü]/.test(sample)) votes.set('de', (votes.get('de') ?? 0) + 1);
  let winner: Language = 'und';
  let top = 0;
  let second = 0;
  for (const [lang, n] of votes) {
    if (n > top) [second, top, winner] = [top, n, lang];
    else if (n > second) second = n;
  }
  return top >= 2 && top > second ? winner : 'und';
}

/** Lower-case with Turkish dotted/dotless i folded to i, after NFKC. */
function fold(word: string): string {
  return word.normalize('NFKC').replace(/İ/g, 'i').toLowerCase().replace(/ı/g, 'i').replace(/i̇/g, 'i');
}

function stripMarks(word: string): string {
  if (KEEP_MARKS.test(word)) return word;
  return word.normalize('NFD').replace(/\p{M}+/gu, '').replace(/ß/g, 'ss').normalize('NFC');
}

/**
 * BM25 terms of a text: ICU word segmentation (so Chinese, Japanese, Thai and Korean split
 * into words), NFKC + case folding, Snowball stemming in `language` (detected when
 * omitted; no stemming when unknown), then accent folding. Terms over 64 characters are
 * dropped. Documents and queries go through the same function.
 */
export function analyze(text: string, language: Language = detectLanguage(text)): { language: Language; terms: string[] } {
  const stem = STEMMERS[language];
  const stop = STOP[language];
  const terms: string[] = [];
  let stopped = 0;
  for (const { segment, isWordLike } of segmenter.segment(text)) {
    if (!isWordLike) continue;
    const word = fold(segment);
    if (stop?.has(word)) {
      stopped++;
      continue;
    }
    let term = stem ? stem(word) : word;
    term = stripMarks(term);
    if (term.length === 0 || term.length > 64) continue;
    terms.push(term);
  }
  // A query made only of stop words keeps them rather than becoming empty.
  if (terms.length === 0 && stopped > 0) {
    for (const { segment, isWordLike } of segmenter.segment(text)) if (isWordLike) terms.push(stripMarks(fold(segment)));
  }
  return { language, terms };
}

/** Term frequencies of a list of terms. */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}
