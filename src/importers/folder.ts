/**
 * A folder of documents as entries: which files are read, how each becomes an entry (title,
 * text, source id and URL), and why a file is left out. Used by `lore import <dir>`
 * (src/cli/folderImport.ts), which sends the entries through the public API's batch upsert.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { parse as parseYaml } from 'yaml';
import { LIMITS } from '../domain/ingestion/entries.js';
import { markdownAnchors, sectionParts, type Anchors } from '../domain/ingestion/text/sections.js';
import { htmlToMarkdown } from './html.js';
import { mdxAsMarkdown } from './mdx.js';
import { entryHash, overLimits, type SourceEntry } from '../domain/crawl/sources.js';
import { pdfText } from './pdf.js';

/** The source_type of entries made from files: the importer's own, so it may prune them. */
export const FILE_SOURCE_TYPE = 'file';

/** Extensions read, by how. */
const MARKDOWN = new Set(['.md', '.markdown', '.mdx']);
const TEXT = new Set(['.txt', '.text', '.rst', '.adoc']);
const HTML = new Set(['.html', '.htm', '.xhtml']);
const PDF = '.pdf';
/** Folders nobody means to import. */
const ALWAYS_IGNORED = ['.*', 'node_modules/'];
/** Files larger than this are not read at all (the entry limit is 500,000 characters). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface FolderFile {
  /** Path relative to the folder, with `/` separators: the entry's source_id. */
  relative: string;
  absolute: string;
}

export type ReadResult = { entries: SourceEntry[]; note?: string } | { skipped: string };

export interface ReadOptions {
  /** Where the folder is published (see `fileUrl`); null: entries have no source_url. */
  baseUrl: string | null;
  /**
   * One entry per section of a Markdown file (and one for the text before the first), as
   * DocSearch keeps a record per heading level: a search hit is the section, not the whole
   * file. Sections are `##` ones, a long one split at its `###` (then `####`) sub-headings
   * (see `markdownSections`).
   * Its source_id is `path#anchor` (the file's path for the text before the first section),
   * its source_url the file's URL with that anchor. Other files stay one entry each.
   */
  sections?: boolean;
}

/**
 * Files under `dir` that the importer reads (Markdown, MDX, HTML, PDF, plain text), recursively, in a
 * stable order; dot files and folders and node_modules are left out, and so is whatever the
 * gitignore-style `patterns` match. Other files are returned in `unsupported`.
 */
export async function listFolder(dir: string, patterns: readonly string[] = []): Promise<{ files: FolderFile[]; unsupported: FolderFile[] }> {
  const rules: Ignore = ignore().add([...ALWAYS_IGNORED, ...patterns]);
  const files: FolderFile[] = [];
  const unsupported: FolderFile[] = [];
  async function walk(relativeDir: string): Promise<void> {
    const entries = await readdir(path.join(dir, relativeDir), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relative = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!rules.ignores(`${relative}/`)) await walk(relative);
      } else if (entry.isFile() && !rules.ignores(relative)) {
        const file = { relative, absolute: path.join(dir, relative) };
        const extension = path.extname(entry.name).toLowerCase();
        (MARKDOWN.has(extension) || TEXT.has(extension) || HTML.has(extension) || extension === PDF ? files : unsupported).push(file);
      }
    }
  }
  await walk('');
  return { files, unsupported };
}

/** Reads one file as its entries (one, or one per section), or says why it is left out. */
export async function readFolderFile(file: FolderFile, options: ReadOptions): Promise<ReadResult> {
  const { baseUrl } = options;
  const { size } = await stat(file.absolute);
  if (size > MAX_FILE_BYTES) return { skipped: `larger than ${MAX_FILE_BYTES / 1024 / 1024} MB` };
  const bytes = await readFile(file.absolute);
  const extension = path.extname(file.relative).toLowerCase();
  if (extension === PDF) {
    let pdf: { title: string | null; text: string };
    try {
      pdf = await pdfText(new Uint8Array(bytes));
    } catch (error) {
      return { skipped: `unreadable PDF (${(error as Error).message})` };
    }
    if (pdf.text.trim() === '') return { skipped: 'no text (a scanned PDF without a text layer?)' };
    return fileEntry(file, pdf, baseUrl);
  }
  const decoded = decode(bytes);
  if ('skipped' in decoded) return decoded;
  if (MARKDOWN.has(extension) && options.sections) {
    const read = sectionEntries(file, markdownDocument(decoded.text, extension === '.mdx'), baseUrl);
    return 'entries' in read && decoded.note ? { ...read, note: [decoded.note, read.note].filter(Boolean).join('; ') } : read;
  }
  const document = MARKDOWN.has(extension)
    ? (({ title, text }) => ({ title, text, anchors: markdownAnchors(text) }))(markdownDocument(decoded.text, extension === '.mdx'))
    : HTML.has(extension)
      ? (({ title, markdown, anchors }) => ({ title, text: markdown, anchors }))(htmlToMarkdown(decoded.text))
      : { title: null, text: decoded.text };
  const read = fileEntry(file, document, baseUrl);
  return 'entries' in read && decoded.note ? { ...read, note: decoded.note } : read;
}

