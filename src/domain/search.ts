import type { IntegrationService } from './integrations.js';
import type { Entry, JsonObject, Scope } from './model.js';
import type { ChunkScore, Embedder, MetaFilter, SearchRepository } from './ports.js';
import { EmbedderError } from './ports.js';
import { UnavailableError } from './errors.js';
import { analyze, detectLanguage } from './text/tokenize.js';
import { applyBoosts, applySorts, type Boost, type EntryFields, type Ranked, type Sort } from './ranking.js';
import { snippet } from './snippet.js';

export interface SearchParams {
  query: string;
  threshold: number;
  meta: MetaFilter[];
  boosts: Boost[];
  sorts: Sort[];
  page: number;
  perPage: number;
}

export type SearchMode = 'hybrid' | 'lexical' | 'vector';

export interface SearchHit extends Entry {
  score_breakdown: { similarity: number; final_score: number };
  snippet: string;
}

export interface SearchResult {
  hits: SearchHit[];
  total: number;
  page: number;
  perPage: number;
  summarisable: boolean;
}

/**
 * Calibration of the two signals into one `similarity` in [0, 1] (see docs/SEARCH.md):
 * cosine of all-MiniLM-L6-v2 is mapped linearly from [COS_FLOOR, COS_CEIL] to [0, 1];
 * BM25 is divided by the score a chunk would get by containing every query term once at
 * average length (so 1 ≈ "all query words present"), capped at 1. Hybrid similarity is
 * their weighted mean, so a strong match on either signal alone can pass 0.4.
 */
export const CALIBRATION = { cosFloor: 0.15, cosCeil: 0.65 } as const;

/**
 * Weight of the lexical signal by query language. all-MiniLM-L6-v2 is English-centric:
 * measured on XQuAD (bench/quality.ts), its vectors reach nDCG@10 0.96 in English, 0.73 in
 * German and 0.06–0.2 in Chinese and Thai, so BM25 carries more of the score there.
 */
export function lexicalWeight(language: string): number {
  if (language === 'en') return 0.5;
  if (['de', 'es', 'fr', 'it', 'nl', 'pt', 'ro', 'tr', 'vi', 'sv', 'da', 'no', 'fi', 'hu', 'und'].includes(language)) return 0.65;
  return 0.85;
}
/** Placeholder metadata for ranking without boosts or sorts (nothing reads it). */
const NO_FIELDS: EntryFields = Object.freeze({ meta: {}, searchable_meta: {} });
/** Chunks fetched per signal before fusion. */
const CANDIDATES = 100;
/** `summarisable` when the best hit's similarity reaches this. */
export const SUMMARISABLE_SIMILARITY = 0.5;

export interface SearchService {
  /**
   * Hybrid search over the integration's collections. Throws NotFoundError for unknown or
   * foreign integrations, ForbiddenError for inactive ones, UnavailableError when the
   * embedder fails. Records the search for analytics without delaying the result.
   */
  search(scope: Scope, integrationId: string, params: SearchParams, options?: { mode?: SearchMode }): Promise<SearchResult>;
  /** Records a click or feedback event for an active integration. */
  recordEvent(scope: Scope, integrationId: string, eventType: string, meta: JsonObject): Promise<void>;
}

