import type { Queryable } from '../src/storage/db.js';

/**
 * Every structure search reads, checked against the chunks it derives from: one vector per
 * chunk (same collection, dimension), postings of existing chunks (their collection and
 * length), document frequencies equal to the postings per term, chunk counts, lengths and
 * languages equal to the chunks'. Returns the violations found (empty when consistent).
 */
export async function indexProblems(db: Queryable): Promise<string[]> {
  const checks: Record<string, string> = {
    'chunk without exactly one vector': `SELECT count(*) FROM chunks c WHERE (SELECT count(*) FROM chunk_vectors v WHERE v.chunk_id = c.id) <> 1`,
    'vector of another collection or dimension': `SELECT count(*) FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id
      WHERE v.collection_id <> c.collection_id OR v.dims <> c.dims OR vector_dims(v.embedding) <> c.dims`,
    'orphan vector': `SELECT count(*) FROM chunk_vectors v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.chunk_id)`,
    'posting disagreeing with its chunk': `SELECT count(*) FROM chunk_terms t LEFT JOIN chunks c ON c.id = t.chunk_id
      WHERE c.id IS NULL OR t.collection_id <> c.collection_id OR t.length <> c.length OR t.impact <= 0`,
    'chunk without postings': `SELECT count(*) FROM chunks c WHERE c.length > 0 AND NOT EXISTS (SELECT 1 FROM chunk_terms t WHERE t.chunk_id = c.id)`,
    'document frequency not the postings count': `SELECT count(*) FROM collection_terms ct FULL JOIN
      (SELECT collection_id, term, count(*) AS n FROM chunk_terms GROUP BY collection_id, term) p
      ON p.collection_id = ct.collection_id AND p.term = ct.term
      WHERE ct.df IS DISTINCT FROM p.n::int`,
    'collection statistics not the chunks’': `SELECT count(*) FROM collection_stats s LEFT JOIN
      (SELECT collection_id, count(*) AS n, sum(length) AS len FROM chunks GROUP BY collection_id) c ON c.collection_id = s.collection_id
      WHERE s.chunk_count <> coalesce(c.n, 0) OR s.total_length <> coalesce(c.len, 0)`,
    'collection languages not the chunks’': `SELECT count(*) FROM collection_languages l FULL JOIN
      (SELECT collection_id, language, count(*) AS n FROM chunks GROUP BY collection_id, language) c
      ON c.collection_id = l.collection_id AND c.language = l.language
      WHERE l.chunk_count IS DISTINCT FROM c.n::int`,
  };
  const problems: string[] = [];
  for (const [name, sql] of Object.entries(checks)) {
    const [row] = await db.query<{ count: number }>(sql);
    if (Number(row!.count) > 0) problems.push(`${name}: ${row!.count}`);
  }
  return problems;
}
