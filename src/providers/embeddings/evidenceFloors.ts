/**
 * Written by `npm run bench:answers -- --sets evidence --langs ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh --write` (bench/evidence.ts):
 * the lexical floor an answer's passage must reach, per query language, with the bundled model
 * (all-MiniLM-L6-v2) at the chat threshold 0.4. Measure again rather than edit.
 */
export const MINILM_EVIDENCE_FLOORS: Readonly<Record<string, number>> = {
  ar: 0.3,
  de: 0.25,
  el: 0.35,
  en: 0,
  es: 0.25,
  hi: 0.3,
  ro: 0.35,
  ru: 0.28,
  th: 0.38,
  tr: 0.25,
  vi: 0.35,
  zh: 0
};
