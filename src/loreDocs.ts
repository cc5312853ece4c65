import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { demoWebsites, type DemoKeys, type DemoService } from './domain/widgets/demo.js';
import type { EntryInput } from './domain/ingestion/entries.js';
import { fileUrl, readFolderFile } from './importers/folder.js';

/** The package root: the same relative path from src/ and dist/. */
const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Where the demo shows its documents (see the demo routes): README.md there, docs/SEARCH.md at `SEARCH`. */
export const DOC_PATH = '/demo/docs/';

/** The path of one of `loreDocNames()` under DOC_PATH, as the folder import publishes it (`fileUrl`). */
export function docPath(name: string): string {
  return new URL(fileUrl(`http://demo${DOC_PATH}`, name)).pathname;
}

/** The URL of a demo entry by its source_id (`FILE` or `FILE#anchor`) for a server at `baseUrl`. */
export function docEntryUrl(baseUrl: string, sourceId: string): string {
  const at = sourceId.indexOf('#');
  return at < 0 ? fileUrl(`${baseUrl}${DOC_PATH}`, sourceId) : `${fileUrl(`${baseUrl}${DOC_PATH}`, sourceId.slice(0, at))}${sourceId.slice(at)}`;
}

/** Lore's own documents by name: README.md at the package root, then docs/*.md. */
export async function loreDocNames(): Promise<string[]> {
  const docs = (await readdir(`${PACKAGE_ROOT}docs`).catch(() => [] as string[])).filter((f) => /^[A-Za-z0-9_-]+\.md$/.test(f) && f !== 'README.md');
  return ['README.md', ...docs.sort()];
}

/** The markdown of one of `loreDocNames()`, or null for any other name or an unreadable file. */
export async function readLoreDoc(name: string): Promise<string | null> {
  return (await loreDocNames()).includes(name) ? readDoc(name) : null;
}

/** Where one of `loreDocNames()` is on disk. */
function docFile(name: string): string {
  return `${PACKAGE_ROOT}${name === 'README.md' ? '' : 'docs/'}${name}`;
}

/** The markdown of a document known to be one of `loreDocNames()`; null when unreadable. */
function readDoc(name: string): Promise<string | null> {
  return readFile(docFile(name), 'utf8').catch(() => null);
}

/**
 * Lore's documentation as entries, read as `lore import --sections` reads a folder of README.md
 * and docs/*.md published at `{baseUrl}/demo/docs/`: one entry per section (`##`, a long one
 * split at its `###` sub-headings; see `markdownSections`) and one for the text before the
 * first, source_type `file`, source_id `FILE#anchor` (`FILE` for the
 * text before the first section), source_url `{baseUrl}/demo/docs/` for README.md and
 * `{baseUrl}/demo/docs/NAME` for docs/NAME.md, with the anchor. A chat answer citing a
 * document's introduction offers to open the document (`meta.action`).
 */
export async function loreDocEntries(baseUrl: string): Promise<EntryInput[]> {
  const entries: EntryInput[] = [];
  for (const name of await loreDocNames()) {
    const read = await readFolderFile({ relative: name, absolute: docFile(name) }, { baseUrl: `${baseUrl}${DOC_PATH}`, sections: true }).catch(() => null);
    if (read === null || 'skipped' in read) continue;
    for (const entry of read.entries) {
      if (entry.source_id !== name) entries.push(entry);
      else entries.push({ ...entry, meta: { ...entry.meta, action: { type: 'navigate', label: `Open ${entry.title}`.slice(0, 100), url: docEntryUrl(baseUrl, name) } } });
    }
  }
  return entries;
}

/**
 * Seeds the demo over Lore's docs for a server on `port` (see `DemoService.seed`): links point
 * at `publicUrl`, else at http://127.0.0.1:{port}. Resolves with the widget keys, or null once
 * an admin removed the demo.
 */
export async function seedLoreDemo(demo: Pick<DemoService, 'seed'>, server: { port: number; publicUrl: string | undefined }): Promise<DemoKeys | null> {
  const baseUrl = server.publicUrl?.replace(/\/+$/, '') ?? `http://127.0.0.1${server.port === 80 ? '' : `:${server.port}`}`;
  return demo.seed({ entries: await loreDocEntries(baseUrl), websites: demoWebsites(server.port, server.publicUrl) });
}
