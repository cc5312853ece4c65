import type { Entry, JsonObject } from '../domain/model.js';
import type { ChunkScore, MetaFilter, SearchRepository } from '../domain/ports.js';
import type { Db, Queryable } from './db.js';
import { iso, vectorLiteral } from './sql.js';

/** BM25 parameters (Lucene's defaults). */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

const ENTRY_COLUMNS = `e.id, e.collection_id, e.title, e.raw_text, e.meta, e.searchable_meta, e.source_url, e.source_type,
  e.source_id, ${iso('e.created_at', 'created_at')}, ${iso('e.updated_at', 'updated_at')}`;

/**
 * SQL for one metadata filter on entry `e`, matching meta and searchable_meta together:
 * a scalar equal to the value (as text), or an array containing it.
 */
function filterSql(filter: MetaFilter, params: unknown[]): string {
  const key = `$${params.push(filter.key)}`;
  const one = (value: string) => {
    const v = `$${params.push(value)}`;
    return `(e.meta->>${key} = ${v} OR e.searchable_meta->>${key} = ${v}
      OR e.meta->${key} @> jsonb_build_array(${v}::text) OR e.searchable_meta->${key} @> jsonb_build_array(${v}::text))`;
  };
  const parts = filter.values.map(one);
  return `(${parts.join(filter.op === 'and' ? ' AND ' : ' OR ')})`;
}

