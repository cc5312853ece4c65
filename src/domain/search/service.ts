/**
 * The search capability's service: a query through its stages — the integration, the query's
 * terms and language (query.ts), the candidates from storage in one call, fusion (fusion.ts),
 * boosts and sorts (ranking.ts), facet counts (facets.ts), the page of hits with snippets —
 * timed stage by stage and recorded for analytics. Answers rank with it too (answers/retrieval.ts).
 */
import type { IntegrationService } from './integrations.js';
import type { Entry, Integration, Scope } from '../model.js';
import type { Embedder } from '../ingestion/port.js';
import type { Calibration, MetaFilter, SearchRecorder, SearchRepository, TermMatch } from './port.js';
import { applyBoosts, applySorts, type Boost, type Ranked, type Sort } from './ranking.js';
import { explain, fuse, round, scoring, SUMMARISABLE_SIMILARITY, type ScoreParts, type Scoring, type SearchMode } from './fusion.js';
import { isEvidence, passageText, type EvidenceQuery } from './evidence.js';
import { analyseQuery, looseMatching, queryEmbedder } from './query.js';
import { snippet } from './snippet.js';
import { countFacets, type FacetCounts } from './facets.js';
import { isVagueQuery } from '../ingestion/text/questionWords.js';

export type { ScoreParts, SearchMode } from './fusion.js';

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
  /**
   * The query is being typed (it did not end in a space): its last word also matches the
   * terms it begins. Default false (a question asked whole).
   */
  typing?: boolean;
  /**
   * A query term found nowhere also matches the terms one or two edits from it. Default: the
   * integration's `typo_tolerance` setting in `search`, true in `rank`.
   */
  typos?: boolean;
  /**
   * Meta keys to count the values of over every ranked hit, not only the page (facets.ts): a
   * refinement list's counts. Absent: no counts, and the search reads no metadata for them.
   */
  facets?: string[];
}

export interface SearchHit extends Entry {
  score_breakdown: { similarity: number; final_score: number } & Partial<ScoreParts>;
  snippet: string;
}

