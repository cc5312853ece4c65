import type { Entry, JsonObject } from '../domain/model.js';
import type { CandidateQuery, Candidates, ChunkScore, LooseMatching, MetaFilter, SearchRepository, TermMatch } from '../domain/search/port.js';
import type { Db, Queryable } from './db.js';
import { idfSql, tfNormSql } from './bm25.js';
import { entryColumns } from './sql.js';

const ENTRY_COLUMNS = entryColumns('e');

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

/** An entry's page: its source_url without fragment, query and trailing slashes. */
const PAGE_KEY_SQL = `rtrim(split_part(split_part(e.source_url, '#', 1), '?', 1), '/')`;

export function createSearchRepository(db: Db): SearchRepository {
  return {
    candidates: (scope, collectionIds, query) => candidates(db, scope.organisationId, collectionIds, query),

    async passages(scope, items) {
      if (items.length === 0) return [];
      const rows = await db.query<Entry & { chunk_text: string | null; chunk_headings: string[] | null; chunk_language: string | null }>(
        `SELECT ${ENTRY_COLUMNS}, c.text AS chunk_text, c.headings AS chunk_headings, c.language AS chunk_language
         FROM unnest($2::uuid[], $3::bigint[]) AS x(entry_id, chunk_id)
           JOIN entries e ON e.id = x.entry_id AND e.organisation_id = $1
           LEFT JOIN chunks c ON c.id = x.chunk_id AND c.entry_id = x.entry_id`,
        [scope.organisationId, items.map((i) => i.entryId), items.map((i) => i.chunkId)],
        { prepare: true },
      );
      return rows.map(({ chunk_text: chunkText, chunk_headings: headings, chunk_language: chunkLanguage, ...entry }) => ({
        entry,
        chunkText,
        chunkHeadings: headings ?? [],
        chunkLanguage,
      }));
    },

    async pageChunks(scope, collectionIds, pageKey, limit) {
      if (collectionIds.length === 0) return [];
      // PAGE_KEY_SQL is the expression of the entries_page index (migration 015).
      const rows = await db.query<{ id: number }>(
        `SELECT c.id FROM entries e JOIN chunks c ON c.entry_id = e.id
         WHERE e.organisation_id = $1 AND e.collection_id = ANY($2::uuid[]) AND e.source_url IS NOT NULL AND ${PAGE_KEY_SQL} = $3
         ORDER BY e.seq, c.ordinal LIMIT $4`,
        [scope.organisationId, collectionIds, pageKey, limit],
      );
      return rows.map((r) => Number(r.id));
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
        // Most searches run it: a query of a few words seldom names its language.
        { prepare: true },
      );
      return rows.map((r) => r.language);
    },

  };
}

/**
 * The lexical pass's findings: the terms the query's slots matched with their idf (terms
 * absent from the collections left out), the collections' size and average chunk length, and
 * the ids of the best chunks by BM25 as far as each term's best postings tell (scored exactly
 * by `scored`).
 */
interface LexicalCandidates {
  matches: TermMatch[];
  avgdl: number;
  /** Chunks in the collections (0 when unknown). */
  chunkCount: number;
  chunkIds: number[];
}

const NO_LEXICAL: LexicalCandidates = { matches: [], avgdl: 1, chunkCount: 0, chunkIds: [] };

/**
 * A search's candidates in two statements: the lexical pass (run while the query is still
 * being embedded), then, with the embedding, the vector pass and the exact scores of both
 * passes' chunks.
 */
