import type { Permission } from '../shared/permissions.js';
import type { ApiKey, Collection, Entry, EntryField, EntryFields, Integration, JsonObject, Organisation, PreparedChunk, Scope, Source } from './model.js';
import type { Page, PageRequest } from './pagination.js';
import type { WidgetType } from '../shared/widgetSettings.js';

/**
 * Ports: what the domain needs from the outside world. Adapters in storage/ and
 * providers/ implement them; the container (src/container.ts) picks which.
 */

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

export interface OrganisationPatch {
  name?: string;
  answer_credits?: number | null;
  usage_quota?: number | null;
}

/** Instance-level store of organisations and their API v1 tokens (admin only). */
export interface OrganisationRepository {
  create(name: string, publicId: string): Promise<Organisation>;
  list(page: PageRequest): Promise<Page<Organisation>>;
  get(id: number): Promise<Organisation | null>;
  update(id: number, patch: OrganisationPatch): Promise<Organisation | null>;
  insertToken(organisationId: number, tokenId: string, hash: Buffer): Promise<void>;
  /** The token's organisation and hash, unless unknown or revoked. */
  /** An unrevoked token's organisation and hash, with the organisation's `usage_quota`. */
  findToken(tokenId: string): Promise<{ organisationId: number; hash: Uint8Array; usageQuota: number | null } | null>;
  /** Marks a token revoked; false when unknown or already revoked. */
  revokeToken(tokenId: string): Promise<boolean>;
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

/** An active API key as authentication needs it. */
export interface StoredApiKey {
  organisationId: number;
  hash: Uint8Array;
  permissions: Permission[];
  sourceIds: string[] | null;
  /** The organisation's `usage_quota`. */
  usageQuota: number | null;
}

export interface ApiKeyRepository {
  create(scope: Scope, key: { id: string; name: string; hash: Buffer; permissions: readonly Permission[]; sourceIds: readonly string[] | null }): Promise<ApiKey>;
  /** Active (not revoked) keys in creation order. */
  list(scope: Scope, page: PageRequest): Promise<Page<ApiKey>>;
  /** Marks a key revoked; false when unknown, of another organisation or already revoked. */
  revoke(scope: Scope, id: string): Promise<boolean>;
  /** Instance-level, for authentication: the key unless unknown or revoked. */
  find(id: string): Promise<StoredApiKey | null>;
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

// Answer providers

export interface AnswerMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface AnswerRequest {
  /** Built by the domain: the system prompt (persona, instructions, locale, numbered passages), then the turns. */
  messages: AnswerMessage[];
  /** The question to answer (for chat: the visitor's message, possibly with earlier turns' context appended by the domain). */
  question: string;
  /**
   * Numbered passages the answer may cite as [ref]; the same ones the prompt in `messages`
   * carries. `source` is the whole text of the entry the passage was taken from (the passage
   * is its best chunk): a provider that reads no prompt may quote whole blocks from it.
   * `prior`: how much more the passage is worth for a reason its words do not show (the
   * visitor is reading it: 0.04–0.2), for providers that weigh passages themselves. `url`
   * links the passage's section when its page names one (see AnswerChunk `section`).
   */
  passages: { ref: number; title: string | null; url: string | null; text: string; source?: string; prior?: number }[];
  /** Preferred response language (BCP 47), when known. */
  locale?: string;
  /** Upper bound on generated tokens; default 1024. */
  maxTokens?: number;
  /** Sampling temperature; default 0.2. */
  temperature?: number;
}

/**
 * One step of a streamed answer: text in order, then exactly one `end`. Usage counts are
 * always integers (0 when the provider did not report them).
 */
export type AnswerChunk =
  | { type: 'text'; delta: string }
  /**
   * Before the text: what the answer quotes of passage `ref` stands under these headings (of
   * its `source`, the whole entry), so its citation links that section. Providers that read
   * only the passages' text send none: a citation then links the passage's own section.
   */
  | { type: 'section'; ref: number; headings: string[] }
  | { type: 'end'; reason: string; usage: { promptTokens: number; completionTokens: number } };

/** Generates an answer, streamed (the extractive default, OpenAI-compatible, Anthropic, …). */
export interface AnswerProvider {
  /** Who answers, e.g. 'openai' or 'anthropic'; shown as stream_start.provider. */
  readonly provider: string;
  readonly model: string;
  /**
   * Streams the answer. Throws ProviderError before the first chunk when the provider fails
   * (and mid-stream when it fails later); stops promptly, rejecting with `signal.reason`,
   * when `signal` aborts.
   */
  stream(request: AnswerRequest, signal: AbortSignal): AsyncIterable<AnswerChunk>;
}

/**
 * An answer provider failed. `status` is what a request that had not started streaming
 * answers with: 503 when the provider is unavailable, overloaded, timed out or still
 * rate-limiting after retries; 502 when it rejected the request or answered malformed.
 * The message is safe to show a client; the provider's own words are kept in `cause`.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: 502 | 503,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ProviderError';
  }
}

// Conversations

export interface StoredMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  /** The passages an assistant message cited: `{ref, title, url}`. */
  citations: { ref: number; title: string; url: string }[];
  created_at: string;
}

/** Who a widget conversation belongs to: the widget, and the proven visitor (null: anonymous). */
export interface ConversationOwner {
  widgetId: string;
  visitorId: string | null;
}

/** A visitor's conversation in a list. */
export interface ConversationSummary {
  id: string;
  title: string;
  kept: boolean;
  message_count: number;
  created_at: string;
  updated_at: string;
}

export interface ConversationRepository {
  create(scope: Scope, conversation: { id: string; integrationId: string; title: string; owner?: ConversationOwner }): Promise<void>;
  /**
   * Whether the conversation exists for this organisation and integration and, with `owner`,
   * belongs to exactly that widget and visitor (an anonymous owner matches anonymous ones only).
   */
  exists(scope: Scope, integrationId: string, id: string, owner?: ConversationOwner): Promise<boolean>;
  /** The visitor's conversations of the widget, most recently updated first. */
  listOwned(scope: Scope, owner: ConversationOwner & { visitorId: string }, page: PageRequest): Promise<Page<ConversationSummary>>;
  /** One of the visitor's conversations with every message, oldest first; null when not theirs. */
  getOwned(scope: Scope, owner: ConversationOwner & { visitorId: string }, id: string): Promise<{ id: string; kept: boolean; messages: StoredMessage[] } | null>;
  /** Sets `kept`; false when the conversation is not the visitor's. */
  setKept(scope: Scope, owner: ConversationOwner & { visitorId: string }, id: string, kept: boolean): Promise<boolean>;
  /** Deletes one (`id`) or all of the visitor's conversations; the number deleted. */
  deleteOwned(scope: Scope, owner: ConversationOwner & { visitorId: string }, id: string | null): Promise<number>;
  /** Instance-wide expiry: deletes conversations not kept and not updated since `before`; the number deleted. */
  deleteExpired(before: Date): Promise<number>;
  /** The last `limit` messages, oldest first. */
  recentMessages(scope: Scope, conversationId: string, limit: number): Promise<StoredMessage[]>;
  /** Appends a message; does nothing when the conversation is gone or foreign. */
  addMessage(scope: Scope, conversationId: string, message: Omit<StoredMessage, 'created_at'>): Promise<void>;
}

// Usage: answer credits and monthly counters

/** Counts one process adds to an organisation's month (`answers` may be negative: refunds). */
export interface UsageDelta {
  organisationId: number;
  /** Calendar month in UTC, 'YYYY-MM'. */
  period: string;
  requests: number;
  answers: number;
}

/** An organisation's stored request count for a month, with its current quota. */
export interface UsageTotal {
  organisationId: number;
  period: string;
  requests: number;
  usageQuota: number | null;
}

/** An organisation's credits, quota and stored counters for one month. */
export interface UsageMonth {
  answerCredits: number | null;
  usageQuota: number | null;
  requests: number;
  answers: number;
}

export interface UsageRepository {
  /**
   * Takes one answer credit in one atomic statement, so concurrent callers never take more
   * than there are, and only while `requests` (the month's, as the caller counts them) is
   * within the organisation's usage quota as stored now. `credit`: 'taken', 'unlimited'
   * (credits are null; nothing taken) or 'exhausted' (nothing taken: none left, or over
   * quota); `usageQuota`: the quota read in the same statement.
   */
  takeCredit(scope: Scope, requests: number): Promise<{ credit: 'taken' | 'unlimited' | 'exhausted'; usageQuota: number | null }>;
  /** Gives one credit back; nothing happens when the organisation's credits are unlimited. */
  returnCredit(scope: Scope): Promise<void>;
  /** Credits, quota and the stored counters of `period` (zeros when nothing was stored yet). */
  month(scope: Scope, period: string): Promise<UsageMonth>;
  /**
   * Instance-level, for the flusher: adds every delta to its counters in one statement and
   * returns the new totals. Deltas of organisations that no longer exist are dropped.
   */
  add(deltas: readonly UsageDelta[]): Promise<UsageTotal[]>;
  /** Instance-level, for the flusher: the stored totals of these organisations for `period`. */
  totals(period: string, organisationIds: readonly number[]): Promise<UsageTotal[]>;
}

/** A widget as stored; `config` holds only the settings a client set (defaults are applied on read). */
export interface WidgetRow {
  id: string;
  organisation_public_id: string;
  type: WidgetType;
  name: string;
  integration_id: string;
  websites: string[];
  config: JsonObject;
  created_at: string;
  updated_at: string;
}

/** A widget resolved from its public key, for the widget routes: with its secret hash. */
export interface StoredWidget extends WidgetRow {
  organisationId: number;
  secretHash: Uint8Array;
  /** The organisation's `usage_quota`. */
  usageQuota: number | null;
}

export interface WidgetEventRecord {
  name: string;
  url: string | null;
  rank: number | null;
  source: string | null;
  session_id: string | null;
  /** The chat answer (text_delta `message_id`) feedback is about. */
  answer_id: string | null;
}

export interface WidgetRepository {
  create(scope: Scope, widget: Omit<WidgetRow, 'organisation_public_id' | 'created_at' | 'updated_at'> & { secretHash: Buffer; identitySecret: string }): Promise<WidgetRow>;
  list(scope: Scope, page: PageRequest): Promise<Page<WidgetRow>>;
  get(scope: Scope, id: string): Promise<WidgetRow | null>;
  update(scope: Scope, id: string, fields: Pick<WidgetRow, 'name' | 'integration_id' | 'websites' | 'config'>): Promise<WidgetRow | null>;
  delete(scope: Scope, id: string): Promise<boolean>;
  /** Replaces the secret key's hash; false when the widget is unknown. */
  setSecret(scope: Scope, id: string, secretHash: Buffer): Promise<boolean>;
  /** Instance-level, for the widget routes: the widget named by its public key, or null. */
  find(organisationPublicId: string, id: string): Promise<StoredWidget | null>;
  recordEvent(scope: Scope, widgetId: string, event: WidgetEventRecord): Promise<void>;
  /** The secret visitor ids are signed with; only for verifying a visitor's hash. */
  identitySecret(scope: Scope, widgetId: string): Promise<string | null>;
}

/** Instance-level JSON values by key (not tenant data: no organisation scope). */
export interface InstanceSettingsRepository {
  get(key: string): Promise<JsonObject | null>;
  /** Inserts or replaces the value. */
  set(key: string, value: JsonObject): Promise<void>;
}
