import type { Entry } from '../domain/model.js';
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
      return db.transaction(async (tx) => {
        // Filtered HNSW scans keep looking until enough rows pass (pgvector ≥ 0.8).
        await tx.query(`SET LOCAL hnsw.ef_search = ${Math.max(40, Math.min(1000, limit))}`);
        await tx.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
        return candidates(tx, scope.organisationId, collectionIds, query, filters, limit);
      });
    },

    async entries(scope, entryIds) {
      if (entryIds.length === 0) return [];
      return db.query<Entry>(`SELECT ${ENTRY_COLUMNS} FROM entries e WHERE e.organisation_id = $1 AND e.id = ANY($2::uuid[])`, [
        scope.organisationId,
        entryIds,
      ]);
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

async function candidates(
  tx: Queryable,
  organisationId: number,
  collectionIds: readonly string[],
  query: { terms: readonly string[]; embedding: Float32Array; dims: number },
  filters: readonly MetaFilter[],
  limit: number,
) {
  const params: unknown[] = [organisationId, collectionIds];
  const filterWhere = filters.map((f) => filterSql(f, params)).join(' AND ');
  const entryFilter = filters.length > 0 ? `AND EXISTS (SELECT 1 FROM entries e WHERE e.id = c.entry_id AND ${filterWhere})` : '';

  const [stats] = await tx.query<{ n: number; avgdl: number }>(
    `SELECT coalesce(sum(chunk_count), 0)::int AS n,
       coalesce(sum(total_length)::float8 / nullif(sum(chunk_count), 0), 1) AS avgdl
     FROM collection_stats s JOIN collections col ON col.id = s.collection_id
     WHERE col.organisation_id = $1 AND s.collection_id = ANY($2::uuid[])`,
    [organisationId, collectionIds],
  );
  const n = stats!.n;
  const idf = new Map<string, number>();
  if (query.terms.length > 0 && n > 0) {
    const rows = await tx.query<{ term: string; df: number }>(
      `SELECT term, sum(df)::int AS df FROM collection_terms WHERE collection_id = ANY($1::uuid[]) AND term = ANY($2::text[])
       GROUP BY term`,
      [collectionIds, query.terms],
    );
    for (const { term, df } of rows) idf.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }

  const vector = vectorLiteral(query.embedding);
  const dims = query.dims;
  const scored = new Map<number, ChunkScore>();
  /** BM25 per chunk; `prefix` are the parameters the surrounding query uses ($1 = organisation, $2 = collections). */
  const bm25Sql = (prefix: unknown[], chunkFilter: (next: number) => string, extraParams: unknown[]) => {
    const p = [...prefix, [...idf.keys()], [...idf.values()], BM25.k1, BM25.b, stats!.avgdl, ...extraParams];
    const base = prefix.length;
    return {
      sql: `SELECT t.chunk_id AS id,
              sum(w.idf * t.tf * ($${base + 3}::float8 + 1) / (t.tf + $${base + 3}::float8 * (1 - $${base + 4}::float8 + $${base + 4}::float8 * t.length / $${base + 5}::float8))) AS bm25
            FROM chunk_terms t JOIN unnest($${base + 1}::text[], $${base + 2}::float8[]) AS w(term, idf) ON w.term = t.term
            WHERE t.collection_id = ANY(ARRAY(SELECT id FROM collections WHERE organisation_id = $1 AND id = ANY($2::uuid[])))
              ${chunkFilter(base + 6)}
            GROUP BY t.chunk_id`,
      params: p,
    };
  };

  if (idf.size > 0) {
    const lexical = bm25Sql(params, () => '', []);
    const rows = await tx.query<{ id: number; entry_id: string; bm25: number; cosine: number }>(
      `WITH s AS (${lexical.sql})
       SELECT c.id, c.entry_id, s.bm25, 1 - (c.embedding::vector(${dims}) <=> $${lexical.params.length + 1}::vector(${dims})) AS cosine
       FROM s JOIN chunks c ON c.id = s.id
       WHERE c.organisation_id = $1 ${entryFilter}
       ORDER BY s.bm25 DESC LIMIT ${limit}`,
      [...lexical.params, vector],
    );
    for (const r of rows) scored.set(Number(r.id), { chunkId: Number(r.id), entryId: r.entry_id, bm25: r.bm25, cosine: r.cosine });
  }

  const vectorRows = await tx.query<{ id: number; entry_id: string; cosine: number }>(
    `SELECT c.id, c.entry_id, 1 - (c.embedding::vector(${dims}) <=> $${params.length + 1}::vector(${dims})) AS cosine
     FROM chunks c
     WHERE c.dims = ${dims} AND c.organisation_id = $1 AND c.collection_id = ANY($2::uuid[]) ${entryFilter}
     ORDER BY c.embedding::vector(${dims}) <=> $${params.length + 1}::vector(${dims}) LIMIT ${limit}`,
    [...params, vector],
  );
  const missing = vectorRows.filter((r) => !scored.has(Number(r.id)));
  for (const r of vectorRows) {
    if (!scored.has(Number(r.id))) scored.set(Number(r.id), { chunkId: Number(r.id), entryId: r.entry_id, bm25: 0, cosine: r.cosine });
  }
  if (idf.size > 0 && missing.length > 0) {
    const q = bm25Sql([organisationId, collectionIds], (n) => `AND t.chunk_id = ANY($${n}::bigint[])`, [missing.map((r) => r.id)]);
    for (const r of await tx.query<{ id: number; bm25: number }>(q.sql, q.params)) scored.get(Number(r.id))!.bm25 = r.bm25;
  }
  return { chunks: [...scored.values()], idf, chunkCount: n };
}
