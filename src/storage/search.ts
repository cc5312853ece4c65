import type { Entry, JsonObject } from '../domain/model.js';
import type { ChunkScore, MetaFilter, SearchRepository } from '../domain/ports.js';
import type { Db, Queryable } from './db.js';
import { tfNormSql } from './bm25.js';
import { iso, vectorLiteral } from './sql.js';


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

    async passages(scope, items) {
      if (items.length === 0) return [];
      const rows = await db.query<Entry & { chunk_text: string | null }>(
        `SELECT ${ENTRY_COLUMNS}, c.text AS chunk_text
         FROM unnest($2::uuid[], $3::bigint[]) AS x(entry_id, chunk_id)
           JOIN entries e ON e.id = x.entry_id AND e.organisation_id = $1
           LEFT JOIN chunks c ON c.id = x.chunk_id AND c.entry_id = x.entry_id`,
        [scope.organisationId, items.map((i) => i.entryId), items.map((i) => i.chunkId)],
      );
      return rows.map(({ chunk_text: chunkText, ...entry }) => ({ entry, chunkText }));
    },

    async entryFields(scope, entryIds) {
      if (entryIds.length === 0) return new Map();
      const rows = await db.query<{ id: string; meta: JsonObject; searchable_meta: JsonObject }>(
        'SELECT id, meta, searchable_meta FROM entries WHERE organisation_id = $1 AND id = ANY($2::uuid[])',
        [scope.organisationId, entryIds],
      );
      return new Map(rows.map((r) => [r.id, { meta: r.meta, searchable_meta: r.searchable_meta }]));
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
 * Postings a query term reads, best impact first. A term in fewer chunks is read whole; a
 * common term stops after its best POSTINGS_PER_TERM, so a query's lexical work is bounded
 * whatever the collection's size (docs/SEARCH.md). The candidates' scores are then exact.
 */
export const POSTINGS_PER_TERM = 1000;

type CandidateRow = { id: number | null; entry_id: string; bm25: number; cosine: number; terms: string[] | null; idfs: number[] | null };

/**
 * The candidates of one search in one statement: the collections' statistics and the query
 * terms' idf; the best `limit` chunks by BM25 (each term's best postings by impact, or every
 * posting when metadata filters may reject most of them) and the best `limit` by vector
 * distance (HNSW over the narrow chunk_vectors, with the session settings HNSW_SETTINGS of
 * db.ts); then, for their union, the exact BM25 from primary-key probes and the cosine.
 * A header row (id null) carries the idf of each query term found. No transaction: a
 * concurrent write can at worst shift a score.
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

  // $1 organisation, $2 collections, $3 terms, $4 query vector, then filters.
  const params: unknown[] = [organisationId, collectionIds, query.terms, vectorLiteral(query.embedding)];
  const filterWhere = filters.map((f) => filterSql(f, params)).join(' AND ');
  const passes = (chunkId: string) =>
    filters.length > 0 ? `AND EXISTS (SELECT 1 FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE c.id = ${chunkId} AND ${filterWhere})` : '';
  const q = `$4::vector(${dims})`;
  // With filters, a term's best postings may all be filtered out: read every posting then.
  const bound = filters.length > 0 ? '' : `ORDER BY p.impact DESC LIMIT ${POSTINGS_PER_TERM}`;

  const rows = await db.query<CandidateRow>(
    `WITH cols AS (SELECT id FROM collections WHERE organisation_id = $1 AND id = ANY($2::uuid[])),
       s AS (SELECT coalesce(sum(chunk_count), 0)::float8 AS n,
               coalesce(sum(total_length)::float8 / nullif(sum(chunk_count), 0), 1) AS avgdl
             FROM collection_stats WHERE collection_id IN (SELECT id FROM cols)),
       w AS (SELECT d.term, ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) AS idf
             FROM (SELECT term, sum(df)::float8 AS df FROM collection_terms
                   WHERE collection_id IN (SELECT id FROM cols) AND term = ANY($3::text[]) GROUP BY term) d, s
             WHERE s.n > 0),
       -- One index range per (collection, query term), best impact first; OFFSET 0 keeps the
       -- planner from turning it into a scan of the whole collection.
       lex AS (SELECT g.chunk_id FROM (
                 SELECT p.chunk_id, sum(w.idf * ${tfNormSql('p.tf', 'p.length', 's.avgdl')}) AS bm25
                 FROM cols CROSS JOIN w CROSS JOIN s CROSS JOIN LATERAL (
                   SELECT p.chunk_id, p.tf, p.length FROM chunk_terms p
                   WHERE p.collection_id = cols.id AND p.term = w.term ${bound} OFFSET 0) p
                 GROUP BY p.chunk_id) g
               WHERE true ${passes('g.chunk_id')} ORDER BY g.bm25 DESC LIMIT ${limitValue}),
       vec AS (SELECT v.chunk_id FROM chunk_vectors v
               WHERE v.dims = ${dims} AND v.collection_id = ANY($2::uuid[]) ${passes('v.chunk_id')}
               ORDER BY v.embedding::vector(${dims}) <=> ${q} LIMIT ${limitValue}),
       cand AS (SELECT chunk_id FROM lex UNION SELECT chunk_id FROM vec),
       -- Exact BM25 of every candidate: one primary-key probe per (chunk, query term).
       exact AS (SELECT t.chunk_id, sum(w.idf * ${tfNormSql('t.tf', 't.length', 's.avgdl')}) AS bm25
                 FROM cand JOIN chunk_terms t ON t.chunk_id = cand.chunk_id AND t.term = ANY($3::text[])
                 JOIN w ON w.term = t.term CROSS JOIN s
                 GROUP BY t.chunk_id)
     SELECT NULL::bigint AS id, NULL::uuid AS entry_id, NULL::float8 AS bm25, NULL::float8 AS cosine,
       (SELECT array_agg(term) FROM w) AS terms, (SELECT array_agg(idf) FROM w) AS idfs
     UNION ALL
     SELECT c.id, c.entry_id, coalesce(exact.bm25, 0), 1 - (v.embedding <=> ${q}), NULL, NULL
     FROM cand JOIN chunks c ON c.id = cand.chunk_id AND c.organisation_id = $1
       JOIN chunk_vectors v ON v.chunk_id = cand.chunk_id
       LEFT JOIN exact ON exact.chunk_id = cand.chunk_id`,
    params,
  );
  const header = rows.find((r) => r.id === null);
  const idf = new Map<string, number>();
  (header?.terms ?? []).forEach((term, i) => idf.set(term, Number(header!.idfs![i])));
  const chunks: ChunkScore[] = rows
    .filter((r) => r.id !== null)
    .map((r) => ({ chunkId: Number(r.id), entryId: r.entry_id, bm25: Number(r.bm25), cosine: Number(r.cosine) }));
  return { chunks, idf };
}
