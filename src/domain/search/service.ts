import { LRUCache } from 'lru-cache';
import type { IntegrationService } from './integrations.js';
import type { Entry, Integration, JsonObject, Scope } from '../model.js';
import type { ChunkScore, LexicalCandidates, MetaFilter, SearchRepository } from './port.js';
import type { Embedder } from '../ingestion/port.js';
import { EmbedderError } from '../ingestion/port.js';
import { UnavailableError } from '../errors.js';
import { analyze, detectLanguage } from '../ingestion/text/tokenize.js';
import { applyBoosts, applySorts, type Boost, type RankingFields, type Ranked, type Sort } from './ranking.js';
import { snippet } from './snippet.js';
import { isVagueQuery } from '../ingestion/text/questionWords.js';
import type { SearchLog } from '../analytics/searchLog.js';

export interface SearchParams {
  query: string;
  threshold: number;
  meta: MetaFilter[];
  boosts: Boost[];
  sorts: Sort[];
  page: number;
  perPage: number;
  /** Also give each hit's signals (`score_breakdown.lexical`, `vector`, `bm25`, `cosine`): the console's playground. */
  explain?: boolean;
}

export type SearchMode = 'hybrid' | 'lexical' | 'vector';

export interface SearchHit extends Entry {
  score_breakdown: { similarity: number; final_score: number } & Partial<ScoreParts>;
  snippet: string;
}

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

export interface SearchResult {
  hits: SearchHit[];
  total: number;
  page: number;
  perPage: number;
  summarisable: boolean;
  /**
   * Milliseconds of each stage on the request's path, in order (integration, terms, lexical,
   * embed, vector, rank, hydrate), and in all. The query is embedded from the start, beside
   * the stages before it: `embed` is only what it adds after the lexical pass.
   */
  timings: StageTimings;
}

/** Stage name → milliseconds, in the order the stages ran. */
export type StageTimings = Record<string, number>;

/** Records how long each stage of a request takes. */
function stopwatch(timings: StageTimings) {
  let last = performance.now();
  return (stage: string) => {
    const now = performance.now();
    timings[stage] = (timings[stage] ?? 0) + (now - last);
    last = now;
  };
}

/**
 * Calibration of the two signals into one `similarity` in [0, 1] (see docs/SEARCH.md):
 * cosine of all-MiniLM-L6-v2 is mapped linearly from [COS_FLOOR, COS_CEIL] to [0, 1];
 * BM25 is divided by the score a chunk would get by containing every query term once at
 * average length (so 1 ≈ "all query words present"), capped at 1. Hybrid similarity is
 * their weighted mean, so a strong match on either signal alone can pass 0.4.
 */
export const CALIBRATION = { cosFloor: 0.15, cosCeil: 0.65 } as const;

