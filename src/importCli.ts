/**
 * `lore import <dir> --collection <id>`: a folder of documents into a collection of a running
 * Lore, through the public API (batch upsert and delete by source), so it goes through the
 * same chunking, embedding reuse and atomic writes as any write. Incremental: a file whose
 * content hash is the one stored with its entry (`meta.content_sha256`) is not sent again;
 * `--prune` deletes the entries of files that are gone. Unreadable and unsupported files are
 * reported, not fatal. With `--sections`, a Markdown file is an entry per `##` section; the
 * entries of a file that no longer has a section (or that was imported the other way) are
 * deleted when the file is read, prune or not.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { FILE_SOURCE_TYPE, listFolder, readFolderFile } from './sources/folder.js';
import { apiBatchUpsert, batchWriter, deleteBySource, emptyReport, formatReport, ImportError, loreClient, storedEntries, type SourceReport } from './sources/loreApi.js';


export interface FolderImportOptions {
  dir: string;
  collection: string;
  server: string;
  token: string;
  baseUrl: string | null;
  prune: boolean;
  ignore: readonly string[];
  /** One entry per `##` section of a Markdown file (see `ReadOptions.sections`). */
  sections?: boolean;
  /** Progress bar on standard error (default: when it is a terminal). */
  progress?: boolean;
}

export interface FolderImportReport extends SourceReport {
  /** Files of a supported type found (read, or skipped with a reason). */
  files: number;
}

export async function importFolder(options: FolderImportOptions): Promise<FolderImportReport> {
  const info = await stat(options.dir).catch(() => null);
  if (!info?.isDirectory()) throw new ImportError(`${options.dir} is not a folder`);
  if (options.baseUrl !== null && !/^https?:\/\/[^/]/i.test(options.baseUrl)) throw new ImportError('--base-url must be an http(s) URL');
  const api = loreClient(options.server, options.token);

  const stored = await storedEntries(api, options.collection, FILE_SOURCE_TYPE);
  const { files, unsupported } = await listFolder(options.dir, options.ignore);
  const report: FolderImportReport = { ...emptyReport(), files: files.length };
  for (const file of unsupported) report.skipped.push({ path: file.relative, reason: `unsupported type (${path.extname(file.relative) || 'no extension'})` });

  const bar = (options.progress ?? process.stderr.isTTY) ? new cliProgress.SingleBar({ format: 'importing [{bar}] {value}/{total} files {stage}', hideCursor: true, stream: process.stderr }, cliProgress.Presets.shades_classic) : null;
  bar?.start(files.length, 0, { stage: '' });
  const writer = batchWriter(apiBatchUpsert(api, options.collection), stored, report);
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
  for (const file of files) {
    // A file that is there keeps its entries even when it cannot be read: --prune leaves them.
    try {
      const read = await readFolderFile(file, { baseUrl: options.baseUrl, sections: options.sections ?? false });
      if ('skipped' in read) {
        report.skipped.push({ path: file.relative, reason: read.skipped });
      } else {
        if (read.note) report.notes.push({ path: file.relative, note: read.note });
        for (const entry of read.entries) {
          if (stored.get(entry.source_id)?.meta.content_sha256 === entry.meta.content_sha256) report.unchanged++;
          else await writer.write(entry);
        }
        const made = new Set(read.entries.map((e) => e.source_id));
        replaced.push(...(storedOf.get(file.relative) ?? []).filter((id) => !made.has(id)));
      }
    } catch (error) {
      if (error instanceof ImportError) throw error;
      report.failed.push({ path: file.relative, reason: (error as Error).message });
    }
    bar?.increment();
  }
  await writer.flush();

  const gone = options.prune ? [...stored.keys()].filter((id) => !listed.has(fileOf(id))) : [];
  if (replaced.length + gone.length > 0) {
    bar?.update({ stage: '(removing entries of files changed or gone)' });
    for (const sourceId of [...replaced, ...gone]) await deleteBySource(api, options.collection, FILE_SOURCE_TYPE, sourceId, report);
  }
  bar?.stop();
  return report;
}

/** The report as the command prints it. */
export function formatImportReport(dir: string, collection: string, report: FolderImportReport): string {
  return formatReport(`Imported ${dir} into collection ${collection}: ${report.files} files read`, report);
}