export function createSearchService(deps: {
  integrations: IntegrationService;
  search: SearchRepository;
  embedder: Embedder;
  log?: (error: unknown) => void;
}): SearchService {
  const { integrations, search, embedder } = deps;

  return {
    async search(scope, integrationId, params, options = {}) {
      const started = performance.now();
      const mode = options.mode ?? 'hybrid';
      const integration = await integrations.getActive(scope, integrationId);
      const collectionIds = integration.collection_ids;

      let embedding: Float32Array;
      try {
        [embedding] = (await embedder.embed([params.query])) as [Float32Array];
      } catch (error) {
        if (error instanceof EmbedderError) throw new UnavailableError('The embedding provider is unavailable.');
        throw error;
      }
      const languages = await search.languages(scope, collectionIds);
      const terms = queryTerms(params.query, languages);
      const weight = lexicalWeight(queryLanguage(params.query, languages));
      const { chunks, idf } = collectionIds.length
        ? await search.candidates(scope, collectionIds, { terms: mode === 'vector' ? [] : terms, embedding, dims: embedder.dimensions }, params.meta, CANDIDATES)
        : { chunks: [], idf: new Map<string, number>() };

      // Normaliser: every query term present once in a chunk of average length.
      const ideal = [...idf.values()].reduce((sum, w) => sum + w, 0) + unknownTermsWeight(terms, idf);
      const best = new Map<string, { chunk: ChunkScore; similarity: number }>();
      for (const chunk of chunks) {
        const similarity = score(chunk, ideal, mode, weight);
        const current = best.get(chunk.entryId);
        if (!current || similarity > current.similarity) best.set(chunk.entryId, { chunk, similarity });
      }
      const passing = [...best.values()].filter((b) => b.similarity >= params.threshold);
      let ranked: Ranked[] = passing.map((p) => ({ entryId: p.chunk.entryId, chunkId: p.chunk.chunkId, similarity: p.similarity, final: p.similarity, fields: NO_FIELDS }));
      ranked.sort((a, b) => b.final - a.final);
      if (params.boosts.length > 0 || params.sorts.length > 0) {
        // Only boosts and sorts need metadata, and only they read it for every candidate.
        const fields = await search.entryFields(scope, ranked.map((r) => r.entryId));
        ranked = ranked.filter((r) => fields.has(r.entryId)).map((r) => ({ ...r, fields: fields.get(r.entryId)! }));
        if (params.boosts.length > 0) ranked = applyBoosts(ranked, params.boosts);
        if (params.sorts.length > 0) ranked = applySorts(ranked, params.sorts);
      }

      const pageItems = ranked.slice((params.page - 1) * params.perPage, params.page * params.perPage);
      const [pageEntries, texts] = await Promise.all([
        search.entries(scope, pageItems.map((r) => r.entryId)),
        search.chunkTexts(pageItems.map((r) => r.chunkId)),
      ]);
      const entries = new Map(pageEntries.map((e) => [e.id, e]));
      // An entry deleted since its chunks were scored is left out.
      const hits: SearchHit[] = pageItems
        .filter((r) => entries.has(r.entryId))
        .map((r) => {
          const entry = entries.get(r.entryId)!;
          return {
            ...entry,
            score_breakdown: { similarity: round(r.similarity), final_score: round(r.final) },
            snippet: snippet(texts.get(r.chunkId) ?? entry.raw_text, terms),
          };
        });
      const top = ranked.reduce((max, r) => Math.max(max, r.similarity), 0);
      const result: SearchResult = {
        hits,
        total: ranked.length,
        page: params.page,
        perPage: params.perPage,
        summarisable: ranked.length > 0 && top >= Math.max(SUMMARISABLE_SIMILARITY, params.threshold),
      };
      const latencyMs = performance.now() - started;
      // Analytics must not add latency: written after the response is built, errors only logged.
      setImmediate(() => {
        search
          .logSearch(scope, { integrationId, query: params.query, resultCount: ranked.length, topScore: ranked.length ? top : null, latencyMs })
          .catch((error) => deps.log?.(error));
      });
      return result;
    },

    async recordEvent(scope, integrationId, eventType, meta) {
      await integrations.getActive(scope, integrationId);
      await search.recordEvent(scope, integrationId, eventType, meta);
    },
  };
}

/**
 * The query's BM25 terms. A query is analysed in its detected language; when that is
 * unsure, in every language the collections hold, so stems match however the documents
 * were stemmed.
 */
export function queryTerms(query: string, languages: readonly string[]): string[] {
  const detected = detectLanguage(query);
  const langs = detected !== 'und' ? [detected] : languages.length > 0 ? languages : ['und'];
  return [...new Set(langs.flatMap((lang) => analyze(query, lang).terms))];
}

/** The query's language; when undetectable, the collections' only language if they have one. */
function queryLanguage(query: string, languages: readonly string[]): string {
  const detected = detectLanguage(query);
  if (detected !== 'und') return detected;
  return languages.length === 1 ? languages[0]! : 'und';
}

/** Query terms absent from the index still count in the normaliser, at the highest idf seen. */
function unknownTermsWeight(terms: readonly string[], idf: Map<string, number>): number {
  const missing = terms.filter((t) => !idf.has(t)).length;
  if (missing === 0 || idf.size === 0) return 0;
  // Several language variants of one word inflate `terms`; count at most half of them.
  return Math.min(missing, Math.ceil(terms.length / 2)) * Math.max(...idf.values()) * 0.5;
}

function score(chunk: ChunkScore, ideal: number, mode: SearchMode, lexicalWeight: number): number {
  const { cosFloor, cosCeil } = CALIBRATION;
  const vector = clamp((chunk.cosine - cosFloor) / (cosCeil - cosFloor));
  const lexical = ideal > 0 ? clamp(chunk.bm25 / ideal) : 0;
  if (mode === 'vector') return vector;
  if (mode === 'lexical') return lexical;
  return lexicalWeight * lexical + (1 - lexicalWeight) * vector;
}

const clamp = (x: number) => Math.min(1, Math.max(0, x));
const round = (x: number) => Math.round(x * 1e6) / 1e6;
