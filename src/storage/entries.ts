import { setTimeout as sleep } from 'node:timers/promises';
import type { Entry, EntryField, JsonObject, PreparedChunk, Scope } from '../domain/model.js';
import { SourceConflictError, type EntryFilter, type EntryRepository, type EntryWrite, type EntryWriteResult } from '../domain/ingestion/port.js';
import type { Db, Queryable } from './db.js';
import { tfNormSql } from './bm25.js';
import { createMaintenance, type Maintenance } from './maintenance.js';
import { entryColumn, entryColumns, parseVector, vectorLiteral } from './sql.js';
import type { Page, PageRequest } from '../domain/pagination.js';

const COLUMNS = entryColumns();

const UNIQUE_VIOLATION = '23505';

export function createEntryRepository(
  db: Db,
  embeddingModel: { model: string; dimensions: number },
  maintenance: Maintenance = createMaintenance(db),
): EntryRepository {
  /**
   * A page of the collection's entries (of one source type; whose title, source_id or
   * source_url contains `search`, ignoring case: a scan of the collection's rows), in order
   * of creation, as `columns`.
   */
  async function listPage<T>(scope: Scope, collectionId: string, { page, perPage }: PageRequest, filter: EntryFilter, columns: string): Promise<Page<T>> {
    const args: unknown[] = [collectionId, scope.organisationId];
    let where = 'collection_id = $1 AND organisation_id = $2';
    if (filter.sourceType !== undefined) {
      args.push(filter.sourceType);
      where += ` AND source_type = $${args.length}`;
    }
    if (filter.search) {
      args.push(`%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      const n = args.length;
      where += ` AND (title ILIKE $${n} OR source_id ILIKE $${n} OR source_url ILIKE $${n})`;
    }
    const [count] = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM entries WHERE ${where}`, args);
    const items = await db.query<T>(
      `SELECT ${columns} FROM entries WHERE ${where}
       ORDER BY seq LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
      [...args, perPage, (page - 1) * perPage],
    );
    return { items, total: count!.total, page, perPage };
  }

  return {
    list(scope, collectionId, page, filter = {}) {
      return listPage<Entry>(scope, collectionId, page, filter, COLUMNS);
    },

    listFields(scope, collectionId, page, filter, fields) {
      return listPage<Partial<Entry>>(scope, collectionId, page, filter, [...new Set<EntryField>(['id', ...fields])].map((f) => entryColumn(f)).join(', '));
    },

    sourceEntries(scope, collectionId, sourceType) {
      return db.query<{ source_id: string; source_url: string | null; meta: JsonObject | null }>(
        'SELECT source_id, source_url, meta FROM entries WHERE collection_id = $1 AND organisation_id = $2 AND source_type = $3 AND source_id IS NOT NULL',
        [collectionId, scope.organisationId, sourceType],
      );
    },

    async get(scope, collectionId, entryId) {
      const [row] = await db.query<Entry>(
        `SELECT ${COLUMNS} FROM entries WHERE id = $1 AND collection_id = $2 AND organisation_id = $3`,
        [entryId, collectionId, scope.organisationId],
      );
      return row ?? null;
    },

    async find(scope, collectionIds, entryId) {
      if (collectionIds.length === 0) return null;
      const [row] = await db.query<Entry>(
        `SELECT ${COLUMNS} FROM entries WHERE id = $1 AND organisation_id = $2 AND collection_id = ANY($3::uuid[])`,
        [entryId, scope.organisationId, collectionIds],
      );
      return row ?? null;
    },

    async findBySources(scope, collectionId, sources) {
      if (sources.length === 0) return [];
      return db.query<Entry>(
        `SELECT ${COLUMNS} FROM entries
         WHERE collection_id = $1 AND organisation_id = $2
           AND (source_type, source_id) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
        [collectionId, scope.organisationId, sources.map((s) => s.type), sources.map((s) => s.id)],
      );
    },

    async reusableEmbeddings(scope, collectionId, hashes) {
      if (hashes.length === 0) return new Map();
      const rows = await db.query<{ content_hash: string; embedding: string }>(
        `SELECT DISTINCT ON (c.content_hash) c.content_hash, v.embedding::text AS embedding
         FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id
         WHERE c.collection_id = $1 AND c.organisation_id = $2 AND c.content_hash = ANY($3::text[])`,
        [collectionId, scope.organisationId, hashes],
      );
      return new Map(rows.map((r) => [r.content_hash, parseVector(r.embedding)]));
    },

    async write(scope, collectionId, writes) {
      const written = await db.transaction(async (tx) => {
        await lockCollection(tx, collectionId);
        const results: EntryWriteResult[] = [];
        const reindex: { entryId: string; chunks: PreparedChunk[]; existed: boolean }[] = [];
        for (const write of writes) {
          const result = await writeRow(tx, scope, collectionId, write);
          if (!result) continue;
          results.push(result);
          if (write.chunks) reindex.push({ entryId: result.entry.id, chunks: write.chunks, existed: !result.created });
        }
        const replaced = reindex.filter((r) => r.existed).map((r) => r.entryId);
        if (replaced.length > 0) await removeChunks(tx, collectionId, replaced);
        await insertChunks(tx, scope, collectionId, reindex, embeddingModel);
        if (PAUSE_BEFORE_COMMIT_MS > 0) {
          process.stderr.write('lore-test: write transaction open\n');
          await sleep(PAUSE_BEFORE_COMMIT_MS);
        }
        return results;
      });
      maintenance.noteWritten(writes.reduce((n, w) => n + (w.chunks?.length ?? 0), 0));
      return written;
    },

    async replaceChunks(scope, collectionId, items) {
      if (items.length === 0) return [];
      const replaced = await db.transaction(async (tx) => {
        await lockCollection(tx, collectionId);
        // Only entries unchanged since they were read: a write in between made chunks of its own.
        const rows = await tx.query<{ id: string }>(
          `SELECT e.id FROM entries e JOIN unnest($3::uuid[], $4::timestamptz[]) AS x(id, updated_at)
             ON e.id = x.id AND e.updated_at = x.updated_at
           WHERE e.collection_id = $1 AND e.organisation_id = $2 ORDER BY e.id FOR UPDATE OF e`,
          [collectionId, scope.organisationId, items.map((i) => i.entryId), items.map((i) => i.updatedAt)],
        );
        const current = new Set(rows.map((r) => r.id));
        const batch = items.filter((i) => current.has(i.entryId));
        if (batch.length === 0) return [];
        await removeChunks(tx, collectionId, batch.map((i) => i.entryId));
        await insertChunks(tx, scope, collectionId, batch, embeddingModel);
        return batch;
      });
      maintenance.noteWritten(replaced.reduce((n, i) => n + i.chunks.length, 0));
      return replaced.map((i) => i.entryId);
    },

    async delete(scope, collectionId, entryId) {
      return db.transaction(async (tx) => {
        await lockCollection(tx, collectionId);
        const rows = await tx.query<{ id: string }>(
          'SELECT id FROM entries WHERE id = $1 AND collection_id = $2 AND organisation_id = $3 FOR UPDATE',
          [entryId, collectionId, scope.organisationId],
        );
        if (rows.length === 0) return false;
        await removeChunks(tx, collectionId, [entryId]);
        await tx.query('DELETE FROM entries WHERE id = $1', [entryId]);
        return true;
      });
    },

    async deleteBySource(scope, collectionId, sourceType, sourceId) {
      return db.transaction(async (tx) => {
        await lockCollection(tx, collectionId);
        const rows = await tx.query<{ id: string }>(
          `SELECT id FROM entries WHERE collection_id = $1 AND organisation_id = $2
             AND source_type = $3 AND source_id = $4 FOR UPDATE`,
          [collectionId, scope.organisationId, sourceType, sourceId],
        );
        if (rows.length === 0) return false;
        const ids = rows.map((r) => r.id);
        await removeChunks(tx, collectionId, ids);
        await tx.query('DELETE FROM entries WHERE id = ANY($1::uuid[])', [ids]);
        return true;
      });
    },
  };
}

