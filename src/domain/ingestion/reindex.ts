/**
 * `lore reindex`: chunks embedded by another model than the configured one are embedded
 * again (DESIGN.md: each chunk records its model). Vectors of different models do not
 * compare: a query embedded by the new model finds an old model's chunks by words only, or
 * not at all when the dimensions differ. Each entry is chunked and embedded again as a write
 * would, and its chunks replaced with their postings and statistics in one transaction; the
 * entry itself (its updated_at too) is left as it is. Runs beside live servers on
 * PostgreSQL: an entry written meanwhile is left to that write, and a later pass picks up
 * whatever is still stale.
 */
import type { EntryFields, Scope } from '../model.js';
import type { EntryRepository } from './port.js';
import type { Ingestion } from './pipeline.js';

/** An entry with chunks to embed again, and what re-chunking it needs. */
export interface StaleEntry {
  scope: Scope;
  collectionId: string;
  id: string;
  updatedAt: string;
  fields: EntryFields;
  /** Chunks it has now. */
  chunks: number;
}

export interface ModelCount {
  model: string;
  dims: number;
  chunks: number;
}

export interface ReindexSource {
  /** Every organisation's chunks, counted by the model (and dimension) that embedded them. */
  models(): Promise<ModelCount[]>;
  /**
   * Up to `limit` entries, in id order after `after`, with a chunk not embedded by `model`
   * (with any chunk when `all`), across organisations.
   */
  stale(model: string, all: boolean, after: string | null, limit: number): Promise<StaleEntry[]>;
}

export interface ReindexReport {
  model: string;
  /** Chunks by model before the run and after it. */
  before: ModelCount[];
  after: ModelCount[];
  /** Entries whose chunks were replaced, and how many chunks they had. */
  entries: number;
  chunks: number;
  seconds: number;
}

/** Entries embedded together (their chunks go to the model as one batch per collection). */
const ENTRIES_PER_BATCH = 32;
/** Passes over the entries: a later one takes what writes made stale during an earlier one. */
const MAX_PASSES = 3;

export async function reindex(
  deps: { source: ReindexSource; ingestion: Ingestion; entries: Pick<EntryRepository, 'replaceChunks'>; model: string },
  options: { all?: boolean; progress?: (done: number, total: number) => void } = {},
): Promise<ReindexReport> {
  const { source, ingestion, entries, model } = deps;
  const all = options.all ?? false;
  const started = performance.now();
  const before = await source.models();
  const stale = (counts: readonly ModelCount[]) => counts.filter((m) => all || m.model !== model).reduce((n, m) => n + m.chunks, 0);
  let total = stale(before);
  let done = 0;
  let entriesDone = 0;
  options.progress?.(0, total);
  // With --all, one pass: every entry once (a second would embed them all again).
  for (let pass = 0, left = total; pass < (all ? 1 : MAX_PASSES) && left > 0; pass++, left = stale(await source.models())) {
    let after: string | null = null;
    for (;;) {
      const batch = await source.stale(model, all, after, ENTRIES_PER_BATCH);
      if (batch.length === 0) break;
      after = batch.at(-1)!.id;
      for (const group of byCollection(batch)) {
        const { scope, collectionId } = group[0]!;
        // Embedded anew: the stored vectors of equal content are the old model's (and with
        // --all, the entry's own).
        const prepared = await ingestion.prepare(scope, collectionId, group.map((e) => e.fields), { reuse: false });
        const replaced = new Set(
          await entries.replaceChunks(scope, collectionId, group.map((e, i) => ({ entryId: e.id, updatedAt: e.updatedAt, chunks: prepared[i]! }))),
        );
        for (const e of group) {
          if (!replaced.has(e.id)) continue;
          entriesDone += 1;
          done += e.chunks;
        }
        total = Math.max(total, done);
        options.progress?.(done, total);
      }
    }
  }
  return { model, before, after: await source.models(), entries: entriesDone, chunks: done, seconds: (performance.now() - started) / 1000 };
}

/** Entries grouped by organisation and collection, in the order first seen. */
function byCollection(batch: readonly StaleEntry[]): StaleEntry[][] {
  const groups = new Map<string, StaleEntry[]>();
  for (const e of batch) {
    const key = `${e.scope.organisationId}/${e.collectionId}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(e);
  }
  return [...groups.values()];
}
