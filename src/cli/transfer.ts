/**
 * `lore export` and `lore import`: the whole instance to a file and back (storage/transfer.ts).
 * A failure is thrown, for the entry (index.ts) to say as `lore: <message>` (exit 1).
 */
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import { loadConfig, type Config } from '../config.js';
import { knownMasterKeyHash, masterKeyFile, storeMasterKeyHash } from '../masterKey.js';
import type { Db } from '../storage/db.js';
import { migrate } from '../storage/migrate.js';
import { openDatabase } from '../storage/open.js';
import { exportInstance, importInstance, TransferError, type Progress } from '../storage/transfer.js';

export function describe(c: Config): string {
  return c.databaseUrl ? `PostgreSQL (${new URL(c.databaseUrl).host})` : `PGlite in ${c.dataDir}`;
}

/** Opens the configured database at this Lore's schema (as a start would). */
export async function open(c: Config): Promise<Db> {
  const db = await openDatabase(c, 2);
  await migrate(db);
  return db;
}

/** A progress bar on stderr in `format`; cli-progress draws nothing when stderr is a file or a pipe. */
export function stderrBar(format: string): cliProgress.SingleBar {
  return new cliProgress.SingleBar({ format, stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
}

/** A progress bar of the tables copied, on a terminal's stderr. */
function progressBar(verb: string): { progress: Progress; stop(): void } {
  const bar = stderrBar(`${verb} {table} |{bar}| {percentage}% · {value}/{total} rows · {eta_formatted} left`);
  let started = false;
  return {
    progress(table, done, total) {
      if (!started) bar.start(total, done, { table });
      started = true;
      bar.update(done, { table });
    },
    stop: () => bar.stop(),
  };
}

const count = (n: number) => n.toLocaleString('en');

export async function exportCommand(file: string): Promise<void> {
  if (file !== '-' && !existsSync(path.dirname(path.resolve(file)))) throw new Error(`${path.dirname(file)}: no such folder to write ${path.basename(file)} into`);
  const c = loadConfig();
  const db = await open(c);
  const known = knownMasterKeyHash(c.masterKey, c.dataDir);
  const masterKeyHash = known && Buffer.from(known).toString('hex');
  // Written beside the target and renamed when complete: a failed export leaves no file that looks whole.
  const partial = file === '-' ? undefined : `${file}.partial`;
  const out: Writable = partial ? createWriteStream(partial, { mode: 0o600 }) : process.stdout;
  const bar = progressBar('exporting');
  const started = performance.now();
  try {
    const header = await exportInstance(db, out, { masterKeyHash, progress: bar.progress });
    bar.stop();
    if (partial) renameSync(partial, file);
    const rows = Object.values(header.tables).reduce((sum, n) => sum + n, 0);
    // On stderr: standard output may be the export itself (-).
    process.stderr.write(
      `Exported ${describe(c)} (schema ${header.schema}) to ${file === '-' ? 'standard output' : file} in ${((performance.now() - started) / 1000).toFixed(1)} s: ` +
        `${count(header.tables.organisations!)} organisations, ${count(header.tables.collections!)} collections, ` +
        `${count(header.tables.entries!)} entries, ${count(header.tables.chunks!)} chunks, ${count(rows)} rows in all.\n`,
    );
  } catch (error) {
    bar.stop();
    if (partial) rmSync(partial, { force: true });
    throw error;
  } finally {
    await db.close();
  }
}

export async function importCommand(file: string, options: { replace: boolean }): Promise<void> {
  const c = loadConfig();
  let input: Readable = process.stdin;
  if (file !== '-') {
    if (!existsSync(file)) throw new Error(`${file}: no such file`);
    input = createReadStream(file);
  }
  const db = await open(c);
  const bar = progressBar('importing');
  const started = performance.now();
  try {
    const { header, rows, models } = await importInstance(db, input, { replace: options.replace, progress: bar.progress });
    bar.stop();
    process.stdout.write(
      `Imported ${count(rows)} rows (${count(header.tables.organisations!)} organisations, ${count(header.tables.entries!)} entries, ` +
        `${count(header.tables.chunks!)} chunks) from a ${header.source} export of ${header.exported_at} into ${describe(c)} ` +
        `in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`,
    );
    if (models.length > 0) {
      process.stdout.write(`Chunks were embedded with ${models.map((m) => `${m.model} (${m.dims} dimensions, ${count(m.chunks)} chunks)`).join(', ')}; start Lore with the same embedding model to search them.\n`);
    }
    adoptMasterKey(c, header.master_key_sha256);
  } catch (error) {
    bar.stop();
    // A row the database refuses (a damaged or edited file) is reported like any other problem.
    throw new Error(`${error instanceof TransferError ? '' : 'the import failed: '}${(error as Error).message}. Nothing was imported.`);
  } finally {
    await db.close();
  }
}

/** The export's master key becomes this instance's when it has none of its own yet. */
function adoptMasterKey(c: Config, exported: string | undefined): void {
  if (!exported) return;
  const own = knownMasterKeyHash(c.masterKey, c.dataDir);
  if (own) {
    const where = c.masterKey ? 'LORE_MASTER_KEY' : `the one in ${masterKeyFile(c.dataDir)}`;
    if (Buffer.from(own).toString('hex') !== exported) process.stdout.write(`The master key stays ${where} (the exported instance had another).\n`);
    return;
  }
  storeMasterKeyHash(c.dataDir, Buffer.from(exported, 'hex'));
  process.stdout.write(`The exported instance's master key is this one's too (its hash is now in ${masterKeyFile(c.dataDir)}).\n`);
}
