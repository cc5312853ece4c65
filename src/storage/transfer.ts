/**
 * Copying a whole instance between databases (`lore export` / `lore import`): PGlite to
 * PostgreSQL when a site outgrows the embedded default, and back; backups of either.
 *
 * The export is gzip'd JSON lines: a header (format, schema version, row counts), then each
 * table as a section line `{"table": …, "rows": N}` followed by N rows as PostgreSQL's own
 * `to_jsonb` of the row, then a trailer `{"end": true, "rows": total}`. Rows go out and come
 * back through PostgreSQL's JSON conversion (`to_jsonb` / `jsonb_populate_recordset`), so
 * every column survives exactly — vectors (pgvector's shortest round-trip text), hashes
 * (bytea as hex), arrays, timestamps with microseconds — and nothing is re-embedded or
 * re-derived: search ranks the same on the copy.
 *
 * The export reads one snapshot (REPEATABLE READ), so a server writing at the same time
 * (PostgreSQL) cannot tear it. The import is one transaction: it commits only after the
 * trailer and every count check, so a truncated or corrupt file leaves the target as it was.
 */
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { Db, Queryable } from './db.js';
import { vectorIndexSql } from './migrate.js';

export const EXPORT_FORMAT = 'lore-export';
export const EXPORT_VERSION = 1;

/**
 * Every table of the schema in an order its foreign keys accept, with the columns that
 * order its rows — but NOT_COPIED. An export refuses to run when the database has a table
 * missing from both, so a new table cannot be silently left behind.
 */
export const TABLES: readonly { name: string; key: string }[] = [
  { name: 'organisations', key: 'id' },
  { name: 'api_tokens', key: 'id' },
  { name: 'collections', key: 'seq' },
  { name: 'entries', key: 'seq' },
  { name: 'chunks', key: 'id' },
  { name: 'chunk_vectors', key: 'chunk_id' },
  { name: 'chunk_terms', key: 'chunk_id, term' },
  { name: 'collection_terms', key: 'collection_id, term' },
  { name: 'collection_stats', key: 'collection_id' },
  { name: 'collection_languages', key: 'collection_id, language' },
  { name: 'integrations', key: 'seq' },
  { name: 'integration_collections', key: 'integration_id, position' },
  { name: 'search_log', key: 'id' },
  { name: 'search_daily', key: 'integration_id, day, query' },
  { name: 'integration_events', key: 'id' },
  { name: 'usage_counters', key: 'organisation_id, period' },
  { name: 'api_keys', key: 'seq' },
  { name: 'widgets', key: 'seq' },
  { name: 'widget_events', key: 'id' },
  { name: 'answer_log', key: 'id' },
  { name: 'crawlers', key: 'seq' },
  { name: 'crawl_frontier', key: 'crawler_id, seq' },
  { name: 'conversations', key: 'created_at, id' },
  { name: 'conversation_messages', key: 'seq' },
  { name: 'instance_settings', key: 'key' },
];

/** The schema's own version, and the processes' maintenance bookkeeping (storage/maintenance.ts). */
export const NOT_COPIED: readonly string[] = ['schema_migrations', 'maintenance_jobs'];

/** Rows fetched from a cursor, and the most a batch of inserted rows may hold. */
const FETCH_ROWS = 2_000;
const INSERT_ROWS = 2_000;
const INSERT_CHARS = 4_000_000;

export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  version: number;
  /** The last schema migration applied to the source: an import needs the same. */
  schema: string;
  exported_at: string;
  source: Db['backend'];
  /** Rows per table, in section order. */
  tables: Record<string, number>;
  /** The instance's master-key hash (hex), when the source has one in its data folder. */
  master_key_sha256?: string;
}

/** Reported as rows are copied: the table in progress, rows done overall, rows in all. */
export type Progress = (table: string, done: number, total: number) => void;

/** An export that cannot be read or does not fit the target; nothing was written. */
export class TransferError extends Error {}

async function schemaVersion(db: Queryable): Promise<string> {
  const [row] = await db.query<{ version: string | null }>('SELECT max(version) AS version FROM schema_migrations');
  return row?.version ?? '';
}

