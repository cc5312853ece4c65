/**
 * `lore import <dir> --collection <id>`: a folder of documents into a collection of a running
 * Lore, through the public API (batch upsert and delete by source), so it goes through the
 * same chunking, embedding reuse and atomic writes as any write. Incremental: a file whose
 * content hash is the one stored with its entry (`meta.content_sha256`) is not sent again;
 * `--prune` deletes the entries of files that are gone. Unreadable and unsupported files are
 * reported, not fatal. With `--sections`, a Markdown file is an entry per section (`##`, a long one split at `###`); the
 * entries of a file that no longer has a section (or that was imported the other way) are
 * deleted when the file is read, prune or not. Progress counts files done: read, and their
 * entries written (batches are sent as files are read while progress is shown).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { FILE_SOURCE_TYPE, listFolder, readFolderFile } from '../importers/folder.js';
import { batchWriter, emptyReport, type BatchUpsert, type SourceEntry, type SourceReport } from '../domain/crawl/sources.js';
import { apiBatchUpsert, deleteBySource, ImportError, loreClient, storedEntries } from './loreApi.js';


export interface FolderImportOptions {
  dir: string;
  collection: string;
  server: string;
  token: string;
  baseUrl: string | null;
  prune: boolean;
  ignore: readonly string[];
  /** One entry per section of a Markdown file (`##`, a long one split at `###`) (see `ReadOptions.sections`). */
  sections?: boolean;
  /** Progress bar on standard error (default: when it is a terminal). */
  progress?: boolean;
  /** Called as each file is done: read, and each entry it makes written (or refused) or unchanged. */
  onProgress?: (filesDone: number, files: number) => void;
}

export interface FolderImportReport extends SourceReport {
  /** Files of a supported type found (read, or skipped with a reason). */
  files: number;
  /** Files read into entries. */
  files_read: number;
  /** The entries those files make (one a file, or one a section with --sections). */
  entries: number;
}

/** While progress is shown, the pending batch is sent after this share of the files at least, so it moves as files are written. */
const PROGRESS_STEPS = 40;

/**
 * Imports the folder into the collection; the report counts files and entries apart. Throws
 * ImportError when the run cannot go on (not a folder, unreachable server, refused token).
 */
export async function importFolder(options: FolderImportOptions): Promise<FolderImportReport> {
  const info = await stat(options.dir).catch(() => null);
  if (!info?.isDirectory()) throw new ImportError(`${options.dir} is not a folder`);
  if (options.baseUrl !== null && !/^https?:\/\/[^/]/i.test(options.baseUrl)) throw new ImportError('--base-url must be an http(s) URL');
  const api = loreClient(options.server, options.token);

  const stored = await storedEntries(api, options.collection, FILE_SOURCE_TYPE);
  const { files, unsupported } = await listFolder(options.dir, options.ignore);
  const report: FolderImportReport = { ...emptyReport(), files: files.length, files_read: 0, entries: 0 };
  for (const file of unsupported) report.skipped.push({ path: file.relative, reason: `unsupported type (${path.extname(file.relative) || 'no extension'})` });

  const progress = fileProgress(files.length, options);
  const upsert = apiBatchUpsert(api, options.collection);
  // batchWriter sends a batch refused for what its entries hold again entry by entry: an entry
  // is answered by the reply that ends its attempts.
  const send: BatchUpsert = async (entries) => {
    const refused = await upsert(entries);
    if (refused === null || !refused.split || entries.length === 1) progress.answered(entries, refused === null);
    return refused;
  };
  const writer = batchWriter(send, stored, report);
  // The file a stored entry was made from: its source_id, or a section's without `#anchor`.
  const listed = new Set(files.map((f) => f.relative));
  const fileOf = (sourceId: string) => (listed.has(sourceId) || !sourceId.includes('#') ? sourceId : sourceId.slice(0, sourceId.lastIndexOf('#')));
  const storedOf = new Map<string, string[]>();
  for (const sourceId of stored.keys()) {
    const file = fileOf(sourceId);
    const ids = storedOf.get(file);
    if (ids) ids.push(sourceId);
    else storedOf.set(file, [sourceId]);
  }
  /** Entries of files read that the file no longer makes (a section gone, or the other mode's). */
  const replaced: string[] = [];
  let sinceSent = 0;
  for (const file of files) {
    // A file that is there keeps its entries even when it cannot be read: --prune leaves them.
    let changed: SourceEntry[] = [];
    try {
      const read = await readFolderFile(file, { baseUrl: options.baseUrl, sections: options.sections ?? false });
      if ('skipped' in read) {
        report.skipped.push({ path: file.relative, reason: read.skipped });
      } else {
        if (read.note) report.notes.push({ path: file.relative, note: read.note });
        report.files_read++;
        report.entries += read.entries.length;
        changed = read.entries.filter((entry) => stored.get(entry.source_id)?.meta.content_sha256 !== entry.meta.content_sha256);
        report.unchanged += read.entries.length - changed.length;
        const made = new Set(read.entries.map((e) => e.source_id));
        replaced.push(...(storedOf.get(file.relative) ?? []).filter((id) => !made.has(id)));
      }
    } catch (error) {
      if (error instanceof ImportError) throw error;
      report.failed.push({ path: file.relative, reason: (error as Error).message });
    }
    progress.read(file.relative, changed);
    for (const entry of changed) await writer.write(entry);
    if (progress.watched && changed.length > 0 && ++sinceSent >= files.length / PROGRESS_STEPS) {
      sinceSent = 0;
      await writer.flush();
    }
  }
  await writer.flush();

  const gone = options.prune ? [...stored.keys()].filter((id) => !listed.has(fileOf(id))) : [];
  if (replaced.length + gone.length > 0) {
    progress.stage(' · removing the entries of files changed or gone');
    for (const sourceId of [...replaced, ...gone]) await deleteBySource(api, options.collection, FILE_SOURCE_TYPE, sourceId, report);
  }
  progress.stop();
  return report;
}

