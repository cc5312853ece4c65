/** `lore reindex`: chunks embedded by another model embedded again by the configured one (domain/ingestion/reindex.ts). */
import { createEmbedder } from '../container.js';
import { createIngestion } from '../domain/ingestion/pipeline.js';
import { reindex, type ModelCount } from '../domain/ingestion/reindex.js';
import { createEntryRepository } from '../storage/entries.js';
import { createMaintenance } from '../storage/maintenance.js';
import { dropUnusedVectorIndexes, ensureVectorIndex } from '../storage/migrate.js';
import { createReindexSource } from '../storage/reindex.js';
import { loadConfig } from '../config.js';
import { describe, open, stderrBar } from './transfer.js';

const count = (n: number) => n.toLocaleString('en');
const models = (counts: readonly ModelCount[]) =>
  counts.length === 0 ? 'no chunks' : counts.map((m) => `${m.model} (${m.dims} dimensions): ${count(m.chunks)} chunks`).join('; ');

export async function reindexCommand(options: { all: boolean; json: boolean }): Promise<void> {
  const c = loadConfig();
  const db = await open(c);
  let embedder;
  try {
    embedder = await createEmbedder(c);
  } catch (error) {
    await db.close();
    throw new Error(`the embedding model could not be loaded: ${(error as Error).message}`);
  }
  // A terminal gets a bar; a file or a pipe gets nothing until the summary.
  const bar = stderrBar('reindexing |{bar}| {percentage}% · {value}/{total} chunks · {eta_formatted} left');
  let stopped: Error | undefined;
  const maintenance = createMaintenance(db, { log: (error) => process.emitWarning(`Index maintenance failed: ${String(error)}`) });
  try {
    await ensureVectorIndex(db, embedder.dimensions);
    const entries = createEntryRepository(db, embedder, maintenance);
    const report = await reindex(
      { source: createReindexSource(db), ingestion: createIngestion({ embedder, entries }), entries, model: embedder.model },
      {
        all: options.all,
        progress(done, total) {
          if (total === 0) return;
          if (bar.getTotal() !== total) bar.start(total, done);
          bar.update(done);
        },
      },
    );
    bar.stop();
    await maintenance.idle();
    const dropped = await dropUnusedVectorIndexes(db, embedder.dimensions);
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ ...report, dropped_indexes: dropped }, null, 2)}\n`);
    } else if (report.chunks === 0 && report.entries === 0) {
      process.stdout.write(`Every chunk in ${describe(c)} is embedded with ${embedder.model} already: nothing to do.\n`);
    } else {
      const rate = report.seconds > 0 ? ` (${count(Math.round(report.chunks / report.seconds))} chunks/s)` : '';
      process.stdout.write(
        `Embedded the ${count(report.chunks)} chunks of ${count(report.entries)} entries again with ${embedder.model} in ${describe(c)}, ` +
          `${report.seconds.toFixed(1)} s${rate}.\nBefore: ${models(report.before)}.\nNow: ${models(report.after)}.\n` +
          (dropped.length > 0 ? `Dropped the vector indexes of ${dropped.join(', ')} dimensions (no vectors left).\n` : ''),
      );
    }
    const left = report.after.filter((m) => m.model !== embedder.model);
    if (!options.all && left.length > 0) {
      process.stderr.write(`Chunks of other models are still stored (written meanwhile by a server running another model?): run lore reindex again.\n`);
      process.exitCode = 1;
    }
  } catch (error) {
    bar.stop();
    stopped = error as Error;
  } finally {
    await maintenance.idle();
    await db.close();
  }
  if (stopped) throw new Error(`the reindex stopped: ${stopped.message}. Entries embedded again so far keep their new chunks; run it again to go on.`);
}
