import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Ingestion } from './pipeline.js';
import type { Entry, EntryField, EntryFields, JsonObject, Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import { SourceConflictError, type CollectionRepository, type EntryFilter, type EntryRepository, type EntryWrite } from './port.js';

/** Size limits, also documented in the README and the OpenAPI schemas. */
export const LIMITS = {
  rawText: 500_000,
  title: 1_000,
  sourceType: 100,
  sourceId: 500,
  sourceUrl: 2_048,
  /** Serialised JSON size of `meta` and of `searchable_meta`, each. */
  metaBytes: 16_384,
  batch: 50,
} as const;

/** An entry write as the API accepts it; absent optional fields mean "not given". */
export interface EntryInput {
  title?: string | null;
  raw_text?: string;
  meta?: JsonObject | null;
  searchable_meta?: JsonObject | null;
  source_url?: string | null;
  source_type?: string | null;
  source_id?: string | null;
}

export interface EntryService {
  /** The collection's entries in creation order; only those `filter` keeps (a source_type, a text in the title, source_id or source_url). */
  list(scope: Scope, collectionId: string, page: PageRequest, filter?: EntryFilter): Promise<Page<Entry>>;
  /** As `list`, with only `fields` of each entry (and `id`): a large collection listed without its texts. */
  listFields(scope: Scope, collectionId: string, page: PageRequest, filter: EntryFilter, fields: readonly EntryField[]): Promise<Page<Partial<Entry>>>;
  /** Creates an entry; 422 when its source pair is already used in the collection. */
  create(scope: Scope, collectionId: string, input: EntryInput): Promise<Entry>;
  /** Creates or replaces the entry with the same (source_type, source_id). */
  upsert(scope: Scope, collectionId: string, input: EntryInput): Promise<{ entry: Entry; created: boolean }>;
  /** All-or-nothing upsert of up to 50 entries. */
  batchUpsert(scope: Scope, collectionId: string, inputs: readonly EntryInput[]): Promise<{ created: number; updated: number }>;
  /** Changes the given fields; re-indexes only when indexed fields changed. */
  update(scope: Scope, collectionId: string, entryId: string, input: EntryInput): Promise<Entry>;
  /**
   * The entry `entryId`, whichever of `collectionIds` holds it (those a credential may read);
   * NotFoundError when the id is malformed or no such entry is in them — another
   * organisation's and another collection's alike.
   */
  find(scope: Scope, collectionIds: readonly string[], entryId: string): Promise<Entry>;
  delete(scope: Scope, collectionId: string, entryId: string): Promise<void>;
  /** Throws NotFoundError when no entry has that source pair. */
  deleteBySource(scope: Scope, collectionId: string, sourceType: string, sourceId: string): Promise<void>;
}

/**
 * Entries of a collection. Every write returns only after the entry, its chunks, their
 * embeddings and BM25 postings are committed together, so it is searchable at once.
 * All methods are tenant-scoped: a collection of another organisation is "not found".
 */
export function createEntryService(deps: {
  collections: CollectionRepository;
  entries: EntryRepository;
  ingestion: Ingestion;
}): EntryService {
  const { collections, entries, ingestion } = deps;

  async function requireCollection(scope: Scope, collectionId: string): Promise<void> {
    if (!isUuid(collectionId) || !(await collections.get(scope, collectionId))) throw new NotFoundError('Collection');
  }

  async function write(scope: Scope, collectionId: string, writes: EntryWrite[]) {
    try {
      return await entries.write(scope, collectionId, writes);
    } catch (error) {
      if (error instanceof SourceConflictError) throw ValidationError.field('source_id', error.message);
      throw error;
    }
  }

  return {
    async list(scope, collectionId, page, filter) {
      await requireCollection(scope, collectionId);
      return entries.list(scope, collectionId, page, filter);
    },

    async listFields(scope, collectionId, page, filter, fields) {
      await requireCollection(scope, collectionId);
      return entries.listFields(scope, collectionId, page, filter, fields);
    },

    async create(scope, collectionId, input) {
      const fields = normalise(input, '');
      await requireCollection(scope, collectionId);
      const [chunks] = await ingestion.prepare(scope, collectionId, [fields]);
      const [result] = await write(scope, collectionId, [{ kind: 'create', id: randomUUID(), fields, chunks: chunks! }]);
      return result!.entry;
    },

    async upsert(scope, collectionId, input) {
      const fields = normalise(input, '', { requireSource: true });
      await requireCollection(scope, collectionId);
      const [chunks] = await ingestion.prepare(scope, collectionId, [fields]);
      const [result] = await write(scope, collectionId, [{ kind: 'upsert', id: randomUUID(), fields, chunks: chunks! }]);
      return result!;
    },

    async batchUpsert(scope, collectionId, inputs) {
      const errors: Record<string, string[]> = {};
      const seen = new Map<string, number>();
      const fields: EntryFields[] = [];
      inputs.forEach((input, i) => {
        try {
          const f = normalise(input, `entries.${i}.`, { requireSource: true });
          const pair = JSON.stringify([f.source_type, f.source_id]);
          const first = seen.get(pair);
          if (first !== undefined) {
            errors[`entries.${i}.source_id`] = [
              `The entries.${i}.source_id field duplicates entries.${first} (same source_type and source_id).`,
            ];
          } else seen.set(pair, i);
          fields.push(f);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          Object.assign(errors, error.errors);
        }
      });
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      await requireCollection(scope, collectionId);
      const chunks = await ingestion.prepare(scope, collectionId, fields);
      const results = await write(
        scope,
        collectionId,
        fields.map((f, i) => ({ kind: 'upsert', id: randomUUID(), fields: f, chunks: chunks[i]! })),
      );
      const created = results.filter((r) => r.created).length;
      return { created, updated: results.length - created };
    },

    async update(scope, collectionId, entryId, input) {
      await requireCollection(scope, collectionId);
      const current = isUuid(entryId) ? await entries.get(scope, collectionId, entryId) : null;
      if (!current) throw new NotFoundError('Entry');
      const fields = normalise({ ...current, ...definedOnly(input) }, '');
      const reindex =
        fields.title !== current.title ||
        fields.raw_text !== current.raw_text ||
        JSON.stringify(fields.searchable_meta) !== JSON.stringify(current.searchable_meta);
      const chunks = reindex ? (await ingestion.prepare(scope, collectionId, [fields]))[0]! : null;
      const [result] = await write(scope, collectionId, [{ kind: 'update', id: entryId, fields, chunks }]);
      if (!result) throw new NotFoundError('Entry');
      return result.entry;
    },

    async find(scope, collectionIds, entryId) {
      const entry = isUuid(entryId) && collectionIds.every(isUuid) ? await entries.find(scope, collectionIds, entryId) : null;
      if (!entry) throw new NotFoundError('Entry');
      return entry;
    },

    async delete(scope, collectionId, entryId) {
      await requireCollection(scope, collectionId);
      if (!isUuid(entryId) || !(await entries.delete(scope, collectionId, entryId))) throw new NotFoundError('Entry');
    },

    async deleteBySource(scope, collectionId, sourceType, sourceId) {
      await requireCollection(scope, collectionId);
      if (!(await entries.deleteBySource(scope, collectionId, sourceType, sourceId))) throw new NotFoundError('Entry');
    },
  };
}

function definedOnly(input: EntryInput): EntryInput {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

/**
 * Applies the rules the JSON schema cannot express and fills defaults. `prefix` makes
 * error keys Laravel-style for batch items (`entries.3.`). Throws ValidationError.
 */
function normalise(input: EntryInput, prefix: string, options: { requireSource?: boolean } = {}): EntryFields {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => {
    (errors[prefix + field] ??= []).push(message.replace(':field', prefix + field));
  };

  const rawText = input.raw_text ?? '';
  if (rawText.trim() === '') fail('raw_text', 'The :field field is required.');
  if (options.requireSource) {
    if (!input.source_type) fail('source_type', 'The :field field is required.');
    if (!input.source_id) fail('source_id', 'The :field field is required.');
  }
  for (const key of ['meta', 'searchable_meta'] as const) {
    const value = input[key];
    if (value != null && Buffer.byteLength(JSON.stringify(value)) > LIMITS.metaBytes) {
      fail(key, `The :field field must not be larger than ${LIMITS.metaBytes} bytes as JSON.`);
    }
  }
  for (const [key, value] of Object.entries(input.searchable_meta ?? {})) {
    const ok =
      value === null ||
      ['string', 'number', 'boolean'].includes(typeof value) ||
      (Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!ok) fail(`searchable_meta.${key}`, 'The :field field must be a string, number, boolean or array of strings.');
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  return {
    title: input.title ?? null,
    raw_text: rawText,
    meta: input.meta ?? {},
    searchable_meta: input.searchable_meta ?? {},
    source_url: input.source_url ?? null,
    source_type: input.source_type ?? null,
    source_id: input.source_id ?? null,
  };
}