/**
 * Files done, as the bar (on a terminal, or when asked) and `onProgress` show them: a file is
 * done once it is read and each entry to send it makes is answered (written, or refused).
 */
function fileProgress(files: number, options: FolderImportOptions) {
  const bar = (options.progress ?? process.stderr.isTTY)
    ? new cliProgress.SingleBar({ format: 'importing [{bar}] {value}/{total} files · {written} entries written{stage}', hideCursor: true, stream: process.stderr }, cliProgress.Presets.shades_classic)
    : null;
  bar?.start(files, 0, { written: 0, stage: '' });
  /** Entries not answered yet, by file; the file of each entry sent. */
  const waiting = new Map<string, number>();
  const fileOf = new Map<string, string>();
  let written = 0;
  let done = 0;
  const fileDone = () => {
    done++;
    bar?.update(done, { written });
    options.onProgress?.(done, files);
  };
  return {
    watched: bar !== null || options.onProgress !== undefined,
    /** `file` is read: `entries` are to be sent (none: it is done). */
    read(file: string, entries: readonly SourceEntry[]) {
      waiting.set(file, entries.length);
      for (const entry of entries) fileOf.set(entry.source_id, file);
      if (entries.length === 0) fileDone();
    },
    /** The server answered for `entries`: written, or refused. */
    answered(entries: readonly SourceEntry[], ok: boolean) {
      if (ok) written += entries.length;
      for (const entry of entries) {
        const file = fileOf.get(entry.source_id)!;
        const left = waiting.get(file)! - 1;
        waiting.set(file, left);
        if (left === 0) fileDone();
      }
      bar?.update({ written });
    },
    stage: (text: string) => bar?.update({ stage: text }),
    stop: () => bar?.stop(),
  };
}

/** The report as the command prints it: files and entries counted apart, then what was left out and why. */
export function formatImportReport(dir: string, collection: string, report: FolderImportReport, sections: boolean): string {
  const made = sections ? ` (${report.entries} ${report.entries === 1 ? 'section' : 'sections'})` : '';
  const lines = [
    `Imported ${dir} into collection ${collection}: ${report.files_read} ${report.files_read === 1 ? 'file' : 'files'} read${made} — ` +
      `${report.created} entries new, ${report.updated} changed, ${report.unchanged} unchanged, ${report.deleted} deleted; ` +
      `${report.skipped.length} files skipped, ${report.failed.length} failed.`,
  ];
  for (const { path, reason } of report.failed) lines.push(`  failed   ${path}: ${reason}`);
  for (const { path, reason } of report.skipped) lines.push(`  skipped  ${path}: ${reason}`);
  for (const { path, note } of report.notes) lines.push(`  note     ${path}: ${note}`);
  return lines.join('\n');
}
