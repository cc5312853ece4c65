/**
 * Fusion: a search's scored candidates into entries ranked by one `similarity` in [0, 1]
 * (docs/SEARCH.md). Pure: what it needs comes with the candidates (the query terms' idf)
 * and from the embedding model's calibration (providers/embeddings/calibration.ts).
 *
 * Each chunk's cosine is mapped linearly from the model's [cosFloor, cosCeil] for the query's
 * language to [0, 1]; its BM25 is divided by the score a chunk would get by containing every
 * query term once at average length (so 1 ≈ "all query words present"), capped at 1. Hybrid
 * similarity is their weighted mean, so a strong match on either signal alone can pass 0.4.
 * A chunk under a heading that says what the query says gains up to HEADING_WEIGHT (see
 * `headingMatch`). An entry ranks by its best chunk.
 */
import { analyze } from '../ingestion/text/tokenize.js';
import { evidenceQuery, type EvidenceQuery } from './evidence.js';
import type { Calibration, ChunkScore, CosineRange, TermMatch } from './port.js';
import type { RankingFields, Ranked } from './ranking.js';

export type SearchMode = 'hybrid' | 'lexical' | 'vector';

/**
 * Where a hit's similarity comes from (its best chunk): the calibrated BM25 (`lexical`) and
 * cosine (`vector`) signals in [0, 1], their raw values, and the lexical signal's weight
 * for the query's language, and how well its heading names the query: similarity = weight ×
 * lexical + (1 − weight) × vector + HEADING_WEIGHT × heading, at most 1.
 */
export interface ScoreParts {
  lexical: number;
  vector: number;
  bm25: number;
  cosine: number;
  lexical_weight: number;
  /** How much of the query the chunk's heading says and how little else, in [0, 1] (see `headingMatch`). */
  heading: number;
}

/** `summarisable` when the best hit's similarity reaches this. */
export const SUMMARISABLE_SIMILARITY = 0.5;

/** A query's candidates as fusion reads them: the calibration of its language and its BM25 normaliser. */
export interface Scoring {
  chunks: readonly ChunkScore[];
  /** BM25 of a chunk holding every query term once at average length. */
  ideal: number;
  weight: number;
  range: CosineRange;
  /** Each candidate heading's match with the query (see `headingMatch`); headings matching nothing are absent. */
  headings: ReadonlyMap<string, number>;
  /** The question as evidence weighs it (evidence.ts). */
  evidence: EvidenceQuery;
}

/**
 * What a heading that says exactly what the query says adds to a chunk's similarity (hybrid
 * and lexical): a docs search box is typed section names ("vite cli", "public base path"),
 * and the section so named should come before the sections that only mention its words, as
 * DocSearch ranks a heading match and MiniSearch boosts a title. The vectors and BM25 of a
 * long section that mentions the words can outscore a short one named by them.
 */
export const HEADING_WEIGHT = 0.3;

/**
 * How well `heading` names the query: the square of the share of the query's weight (each
 * slot's best match, weight × idf, over the same normaliser as BM25's) whose terms the
 * heading holds, times the share of the heading's terms that the query matched — 1 for a
 * heading that is the query, less for one that holds more besides, little for one that holds
 * a word or two of a question (squared: a heading naming part of a question is no answer to
 * it, and measured linear it moved chat's passages off the gold on Express's docs).
 */
function headingMatch(heading: string, language: string, best: ReadonlyMap<number, number>, matches: readonly TermMatch[], ideal: number): number {
  const sequence = analyze(heading, language).terms;
  const terms = new Set(sequence);
  if (terms.size === 0 || ideal <= 0) return 0;
  const said = new Set<number>();
  const used = new Set<string>();
  for (const m of matches) {
    if (!terms.has(m.term)) continue;
    said.add(m.slot);
    used.add(m.term);
  }
  if (said.size === 0) return 0;
  const covered = [...said].reduce((sum, slot) => sum + (best.get(slot) ?? 0), 0) / ideal;
  return Math.min(1, covered) ** 2 * (used.size / terms.size) * (inOrder(sequence, matches) ? 1 : REORDERED);
}

/**
 * A heading holding the query's words in another order names it less: of "Generating Preload
 * Directives" and "Preload Directives Generation" (the same terms once stemmed), the first is
 * what a visitor typing the first looks for (bench:typing, Vite's headings: nDCG@10 as written
 * 0.995 → 0.998 at 0.7, unchanged at 0.9, cut 0.993 → 0.995). Telling `ssr.external` from "SSR
 * Externals" by the words as written as well cost the cut and typo forms (0.995 → 0.991).
 */
const REORDERED = 0.7;

/** Whether the query's slots the heading matches come in the heading in the query's order. */
function inOrder(sequence: readonly string[], matches: readonly TermMatch[]): boolean {
  let last = -1;
  for (const term of sequence) {
    let slot = Infinity;
    for (const m of matches) if (m.term === term && m.slot < slot) slot = m.slot;
    if (slot === Infinity) continue;
    if (slot < last) return false;
    last = slot;
  }
  return true;
}

/**
 * The candidates of a query in `language` (its analysed `terms`, a slot each, and `slots` in all with
 * the word being typed) with the terms its slots matched, ready to fuse.
 * The BM25 normaliser counts each slot at its best match (weight × idf), as chunks are scored.
 * With `headings`, a chunk under a heading naming the query gains (a search box's query); an
 * answer's passages are chosen without (measured on Express's docs: chat's gold answers
 * 75.6 → 73.8 % with it, a heading holding a word or two of a question outranking the
 * passage that answers it). `query`, the query's text, tells the evidence gate the query's
 * words and the names it counts where its language's gate counts them (evidence.ts `evidenceQuery`).
 */