export function createSearchRepository(db: Db): SearchRepository {
  return {
    async candidates(scope, collectionIds, query, filters, limit) {
      return candidates(db, scope.organisationId, collectionIds, query, filters, limit);
    },

    async entries(scope, entryIds) {
      if (entryIds.length === 0) return [];
      return db.query<Entry>(`SELECT ${ENTRY_COLUMNS} FROM entries e WHERE e.organisation_id = $1 AND e.id = ANY($2::uuid[])`, [
        scope.organisationId,
        entryIds,
      ]);
    },

    async entryFields(scope, entryIds) {
      if (entryIds.length === 0) return new Map();
      const rows = await db.query<{ id: string; meta: JsonObject; searchable_meta: JsonObject }>(
        'SELECT id, meta, searchable_meta FROM entries WHERE organisation_id = $1 AND id = ANY($2::uuid[])',
        [scope.organisationId, entryIds],
      );
      return new Map(rows.map((r) => [r.id, { meta: r.meta, searchable_meta: r.searchable_meta }]));
    },

    async chunkTexts(chunkIds) {
      if (chunkIds.length === 0) return new Map();
      const rows = await db.query<{ id: number; text: string }>('SELECT id, text FROM chunks WHERE id = ANY($1::bigint[])', [chunkIds]);
      return new Map(rows.map((r) => [Number(r.id), r.text]));
    },

    async languages(scope, collectionIds) {
      const rows = await db.query<{ language: string }>(
        `SELECT DISTINCT l.language FROM collection_languages l JOIN collections c ON c.id = l.collection_id
         WHERE c.organisation_id = $1 AND l.collection_id = ANY($2::uuid[]) ORDER BY l.language`,
        [scope.organisationId, collectionIds],
      );
      return rows.map((r) => r.language);
    },

    async logSearch(scope, row) {
      await db.query(
        `INSERT INTO search_log (organisation_id, integration_id, query, result_count, top_score, latency_ms)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [scope.organisationId, row.integrationId, row.query, row.resultCount, row.topScore, row.latencyMs],
      );
    },

    async recordEvent(scope, integrationId, eventType, meta) {
      await db.query('INSERT INTO integration_events (organisation_id, integration_id, event_type, meta) VALUES ($1, $2, $3, $4)', [
        scope.organisationId,
        integrationId,
        eventType,
        meta,
      ]);
    },
  };
}

/**
 * The candidates of one search, in two independent statements (run side by side on a
 * server): the best `limit` chunks by BM25, each with its cosine, and the best `limit` by
 * vector distance (HNSW with the session settings HNSW_SETTINGS of db.ts), each with its BM25 read from
 * the postings' primary key. No transaction: a concurrent write can at worst shift a score.
 */
async function candidates(
  db: Queryable,
  organisationId: number,
  collectionIds: readonly string[],
  query: { terms: readonly string[]; embedding: Float32Array; dims: number },
  filters: readonly MetaFilter[],
  limit: number,
) {
  const dims = query.dims;
  if (!Number.isInteger(dims) || dims < 1 || dims > 4000) throw new Error(`Unsupported embedding dimension ${dims}`);
  const limitValue = Math.max(1, Math.min(1000, Math.floor(limit)));

  // Collection statistics and document frequencies, in one round trip.
  const [stats] = await db.query<{ n: number; avgdl: number; terms: string[] | null; dfs: number[] | null }>(
    `WITH cols AS (SELECT id FROM collections WHERE organisation_id = $1 AND id = ANY($2::uuid[])),
       s AS (SELECT coalesce(sum(chunk_count), 0)::int AS n,
               coalesce(sum(total_length)::float8 / nullif(sum(chunk_count), 0), 1) AS avgdl
             FROM collection_stats WHERE collection_id IN (SELECT id FROM cols)),
       d AS (SELECT term, sum(df)::int AS df FROM collection_terms
             WHERE collection_id IN (SELECT id FROM cols) AND term = ANY($3::text[]) GROUP BY term)
     SELECT s.n, s.avgdl, (SELECT array_agg(term) FROM d) AS terms, (SELECT array_agg(df) FROM d) AS dfs FROM s`,
    [organisationId, collectionIds, query.terms],
  );
  const { n, avgdl } = stats!;
  const idf = new Map<string, number>();
  (stats!.terms ?? []).forEach((term, i) => {
    const df = stats!.dfs![i]!;
    if (n > 0) idf.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  });

  // $1 organisation, $2 collections, $3 terms, $4 idf, $5 avgdl, $6 query vector, then filters.
  const params: unknown[] = [organisationId, collectionIds, [...idf.keys()], [...idf.values()], avgdl, vectorLiteral(query.embedding)];
  const filterWhere = filters.map((f) => filterSql(f, params)).join(' AND ');
  const entryFilter = filters.length > 0 ? `AND EXISTS (SELECT 1 FROM entries e WHERE e.id = c.entry_id AND ${filterWhere})` : '';
  const tfNorm = `t.tf * ${BM25.k1 + 1} / (t.tf + ${BM25.k1} * (${1 - BM25.b} + ${BM25.b} * t.length / $5::float8))`;
  const cosine = `1 - (c.embedding::vector(${dims}) <=> $6::vector(${dims}))`;

  const lexical =
    idf.size === 0
      ? Promise.resolve([])
      : db.query<{ id: number; entry_id: string; bm25: number; cosine: number }>(
          `WITH w AS (SELECT * FROM unnest($3::text[], $4::float8[]) AS w(term, idf)),
             cols AS (SELECT id FROM collections WHERE organisation_id = $1 AND id = ANY($2::uuid[])),
             -- One index range scan per (collection, query term): only those postings are read.
             -- OFFSET 0 keeps the planner from turning it into a scan of the whole collection.
             s AS (SELECT t.chunk_id AS id, sum(w.idf * ${tfNorm}) AS bm25
                   FROM cols CROSS JOIN w CROSS JOIN LATERAL (
                     SELECT chunk_id, tf, length FROM chunk_terms p WHERE p.collection_id = cols.id AND p.term = w.term OFFSET 0) t
                   GROUP BY t.chunk_id),
             -- The best chunks first; vectors are read (and cosines computed) for those alone.
             top AS (SELECT s.id, s.bm25 FROM s ${filters.length > 0 ? 'JOIN chunks c ON c.id = s.id WHERE true ' + entryFilter : ''}
                     ORDER BY s.bm25 DESC LIMIT ${limitValue})
           SELECT c.id, c.entry_id, top.bm25, ${cosine} AS cosine
           FROM top JOIN chunks c ON c.id = top.id
           WHERE c.organisation_id = $1`,
          params,
        );
  const vector = db.query<{ id: number; entry_id: string; bm25: number; cosine: number }>(
    `WITH v AS (
       SELECT c.id, c.entry_id, c.collection_id, ${cosine} AS cosine
       FROM chunks c
       WHERE c.dims = ${dims} AND c.organisation_id = $1 AND c.collection_id = ANY($2::uuid[]) ${entryFilter}
       ORDER BY c.embedding::vector(${dims}) <=> $6::vector(${dims}) LIMIT ${limitValue})
     SELECT v.id, v.entry_id, v.cosine, coalesce(b.bm25, 0) AS bm25
     FROM v LEFT JOIN LATERAL (
       -- One primary-key probe per (chunk, query term); OFFSET 0 keeps the planner from
       -- flattening it into a scan of every term of the chunk.
       SELECT sum(w.idf * ${tfNorm}) AS bm25
       FROM unnest($3::text[], $4::float8[]) AS w(term, idf)
       CROSS JOIN LATERAL (SELECT tf, length FROM chunk_terms
                           WHERE collection_id = v.collection_id AND term = w.term AND chunk_id = v.id OFFSET 0) t
     ) b ON true`,
    params,
  );
  const scored = new Map<number, ChunkScore>();
  for (const rows of await Promise.all([lexical, vector])) {
    for (const r of rows) scored.set(Number(r.id), { chunkId: Number(r.id), entryId: r.entry_id, bm25: Number(r.bm25), cosine: Number(r.cosine) });
  }
  return { chunks: [...scored.values()], idf, chunkCount: n };
}
