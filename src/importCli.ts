/**
 * `lore import <dir> --collection <id>`: a folder of documents into a collection of a running
 * Lore, through the public API (batch upsert and delete by source), so it goes through the
 * same chunking, embedding reuse and atomic writes as any write. Incremental: a file whose
 * content hash is the one stored with its entry (`meta.content_sha256`) is not sent again;
 * `--prune` deletes the entries of files that are gone. Unreadable and unsupported files are
 * reported, not fatal.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import cliProgress from 'cli-progress';
import { FILE_SOURCE_TYPE, listFolder, readFolderFile, type FileEntry } from './sources/folder.js';

export interface FolderImportOptions {
  dir: string;
  collection: string;
  server: string;
  token: string;
  baseUrl: string | null;
  prune: boolean;
  ignore: readonly string[];
  /** Progress bar on standard error (default: when it is a terminal). */
  progress?: boolean;
}

export interface FolderImportReport {
  files: number;
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  skipped: { path: string; reason: string }[];
  failed: { path: string; reason: string }[];
  notes: { path: string; note: string }[];
}

/** A failure that ends the run (bad arguments, unreachable server, refused credential). */
export class ImportError extends Error {}

/** Entries a batch request carries, at most (the API's limit), and its body size, about. */
const BATCH_ENTRIES = 50;
const BATCH_BYTES = 4 * 1024 * 1024;
/** Waits for 429 / 503 answers, and how many times a request is tried. */
const MAX_WAIT_MS = 60_000;
const ATTEMPTS = 8;

export async function importFolder(options: FolderImportOptions): Promise<FolderImportReport> {
  const info = await stat(options.dir).catch(() => null);
  if (!info?.isDirectory()) throw new ImportError(`${options.dir} is not a folder`);
  if (options.baseUrl !== null && !/^https?:\/\/[^/]/i.test(options.baseUrl)) throw new ImportError('--base-url must be an http(s) URL');
  const api = client(options.server, options.token);
  const collectionPath = `/api/v1/collections/${encodeURIComponent(options.collection)}`;

  const report: FolderImportReport = { files: 0, created: 0, updated: 0, unchanged: 0, deleted: 0, skipped: [], failed: [], notes: [] };
  const stored = await storedHashes(api, collectionPath);
  const { files, unsupported } = await listFolder(options.dir, options.ignore);
  for (const file of unsupported) report.skipped.push({ path: file.relative, reason: `unsupported type (${path.extname(file.relative) || 'no extension'})` });
  report.files = files.length;

  const bar = (options.progress ?? process.stderr.isTTY) ? new cliProgress.SingleBar({ format: 'importing [{bar}] {value}/{total} files {stage}', hideCursor: true, stream: process.stderr }, cliProgress.Presets.shades_classic) : null;
  bar?.start(files.length, 0, { stage: '' });
  const present = new Set<string>();
  let batch: FileEntry[] = [];
  let batchBytes = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const entries = batch;
    batch = [];
    batchBytes = 0;
    await upsert(api, collectionPath, entries, stored, report);
  };
  for (const file of files) {
    present.add(file.relative);
    try {
      const read = await readFolderFile(file, options.baseUrl);
      if ('skipped' in read) {
        report.skipped.push({ path: file.relative, reason: read.skipped });
      } else {
        if (read.note) report.notes.push({ path: file.relative, note: read.note });
        if (stored.get(read.entry.source_id) === read.entry.meta.content_sha256) {
          report.unchanged++;
        } else {
          const size = Buffer.byteLength(JSON.stringify(read.entry));
          if (batch.length >= BATCH_ENTRIES || (batch.length > 0 && batchBytes + size > BATCH_BYTES)) await send();
          batch.push(read.entry);
          batchBytes += size;
        }
      }
    } catch (error) {
      if (error instanceof ImportError) throw error;
      report.failed.push({ path: file.relative, reason: (error as Error).message });
    }
    bar?.increment();
  }
  await send();

  if (options.prune) {
    bar?.update({ stage: '(removing files that are gone)' });
    for (const sourceId of stored.keys()) {
      if (present.has(sourceId)) continue;
      const response = await api('DELETE', `${collectionPath}/entries/by-source/${FILE_SOURCE_TYPE}/${encodeURIComponent(sourceId)}`);
      if (response.status === 204 || response.status === 404) report.deleted++;
      else report.failed.push({ path: sourceId, reason: `delete: ${response.status} ${response.message}` });
    }
  }
  bar?.stop();
  return report;
}