async function candidates(db: Db, organisationId: number, collectionIds: readonly string[], query: CandidateQuery): Promise<Candidates> {
  const lap = query.lap ?? (() => {});
  if (collectionIds.length === 0) {
    await query.embedding;
    lap('lexical');
    lap('embed');
    lap('vector');
    // No collections, no chunks: nothing was missed.
    return { chunks: [], matches: [], ...(query.completeness && { complete: true }) };
  }
  let found = query.terms.length > 0 ? await lexical(db, organisationId, collectionIds, query, query.limit) : NO_LEXICAL;
  if (query.extraChunkIds?.length) found = { ...found, chunkIds: [...new Set([...found.chunkIds, ...query.extraChunkIds])] };
  lap('lexical');
  const embedding = await query.embedding;
  lap('embed');
  const chunks = await scored(db, organisationId, collectionIds, { lexical: found, embedding, dims: query.dims }, query.filters, query.limit);
  lap('vector');
  if (!query.completeness) return { chunks, matches: found.matches };
  return { chunks, matches: found.matches, complete: await everyChunk(db, organisationId, collectionIds, found, chunks, query) };
}

/**
 * Whether a search's candidates are every chunk of the collections passing its filters: the
 * vector pass compared vectors exactly and found fewer than `limit`, so it found every chunk
 * with a vector of the query's dimension passing the filters (the lexical pass's chunks, which
 * pass the same filters, are among them: the candidates are fewer than `limit` only then); and
 * no chunk of the collections lacks one (another model's, until `lore reindex`). HNSW's answer
 * proves nothing: its scan may stop short of a filtered tenant's rows.
 */
async function everyChunk(db: Db, organisationId: number, collectionIds: readonly string[], found: LexicalCandidates, chunks: ChunkScore[], query: CandidateQuery): Promise<boolean> {
  if (!comparesExactly(found) || new Set(chunks.map((c) => c.chunkId)).size >= clampLimit(query.limit)) return false;
  const [row] = await db.query<{ other: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM chunks WHERE organisation_id = $1 AND collection_id = ANY($2::uuid[]) AND dims <> $3) AS other',
    [organisationId, collectionIds, query.dims],
  );
  return row?.other === false;
}

/**
 * Postings a query term reads, best impact first: its rarest term reads up to
 * POSTINGS_PER_TERM, a commoner one fewer, by the square of its idf's share of the rarest
 * term's, down to MIN_POSTINGS_PER_TERM. A term in fewer chunks is read whole. So a query's
 * lexical work is bounded whatever the collection's size, and spent where BM25's weight is
 * (docs/SEARCH.md): a term as common as "effect" in SciFact (idf 2.2 beside 9.7) can only
 * lift a chunk that other terms found, and the candidates' scores are then exact.
 */
export const POSTINGS_PER_TERM = 1000;
export const MIN_POSTINGS_PER_TERM = 100;

/** SQL for a term's postings budget (see POSTINGS_PER_TERM) from its idf and the query's highest. */
function postingsBudgetSql(idf: string, maxIdf: string): string {
  return `greatest(${MIN_POSTINGS_PER_TERM}, round(${POSTINGS_PER_TERM} * power(${idf} / ${maxIdf}, 2)))::int`;
}

/** Up to this many chunks in a search's collections, vectors are compared exactly (see `scored`). */
export const EXACT_VECTOR_SEARCH = 5_000;

/** Whether the vector pass compares every vector (EXACT_VECTOR_SEARCH) rather than asking HNSW. */
const comparesExactly = (found: LexicalCandidates) => found.chunkCount > 0 && found.chunkCount <= EXACT_VECTOR_SEARCH;

/** Metadata filters as SQL on chunk `chunkId` (nothing without filters); adds their parameters. */
function filterClause(filters: readonly MetaFilter[], params: unknown[], chunkId: string): string {
  if (filters.length === 0) return '';
  const where = filters.map((f) => filterSql(f, params)).join(' AND ');
  return `AND EXISTS (SELECT 1 FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE c.id = ${chunkId} AND ${where})`;
}

const clampLimit = (limit: number) => Math.max(1, Math.min(1000, Math.floor(limit)));

/** Terms the word being typed begins that a search reads at most, the most frequent first. */
export const PREFIX_TERMS = 8;
/** Terms a mistyped query term matches at most, the fewest edits and then the most frequent first. */
export const TYPO_TERMS = 4;
/**
 * Query terms found nowhere that a search corrects at most (about a millisecond each at 100k
 * chunks): a search box's query has one or two typos; a long question's other unknown words
 * are more often rare words than typos.
 */
