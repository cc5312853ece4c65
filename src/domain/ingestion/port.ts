import type { Collection, Entry, EntryField, EntryFields, JsonObject, PreparedChunk, Scope, Source } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';

/** The ingestion capability's ports: what it needs from storage and providers, which implement them (src/container.ts picks which). */

/** Turns texts into unit-length vectors. */
export interface Embedder {
  /** Identifier recorded with every chunk, so a model change can be detected. */
  readonly model: string;
  readonly dimensions: number;
  /**
   * Embeds `texts` in order. Throws EmbedderError when the provider fails; callers turn
   * that into a 503 and write nothing.
   */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export class EmbedderError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EmbedderError';
  }
}

/** Which of a collection's entries a listing gives: one source type; a text in the title, source_id or source_url. */
export interface EntryFilter {
  sourceType?: string;
  search?: string;
}

export interface CollectionRepository {
  list(scope: Scope, page: PageRequest): Promise<Page<Collection>>;
  create(scope: Scope, id: string, name: string): Promise<Collection>;
  get(scope: Scope, id: string): Promise<Collection | null>;
  update(scope: Scope, id: string, name: string): Promise<Collection | null>;
  /** Deletes the collection with its entries, chunks and index data; false when not found. */
  delete(scope: Scope, id: string): Promise<boolean>;
  /** The organisation's collections in creation order: all of them, or those among `ids`. */
  sources(scope: Scope, ids: readonly string[] | null): Promise<Source[]>;
  /**
   * Instance-level: the id of the organisation owning collection `id` (a UUID), or null.
   * Only for telling "another organisation's source" (403) from "unknown" (404).
   */
  organisationOf(id: string): Promise<number | null>;
}

/**
 * One entry write. `chunks: null` keeps the stored chunks (only non-indexed fields
 * changed). `create` fails with SourceConflictError when its source pair is taken.
 */
export type EntryWrite =
  | { kind: 'create'; id: string; fields: EntryFields; chunks: PreparedChunk[] }
  | { kind: 'upsert'; id: string; fields: EntryFields; chunks: PreparedChunk[] }
  | { kind: 'update'; id: string; fields: EntryFields; chunks: PreparedChunk[] | null };

export interface EntryWriteResult {
  entry: Entry;
  created: boolean;
}

export class SourceConflictError extends Error {
  constructor() {
    super('An entry with this source_type and source_id already exists in the collection.');
    this.name = 'SourceConflictError';
  }
}

export interface EntryRepository {
  list(scope: Scope, collectionId: string, page: PageRequest, filter?: EntryFilter): Promise<Page<Entry>>;
  /** As `list`, with only `fields` of each entry (and `id`), read from the database as such. */
  listFields(scope: Scope, collectionId: string, page: PageRequest, filter: EntryFilter, fields: readonly EntryField[]): Promise<Page<Partial<Entry>>>;
  /** Source id, URL and meta of every entry of `sourceType` in the collection (what a crawl knows of its pages). */
  sourceEntries(scope: Scope, collectionId: string, sourceType: string): Promise<{ source_id: string; source_url: string | null; meta: JsonObject | null }[]>;
  get(scope: Scope, collectionId: string, entryId: string): Promise<Entry | null>;
  /** The entry `entryId` when it is in one of `collectionIds` (of the organisation); null otherwise. */
  find(scope: Scope, collectionIds: readonly string[], entryId: string): Promise<Entry | null>;
  findBySources(scope: Scope, collectionId: string, sources: readonly { type: string; id: string }[]): Promise<Entry[]>;
  /** Stored embeddings of chunks in the collection with these content hashes (hash → vector). */
  reusableEmbeddings(scope: Scope, collectionId: string, hashes: readonly string[]): Promise<Map<string, Float32Array>>;
  /** Applies all writes in one transaction (entry rows, chunks, postings, statistics). */
  write(scope: Scope, collectionId: string, writes: readonly EntryWrite[]): Promise<EntryWriteResult[]>;
  /**
   * Replaces the chunks of entries (their postings and statistics with them) in one
   * transaction, leaving the entry rows as they are: for entries whose `updated_at` is still
   * `updatedAt` (ISO timestamp); others are left alone. The ids of the entries replaced.
   */
  replaceChunks(scope: Scope, collectionId: string, items: readonly { entryId: string; updatedAt: string; chunks: PreparedChunk[] }[]): Promise<string[]>;
  delete(scope: Scope, collectionId: string, entryId: string): Promise<boolean>;
  deleteBySource(scope: Scope, collectionId: string, sourceType: string, sourceId: string): Promise<boolean>;
}