export interface SearchResult {
  hits: SearchHit[];
  total: number;
  page: number;
  perPage: number;
  summarisable: boolean;
  /** With `facets`: each key's values and how many ranked hits hold each. */
  facets?: FacetCounts;
  /**
   * With `facets`: whether the counts are exact, the candidates ranked having held every chunk
   * passing the filters (storage's `complete`). A search ranks the best CANDIDATES chunks of
   * each signal, so where more chunks pass the filters, the counts are those of the hits
   * ranked, which may leave out entries an unbounded search would have found.
   */
  facetsExhaustive?: boolean;
  /**
   * Milliseconds of each stage on the request's path, in order (integration, terms, lexical,
   * embed, vector, rank, hydrate, evidence: whether the hits are evidence enough to summarise),
   * and in all. The query is embedded from the start, beside the stages before it: `embed` is
   * only what it adds after the lexical pass.
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
 * Chunks fetched per signal before fusion. Every candidate is scored exactly (its BM25 from
 * its postings, its cosine, its entry), which was most of the scoring statement's work: 50
 * instead of 100 took it from 6.2 to 4.6 ms at 100k chunks, with SciFact's nDCG@10 unchanged
 * (0.730) and XQuAD's too (docs/SEARCH.md). A search therefore ranks at most 100 chunks, so
 * `total` counts at most that many entries.
 */
const CANDIDATES = 50;
/** Hits close enough to summarise whose passages are read for evidence (`summarisable`). */
const EVIDENCE_HITS = 3;

/** A ranked entry with the text of its best chunk (what answers are written from). */
export interface Passage {
  hit: SearchHit;
  text: string;
  /** The heading trail of the chunk `text` is (empty for an entry read whole). */
  headings: string[];
}

/** What a ranking is asked. */
export type RankParams = Pick<SearchParams, 'query' | 'threshold' | 'meta' | 'boosts' | 'sorts' | 'explain' | 'typing' | 'typos'> & {
  /**
   * The query's language when its text tells it worse than the caller knows it: a question
   * searched without its scaffolding ("installiere Express?" of "Wie installiere ich
   * Express?") is read in the whole question's language. Detected from the query otherwise.
   */
  language?: string;
};

export interface Ranking {
  ranked: Ranked[];
  terms: string[];
  /** With `explain`: the signals of each ranked entry's chunk, by chunk id. */
  parts: Map<number, ScoreParts> | null;
  /** The question as evidence weighs it: which passages an answer may rest on (evidence.ts `isEvidence`). */
  evidence: EvidenceQuery;
  /** The query's terms as the collections hold them: its own, and those its prefix and typos matched, each with its idf (what `evidence` was weighed from). */
  matches: readonly TermMatch[];
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
   * Entries of these collections ranked for a query (fused, cut at the threshold, boosts and
   * sorts applied), not recorded as a search: what answers retrieve with. `extraChunkIds` are
   * scored whatever the query's words. Throws UnavailableError when the embedder fails.
   */
  rank(scope: Scope, collectionIds: readonly string[], params: RankParams, options?: { mode?: SearchMode; extraChunkIds?: readonly number[] }): Promise<Ranking>;
  /** Full entries and best-chunk texts of ranked entries, in order; entries deleted meanwhile are left out. */
  passages(scope: Scope, items: readonly Ranked[], terms: readonly string[]): Promise<Passage[]>;
  /**
   * For benchmarks: entries ranked by BM25 alone, vectors alone and hybrid, all from one
   * candidate set (the BM25 top 50 and the vector top 50, as every search uses), at
   * threshold 0. The same rankings as three searches in those modes, for a third of the work.
   */
  compareModes(scope: Scope, integrationId: string, query: string, options?: Pick<SearchParams, 'typing' | 'typos'>): Promise<Record<SearchMode, { entryId: string; similarity: number }[]>>;
}

/** The integration's default for `typos` (its `typo_tolerance` setting; on unless set false). */
export function typoTolerance(integration: Integration): boolean {
  return integration.settings.typo_tolerance !== false;
}

export function createSearchService(deps: {
  integrations: IntegrationService;
  search: SearchRepository;
  embedder: Embedder;
  /** How the embedder's cosines are read (providers/embeddings/calibration.ts). */
  calibration: Calibration;
  /** Where searches are recorded for analytics. */
  searchLog: SearchRecorder;
  /** Query embeddings kept for repeated queries (default 1,000: about 2 MB with the bundled model); 0 keeps none. */
  queryCache?: number;
}): SearchService {
  const { integrations, search, embedder, calibration, searchLog } = deps;
  const embedQuery = queryEmbedder(embedder, deps.queryCache ?? 1_000);

  /** The query's candidates from storage, ready to fuse. */
  async function find(
    scope: Scope,
    collectionIds: readonly string[],
    query: string,
    options: {
      meta?: readonly MetaFilter[];
      lexical?: boolean;
      typing?: boolean;
      typos?: boolean;
      language?: string;
      extraChunkIds?: readonly number[];
      embedding?: Promise<Float32Array>;
      lap?: (stage: string) => void;
      /** Whether a heading naming the query lifts its chunks (fusion.ts): for a search box, not for an answer's passages. */
      headings?: boolean;
      /** Also tell whether the candidates are every chunk passing the filters (`complete`). */
      completeness?: boolean;
    },
  ): Promise<{ found: Scoring; terms: string[]; complete: boolean; matches: readonly TermMatch[] }> {
    // The query is embedded from the start, beside the lexical pass, which does not need it.
    const embedding = options.embedding ?? embedQuery(query);
    embedding.catch(() => {}); // awaited by storage; a failure must not go unhandled meanwhile
    const { terms, language, words } = await analyseQuery(query, () => (collectionIds.length ? search.languages(scope, collectionIds) : Promise.resolve([])), options.language);
    const lexical = options.lexical !== false;
    const loose = lexical ? looseMatching(query, terms, language, { typing: options.typing ?? false, typos: options.typos ?? true }) : undefined;
    options.lap?.('terms');
    const { chunks, matches, complete } = await search.candidates(scope, collectionIds, {
      terms: lexical ? terms : [],
      loose,
      embedding,
      dims: embedder.dimensions,
      filters: options.meta ?? [],
      limit: CANDIDATES,
      extraChunkIds: options.extraChunkIds,
      lap: options.lap,
      completeness: options.completeness,
    });
    // The BM25 normaliser counts the query's words, not their variants in each language read (fusion.ts unknownSlotsWeight).
    const slots = words + (loose?.prefix?.slot === terms.length ? 1 : 0);
    // Snippets mark what matched: the query's terms, and the terms a prefix or typo matched.
    return {
      found: scoring(chunks, terms, slots, matches, language, calibration, options.headings ?? false, query),
      terms: [...new Set([...terms, ...matches.map((m) => m.term)])],
      complete: complete === true,
      matches,
    };
  }

  /**
   * Candidates scored, fused, cut at the threshold and ordered (boosts and sorts applied). With
   * `facets`, every ranked entry carries its metadata, and `complete` says whether the
   * candidates were every chunk passing the filters.
   */
  async function rank(
    scope: Scope,
    collectionIds: readonly string[],
    params: RankParams,
    options: { mode?: SearchMode; extraChunkIds?: readonly number[]; embedding?: Promise<Float32Array>; lap?: (stage: string) => void; headings?: boolean; facets?: boolean } = {},
  ): Promise<Ranking & { complete: boolean }> {
    const mode = options.mode ?? 'hybrid';
    const { found, terms, complete, matches } = await find(scope, collectionIds, params.query, {
      ...options,
      meta: params.meta,
      lexical: mode !== 'vector',
      typing: params.typing,
      typos: params.typos,
      language: params.language,
      completeness: options.facets,
    });
    let ranked = fuse(found, mode, params.threshold);
    if (params.boosts.length > 0 || params.sorts.length > 0 || options.facets) {
      // Only boosts, sorts and facets need metadata; they share one read of every ranked entry's.
      const fields = await search.entryFields(scope, ranked.map((r) => r.entryId));
      ranked = ranked.filter((r) => fields.has(r.entryId)).map((r) => ({ ...r, fields: fields.get(r.entryId)! }));
      if (params.boosts.length > 0) ranked = applyBoosts(ranked, params.boosts);
      if (params.sorts.length > 0) ranked = applySorts(ranked, params.sorts);
    }
    options.lap?.('rank');
    return { ranked, terms, parts: params.explain ? explain(found, ranked) : null, evidence: found.evidence, matches, complete };
  }

  /** Full entries and best-chunk texts of `items`, in order; entries deleted meanwhile are left out. */
  async function passages(scope: Scope, items: readonly Ranked[], terms: readonly string[], parts: Map<number, ScoreParts> | null = null): Promise<Passage[]> {
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

  /** `items` with the texts evidence reads of them (evidence.ts `passageText`), from the passages already read where they are among them; entries deleted meanwhile are left out. */
  async function textsOf(scope: Scope, items: readonly Ranked[], read: readonly Passage[]): Promise<[Ranked, string][]> {
    const text = (p: Passage) => passageText(p.text, p.hit.raw_text);
    const known = new Map(read.map((p) => [p.hit.id, text(p)]));
    const missing = items.filter((r) => !known.has(r.entryId));
    if (missing.length > 0) for (const p of await passages(scope, missing, [])) known.set(p.hit.id, text(p));
    return items.flatMap((r): [Ranked, string][] => (known.has(r.entryId) ? [[r, known.get(r.entryId)!]] : []));
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
      const facetKeys = params.facets?.length ? params.facets : null;
      const { ranked, terms, parts, evidence, complete } = await rank(
        scope,
        integration.collection_ids,
        { ...params, typos: params.typos ?? typoTolerance(integration) },
        { mode: options.mode, embedding, lap, headings: true, facets: facetKeys !== null },
      );
      const pageItems = ranked.slice((params.page - 1) * params.perPage, params.page * params.perPage);
      const shown = await passages(scope, pageItems, terms, parts);
      const hits = shown.map((p) => p.hit);
      lap('hydrate');
      const top = ranked.reduce((max, r) => Math.max(max, r.similarity), 0);
      // Summarisable when a hit close enough is evidence an answer would rest on (evidence.ts):
      // among the first few such hits, read from the page shown (or fetched when it is another).
      const close = ranked.slice(0, EVIDENCE_HITS).filter((r) => r.similarity >= Math.max(SUMMARISABLE_SIMILARITY, params.threshold));
      const summarisable =
        close.length > 0 && !isVagueQuery(params.query) &&
        (evidence.floor <= 0 || (await textsOf(scope, close, shown)).some(([r, text]) => isEvidence(evidence, text, r.similarity)));
      lap('evidence');
      const result: SearchResult = {
        hits,
        total: ranked.length,
        page: params.page,
        perPage: params.perPage,
        // A query too short or vague to say what it is about ("h", "how do I") is not summarised, however close its hits.
        summarisable,
        // Over the whole ranked list: what the filters and threshold let through, not only the page.
        ...(facetKeys && { facets: countFacets(ranked.map((r) => r.fields), facetKeys), facetsExhaustive: complete }),
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

    rank: (scope, collectionIds, params, options) => rank(scope, collectionIds, params, options),
    passages: (scope, items, terms) => passages(scope, items, terms),

    async compareModes(scope, integrationId, query, options = {}) {
      const integration = await integrations.getActive(scope, integrationId);
      const { found } = await find(scope, integration.collection_ids, query, { typing: options.typing, typos: options.typos ?? typoTolerance(integration), headings: true });
      const ids = (mode: SearchMode) => fuse(found, mode, 0).map((r) => ({ entryId: r.entryId, similarity: r.similarity }));
      return { lexical: ids('lexical'), vector: ids('vector'), hybrid: ids('hybrid') };
    },

  };
}