/** Inserts, upserts or updates one entry row; null when an update found nothing. */
async function writeRow(
  tx: Queryable,
  scope: Scope,
  collectionId: string,
  write: EntryWrite,
): Promise<EntryWriteResult | null> {
  const f = write.fields;
  const values = [f.title, f.raw_text, f.meta, f.searchable_meta, f.source_url, f.source_type, f.source_id];
  try {
    if (write.kind === 'update') {
      const [row] = await tx.query<Entry>(
        `UPDATE entries SET title = $4, raw_text = $5, meta = $6, searchable_meta = $7, source_url = $8,
           source_type = $9, source_id = $10, updated_at = clock_timestamp()
         WHERE id = $1 AND collection_id = $2 AND organisation_id = $3 RETURNING ${COLUMNS}`,
        [write.id, collectionId, scope.organisationId, ...values],
      );
      return row ? { entry: row, created: false } : null;
    }
    const conflict =
      write.kind === 'upsert'
        ? `ON CONFLICT (collection_id, source_type, source_id) WHERE source_type IS NOT NULL AND source_id IS NOT NULL
           DO UPDATE SET title = excluded.title, raw_text = excluded.raw_text, meta = excluded.meta,
             searchable_meta = excluded.searchable_meta, source_url = excluded.source_url,
             updated_at = clock_timestamp()`
        : '';
    const [row] = await tx.query<Entry & { inserted: boolean }>(
      `INSERT INTO entries (id, collection_id, organisation_id, title, raw_text, meta, searchable_meta,
         source_url, source_type, source_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ${conflict}
       RETURNING ${COLUMNS}, (xmax = 0) AS inserted`,
      [write.id, collectionId, scope.organisationId, ...values],
    );
    const { inserted, ...entry } = row!;
    return { entry, created: inserted };
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new SourceConflictError();
    throw error;
  }
}