/** Cosines mapped linearly from [cosFloor, cosCeil] to [0, 1]. */
interface CosineRange { cosFloor: number; cosCeil: number }

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
const COSINE_RANGES: Readonly<Record<string, CosineRange>> = {
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

/** The cosine's calibration for a query in `language` (see COSINE_RANGES). */
export function cosineRange(language: string): CosineRange {
  return COSINE_RANGES[language] ?? CALIBRATION;
}

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
const NO_FIELDS: RankingFields = Object.freeze({ meta: {}, searchable_meta: {} });
/**
 * Chunks fetched per signal before fusion. Every candidate is scored exactly (its BM25 from
 * its postings, its cosine, its entry), which was most of the scoring statement's work: 50
 * instead of 100 took it from 6.2 to 4.6 ms at 100k chunks, with SciFact's nDCG@10 unchanged
 * (0.730) and XQuAD's too (docs/SEARCH.md). A search therefore ranks at most 100 chunks, so
 * `total` counts at most that many entries.
 */
const CANDIDATES = 50;
/** `summarisable` when the best hit's similarity reaches this. */
export const SUMMARISABLE_SIMILARITY = 0.5;

/** A retrieved passage for an answer: the entry and the text of its best chunk. */
export interface Passage {
  hit: SearchHit;
  text: string;
  /** The heading trail of the chunk `text` is (empty for an entry read whole). */
  headings: string[];
}

export interface RetrieveParams {
  /** The question; for chat, earlier context may follow as `context`. */
  query: string;
  /** More text to search with (a conversation's earlier question); an entry's best score across queries counts. */
  context?: string;
  /** The page the visitor is on: its entries are candidates whatever the words, and rank higher. */
  page?: PageContext;
  threshold: number;
  limit: number;
}

/** The page a chat visitor is on (the chat's `context`). */
export interface PageContext {
  url: string;
  title?: string;
}

/**
 * What a passage gains for being where the visitor is: the very section they have open (the
 * page URL's fragment), the page, or the page's part of the site (its folder). Added to the
 * similarity for ordering and the threshold; enough to put the visitor's page first among
 * passages about as relevant, not to put an unrelated page over a relevant one.
 */
const PAGE_BONUS = { section: 0.2, page: 0.1, area: 0.04 } as const;
/** Chunks of the visitor's page scored with every question. */
const PAGE_CHUNKS = 40;

/** A URL as a page: without fragment, query and trailing slashes (as the entries_page index keys entries). */
export function pageKey(url: string): string {
  return url.split('#')[0]!.split('?')[0]!.replace(/\/+$/, '');
}

/** The bonus of an entry at `sourceUrl` for a visitor on `page` (0 when elsewhere). */
export function pageBonus(page: PageContext, sourceUrl: string | null): number {
  if (!sourceUrl) return 0;
  if (page.url.includes('#') && sourceUrl === page.url) return PAGE_BONUS.section;
  const key = pageKey(page.url);
  const entryKey = pageKey(sourceUrl);
  if (entryKey === key) return PAGE_BONUS.page;
  // The page's folder, when it is more than the site's root: /docs/widgets/embed → /docs/widgets/.
  const folder = key.slice(0, key.lastIndexOf('/') + 1);
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)$/i.exec(folder)?.[1] ?? '/';
  return path !== '/' && entryKey.startsWith(folder) ? PAGE_BONUS.area : 0;
}

export interface SearchService {
  /**
   * Hybrid search over the integration's collections. Throws NotFoundError for unknown or
   * foreign integrations, ForbiddenError for inactive ones, UnavailableError when the
   * embedder fails. Records the search for analytics (searchLog) without delaying the result,
   * unless `analytics` is false (the console's playground: the organisation's own searches are
   * not its visitors').
   */
  search(scope: Scope, integrationId: string, params: SearchParams, options?: { mode?: SearchMode; analytics?: boolean }): Promise<SearchResult>;
  /**
   * The best `limit` passages for answering, from an integration already checked active.
   * Not recorded as a search. Throws UnavailableError when the embedder fails.
   */
  retrieve(scope: Scope, integration: Integration, params: RetrieveParams): Promise<Passage[]>;
  /**
   * For benchmarks: entries ranked by BM25 alone, vectors alone and hybrid, all from one
   * candidate set (the BM25 top 100 and the vector top 100, as every search uses), at
   * threshold 0. The same rankings as three searches in those modes, for a third of the work.
   */
  compareModes(scope: Scope, integrationId: string, query: string): Promise<Record<SearchMode, { entryId: string; similarity: number }[]>>;
  /** Records a click or feedback event for an active integration. */
  recordEvent(scope: Scope, integrationId: string, eventType: string, meta: JsonObject): Promise<void>;
}

interface Ranking {
  ranked: Ranked[];
  terms: string[];
  /** With `explain`: the signals of each ranked entry's chunk, by chunk id. */
  parts: Map<number, ScoreParts> | null;
}