/** Fails when the database holds a table this code does not know how to copy. */
async function checkTablesKnown(db: Queryable): Promise<void> {
  const rows = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  const known = new Set([...TABLES.map((t) => t.name), ...NOT_COPIED]);
  const unknown = rows.map((r) => r.name).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new TransferError(`Tables this version of Lore cannot copy: ${unknown.sort().join(', ')}`);
}

/**
 * Writes the whole instance to `out` (gzip'd). Resolves with the header once `out` has
 * been flushed and closed.
 */
export async function exportInstance(
  db: Db,
  out: Writable,
  options: { masterKeyHash?: string; progress?: Progress } = {},
): Promise<ExportHeader> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    await checkTablesKnown(tx);
    const tables: Record<string, number> = {};
    for (const { name } of TABLES) {
      const [row] = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name}`);
      tables[name] = row!.n;
    }
    const header: ExportHeader = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      schema: await schemaVersion(tx),
      exported_at: new Date().toISOString(),
      source: db.backend,
      tables,
      ...(options.masterKeyHash ? { master_key_sha256: options.masterKeyHash } : {}),
    };
    const total = Object.values(tables).reduce((sum, n) => sum + n, 0);

    async function* lines(): AsyncGenerator<string> {
      yield `${JSON.stringify(header)}\n`;
      let done = 0;
      for (const { name, key } of TABLES) {
        yield `${JSON.stringify({ table: name, rows: tables[name] })}\n`;
        options.progress?.(name, done, total);
        // A cursor inside the snapshot: rows stream in pages, whatever the table's size.
        await tx.query(`DECLARE lore_export NO SCROLL CURSOR FOR SELECT to_jsonb(t)::text AS row FROM ${name} t ORDER BY ${key}`);
        let sent = 0;
        for (;;) {
          const page = await tx.query<{ row: string }>(`FETCH ${FETCH_ROWS} FROM lore_export`);
          if (page.length === 0) break;
          yield page.map((r) => r.row).join('\n') + '\n';
          sent += page.length;
          done += page.length;
          options.progress?.(name, done, total);
        }
        await tx.query('CLOSE lore_export');
        // Counted in the same snapshot: a difference is a bug, not a concurrent write.
        if (sent !== tables[name]) throw new Error(`${name}: counted ${tables[name]} rows, read ${sent}`);
      }
      yield `${JSON.stringify({ end: true, rows: done })}\n`;
    }

    await pipeline(lines, createGzip(), out);
    return header;
  });
}

/** The lines of a gzip'd stream, without their line breaks. */
async function* readLines(input: Readable): AsyncGenerator<string> {
  const gunzip = createGunzip();
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  gunzip.setEncoding('utf8');
  let carry = '';
  try {
    for await (const chunk of gunzip as AsyncIterable<string>) {
      const parts = (carry + chunk).split('\n');
      carry = parts.pop()!;
      yield* parts;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code.startsWith('Z_')) throw new TransferError(`Not a readable Lore export (gzip: ${(error as Error).message})`);
    throw error;
  }
  if (carry !== '') yield carry;
}

function parseControl<T>(line: string | undefined, what: string): T {
  if (line === undefined) throw new TransferError(`The export ends before ${what}: the file is incomplete`);
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new TransferError(`Not a Lore export: expected ${what}, found ${JSON.stringify(line.slice(0, 80))}`);
  }
}

export interface ImportResult {
  header: ExportHeader;
  rows: number;
  /** The embedding models of the imported chunks, with their chunk counts. */
  models: { model: string; dims: number; chunks: number }[];
}

/**
 * Loads an export into `db`, which must hold no organisation (or, with `replace`, loses
 * everything it held). All or nothing: one transaction, committed after the trailer.
 */
export async function importInstance(
  db: Db,
  input: Readable,
  options: { replace?: boolean; progress?: Progress } = {},
): Promise<ImportResult> {
  const lines = readLines(input);
  const next = async () => {
    const { value, done } = await lines.next();
    return done ? undefined : value;
  };
  const header = parseControl<ExportHeader>(await next(), 'its header');
  if (header?.format !== EXPORT_FORMAT) throw new TransferError('Not a Lore export (no lore-export header)');
  if (header.version !== EXPORT_VERSION) throw new TransferError(`Export format version ${header.version} is not supported (this Lore reads ${EXPORT_VERSION})`);

  const result = await db.transaction(async (tx) => {
    await checkTablesKnown(tx);
    const schema = await schemaVersion(tx);
    if (header.schema !== schema) {
      throw new TransferError(
        `The export has schema ${header.schema}, this database ${schema}: export and import with the same version of Lore`,
      );
    }
    const [held] = await tx.query<{ n: number }>(
      'SELECT (SELECT count(*) FROM organisations)::int + (SELECT count(*) FROM instance_settings)::int AS n',
    );
    if (held!.n > 0) {
      if (!options.replace) {
        throw new TransferError('The target database already holds an instance (organisations or settings); import into an empty one, or pass --replace to replace it');
      }
      await tx.query(`TRUNCATE ${TABLES.map((t) => t.name).join(', ')}`);
    }
    // Vector indexes are built once at the end rather than grown row by row.
    const indexes = await tx.query<{ name: string }>(
      `SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'chunk_vectors' AND indexname LIKE 'chunk\\_vectors\\_hnsw\\_%'`,
    );
    for (const { name } of indexes) await tx.query(`DROP INDEX ${name}`);

    const total = Object.values(header.tables ?? {}).reduce((sum, n) => sum + n, 0);
    let done = 0;
    for (const { name } of TABLES) {
      const section = parseControl<{ table?: string; rows?: number }>(await next(), `the ${name} section`);
      if (section.table !== name || !Number.isInteger(section.rows) || section.rows !== header.tables[name]) {
        throw new TransferError(`Expected the ${name} section (${header.tables[name]} rows), found ${JSON.stringify(section).slice(0, 120)}`);
      }
      options.progress?.(name, done, total);
      let batch: string[] = [];
      let chars = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        await tx.query(
          `INSERT INTO ${name} OVERRIDING SYSTEM VALUE SELECT * FROM jsonb_populate_recordset(NULL::${name}, $1::jsonb)`,
          [`[${batch.join(',')}]`],
        );
        done += batch.length;
        options.progress?.(name, done, total);
        batch = [];
        chars = 0;
      };
      for (let i = 0; i < section.rows!; i++) {
        const row = await next();
        if (row === undefined) throw new TransferError(`The export ends inside the ${name} section: the file is incomplete`);
        batch.push(row);
        chars += row.length;
        if (batch.length >= INSERT_ROWS || chars >= INSERT_CHARS) await flush();
      }
      await flush();
    }
    const trailer = parseControl<{ end?: boolean; rows?: number }>(await next(), 'its end');
    if (trailer.end !== true || trailer.rows !== done) throw new TransferError('The export does not end where its header says: the file is damaged');
    if ((await next()) !== undefined) throw new TransferError('The export goes on after its end: the file is damaged');

    // Identity columns continue after the imported ids.
    const identities = await tx.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND is_identity = 'YES' AND table_name <> 'schema_migrations'`,
    );
    for (const { table_name: table, column_name: column } of identities) {
      await tx.query(
        `SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(${column}) FROM ${table}), 0) + 1, false)`,
        [table, column],
      );
    }
    const models = await tx.query<{ model: string; dims: number; chunks: number }>(
      'SELECT model, dims, count(*)::int AS chunks FROM chunks GROUP BY model, dims ORDER BY chunks DESC',
    );
    options.progress?.('(building the vector index)', done, total);
    for (const dims of new Set(models.map((m) => m.dims))) await tx.query(vectorIndexSql(dims));
    return { header, rows: done, models };
  });
  // Fresh planner statistics (and all-visible pages for index-only scans).
  options.progress?.('(analysing)', result.rows, result.rows);
  await db.exec('VACUUM (ANALYZE)');
  return result;
}