/**
 * For the crash tests only (test/crash.test.ts): every entry write holds its transaction open
 * this long before committing, everything written, and says so on stderr, so a test can kill
 * the process inside the commit window. Never set in production.
 */
const PAUSE_BEFORE_COMMIT_MS = Number(process.env.LORE_TEST_PAUSE_BEFORE_COMMIT_MS) || 0;

/**
 * Writers of one collection take its statistics row first, so they queue there instead of
 * locking document-frequency rows in different orders: an update's removal decrements the
 * old chunks' terms in join order, then its insertion increments the new ones, and two such
 * writers deadlocked (PostgreSQL, 8 writers: about 1 in 120 writes). Every write updates
 * that row before it commits anyway, so writes to one collection already serialised on it;
 * embedding, the long part, happens before the transaction.
 */
async function lockCollection(tx: Queryable, collectionId: string): Promise<void> {
  await tx.query('SELECT 1 FROM collection_stats WHERE collection_id = $1 FOR UPDATE', [collectionId]);
}

/** Removes the chunks of these entries with their postings, keeping BM25 statistics exact. */
async function removeChunks(tx: Queryable, collectionId: string, entryIds: readonly string[]): Promise<void> {
  await tx.query(
    `WITH gone AS (
       SELECT t.term, count(*)::int AS n FROM chunk_terms t JOIN chunks c ON c.id = t.chunk_id
       WHERE c.entry_id = ANY($2::uuid[]) GROUP BY t.term ORDER BY t.term)
     UPDATE collection_terms ct SET df = ct.df - gone.n FROM gone
     WHERE ct.collection_id = $1 AND ct.term = gone.term`,
    [collectionId, entryIds],
  );
  await tx.query('DELETE FROM collection_terms WHERE collection_id = $1 AND df <= 0', [collectionId]);
  const gone = await tx.query<{ language: string; n: number; length: number }>(
    `WITH gone AS (DELETE FROM chunks WHERE entry_id = ANY($1::uuid[]) RETURNING language, length)
     SELECT language, count(*)::int AS n, coalesce(sum(length), 0)::int AS length FROM gone GROUP BY language ORDER BY language`,
    [entryIds],
  );
  if (gone.length === 0) return;
  await tx.query(
    `UPDATE collection_stats SET chunk_count = chunk_count - $2, total_length = total_length - $3 WHERE collection_id = $1`,
    [collectionId, gone.reduce((n, g) => n + g.n, 0), gone.reduce((n, g) => n + g.length, 0)],
  );
  await tx.query(
    `UPDATE collection_languages l SET chunk_count = l.chunk_count - g.n
     FROM unnest($2::text[], $3::int[]) AS g(language, n) WHERE l.collection_id = $1 AND l.language = g.language`,
    [collectionId, gone.map((g) => g.language), gone.map((g) => g.n)],
  );
  await tx.query('DELETE FROM collection_languages WHERE collection_id = $1 AND chunk_count <= 0', [collectionId]);
}

