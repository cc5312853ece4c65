import type { Entry, Integration, Scope } from '../model.js';
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
  /**
   * Raw BM25 score (0 when no query term occurs in the chunk): over the query's slots, each
   * slot's best match, its BM25 times the match's weight.
   */
  bm25: number;
  /** Cosine similarity of the chunk and query embeddings. */
  cosine: number;
  /** The headings the chunk sits under, outermost first (its trail), when it has any. */
  headings?: readonly string[] | null;
}

/**
 * How a query's words may also match terms other than their own (search as people type,
 * docs/SEARCH.md "Prefixes and typos"). Each query term is a slot, numbered as in `terms`; a
 * slot scores by the best of what it matched, so a word matching three terms counts once.
 */
export interface LooseMatching {
  /**
   * The word being typed (the query's last, when the query does not end in a space), lower-cased
   * and folded but not stemmed: it also matches the terms it begins (the most frequent first,
   * a bounded number), or, when it begins none, the `stems` it begins with (a word typed past
   * its stem: "configura" → "configur"). `slot` is its term's (or one past the terms).
   */
  prefix: { typed: string; slot: number; stems: readonly string[] } | null;
  /**
   * Query terms that may be mistyped: when one is in none of the collections, it matches their
   * terms within `edits` edits, a transposition of two letters counting as one.
   */
  typos: readonly MistypeableTerm[];
  /**
   * Two words written apart that the collections may hold as one ("shut down" → shutdown, "set
   * up" → setup, "shut-down" → shutdown): the term of the words joined, and the query slots of
   * the words it stands for. It matches in each of them, as Algolia and Meilisearch concatenate.
   */
  joined: readonly { term: string; slots: readonly number[] }[];
  /** What a match counts for beside an exact one (1), by kind: the word being typed's, a typo's of one edit and of two, two words joined. */
  weights: { prefix: number; typo: readonly [number, number]; joined: number };
}

/** A query term that may be mistyped, in its slot, with the edits it may hold. */
export interface MistypeableTerm {
  term: string;
  slot: number;
  edits: 1 | 2;
  /** The terms of its word with one letter dropped or two swapped (one edit each), looked up as they are. */
  corrections: readonly string[];
}

/** A term of the collections a query slot matched, with its BM25 weight. */
export interface TermMatch {
  term: string;
  slot: number;
  /** BM25 idf in the collections. */
  idf: number;
  /** What a match counts for beside an exact one (1): less for a prefix's or a typo's, by its edits. */
  weight: number;
}

/** A search's query as storage finds and scores its candidates. */
export interface CandidateQuery {
  /** The analysed query terms, each its own slot (none: no lexical pass). */
  terms: readonly string[];
  /** What else the terms may match (nothing when absent). */
  loose?: LooseMatching;
  /**
   * The query's embedding, awaited once the lexical pass is done: it is computed meanwhile,
   * beside the lexical pass, which does not need it. Its rejection is the search's.
   */
  embedding: Promise<Float32Array>;
  dims: number;
  filters: readonly MetaFilter[];
  /** Chunks taken from each signal. */
  limit: number;
  /** Chunks scored whatever the query's words (the visitor's page). */
  extraChunkIds?: readonly number[];
  /** Told as each stage ends: `lexical`, `embed` (what waiting for the embedding added), `vector`. */
  lap?: (stage: string) => void;
  /** Also say whether the candidates are every chunk passing the filters (`Candidates.complete`): facet counts ask. */
  completeness?: boolean;
}

/** A search's candidates, each scored on both signals, and the terms its slots matched (terms absent from the collections left out). */
export interface Candidates {
  chunks: ChunkScore[];
  matches: TermMatch[];
  /**
   * With `completeness`: true only when `chunks` holds every chunk of the collections passing
   * the filters, so a ranking of them misses no entry. Storage says true only where it can
   * tell (vectors compared exactly, fewer than `limit` found, every chunk with a vector of the
   * query's dimension); false otherwise, even if nothing was missed.
   */
  complete?: boolean;
}

/** Cosines mapped linearly from [cosFloor, cosCeil] to [0, 1]. */
export interface CosineRange {
  cosFloor: number;
  cosCeil: number;
}

/**
 * How one embedding model's cosines are read by query language, and how much BM25 weighs
 * beside them: given by the provider side (providers/embeddings/calibration.ts), keyed by the
 * model's id, since the embedder can be swapped.
 */
export interface Calibration {
  cosineRange(language: string): CosineRange;
  /** The lexical signal's weight in hybrid similarity; the vector signal has the rest. */
  lexicalWeight(language: string): number;
  /**
   * What a passage must hold of the question's words to be evidence for an answer (or make a
   * search summarisable) in this language (domain/search/evidence.ts `isEvidence`).
   */
  evidence(language: string): EvidenceGate;
}

/**
 * A language's evidence gate: a passage is evidence when its coverage of the question's words
 * + `slope` × (its similarity − 0.4) reaches `floor`. A floor of 0 lets every passage close
 * enough through; a slope lets a passage the model puts very close through on fewer words.
 */
export interface EvidenceGate {
  floor: number;
  slope: number;
  /**
   * A passage lacking a name the question asks about (a word it writes with a capital letter
   * past its first, or a number of three digits or more) holds none of it: measured per
   * language (bench/evidence.ts), where names are written so and unrelated passages share the
   * question's other words.
   */
  names?: boolean;
}

/** One search, as the analytics log keeps it. */
export interface SearchLogRow {
  organisationId: number;
  integrationId: string;
  query: string;
  resultCount: number;
  topScore: number | null;
  latencyMs: number;
  /** When the search was made. */
  at: Date;
}

/** Where searches are recorded for analytics (analytics/searchLog.ts): kept, and written later, never delaying a search. */
export interface SearchRecorder {
  record(row: SearchLogRow): void;
}

export interface SearchRepository {
  /**
   * A search's candidates in these collections (tenant-checked) among chunks passing the
   * filters, each scored exactly on both signals (BM25 and cosine): the best `limit` by BM25,
   * as far as a bounded number of postings per term tells, the best `limit` by vector
   * distance, and `extraChunkIds`. Whether vectors are compared exactly or through HNSW is
   * storage's choice.
   */
  candidates(scope: Scope, collectionIds: readonly string[], query: CandidateQuery): Promise<Candidates>;
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
   * its fragment, query and trailing slashes, is `pageKey` (see domain/answers/retrieval.ts pageKey).
   */
  pageChunks(scope: Scope, collectionIds: readonly string[], pageKey: string, limit: number): Promise<number[]>;
  /** Only the metadata of these entries (what boosts and sorts read), keyed by id. */
  entryFields(scope: Scope, entryIds: readonly string[]): Promise<Map<string, Pick<Entry, 'meta' | 'searchable_meta'>>>;
  /** Distinct languages of the chunks in these collections (from statistics, not a scan). */
  languages(scope: Scope, collectionIds: readonly string[]): Promise<string[]>;
}
