/**
 * How an embedding model's cosines are read, by query language (docs/SEARCH.md): measured for
 * the bundled model, all-MiniLM-L6-v2, on XQuAD and SciFact (`npm run bench:quality`,
 * `npm run bench:answers -- --sets thresholds`). Search's fusion (domain/search/fusion.ts) maps
 * a chunk's cosine from the query language's range to [0, 1] and weighs it against BM25.
 */
import type { Calibration, CosineRange, EvidenceGate } from '../../domain/search/port.js';
import { MINILM_EVIDENCE_GATES } from './evidenceGates.js';

/** English's range: cosines of all-MiniLM-L6-v2 mapped linearly from [0.15, 0.65] to [0, 1]. */
const ENGLISH: CosineRange = { cosFloor: 0.15, cosCeil: 0.65 };

/**
 * The cosine's range by query language. all-MiniLM-L6-v2 knows little of most languages
 * but English and gives their unrelated texts high cosines (XQuAD, the median candidate of a
 * question whose article is absent: 0.07 in English, 0.40 Romanian, 0.53 Turkish, 0.59
 * Vietnamese). With English's range, that background passed the 0.4 threshold: chat
 * answered 98 % of Vietnamese, 90 % of Turkish and 76 % of Romanian questions whose article
 * was not in the collection (English: 7 %). Each range below was chosen from a grid (floor
 * 0.05–0.95 by 0.05, width 0.3–0.7) on XQuAD's first 300 questions a language and 300 on
 * left-out articles, as the one letting through the fewest unrelated questions while
 * keeping, within a point, as many gold paragraphs among the top 6 at 0.4 and as many first
 * hits as English's range (`npm run bench:answers -- --sets thresholds`). Unrelated questions
 * answered: vi 98 → 38 %, tr 90 → 69 %, ro 76 → 67 %, es 43 → 23 %, th 39 → 24 %. Ranges
 * that let through as few as English (7 %) exist, but cost up to 22 points of gold
 * paragraphs (el); German gains nothing within a point. Unmeasured languages, German and
 * undetected queries keep English's range.
 */
const MINILM_RANGES: Readonly<Record<string, CosineRange>> = {
  ar: { cosFloor: 0.1, cosCeil: 0.8 },
  el: { cosFloor: 0.2, cosCeil: 0.7 },
  es: { cosFloor: 0.1, cosCeil: 0.8 },
  hi: { cosFloor: 0.05, cosCeil: 0.75 },
  ro: { cosFloor: 0.05, cosCeil: 0.75 },
  ru: { cosFloor: 0.05, cosCeil: 0.75 },
  th: { cosFloor: 0.35, cosCeil: 1.05 },
  tr: { cosFloor: 0.1, cosCeil: 0.8 },
  vi: { cosFloor: 0.35, cosCeil: 1.05 },
  zh: { cosFloor: 0.3, cosCeil: 0.7 },
};

/** Languages whose words BM25 weighs at 0.65 with all-MiniLM-L6-v2 (see `lexicalWeight`). */
const MINILM_MIDDLE = new Set(['de', 'es', 'fr', 'it', 'nl', 'pt', 'ro', 'tr', 'vi', 'sv', 'da', 'no', 'fi', 'hu', 'und']);

/**
 * The evidence gate of a language measured nowhere: the median floor and slope of the measured
 * languages other than English (the model knows them as little as it knows most), from the
 * same table. A query whose language is not detected (a few words) is read as English is, as
 * its cosine is. (Measured by bench:answers: with no gate instead, Lore's docs lost a right
 * answer and two citations, and Express's English questions one of each; a German question
 * over Express's German docs, which hold English too, kept the gold string of a section it
 * cites wrongly either way.)
 */
const measured = Object.entries(MINILM_EVIDENCE_GATES).filter(([language]) => language !== 'en').map(([, gate]) => gate);
const UNMEASURED_GATE: EvidenceGate = { floor: median(measured.map((g) => g.floor)), slope: median(measured.map((g) => g.slope)) };
const NO_GATE: EvidenceGate = { floor: 0, slope: 0 };

const MINILM: Calibration = {
  cosineRange: (language) => MINILM_RANGES[language] ?? ENGLISH,
  /**
   * An answer rests on evidence: a passage whose cosine says it is close is not enough in a
   * language the model knows badly, where unrelated texts get high cosines too; there the
   * passage must also hold the question's informative words, the less the closer it is, as the
   * table measured on XQuAD says (evidenceGates.ts, bench/evidence.ts; English's also held to
   * documentation questions).
   */
  evidence: (language) => MINILM_EVIDENCE_GATES[language] ?? (language === 'und' ? (MINILM_EVIDENCE_GATES.en ?? NO_GATE) : UNMEASURED_GATE),
  /**
   * all-MiniLM-L6-v2 is English-centric: measured on XQuAD (bench/quality.ts), its vectors
   * reach nDCG@10 0.96 in English, 0.73 in German and 0.06–0.2 in Chinese and Thai, so BM25
   * carries more of the score there.
   */
  lexicalWeight: (language) => (language === 'en' ? 0.5 : MINILM_MIDDLE.has(language) ? 0.65 : 0.85),
};

/** Calibrations by the model's name as the embedder reports it (`Embedder.model`, its dtype after a colon). */
const CALIBRATIONS: Readonly<Record<string, Calibration>> = {
  'onnx-community/all-MiniLM-L6-v2-ONNX': MINILM,
};

/**
 * The calibration of embedding model `model`. A model measured nowhere yet (an
 * OpenAI-compatible one, say) is read as all-MiniLM-L6-v2 is: its ranges are the only ones
 * measured, and a model's cosines are kept comparable to the threshold's meaning that way
 * until its own are (bench:quality and bench:answers' thresholds set measure them).
 */
export function calibrationFor(model: string): Calibration {
  return CALIBRATIONS[model.split(':')[0]!] ?? MINILM;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
