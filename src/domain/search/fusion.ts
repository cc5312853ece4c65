/**
 * Fusion: a search's scored candidates into entries ranked by one `similarity` in [0, 1]
 * (docs/SEARCH.md). Pure: what it needs comes with the candidates (the query terms' idf)
 * and from the embedding model's calibration (providers/embeddings/calibration.ts).
 *
 * Each chunk's cosine is mapped linearly from the model's [cosFloor, cosCeil] for the query's
 * language to [0, 1]; its BM25 is divided by the score a chunk would get by containing every
 * query term once at average length (so 1 ≈ "all query words present"), capped at 1. Hybrid
 * similarity is their weighted mean, so a strong match on either signal alone can pass 0.4.
 * An entry ranks by its best chunk.
 */
import type { Calibration, ChunkScore, CosineRange, TermMatch } from './port.js';
import type { RankingFields, Ranked } from './ranking.js';

export type SearchMode = 'hybrid' | 'lexical' | 'vector';

/**
 * Where a hit's similarity comes from (its best chunk): the calibrated BM25 (`lexical`) and
 * cosine (`vector`) signals in [0, 1], their raw values, and the lexical signal's weight
 * for the query's language: similarity = weight × lexical + (1 − weight) × vector.
 */
export interface ScoreParts {
  lexical: number;
  vector: number;
  bm25: number;
  cosine: number;
  lexical_weight: number;
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
}

/**
 * The candidates of a query in `language` with the terms its `slots` matched, ready to fuse.
 * The BM25 normaliser counts each slot at its best match (weight × idf), as chunks are scored.
 */
export function scoring(chunks: readonly ChunkScore[], slots: number, matches: readonly TermMatch[], language: string, calibration: Calibration): Scoring {
  const best = new Map<number, number>();
  for (const m of matches) best.set(m.slot, Math.max(best.get(m.slot) ?? 0, m.weight * m.idf));
  const ideal = [...best.values()].reduce((sum, w) => sum + w, 0) + unknownSlotsWeight(slots, best);
  return { chunks, ideal, weight: calibration.lexicalWeight(language), range: calibration.cosineRange(language) };
}

/** Placeholder metadata for ranking without boosts or sorts (nothing reads it). */
const NO_FIELDS: RankingFields = Object.freeze({ meta: {}, searchable_meta: {} });

/** Entries by their best chunk's similarity in `mode`, at or above `threshold`, best first. */
export function fuse(found: Scoring, mode: SearchMode, threshold: number): Ranked[] {
  const best = new Map<string, { chunk: ChunkScore; similarity: number }>();
  for (const chunk of found.chunks) {
    const similarity = score(chunk, found, mode);
    const current = best.get(chunk.entryId);
    if (!current || similarity > current.similarity) best.set(chunk.entryId, { chunk, similarity });
  }
  // Calibrated similarities clamp at 1, so ties are common (a model that knows a language
  // badly gives all its texts high cosines): the raw signals decide them, BM25 first unless
  // the mode is vector-only, so the order never depends on the order rows came back in.
  const tie = (a: ChunkScore, b: ChunkScore) => (mode === 'vector' ? 0 : b.bm25 - a.bm25) || b.cosine - a.cosine || a.chunkId - b.chunkId;
  return [...best.values()]
    .filter((b) => b.similarity >= threshold)
    .sort((a, b) => b.similarity - a.similarity || tie(a.chunk, b.chunk))
    .map((b) => ({ entryId: b.chunk.entryId, chunkId: b.chunk.chunkId, similarity: b.similarity, final: b.similarity, fields: NO_FIELDS }));
}

/** The signals of each ranked hit's chunk (see ScoreParts), by chunk id. */
export function explain(found: Scoring, ranked: readonly Ranked[]): Map<number, ScoreParts> {
  const wanted = new Set(ranked.map((r) => r.chunkId));
  const parts = new Map<number, ScoreParts>();
  for (const chunk of found.chunks) {
    if (!wanted.has(chunk.chunkId)) continue;
    const [lexical, vector] = [lexicalSignal(chunk, found.ideal), vectorSignal(chunk, found.range)];
    parts.set(chunk.chunkId, { lexical: round(lexical), vector: round(vector), bm25: round(chunk.bm25), cosine: round(chunk.cosine), lexical_weight: found.weight });
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

function score(chunk: ChunkScore, found: Scoring, mode: SearchMode): number {
  const vector = vectorSignal(chunk, found.range);
  const lexical = lexicalSignal(chunk, found.ideal);
  if (mode === 'vector') return vector;
  if (mode === 'lexical') return lexical;
  return found.weight * lexical + (1 - found.weight) * vector;
}

const clamp = (x: number) => Math.min(1, Math.max(0, x));
export const round = (x: number) => Math.round(x * 1e6) / 1e6;