export function createSearchService(deps: {
  integrations: IntegrationService;
  search: SearchRepository;
  embedder: Embedder;
  /** Where searches are recorded for analytics. */
  searchLog: Pick<SearchLog, 'record'>;
  /** Query embeddings kept for repeated queries (default 1,000: about 2 MB with the bundled model); 0 keeps none. */
  queryCache?: number;
}): SearchService {
  const { integrations, search, embedder, searchLog } = deps;
  // Query embeddings by query text. A search box asks again as the visitor types and pauses,
  // and visitors ask the same popular questions: a repeated query skips the model, which is
  // most of a search's CPU. In-flight embeddings are shared; failed ones are not kept.
  const cacheSize = deps.queryCache ?? 1_000;
  const queryEmbeddings = cacheSize > 0 ? new LRUCache<string, Promise<Float32Array>>({ max: cacheSize }) : null;

  /** Candidate chunks of a query with what fusion needs: the BM25 normaliser and the lexical weight. */
  async function gather(
    scope: Scope,
    collectionIds: readonly string[],
    query: string,
    meta: SearchParams['meta'],
    lexical: boolean,
    lap: (stage: string) => void = () => {},
    /** Chunks scored whatever the query's words (the visitor's page). */
    extraChunkIds: readonly number[] = [],
    /** The query's embedding, when the caller started it already. */
    embedding: Promise<Float32Array> = embedQuery(query),
  ) {
    // The query is embedded from the start, beside the lexical pass, which does not need it.
    embedding.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
    const { terms, language } = await analyseQuery(query, () => (collectionIds.length ? search.languages(scope, collectionIds) : Promise.resolve([])));
    const weight = lexicalWeight(language);
    const range = cosineRange(language);
    lap('terms');
    let found: LexicalCandidates =
      lexical && terms.length > 0 && collectionIds.length > 0
        ? await search.lexical(scope, collectionIds, terms, meta, CANDIDATES)
        : { idf: new Map(), avgdl: 1, chunkCount: 0, chunkIds: [] };
    if (extraChunkIds.length > 0) found = { ...found, chunkIds: [...new Set([...found.chunkIds, ...extraChunkIds])] };
    lap('lexical');
    const vector = await embedding;
    lap('embed'); // what the embedding adds once the lexical pass is done
    const chunks = collectionIds.length
      ? await search.scored(scope, collectionIds, { lexical: found, embedding: vector, dims: embedder.dimensions }, meta, CANDIDATES)
      : [];
    lap('vector');
    const { idf } = found;
    // Normaliser: every query term present once in a chunk of average length.
    const ideal = [...idf.values()].reduce((sum, w) => sum + w, 0) + unknownTermsWeight(terms, idf);
    return { chunks, ideal, terms, weight, range };
  }

  function embedQuery(query: string): Promise<Float32Array> {
    const cached = queryEmbeddings?.get(query);
    if (cached) return cached;
    const embedding = embedder.embed([query]).then(
      ([vector]) => vector!,
      (error: unknown) => {
        if (queryEmbeddings?.peek(query) === embedding) queryEmbeddings.delete(query);
        if (error instanceof EmbedderError) throw new UnavailableError('The embedding provider is unavailable.');
        throw error;
      },
    );
    queryEmbeddings?.set(query, embedding);
    return embedding;
  }

  /** Entries by their best chunk's similarity in `mode`, at or above `threshold`, best first. */
  function fuse(found: Awaited<ReturnType<typeof gather>>, mode: SearchMode, threshold: number): Ranked[] {
    const best = new Map<string, { chunk: ChunkScore; similarity: number }>();
    for (const chunk of found.chunks) {
      const similarity = score(chunk, found.ideal, mode, found.weight, found.range);
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
  function explained(found: Awaited<ReturnType<typeof gather>>, ranked: readonly Ranked[]): Map<number, ScoreParts> {
    const wanted = new Set(ranked.map((r) => r.chunkId));
    const parts = new Map<number, ScoreParts>();
    for (const chunk of found.chunks) {
      if (!wanted.has(chunk.chunkId)) continue;
      const [lexical, vector] = [lexicalSignal(chunk, found.ideal), vectorSignal(chunk, found.range)];
      parts.set(chunk.chunkId, { lexical: round(lexical), vector: round(vector), bm25: round(chunk.bm25), cosine: round(chunk.cosine), lexical_weight: found.weight });
    }
    return parts;
  }

  /** Candidates scored, fused, cut at the threshold and ordered (boosts and sorts applied). */
  async function rank(
    scope: Scope,
    collectionIds: readonly string[],
    params: Pick<SearchParams, 'query' | 'threshold' | 'meta' | 'boosts' | 'sorts' | 'explain'>,
    mode: SearchMode,
    lap?: (stage: string) => void,
    extraChunkIds?: readonly number[],
    embedding?: Promise<Float32Array>,
  ): Promise<Ranking> {
    const found = await gather(scope, collectionIds, params.query, params.meta, mode !== 'vector', lap, extraChunkIds, embedding);
    let ranked = fuse(found, mode, params.threshold);
    if (params.boosts.length > 0 || params.sorts.length > 0) {
      // Only boosts and sorts need metadata, and only they read it for every candidate.
      const fields = await search.entryFields(scope, ranked.map((r) => r.entryId));
      ranked = ranked.filter((r) => fields.has(r.entryId)).map((r) => ({ ...r, fields: fields.get(r.entryId)! }));
      if (params.boosts.length > 0) ranked = applyBoosts(ranked, params.boosts);
      if (params.sorts.length > 0) ranked = applySorts(ranked, params.sorts);
    }
    lap?.('rank');
    return { ranked, terms: found.terms, parts: params.explain ? explained(found, ranked) : null };
  }

  /** Full entries and best-chunk texts of `items`, in order; entries deleted meanwhile are left out. */
  async function hydrate(scope: Scope, items: readonly Ranked[], terms: readonly string[], parts: Map<number, ScoreParts> | null = null): Promise<Passage[]> {
    const found = new Map((await search.passages(scope, items)).map((p) => [p.entry.id, p]));
    return items
      .filter((r) => found.has(r.entryId))
      .map((r) => {
        const { entry, chunkText, chunkHeadings, chunkLanguage } = found.get(r.entryId)!;
        const text = chunkText ?? entry.raw_text;
        return {
          text,
          headings: chunkHeadings,
          hit: { ...entry, score_breakdown: { similarity: round(r.similarity), final_score: round(r.final), ...parts?.get(r.chunkId) }, snippet: snippet(text, terms, chunkLanguage) },
        };
      });
  }

  return {
    async search(scope, integrationId, params, options = {}) {
      const started = performance.now();
      const timings: StageTimings = {};
      const lap = stopwatch(timings);
      // Embedded from the start, beside the integration's lookup and the lexical pass. (An
      // unknown or inactive integration is refused all the same; its embedding is not awaited.)
      const embedding = embedQuery(params.query);
      embedding.catch(() => {});
      const integration = await integrations.getActive(scope, integrationId);
      lap('integration');
      const { ranked, terms, parts } = await rank(scope, integration.collection_ids, params, options.mode ?? 'hybrid', lap, undefined, embedding);
      const pageItems = ranked.slice((params.page - 1) * params.perPage, params.page * params.perPage);
      const hits = (await hydrate(scope, pageItems, terms, parts)).map((p) => p.hit);
      lap('hydrate');
      const top = ranked.reduce((max, r) => Math.max(max, r.similarity), 0);
      const result: SearchResult = {
        hits,
        total: ranked.length,
        page: params.page,
        perPage: params.perPage,
        // A query too short or vague to say what it is about ("h", "how do I") is not summarised, however close its hits.
        summarisable: ranked.length > 0 && top >= Math.max(SUMMARISABLE_SIMILARITY, params.threshold) && !isVagueQuery(params.query),
        timings,
      };
      const latencyMs = performance.now() - started;
      timings.total = latencyMs;
      // Analytics must not add latency: kept in memory, written with other searches within a second.
      if (options.analytics !== false) searchLog.record({
        organisationId: scope.organisationId,
        integrationId,
        query: params.query,
        resultCount: ranked.length,
        topScore: ranked.length ? top : null,
        latencyMs,
        at: new Date(),
      });
      return result;
    },

    async retrieve(scope, integration, params) {
      const { page } = params;
      const pageChunks = page ? await search.pageChunks(scope, integration.collection_ids, pageKey(page.url), PAGE_CHUNKS) : [];
      // With a page, candidates down to what the largest bonus can lift over the threshold.
      const base = { threshold: page ? Math.max(0, params.threshold - PAGE_BONUS.section) : params.threshold, meta: [], boosts: [], sorts: [] };
      const queries = params.context ? [params.query, `${params.context} ${params.query}`] : [params.query];
      const rankings = await Promise.all(queries.map((query) => rank(scope, integration.collection_ids, { ...base, query }, 'hybrid', undefined, pageChunks)));
      const best = new Map<string, Ranked>();
      for (const { ranked } of rankings) {
        for (const r of ranked) if ((best.get(r.entryId)?.similarity ?? -1) < r.similarity) best.set(r.entryId, r);
      }
      const terms = [...new Set(rankings.flatMap((r) => r.terms))];
      const ordered = [...best.values()].sort((a, b) => b.similarity - a.similarity);
      if (!page) return hydrate(scope, ordered.slice(0, params.limit), terms);
      // Where each candidate is is known once hydrated: a few more than needed, then re-ordered.
      const candidates = await hydrate(scope, ordered.slice(0, params.limit * 3), terms);
      const similarity = new Map(ordered.map((r) => [r.entryId, r.similarity]));
      return candidates
        .map((passage) => ({ passage, score: similarity.get(passage.hit.id)! + pageBonus(page, passage.hit.source_url) }))
        .filter((c) => c.score >= params.threshold)
        .sort((a, b) => b.score - a.score)
        .slice(0, params.limit)
        .map((c) => c.passage);
    },

    async compareModes(scope, integrationId, query) {
      const integration = await integrations.getActive(scope, integrationId);
      const found = await gather(scope, integration.collection_ids, query, [], true);
      const ids = (mode: SearchMode) => fuse(found, mode, 0).map((r) => ({ entryId: r.entryId, similarity: r.similarity }));
      return { lexical: ids('lexical'), vector: ids('vector'), hybrid: ids('hybrid') };
    },

    async recordEvent(scope, integrationId, eventType, meta) {
      await integrations.getActive(scope, integrationId);
      await search.recordEvent(scope, integrationId, eventType, meta);
    },
  };
}

/**
 * The query's BM25 terms and its language. A query is analysed in its detected language;
 * when that is unsure, in every language the collections hold (read only then: most
 * searches skip that statement), so stems match however the documents were stemmed. The
 * language is the detected one, else the collections' only one, else 'und'.
 */
export async function analyseQuery(query: string, collectionLanguages: () => Promise<string[]>): Promise<{ terms: string[]; language: string }> {
  const detected = detectLanguage(query);
  const languages = detected !== 'und' ? [detected] : await collectionLanguages();
  const analysed = languages.length > 0 ? languages : ['und'];
  return {
    terms: [...new Set(analysed.flatMap((lang) => analyze(query, lang).terms))],
    language: detected !== 'und' ? detected : languages.length === 1 ? languages[0]! : 'und',
  };
}

/** Query terms absent from the index still count in the normaliser, at the highest idf seen. */
function unknownTermsWeight(terms: readonly string[], idf: Map<string, number>): number {
  const missing = terms.filter((t) => !idf.has(t)).length;
  if (missing === 0 || idf.size === 0) return 0;
  // Several language variants of one word inflate `terms`; count at most half of them.
  return Math.min(missing, Math.ceil(terms.length / 2)) * Math.max(...idf.values()) * 0.5;
}

/** A chunk's calibrated signals in [0, 1] (see CALIBRATION). */
const vectorSignal = (chunk: ChunkScore, { cosFloor, cosCeil }: CosineRange) => clamp((chunk.cosine - cosFloor) / (cosCeil - cosFloor));
const lexicalSignal = (chunk: ChunkScore, ideal: number) => (ideal > 0 ? clamp(chunk.bm25 / ideal) : 0);

function score(chunk: ChunkScore, ideal: number, mode: SearchMode, lexicalWeight: number, range: CosineRange): number {
  const vector = vectorSignal(chunk, range);
  const lexical = lexicalSignal(chunk, ideal);
  if (mode === 'vector') return vector;
  if (mode === 'lexical') return lexical;
  return lexicalWeight * lexical + (1 - lexicalWeight) * vector;
}

const clamp = (x: number) => Math.min(1, Math.max(0, x));
const round = (x: number) => Math.round(x * 1e6) / 1e6;