export function scoring(chunks: readonly ChunkScore[], terms: readonly string[], slots: number, matches: readonly TermMatch[], language: string, calibration: Calibration, headings: boolean, query: string): Scoring {
  const best = new Map<number, number>();
  for (const m of matches) best.set(m.slot, Math.max(best.get(m.slot) ?? 0, m.weight * m.idf));
  const ideal = [...best.values()].reduce((sum, w) => sum + w, 0) + unknownSlotsWeight(slots, best);
  const named = new Map<string, number>();
  if (headings && matches.length > 0) {
    const seen = new Set<string>();
    for (const heading of chunks.flatMap((c) => c.headings ?? [])) {
      if (seen.has(heading)) continue;
      seen.add(heading);
      const match = headingMatch(heading, language, best, matches, ideal);
      if (match > 0) named.set(heading, match);
    }
  }
  const gate = calibration.evidence(language);
  const evidence = evidenceQuery(query, terms, matches, language, gate);
  return { chunks, ideal, weight: calibration.lexicalWeight(language), range: calibration.cosineRange(language), headings: named, evidence };
}

/** Placeholder metadata for ranking without boosts or sorts (nothing reads it). */
const NO_FIELDS: RankingFields = Object.freeze({ meta: {}, searchable_meta: {} });

/** Entries by their best chunk's similarity in `mode`, at or above `threshold`, best first. */
export function fuse(found: Scoring, mode: SearchMode, threshold: number): Ranked[] {
  // Ordered by the score before it is capped at 1, so a heading's part still counts between
  // hits whose words and meaning both saturate.
  const best = new Map<string, { chunk: ChunkScore; score: number }>();
  for (const chunk of found.chunks) {
    const value = score(chunk, found, mode);
    const current = best.get(chunk.entryId);
    if (!current || value > current.score) best.set(chunk.entryId, { chunk, score: value });
  }
  // Calibrated similarities clamp at 1, so ties are common (a model that knows a language
  // badly gives all its texts high cosines): the raw signals decide them, BM25 first unless
  // the mode is vector-only, so the order never depends on the order rows came back in.
  const tie = (a: ChunkScore, b: ChunkScore) => (mode === 'vector' ? 0 : b.bm25 - a.bm25) || b.cosine - a.cosine || a.chunkId - b.chunkId;
  return [...best.values()]
    .filter((b) => b.score >= threshold)
    .sort((a, b) => b.score - a.score || tie(a.chunk, b.chunk))
    .map((b) => {
      const similarity = clamp(b.score);
      return { entryId: b.chunk.entryId, chunkId: b.chunk.chunkId, similarity, final: similarity, fields: NO_FIELDS };
    });
}

/** The signals of each ranked hit's chunk (see ScoreParts), by chunk id. */
export function explain(found: Scoring, ranked: readonly Ranked[]): Map<number, ScoreParts> {
  const wanted = new Set(ranked.map((r) => r.chunkId));
  const parts = new Map<number, ScoreParts>();
  for (const chunk of found.chunks) {
    if (!wanted.has(chunk.chunkId)) continue;
    const [lexical, vector] = [lexicalSignal(chunk, found.ideal), vectorSignal(chunk, found.range)];
    parts.set(chunk.chunkId, { lexical: round(lexical), vector: round(vector), bm25: round(chunk.bm25), cosine: round(chunk.cosine), lexical_weight: found.weight, heading: round(headingSignal(chunk, found)) });
  }
  return parts;
}

/** Query slots that matched nothing still count in the normaliser, at the highest weight seen. */
function unknownSlotsWeight(slots: number, best: ReadonlyMap<number, number>): number {
  const missing = slots - best.size;
  if (missing <= 0 || best.size === 0) return 0;
  // Several language variants of one word inflate the slots; count at most half of them.
  return Math.min(missing, Math.ceil(slots / 2)) * Math.max(...best.values()) * 0.5;
}

/** A chunk's calibrated signals in [0, 1]. */
const vectorSignal = (chunk: ChunkScore, { cosFloor, cosCeil }: CosineRange) => clamp((chunk.cosine - cosFloor) / (cosCeil - cosFloor));
const lexicalSignal = (chunk: ChunkScore, ideal: number) => (ideal > 0 ? clamp(chunk.bm25 / ideal) : 0);
/**
 * The best match of the headings the chunk sits under: a query naming a section lifts every
 * chunk in it, under its sub-headings too ("Official Plugins" names the section whose chunks
 * sit under "Official Plugins › @vitejs/plugin-vue").
 */
function headingSignal(chunk: ChunkScore, found: Scoring): number {
  if (!chunk.headings || found.headings.size === 0) return 0;
  let signal = 0;
  for (const heading of chunk.headings) signal = Math.max(signal, found.headings.get(heading) ?? 0);
  return signal;
}

/** A chunk's similarity in `mode`, before it is capped at 1 (the heading's part may take it past). */
function score(chunk: ChunkScore, found: Scoring, mode: SearchMode): number {
  const vector = vectorSignal(chunk, found.range);
  if (mode === 'vector') return vector;
  const lexical = lexicalSignal(chunk, found.ideal);
  return (mode === 'lexical' ? lexical : found.weight * lexical + (1 - found.weight) * vector) + HEADING_WEIGHT * headingSignal(chunk, found);
}

const clamp = (x: number) => Math.min(1, Math.max(0, x));
export const round = (x: number) => Math.round(x * 1e6) / 1e6;