export const MISTYPED_TERMS = 3;

/**
 * SQL for the edits between terms `a` and `b` when at most `max` (more otherwise): Levenshtein's
 * distance, except that two letters swapped count as one edit (Damerau's count): a distance of
 * 2 between words of the same length and the same letters.
 */
function damerauSql(a: string, b: string, max: string): string {
  const letters = (x: string) => `(SELECT string_agg(l, '' ORDER BY l) FROM regexp_split_to_table(${x}, '') AS l)`;
  const lev = `levenshtein_less_equal(${a}, ${b}, greatest(${max}, 2))`;
  return `(SELECT CASE WHEN d.lev = 2 AND length(${a}) = length(${b}) AND ${letters(a)} = ${letters(b)} THEN 1 ELSE d.lev END FROM (SELECT ${lev} AS lev) d)`;
}

const NO_LOOSE: LooseMatching = { prefix: null, typos: [], joined: [], weights: { prefix: 0, typo: [0, 0], joined: 0 } };

/**
 * The lexical pass in one statement: the collections' statistics; the terms each query slot
 * matches — its own term, the terms the word being typed begins (or the stems it begins
 * with), and for a term found nowhere the terms within its edits (trigram candidates from
 * the dictionary's index, confirmed by Levenshtein distance; adjacent transpositions looked
 * up as they are) — each with its weight and idf; and the best `limit` chunks by the sum of
 * weight × idf × impact over the matched terms' best postings (every posting when metadata
 * filters may reject most of them): an upper bound of their BM25 where a slot matched several
 * terms. Impacts were computed at the average length when written; `scored` recomputes exact
 * BM25 for the chunks found, each slot counting its best term.
 */
