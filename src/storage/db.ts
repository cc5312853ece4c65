/**
 * The storage port: PostgreSQL SQL with pgvector, run either on PGlite (embedded) or on a
 * PostgreSQL server. Repositories only see this interface, so one dialect serves both.
 */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<T[]>;
}

export interface QueryOptions {
  /**
   * A named prepared statement (on PostgreSQL per connection, by the text's hash; on PGlite
   * on its one connection): parsed once, and planned once when PostgreSQL finds its generic
   * plan as good as custom ones. For the statements every search runs, whose text comes from
   * a small fixed set (never for a text built from a variable number of values: each would
   * stay prepared for the connection's life). Inside a PGlite transaction, a plain query.
   */
  prepare?: boolean;
}

export interface Db extends Queryable {
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. On
   * PostgreSQL a transaction aborted by a deadlock or a serialization failure runs again (at
   * most 4 times), so `fn` must do nothing outside the database that cannot be repeated.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** PostgreSQL's pool: connections open, idle, and requests waiting for one (absent on PGlite). */
  poolStats?(): { total: number; idle: number; waiting: number };
  /** Runs a multi-statement script (migrations). */
  exec(sql: string): Promise<void>;
  readonly backend: 'pglite' | 'postgres';
  /**
   * A vector as a statement parameter for `$n::vector(d)`: pgvector's binary form on
   * PostgreSQL (no text to format and parse: 384 floats printed and read back were about
   * 0.2 ms of Lore's CPU a search), its text form on PGlite (whose parameters are text).
   */
  vectorParam(vector: Float32Array): unknown;
  close(): Promise<void>;
}

/**
 * Session settings for searches, set on every connection.
 *
 * pgvector's HNSW scans: a candidate list of 64 for the search's 50 nearest chunks, and
 * iterative scans so metadata filters cannot starve a result (pgvector ≥ 0.8). 64 rather than
 * 100, measured (docs/SEARCH.md): at 100k chunks on PostgreSQL the vector stage 2.8–3.1 →
 * 2.5–2.6 ms and 8 clients 202–207 → 216–217 searches/s, nDCG@10 of the bench's claims
 * 0.684 → 0.685 (1M: 0.593 → 0.595), SciFact's unchanged (0.729–0.730 with either).
 *
 * pg_trgm's `%`, which finds a mistyped term's candidates in the dictionary: its default
 * similarity, 0.3, said here because the cost depends on it. At 0.2 a four-letter word with a
 * letter changed inside would be a candidate too ("tupe" and "type" share 2 of 8 trigrams:
 * 0.25), but the lookup read 50–90 candidates instead of 4–9 and took 2.6–19.8 ms instead of
 * 0.9–1.3 ms a term at 100k chunks (a dictionary of 33,166 terms). Swapped letters, which
 * share fewest trigrams, are looked up as they are (storage/search.ts).
 */
export const SEARCH_SETTINGS = {
  'hnsw.ef_search': '64',
  'hnsw.iterative_scan': 'relaxed_order',
  'pg_trgm.similarity_threshold': '0.3',
} as const;
