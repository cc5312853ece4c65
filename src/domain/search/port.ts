import type { SearchLogRow } from '../analytics/port.js';
import type { Entry, Integration, JsonObject, Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';

/** The search capability's ports: what it needs from storage and providers, which implement them (src/container.ts picks which). */

/** An integration's writable state. */
export type IntegrationRecord = Omit<Integration, 'id' | 'created_at' | 'updated_at'>;

export interface IntegrationRepository {
  list(scope: Scope, page: PageRequest, filters: { type?: string; project?: string }): Promise<Page<Integration>>;
  get(scope: Scope, id: string): Promise<Integration | null>;
  create(scope: Scope, id: string, record: IntegrationRecord): Promise<Integration>;
  /** Replaces every field; null when not found. */
  update(scope: Scope, id: string, record: IntegrationRecord): Promise<Integration | null>;
  delete(scope: Scope, id: string): Promise<boolean>;
  /** The subset of `ids` that are collections of this organisation. */
  ownedCollections(scope: Scope, ids: readonly string[]): Promise<Set<string>>;
}

/** A metadata filter on one key, matched against meta and searchable_meta together. */
export type MetaFilter =
  | { key: string; op: 'eq'; values: [string] }
  | { key: string; op: 'or'; values: string[] }
  | { key: string; op: 'and'; values: string[] };

export interface ChunkScore {
  chunkId: number;
  entryId: string;
  /** Raw BM25 score (0 when no query term occurs in the chunk). */
  bm25: number;
  /** Cosine similarity of the chunk and query embeddings. */
  cosine: number;
}

/**
 * The lexical pass of a search: each query term's BM25 weight (idf; terms absent from the
 * collections are left out), the collections' size and average chunk length, and the ids of the
 * best chunks by BM25 as far as each term's best postings tell (scored exactly later).
 */
export interface LexicalCandidates {
  idf: Map<string, number>;
  avgdl: number;
  /** Chunks in the collections (0 when unknown). */
  chunkCount: number;
  chunkIds: number[];
}

export interface SearchRepository {
  /**
   * The lexical pass over these collections (tenant-checked) for chunks passing the filters:
   * the best `limit` by BM25, reading a bounded number of postings per term. Needs no
   * embedding, so it runs while the query is being embedded.
   */
  lexical(scope: Scope, collectionIds: readonly string[], terms: readonly string[], filters: readonly MetaFilter[], limit: number): Promise<LexicalCandidates>;
  /**
   * The candidates of a search, each scored on both signals (exact BM25 and cosine): the
   * lexical pass's chunks and the best `limit` by vector distance among chunks of these
   * collections (tenant-checked) passing the filters.
   */
  scored(
    scope: Scope,
    collectionIds: readonly string[],
    query: { lexical: LexicalCandidates; embedding: Float32Array; dims: number },
    filters: readonly MetaFilter[],
    limit: number,
  ): Promise<ChunkScore[]>;
  /**
   * The entries of these (entry, chunk) pairs, as the API shows them, each with its chunk's
   * text, headings and language (the one its terms were made in when written; text and
   * language null when the chunk is gone); entries deleted meanwhile are left out. Any order.
   */
  passages(
    scope: Scope,
    items: readonly { entryId: string; chunkId: number }[],
  ): Promise<{ entry: Entry; chunkText: string | null; chunkHeadings: string[]; chunkLanguage: string | null }[]>;
  /**
   * Chunk ids (at most `limit`) of the entries in these collections whose `source_url`, without
   * its fragment, query and trailing slashes, is `pageKey` (see domain/search.ts pageKey).
   */
  pageChunks(scope: Scope, collectionIds: readonly string[], pageKey: string, limit: number): Promise<number[]>;
  /** Only the metadata of these entries (what boosts and sorts read), keyed by id. */
  entryFields(scope: Scope, entryIds: readonly string[]): Promise<Map<string, Pick<Entry, 'meta' | 'searchable_meta'>>>;
  /** Distinct languages of the chunks in these collections (from statistics, not a scan). */
  languages(scope: Scope, collectionIds: readonly string[]): Promise<string[]>;
  /**
   * Adds searches to the analytics log, in one statement. Rows whose integration is gone (or
   * is not of the row's organisation) are left out.
   */
  logSearches(rows: readonly SearchLogRow[]): Promise<void>;
  recordEvent(scope: Scope, integrationId: string, eventType: string, meta: JsonObject): Promise<void>;
}
