import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { lockDataDir } from './dataDirLock.js';
import { HNSW_SETTINGS, type Db, type Queryable } from './db.js';

/**
 * Opens the embedded PGlite database in `dataDir` (or in memory when `dataDir` is
 * undefined) with pgvector loaded. PGlite serialises queries itself; transactions hold
 * its single connection until they finish.
 */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // One process per folder (./dataDirLock.ts); released when the database is closed.
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let pg: PGlite;
  try {
    pg = await PGlite.create(dataDir, { extensions: { vector } });
  } catch (error) {
    unlock();
    throw error;
  }
  await pg.exec('CREATE EXTENSION IF NOT EXISTS vector');
  for (const [name, value] of Object.entries(HNSW_SETTINGS)) await pg.query('SELECT set_config($1, $2, false)', [name, value]);

  const wrap = (q: Pick<PGlite, 'query'>): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await q.query<T>(sql, params as unknown[]);
      return result.rows;
    },
  });

  return {
    backend: 'pglite',
    ...wrap(pg),
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    exec: async (sql) => {
      await pg.exec(sql);
    },
    close: async () => {
      try {
        await pg.close();
      } finally {
        unlock();
      }
    },
  };
}