async function lexical(db: Queryable, organisationId: number, collectionIds: readonly string[], query: CandidateQuery, limit: number): Promise<LexicalCandidates> {
  const { terms, filters } = query;
  const { prefix, typos, joined, weights } = query.loose ?? NO_LOOSE;
  const params: unknown[] = [organisationId, collectionIds, terms];
  /** A parameter's placeholder, cast. */
  const param = (value: unknown, type: string) => `$${params.push(value)}::${type}`;
  // The statement has the parts this query needs (a prepared statement for each shape): a
  // search without prefix or typos reads its terms as before them, a slot a term.
  const typing = prefix && {
    typed: param(prefix.typed, 'text'),
    slot: param(prefix.slot, 'int'),
    stems: param(prefix.stems, 'text[]'),
    weight: param(weights.prefix, 'float8'),
  };
  const typo = typos.length > 0 && {
    terms: param(typos.map((t) => t.term), 'text[]'),
    slots: param(typos.map((t) => t.slot), 'int[]'),
    edits: param(typos.map((t) => t.edits), 'int[]'),
    corrections: param(typos.flatMap((t) => t.corrections), 'text[]'),
    correctionSlots: param(typos.flatMap((t) => t.corrections.map(() => t.slot)), 'int[]'),
    weights: param(weights.typo, 'float8[]'),
  };
  const together = joined.length > 0 && {
    terms: param(joined.flatMap((j) => j.slots.map(() => j.term)), 'text[]'),
    slots: param(joined.flatMap((j) => j.slots), 'int[]'),
    weight: param(weights.joined, 'float8'),
  };
  const passes = filterClause(filters, params, 'g.chunk_id');
  // With filters, a term's best postings may all be filtered out: read every posting then.
  // A term's budget follows the weight it is read at (weight × idf): a prefix's or a typo's match reads fewer.
  const bound = filters.length > 0 ? '' : `ORDER BY p.impact DESC LIMIT ${postingsBudgetSql('w.weight * w.idf', 'w.maxweight')}`;
  const ctes = [
    `cols AS (SELECT id FROM collections WHERE organisation_id = $1 AND id = ANY($2::uuid[]))`,
    `s AS (SELECT coalesce(sum(chunk_count), 0)::float8 AS n,
            coalesce(sum(total_length)::float8 / nullif(sum(chunk_count), 0), 1) AS avgdl
          FROM collection_stats WHERE collection_id IN (SELECT id FROM cols))`,
    // Terms looked up as they are: the query's, the stems the word being typed begins with, and words joined.
    `found AS (SELECT term, sum(df)::float8 AS df FROM collection_terms
               WHERE collection_id IN (SELECT id FROM cols) AND term = ANY($3::text[]${typing ? ` || ${typing.stems}` : ''}${together ? ` || ${together.terms}` : ''}) GROUP BY term)`,
  ];
  const alternatives = [
    `SELECT q.term, (q.i - 1)::int AS slot, 1::float8 AS weight, f.df
     FROM unnest($3::text[]) WITH ORDINALITY AS q(term, i) JOIN found f ON f.term = q.term`,
  ];
  if (together) {
    // Two words written apart that the collections hold as one: in the slot of each.
    alternatives.push(
      `SELECT f.term, j.slot, ${together.weight}, f.df FROM unnest(${together.terms}, ${together.slots}) AS j(term, slot) JOIN found f ON f.term = j.term`,
    );
  }
  if (typing) {
    // The terms the word being typed begins (a range in byte order), the most frequent first.
    ctes.push(`begun AS (SELECT b.term, sum(b.df)::float8 AS df
                FROM cols CROSS JOIN LATERAL (
                  SELECT c.term, c.df FROM collection_terms c
                  WHERE c.collection_id = cols.id AND c.term COLLATE "C" >= ${typing.typed} AND c.term COLLATE "C" < ${typing.typed} || chr(1114111) OFFSET 0) b
                WHERE b.term <> ALL($3::text[])
                GROUP BY b.term ORDER BY 2 DESC, 1 LIMIT ${PREFIX_TERMS})`);
    alternatives.push(
      `SELECT term, ${typing.slot}, ${typing.weight}, df FROM begun`,
      `SELECT f.term, ${typing.slot}, ${typing.weight}, f.df FROM found f
       WHERE f.term = ANY(${typing.stems}) AND NOT EXISTS (SELECT 1 FROM begun)`,
    );
  }
  if (typo) {
    ctes.push(
      // At most MISTYPED_TERMS of them, the last typed first: each costs a dictionary lookup.
      `mistyped AS (SELECT q.term, q.slot, q.edits FROM unnest(${typo.terms}, ${typo.slots}, ${typo.edits}) AS q(term, slot, edits)
                    WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.term = q.term) ORDER BY q.slot DESC LIMIT ${MISTYPED_TERMS})`,
      // A mistyped term's candidates share trigrams with it (pg_trgm's %, the trigram index);
      // Levenshtein's distance confirms them, a transposition (two letters swapped: distance
      // 2, the same letters) counting as one edit, as Damerau counts it.
      `near AS (SELECT m.slot, n.term, n.edits, n.df FROM mistyped m CROSS JOIN LATERAL (
                  SELECT c.term, min(c.edits) AS edits, sum(c.df)::float8 AS df FROM cols CROSS JOIN LATERAL (
                    SELECT t.term, t.df, ${damerauSql('t.term', 'm.term', 'm.edits')} AS edits FROM collection_terms t
                    WHERE t.collection_id = cols.id AND t.term % m.term OFFSET 0) c
                  WHERE c.edits <= m.edits GROUP BY c.term ORDER BY 2, 3 DESC, 1 LIMIT ${TYPO_TERMS}) n)`,
      // Two letters swapped share few trigrams in a short word ("crad", "card"), and a typo
      // breaks the suffix the stemmer reads ("dnyamic" is three edits from "dynam"): a
      // mistyped term's transpositions, and the stems of its word with a letter dropped or
      // two swapped (query.ts), are looked up as they are.
      `swapped AS (SELECT s.slot, c.term, sum(c.df)::float8 AS df
                   FROM (SELECT m.slot, overlay(m.term PLACING substr(m.term, i + 1, 1) || substr(m.term, i, 1) FROM i FOR 2) AS term
                         FROM mistyped m CROSS JOIN generate_series(1, length(m.term) - 1) AS i
                         WHERE substr(m.term, i, 1) <> substr(m.term, i + 1, 1)
                         UNION
                         SELECT m.slot, e.term FROM unnest(${typo.corrections}, ${typo.correctionSlots}) AS e(term, slot)
                         JOIN mistyped m ON m.slot = e.slot) s
                     CROSS JOIN cols CROSS JOIN LATERAL (
                       SELECT t.term, t.df FROM collection_terms t WHERE t.collection_id = cols.id AND t.term = s.term OFFSET 0) c
                   GROUP BY s.slot, c.term)`,
    );
    alternatives.push(
      `SELECT term, slot, (${typo.weights})[edits], df FROM near`,
      `SELECT term, slot, (${typo.weights})[1], df FROM swapped`,
    );
  }
  ctes.push(
    `alts AS (${alternatives.join('\n UNION ALL ')})`,
    // A term once a slot, at its best weight.
    `w AS (SELECT a.*, max(a.weight * a.idf) OVER () AS maxweight FROM (
             SELECT DISTINCT ON (slot, term) term, slot, weight, ${idfSql('s.n', 'df')} AS idf
             FROM alts, s WHERE s.n > 0 ORDER BY slot, term, weight DESC) a)`,
    // One index range per (collection, term), best impact first; OFFSET 0 keeps the planner
    // from turning it into a scan of the whole collection. The candidates' order sums every
    // term a chunk holds, an upper bound where a slot matched several (the word being typed,
    // a typo's corrections); `scored` counts each slot's best only.
    `lex AS (SELECT g.chunk_id FROM (
               SELECT p.chunk_id, sum(w.weight * w.idf * p.impact) AS score
               FROM cols CROSS JOIN w CROSS JOIN LATERAL (
                 SELECT p.chunk_id, p.impact FROM chunk_terms p
                 WHERE p.collection_id = cols.id AND p.term = w.term ${bound} OFFSET 0) p
               GROUP BY p.chunk_id) g
             WHERE true ${passes} ORDER BY g.score DESC LIMIT ${clampLimit(limit)})`,
  );
  const [row] = await db.query<{ matches: [string, number, number, number][] | null; n: number; avgdl: number; ids: string[] | null }>(
    `WITH ${ctes.join(',\n')}
     SELECT (SELECT json_agg(json_build_array(term, slot, weight, idf)) FROM w) AS matches,
       (SELECT n FROM s) AS n, (SELECT avgdl FROM s) AS avgdl, (SELECT array_agg(chunk_id) FROM lex) AS ids`,
    params,
    { prepare: filters.length === 0 },
  );
  const matches = (row?.matches ?? []).map(([term, slot, weight, idf]) => ({ term, slot, weight: Number(weight), idf: Number(idf) }));
  return { matches, avgdl: Number(row?.avgdl ?? 1), chunkCount: Number(row?.n ?? 0), chunkIds: (row?.ids ?? []).map(Number) };
}

