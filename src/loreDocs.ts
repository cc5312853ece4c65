import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { demoWebsites, type DemoKeys, type DemoService } from './domain/demo.js';
import type { EntryInput } from './domain/entries.js';
import { markdownSections } from './domain/text/sections.js';

/** The package root: the same relative path from src/ and dist/. */
const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Where the demo shows a document (see the demo routes). */
export const DOC_PATH = '/demo/docs/';

/** Lore's own documents by name: README.md at the package root, then docs/*.md. */
export async function loreDocNames(): Promise<string[]> {
  const docs = (await readdir(`${PACKAGE_ROOT}docs`).catch(() => [] as string[])).filter((f) => /^[A-Za-z0-9_-]+\.md$/.test(f) && f !== 'README.md');
  return ['README.md', ...docs.sort()];
}

/** The markdown of one of `loreDocNames()`, or null for any other name or an unreadable file. */
export async function readLoreDoc(name: string): Promise<string | null> {
  return (await loreDocNames()).includes(name) ? readDoc(name) : null;
}

/** The markdown of a document known to be one of `loreDocNames()`; null when unreadable. */
function readDoc(name: string): Promise<string | null> {
  return readFile(`${PACKAGE_ROOT}${name === 'README.md' ? '' : 'docs/'}${name}`, 'utf8').catch(() => null);
}

/**
 * Lore's documentation as entries, one per `##` section (and one for the text before the
 * first): source_type `doc`, source_id `FILE#slug` (`FILE` for the text before the first
 * section), source_url `{baseUrl}/demo/docs/FILE#slug`, the heading as title, the document's
 * name and title in `meta`.
 */
export async function loreDocEntries(baseUrl: string): Promise<EntryInput[]> {
  const entries: EntryInput[] = [];
  for (const name of await loreDocNames()) {
    const markdown = await readDoc(name);
    if (markdown === null) continue;
    const sections = markdownSections(markdown);
    const document = sections.find((s) => s.slug === '')?.title ?? name;
    for (const section of sections) {
      const anchor = section.slug === '' ? '' : `#${section.slug}`;
      entries.push({
        source_type: 'doc',
        source_id: `${name}${anchor}`,
        source_url: `${baseUrl}${DOC_PATH}${name}${anchor}`,
        title: section.title ?? document,
        raw_text: section.text,
        // A chat answer citing a document's introduction offers to open the document.
        meta: {
          document: name,
          document_title: document,
          ...(anchor === '' ? { action: { type: 'navigate', label: `Open ${document}`.slice(0, 100), url: `${baseUrl}${DOC_PATH}${name}` } } : {}),
        },
      });
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
