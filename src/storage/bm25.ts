/** BM25 as the storage computes it (Lucene's defaults), shared by writes and searches. */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/**
 * SQL for BM25's term-frequency factor of a posting: tf·(k1+1) / (tf + k1·(1 − b + b·length/avgdl)).
 * At write time, with the collection's average length then, it is the posting's impact (the
 * order in which a query term reads its postings); at search time, with today's average,
 * it is the exact factor.
 */
export function tfNormSql(tf: string, length: string, avgdl: string): string {
  // float8 literals: a bare 2.2 is numeric in SQL, and numeric arithmetic per posting is slow.
  const f = (x: number) => `${x}::float8`;
  return `(${tf} * ${f(BM25.k1 + 1)} / (${tf} + ${f(BM25.k1)} * (${f(1 - BM25.b)} + ${f(BM25.b)} * ${length} / ${avgdl})))`;
}

/** SQL for a term's inverse document frequency among `n` chunks, `df` of which hold it (Lucene's, never negative). */
export function idfSql(n: string, df: string): string {
  return `ln(1 + (${n} - ${df} + 0.5) / (${df} + 0.5))`;
}
