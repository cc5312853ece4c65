import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any constant shared by every Lore process: serialises concurrent starts on one server.
const LOCK_ID = 7_464_212;

/**
 * Applies the versioned SQL files in storage/migrations (NNN_name.sql) that have not been
 * applied yet, each in its own transaction, in order. Safe when several processes start
 * at once against one PostgreSQL server. Returns the versions it applied.
 */
export async function migrate(db: Db): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_.+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    // Everything under the lock: two processes starting at once on an empty database raced
    // in CREATE EXTENSION / CREATE TABLE IF NOT EXISTS (a duplicate key in the catalogue).
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    await tx.query('CREATE EXTENSION IF NOT EXISTS vector');
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`);
    const done = new Set(
      (await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).map((r) => r.version),
    );
    for (const file of files) {
      const version = file.slice(0, 3);
      if (done.has(version)) continue;
      const sql = await readFile(MIGRATIONS_DIR + file, 'utf8');
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      applied.push(version);
    }
  });
  return applied;
}

/** Splits a migration script on `;` at line ends; migrations avoid `;` inside bodies. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}

/**
 * Vectors of any dimension are stored; the HNSW index (cosine) is built per
 * dimension, on an expression, for the embedder in use. Idempotent; called at start after
 * migrate().
 */
export async function ensureVectorIndex(db: Db, dimensions: number): Promise<void> {
  const sql = vectorIndexSql(dimensions);
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    await tx.query(sql);
  });
}

/** The HNSW index of the vectors of d dimensions is named this, then d. */
const VECTOR_INDEX = 'chunk_vectors_hnsw_';

/** The name of the HNSW index of the vectors of `dimensions` dimensions. */
export const vectorIndexName = (dimensions: number) => `${VECTOR_INDEX}${dimensions}`;

/** Creates the HNSW index (cosine) of the vectors of one dimension, unless it exists. */
export function vectorIndexSql(dimensions: number): string {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4000) {
    throw new Error(`Unsupported embedding dimension ${dimensions}`);
  }
  return `CREATE INDEX IF NOT EXISTS ${vectorIndexName(dimensions)} ON chunk_vectors
    USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) WHERE dims = ${dimensions}`;
}

/**
 * Drops the HNSW indexes of dimensions other than `keep` that no vector has any more (after
 * `lore reindex` moved every chunk to another model). The dimensions dropped.
 */
export async function dropUnusedVectorIndexes(db: Db, keep: number): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    const indexes = await tx.query<{ name: string }>(
      `SELECT indexname AS name FROM pg_indexes WHERE tablename = 'chunk_vectors' AND indexname ~ $1 ORDER BY indexname`,
      [`^${VECTOR_INDEX}[0-9]+$`],
    );
    const dropped: number[] = [];
    for (const { name } of indexes) {
      const dims = Number(name.slice(VECTOR_INDEX.length));
      if (dims === keep) continue;
      const [used] = await tx.query<{ used: boolean }>('SELECT EXISTS (SELECT 1 FROM chunk_vectors WHERE dims = $1) AS used', [dims]);
      if (used!.used) continue;
      await tx.query(`DROP INDEX ${name}`);
      dropped.push(dims);
    }
    return dropped;
  });
}