/**
 * The candidates scored, in one statement: the best `limit` chunks by vector distance (HNSW
 * over the narrow chunk_vectors, with the session settings SEARCH_SETTINGS of db.ts) and the
 * lexical pass's chunks; for each, the exact BM25 from primary-key probes of its postings
 * and the cosine. Every chunk is checked against the organisation and collections here,
 * whatever the lexical pass returned. No transaction: a concurrent write can at worst shift
 * a score.
 */
async function scored(
  db: Db,
  organisationId: number,
  collectionIds: readonly string[],
  query: { lexical: LexicalCandidates; embedding: Float32Array; dims: number },
  filters: readonly MetaFilter[],
  limit: number,
): Promise<ChunkScore[]> {
  const dims = query.dims;
  if (!Number.isInteger(dims) || dims < 1 || dims > 4000) throw new Error(`Unsupported embedding dimension ${dims}`);
  const { matches } = query.lexical;
  // A slot that matched several terms (the word being typed, a typo's corrections) counts its best.
  const slots = matches.map((m) => m.slot);
  const grouped = new Set(slots).size < slots.length;
  // $1 organisation, $2 collections, $3 query vector, $4 lexical chunks, $5 terms, $6 their weight × idf, $7 avgdl, ($8 their slots), then filters.
  const params: unknown[] = [
    organisationId,
    collectionIds,
    db.vectorParam(query.embedding),
    query.lexical.chunkIds,
    matches.map((m) => m.term),
    matches.map((m) => m.weight * m.idf),
    query.lexical.avgdl,
    ...(grouped ? [slots] : []),
  ];
  const tf = tfNormSql('t.tf', 't.length', '$7::float8');
  const bm25 = grouped
    ? `(SELECT sum(b.best) FROM (
         SELECT max(q.w * ${tf}) AS best FROM unnest($5::text[], $6::float8[], $8::int[]) AS q(term, w, slot)
           JOIN chunk_terms t ON t.chunk_id = cand.chunk_id AND t.term = q.term
         GROUP BY q.slot) b)`
    : `(SELECT sum(q.w * ${tf}) FROM unnest($5::text[], $6::float8[]) AS q(term, w)
         JOIN chunk_terms t ON t.chunk_id = cand.chunk_id AND t.term = q.term)`;
  const passes = filterClause(filters, params, 'v.chunk_id');
  const q = `$3::vector(${dims})`;
  // Collections this small are searched exactly, through chunk_vectors_collection: the HNSW
  // graph is shared by every collection of every organisation, and an iterative scan
  // filtered down to one small tenant's rows stops at hnsw.max_scan_tuples (20,000) with
  // few or none of them. Without the index's expression (the cast) in ORDER BY, the planner
  // cannot use HNSW.
  const exact = comparesExactly(query.lexical);
  const distance = exact ? `v.embedding <=> ${q}` : `v.embedding::vector(${dims}) <=> ${q}`;
  const rows = await db.query<{ id: string; entry_id: string; bm25: number; cosine: number; headings: string[] | null }>(
    `WITH vec AS (SELECT v.chunk_id, ${distance} AS distance FROM chunk_vectors v
                  WHERE v.dims = ${dims} AND v.collection_id = ANY($2::uuid[]) ${passes}
                  ORDER BY 2 LIMIT ${clampLimit(limit)}),
       -- The lexical pass's chunks the vector pass did not find need their distance read.
       cand AS (SELECT chunk_id, distance FROM vec
                UNION ALL
                SELECT l.chunk_id, NULL FROM unnest($4::bigint[]) AS l(chunk_id)
                WHERE NOT EXISTS (SELECT 1 FROM vec WHERE vec.chunk_id = l.chunk_id))
     SELECT c.id, c.entry_id, c.headings,
       -- Exact BM25: the candidate's postings (by primary key) joined to the matched terms with
       -- their weight × idf, each slot counting its best, a correlated subquery so no planner
       -- reads the terms' whole posting lists instead. The join hashes the terms once for every
       -- candidate; 'term = ANY(...)' made each posting compare itself with every term (4.8 →
       -- 4.2 ms a search at 100k chunks).
       coalesce(${bm25}, 0) AS bm25,
       -- A chunk of another dimension (another model's, until lore reindex) has no cosine: 0.
       coalesce(1 - coalesce(cand.distance, (SELECT v.embedding <=> ${q} FROM chunk_vectors v WHERE v.chunk_id = cand.chunk_id AND v.dims = ${dims})), 0) AS cosine
     FROM cand JOIN chunks c ON c.id = cand.chunk_id AND c.organisation_id = $1 AND c.collection_id = ANY($2::uuid[])`,
    params,
    { prepare: filters.length === 0 },
  );
  return rows.map((r) => ({ chunkId: Number(r.id), entryId: r.entry_id, bm25: Number(r.bm25), cosine: Number(r.cosine), headings: r.headings }));
}