/** The content hash stored with each file entry of the collection, by source id. */
async function storedHashes(api: Api, collectionPath: string): Promise<Map<string, string | null>> {
  const hashes = new Map<string, string | null>();
  for (let page = 1; ; page++) {
    const response = await api('GET', `${collectionPath}/entries?per_page=100&page=${page}`);
    if (response.status === 404) throw new ImportError(`no collection ${collectionPath.split('/').at(-1)} for this token`);
    if (response.status !== 200) throw new ImportError(`listing the collection's entries: ${response.status} ${response.message}`);
    const body = response.body as { data: { source_type: string | null; source_id: string | null; meta: { content_sha256?: unknown } | null }[]; meta: { last_page: number } };
    for (const entry of body.data) {
      if (entry.source_type === FILE_SOURCE_TYPE && entry.source_id !== null) {
        const hash = entry.meta?.content_sha256;
        hashes.set(entry.source_id, typeof hash === 'string' ? hash : null);
      }
    }
    const pages = body.meta.last_page;
    if (body.data.length === 0 || page >= pages) return hashes;
  }
}

/** Sends a batch; a batch the API refuses is sent entry by entry, to name the files refused. */
async function upsert(api: Api, collectionPath: string, entries: FileEntry[], stored: Map<string, string | null>, report: FolderImportReport): Promise<void> {
  const count = (entry: FileEntry) => (stored.has(entry.source_id) ? report.updated++ : report.created++);
  const response = await api('POST', `${collectionPath}/entries/batch`, { entries });
  if (response.status === 200) {
    entries.forEach(count);
    return;
  }
  if (response.status >= 500 || entries.length === 1) {
    for (const entry of entries) report.failed.push({ path: entry.source_id, reason: `${response.status} ${response.message}` });
    return;
  }
  for (const entry of entries) await upsert(api, collectionPath, [entry], stored, report);
}

type Api = (method: string, route: string, body?: unknown) => Promise<{ status: number; body: unknown; message: string }>;

/**
 * Calls the API with the token; waits as told (Retry-After) on 429 and 503 and retries, and
 * retries a dropped connection. An unreachable server or a refused token ends the run.
 */
function client(server: string, token: string): Api {
  const base = server.replace(/\/+$/, '');
  return async (method, route, body) => {
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(base + route, {
          method,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(10 * 60_000),
        });
      } catch (error) {
        if (attempt === 1) throw new ImportError(`cannot reach Lore at ${base}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`);
        if (attempt >= ATTEMPTS) throw new ImportError(`lost Lore at ${base}: ${(error as Error).message}`);
        await sleep(Math.min(MAX_WAIT_MS, 500 * 2 ** attempt));
        continue;
      }
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      if (response.status === 401) throw new ImportError('the token was refused (401): pass --token or set LORE_TOKEN to an organisation API token');
      if ((response.status === 429 || response.status === 503) && attempt < ATTEMPTS) {
        const seconds = Number(response.headers.get('retry-after'));
        await sleep(Math.min(MAX_WAIT_MS, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000 * attempt));
        continue;
      }
      const message = (parsed as { message?: unknown } | null)?.message;
      return { status: response.status, body: parsed, message: typeof message === 'string' ? message : text.slice(0, 200) };
    }
  };
}

/** The report as the command prints it. */
export function formatReport(dir: string, collection: string, report: FolderImportReport): string {
  const lines = [
    `Imported ${dir} into collection ${collection}: ${report.files} files read — ${report.created} new, ${report.updated} changed, ${report.unchanged} unchanged, ${report.deleted} deleted, ${report.skipped.length} skipped, ${report.failed.length} failed.`,
  ];
  for (const { path: file, reason } of report.failed) lines.push(`  failed   ${file}: ${reason}`);
  for (const { path: file, reason } of report.skipped) lines.push(`  skipped  ${file}: ${reason}`);
  for (const { path: file, note } of report.notes) lines.push(`  note     ${file}: ${note}`);
  return lines.join('\n');
}
