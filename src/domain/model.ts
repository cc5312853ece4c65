import type { Permission } from '../shared/permissions.js';

/** Resource shapes as the API returns them (SPEC.md "Resources and their fields"). */

/** The organisation a request acts for. Every tenant-scoped call takes it first. */
export interface Scope {
  readonly organisationId: number;
}

export interface Organisation {
  id: number;
  public_id: string;
  name: string;
  answer_credits: number | null;
  usage_quota: number | null;
  created_at: string;
  updated_at: string;
}

export interface Collection {
  id: string;
  organisation_id: number;
  name: string;
  created_at: string;
  updated_at: string;
}

/** A collection as a source of pages: what GET /me lists. */
export interface Source {
  id: string;
  name: string;
}

/** An organisation API key as the API shows it; the key itself is shown once, at creation. */
export interface ApiKey {
  id: string;
  name: string;
  permissions: Permission[];
  /** Collection ids the key is limited to; null = every source of the organisation. */
  source_ids: string[] | null;
  created_at: string;
}

export type JsonObject = { [key: string]: unknown };

/** An entry's fields, as a list may ask for some of them (`fields=source_id,meta`). */
export const ENTRY_FIELDS = ['id', 'collection_id', 'title', 'raw_text', 'meta', 'searchable_meta', 'source_url', 'source_type', 'source_id', 'created_at', 'updated_at'] as const;
export type EntryField = (typeof ENTRY_FIELDS)[number];

/** The writable fields of an entry, after validation. */
export interface EntryFields {
  title: string | null;
  raw_text: string;
  meta: JsonObject;
  searchable_meta: JsonObject;
  source_url: string | null;
  source_type: string | null;
  source_id: string | null;
}

/** An entry as stored and shown: its writable fields, where it lives and when it changed. */
export interface Entry extends EntryFields {
  id: string;
  collection_id: string;
  created_at: string;
  updated_at: string;
}

/** ENTRY_FIELDS names every field of Entry and no other: otherwise this fails to compile. */
const entryFieldsComplete: [keyof Entry] extends [EntryField] ? ([EntryField] extends [keyof Entry] ? true : false) : false = true;
void entryFieldsComplete;

/** A chunk ready to be stored: text, BM25 terms and embedding. */
export interface PreparedChunk {
  ordinal: number;
  text: string;
  headings: string[];
  language: string;
  contentHash: string;
  /** Term → frequency in this chunk's indexed text (title, searchable_meta values, text). */
  terms: Map<string, number>;
  /** Number of terms: the BM25 document length. */
  length: number;
  embedding: Float32Array;
}

export type IntegrationType = 'chatbot' | 'search_box' | 'custom';

export interface Integration {
  id: string;
  name: string;
  project: string | null;
  type: IntegrationType;
  allowed_domains: string[] | null;
  is_active: boolean;
  settings: JsonObject;
  collection_ids: string[];
  created_at: string;
  updated_at: string;
}