/** Inserts chunks, their postings and the statistics they add, in a few set-based statements. */
async function insertChunks(
  tx: Queryable,
  scope: Scope,
  collectionId: string,
  batches: readonly { entryId: string; chunks: PreparedChunk[] }[],
  embedding: { model: string; dimensions: number },
): Promise<void> {
  const rows = batches.flatMap(({ entryId, chunks }) =>
    chunks.map((c) => ({
      entry_id: entryId,
      ordinal: c.ordinal,
      text: c.text,
      headings: c.headings,
      language: c.language,
      content_hash: c.contentHash,
      embedding: vectorLiteral(c.embedding),
      length: c.length,
    })),
  );
  if (rows.length === 0) return;
  // Chunks and their vectors (narrow rows of their own) in one statement.
  const inserted = await tx.query<{ id: number; entry_id: string; ordinal: number }>(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(entry_id uuid, ordinal int, text text, headings text[],
                  language text, content_hash text, embedding text, length int)),
       c AS (INSERT INTO chunks (entry_id, collection_id, organisation_id, ordinal, text, headings, language,
               content_hash, model, dims, length)
             SELECT x.entry_id, $2, $3, x.ordinal, x.text, x.headings, x.language, x.content_hash, $4, $5, x.length FROM x
             RETURNING id, entry_id, ordinal),
       v AS (INSERT INTO chunk_vectors (chunk_id, collection_id, dims, embedding)
             SELECT c.id, $2, $5, x.embedding::vector FROM c JOIN x ON x.entry_id = c.entry_id AND x.ordinal = c.ordinal)
     SELECT id, entry_id, ordinal FROM c`,
    [JSON.stringify(rows), collectionId, scope.organisationId, embedding.model, embedding.dimensions],
  );

  const chunkId = new Map(inserted.map((r) => [`${r.entry_id}/${r.ordinal}`, Number(r.id)]));
  const terms: string[] = [];
  const ids: number[] = [];
  const tfs: number[] = [];
  const lengths: number[] = [];
  const df = new Map<string, number>();
  let totalLength = 0;
  for (const { entryId, chunks } of batches) {
    for (const chunk of chunks) {
      const id = chunkId.get(`${entryId}/${chunk.ordinal}`)!;
      totalLength += chunk.length;
      for (const [term, tf] of chunk.terms) {
        terms.push(term);
        ids.push(id);
        tfs.push(tf);
        lengths.push(chunk.length);
        df.set(term, (df.get(term) ?? 0) + 1);
      }
    }
  }
  // Each posting's impact is its BM25 term-frequency factor at the collection's average
  // length before this write (this batch's own average for a new collection).
  await tx.query(
    `INSERT INTO chunk_terms (collection_id, term, chunk_id, tf, length, impact)
     SELECT $1, p.term, p.chunk_id, p.tf, p.length, ${tfNormSql('p.tf', 'p.length', 's.avgdl')}
     FROM unnest($2::text[], $3::bigint[], $4::int[], $5::int[]) AS p(term, chunk_id, tf, length)
     CROSS JOIN (SELECT CASE WHEN chunk_count > 0 THEN greatest(total_length::float8 / chunk_count, 1) ELSE $6::float8 END AS avgdl
                 FROM collection_stats WHERE collection_id = $1) s`,
    [collectionId, terms, ids, tfs, lengths, Math.max(1, totalLength / rows.length)],
  );
  // Sorted, so rows are locked in one order (writers of a collection already queue on its
  // statistics row first: see lockCollection).
  const dfTerms = [...df.keys()].sort();
  await tx.query(
    `INSERT INTO collection_terms (collection_id, term, df)
     SELECT $1, * FROM unnest($2::text[], $3::int[])
     ON CONFLICT (collection_id, term) DO UPDATE SET df = collection_terms.df + excluded.df`,
    [collectionId, dfTerms, dfTerms.map((t) => df.get(t)!)],
  );
  await tx.query(
    `UPDATE collection_stats SET chunk_count = chunk_count + $2, total_length = total_length + $3
     WHERE collection_id = $1`,
    [collectionId, rows.length, totalLength],
  );
  const languages = new Map<string, number>();
  for (const row of rows) languages.set(row.language, (languages.get(row.language) ?? 0) + 1);
  const languageKeys = [...languages.keys()].sort();
  await tx.query(
    `INSERT INTO collection_languages (collection_id, language, chunk_count)
     SELECT $1, * FROM unnest($2::text[], $3::int[])
     ON CONFLICT (collection_id, language) DO UPDATE SET chunk_count = collection_languages.chunk_count + excluded.chunk_count`,
    [collectionId, languageKeys, languageKeys.map((l) => languages.get(l)!)],
  );
}
