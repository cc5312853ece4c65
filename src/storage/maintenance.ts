/**
 * Index maintenance after writes, once for all processes on a database.
 *
 * Planner statistics go stale as chunks are written, and the planner then stops using the
 * HNSW index (measured: 327 ms exact scan vs 14 ms HNSW at 13k chunks on PGlite, which has
 * no autovacuum; 296 ms vs 14 ms at 100k chunks on PostgreSQL right after a bulk load,
 * before autovacuum caught up). VACUUM also marks pages all-visible, so postings are read by
 * index-only scans (without, PGlite's lexical pass measured 15.8 ms instead of 4.4 at 100k
 * chunks). So every `every` chunks written, the tables search reads are vacuumed and
 * analysed, off the request path.
 *
 * The count is shared through the database (`maintenance_jobs`): each process adds what it
 * wrote, and the one whose addition crosses the threshold takes a lease and runs the job —
 * two processes writing half each still trigger it, and two reports that cross it together run it
 * once. A lease left by a process that died mid-job expires after LEASE.
 */
import type { Db } from './db.js';

const JOB = 'vacuum-search-tables';
const LEASE = '30 minutes';

export interface Maintenance {
  /** Counts `chunks` written (after their commit); may start the job in the background. */
  noteWritten(chunks: number): void;
  /** Resolves when no job started by this process is running (tests). */
  idle(): Promise<void>;
}

export function createMaintenance(
  db: Db,
  options: {
    /** Chunks written, by all processes, between two runs. */
    every?: number;
    /** Chunks this process writes before it adds them to the shared count (one small transaction). */
    reportEvery?: number;
    log?: (error: unknown) => void;
  } = {},
): Maintenance {
  const every = options.every ?? 2_000;
  const reportEvery = options.reportEvery ?? Math.max(1, Math.floor(every / 10));
  let unreported = 0;
  let running: Promise<void> = Promise.resolve();

  // On PGlite vacuum holds the one connection, so chunk_vectors is only re-analysed there:
  // vacuuming its HNSW index after 2,000 deleted chunks took 34 s at 100k chunks, chunk_terms
  // 0.9 s. (One statement per exec: VACUUM cannot run in a multi-statement string.)
  const statements =
    db.backend === 'postgres'
      ? ['VACUUM (ANALYZE) chunks, chunk_vectors, chunk_terms, collection_terms']
      : ['VACUUM (ANALYZE) chunks, chunk_terms, collection_terms', 'ANALYZE chunk_vectors'];

  /** Adds `chunks` to the shared count; true when this process took the lease to run the job. */
  async function report(chunks: number): Promise<boolean> {
    return db.transaction(async (tx) => {
      await tx.query(`INSERT INTO maintenance_jobs (job) VALUES ($1) ON CONFLICT (job) DO NOTHING`, [JOB]);
      const [row] = await tx.query<{ pending: number; free: boolean }>(
        'SELECT pending::float8 AS pending, leased_until <= clock_timestamp() AS free FROM maintenance_jobs WHERE job = $1 FOR UPDATE',
        [JOB],
      );
      const pending = row!.pending + chunks;
      const claim = pending >= every && row!.free;
      await tx.query(
        `UPDATE maintenance_jobs SET pending = $2,
           leased_until = CASE WHEN $3::boolean THEN clock_timestamp() + interval '${LEASE}' ELSE leased_until END
         WHERE job = $1`,
        [JOB, claim ? 0 : pending, claim],
      );
      return claim;
    });
  }

  async function run(chunks: number): Promise<void> {
    if (!(await report(chunks))) return;
    try {
      for (const sql of statements) await db.exec(sql);
    } finally {
      // '-infinity', not clock_timestamp(): PGlite's clock ticks in milliseconds, so a report in
      // the same millisecond as the release would find the lease not yet expired.
      await db.query("UPDATE maintenance_jobs SET leased_until = '-infinity' WHERE job = $1", [JOB]);
    }
  }

  return {
    noteWritten(chunks) {
      unreported += chunks;
      if (unreported < reportEvery) return;
      const batch = unreported;
      unreported = 0;
      // One at a time in this process; a failure (database gone) is reported, never thrown.
      running = running.then(() => run(batch)).catch((error: unknown) => options.log?.(error));
    },
    idle: () => running,
  };
}
