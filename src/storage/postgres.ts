import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { SEARCH_SETTINGS, type Db, type Queryable, type QueryOptions } from './db.js';
import { vectorBinary } from './sql.js';

// Keep int8 and numeric as JS numbers where they fit: counts and ids here stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** deadlock_detected, serialization_failure. */
const RETRYABLE = new Set(['40P01', '40001']);
const TRANSACTION_ATTEMPTS = 4;
const RETRY_DELAY_MS = 20;

const names = new Map<string, string>();
/** A prepared statement's name: the same for the same text on every connection. */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `lore_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return name;
}

/** Connects a pool to a PostgreSQL server that has the `vector` extension available. */
export async function openPostgres(url: string, max = 10): Promise<Db> {
  const options = Object.entries(SEARCH_SETTINGS).map(([name, value]) => `-c ${name}=${value}`).join(' ');
  const pool = new pg.Pool({ connectionString: url, max, options });
  // An idle client that errors (server restart) must not crash the process.
  pool.on('error', () => {});
  // The `vector` extension is created by migrate(), under its lock (several processes may start at once).
  await pool.query('SELECT 1');

  const wrap = (client: Pick<pg.Pool, 'query'>): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = [], options: QueryOptions = {}) {
      const result = options.prepare
        ? await client.query({ name: statementName(sql), text: sql, values: params as unknown[] })
        : await client.query(sql, params as unknown[]);
      return result.rows as T[];
    },
  });

  return {
    backend: 'postgres',
    ...wrap(pool),
    async transaction(fn) {
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const result = await fn(wrap(client));
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          // PostgreSQL aborted the transaction to let another one through: nothing of it was
          // written, so it runs again (a little later, by a random amount, so the two part).
          if (!RETRYABLE.has((error as { code?: string }).code ?? '') || attempt >= TRANSACTION_ATTEMPTS) throw error;
        } finally {
          client.release();
        }
        await sleep(RETRY_DELAY_MS * attempt * (0.5 + Math.random()));
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    // node-postgres sends a Buffer parameter in binary.
    vectorParam: vectorBinary,
    close: () => pool.end(),
  };
}