/** The entry of a file read as `document`, or why it is left out. */
function fileEntry(file: FolderFile, document: { title: string | null; text: string; anchors?: Anchors | null }, baseUrl: string | null): ReadResult {
  const sourceUrl = baseUrl ? fileUrl(baseUrl, file.relative) : null;
  // Anchors only matter where the file is linked: answers then link its sections.
  const anchors = sourceUrl !== null ? (document.anchors ?? null) : null;
  const entry = entryOf(file, { sourceId: file.relative, title: document.title ?? fileTitle(file.relative), text: document.text, sourceUrl, anchors });
  return typeof entry === 'string' ? { skipped: entry } : { entries: [entry] };
}

/**
 * The entries of a Markdown file's sections (see `ReadOptions.sections` and `sectionParts`):
 * a section's title is its heading path under the document's title (`sectionTitle`), the text
 * before the first section takes the document's title. A section over an entry's limits is
 * left out and said in the note.
 */
function sectionEntries(file: FolderFile, document: { title: string | null; text: string }, baseUrl: string | null): ReadResult {
  const url = baseUrl ? fileUrl(baseUrl, file.relative) : null;
  const entries: SourceEntry[] = [];
  const left: string[] = [];
  for (const { fragment, link, title, pageTitle, text, anchors } of sectionParts(document)) {
    const entry = entryOf(file, { sourceId: `${file.relative}${fragment}`, title: title ?? fileTitle(file.relative), text, sourceUrl: url === null ? null : `${url}${link}`, anchors: url === null ? null : anchors, pageTitle });
    if (typeof entry === 'string') left.push(`${fragment || 'the text before the first section'} (${entry})`);
    else entries.push(entry);
  }
  if (entries.length === 0) return { skipped: left.length === 0 ? 'no text' : `no section could be kept: ${left.join(', ')}` };
  return left.length === 0 ? { entries } : { entries, note: `left out ${left.join(', ')}` };
}

/** An entry of `file`, or why it cannot be one. */
function entryOf(file: FolderFile, part: { sourceId: string; title: string; text: string; sourceUrl: string | null; anchors: Anchors | null; pageTitle?: string | null }): SourceEntry | string {
  const text = part.text.trim();
  if (text === '') return 'no text';
  const refused = overLimits(part.sourceId, text, 'path');
  if (refused) return refused;
  const title = part.title.slice(0, LIMITS.title);
  const { sourceUrl, anchors } = part;
  const pageTitle = part.pageTitle?.slice(0, LIMITS.title) || null;
  const hash = entryHash({ title, text, sourceUrl, anchors, pageTitle });
  return {
    source_type: FILE_SOURCE_TYPE,
    source_id: part.sourceId,
    title,
    raw_text: text,
    source_url: sourceUrl !== null && sourceUrl.length <= LIMITS.sourceUrl ? sourceUrl : null,
    meta: { path: file.relative, content_sha256: hash, ...(anchors && { anchors }), ...(pageTitle && { page_title: pageTitle }) },
  };
}

/**
 * Bytes as text: UTF-8 (a BOM dropped), UTF-16 with a BOM, else Windows-1252 (said in a
 * note). A NUL byte in UTF-8 or Windows-1252 text means a binary file.
 */
export function decode(bytes: Buffer): { text: string; note?: string } | { skipped: string } {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)) };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)) };
  if (bytes.includes(0)) return { skipped: 'binary (NUL bytes)' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes) };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), note: 'not UTF-8: read as Windows-1252' };
  }
}

/**
 * A Markdown or MDX document: its title (front matter `title`, else its first `# ` heading)
 * and its text without the front matter; MDX as the Markdown its rendered page shows (./mdx.ts).
 */
export function markdownDocument(source: string, mdx: boolean): { title: string | null; text: string } {
  let text = source.replace(/\r\n?/g, '\n');
  let title: string | null = null;
  const frontMatter = /^---\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  if (frontMatter) {
    text = text.slice(frontMatter[0].length);
    try {
      const data = parseYaml(frontMatter[1]!) as unknown;
      if (data && typeof data === 'object' && typeof (data as { title?: unknown }).title === 'string') title = (data as { title: string }).title.trim() || null;
    } catch {
      // Front matter that is not YAML is left out all the same.
    }
  }
  if (mdx) text = mdxAsMarkdown(text);
  title ??= /^#[ \t]+(.+?)[ \t#]*$/m.exec(outsideFences(text))?.[1]?.trim() ?? null;
  return { title, text };
}

/** The text with fenced code blocks blanked (so a `# comment` in code is not a heading). */
function outsideFences(text: string): string {
  return text.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** "getting-started/first_steps.md" → "First steps". */
function fileTitle(relative: string): string {
  const base = path.posix.basename(relative).replace(/\.[^.]+$/, '');
  const words = base.replace(/[-_]+/g, ' ').trim() || base;
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Where a file is published under `baseUrl`: Markdown without its extension, and `index` or
 * `README` as its folder (`guide/intro.md` → `<base>/guide/intro`, `guide/index.md` →
 * `<base>/guide/`); other files as they are named.
 */
export function fileUrl(baseUrl: string, relative: string): string {
  let route = relative;
  if (MARKDOWN.has(path.posix.extname(route).toLowerCase())) {
    route = route.replace(/\.[^./]+$/, '');
    route = route.replace(/(^|\/)(?:index|readme)$/i, '$1');
  }
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return new URL(route.split('/').map(encodeURIComponent).join('/'), base).toString();
}
