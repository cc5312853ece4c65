import type { Db } from './db.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

/**
 * The database a configuration names: the PostgreSQL server at `databaseUrl` (a pool of
 * `poolSize` connections), else the embedded PGlite in `dataDir`.
 */
export function openDatabase(config: { databaseUrl: string | undefined; dataDir: string }, poolSize?: number): Promise<Db> {
  return config.databaseUrl ? openPostgres(config.databaseUrl, poolSize) : openPglite(config.dataDir);
}
