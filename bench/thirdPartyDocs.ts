/**
 * Third-party documentation for the answers bench (`--sets vite,express`): other projects' docs
 * as their authors keep them, under `../shared/data/docs/` (never copied into the project), and
 * the question sets written over them (bench/data/vite-qa.jsonl, express-qa.jsonl). The docs are
 * read as `lore import DIR --sections` reads a folder (src/importers/folder.ts), so a question's
 * `sources` name entries by their source_id (`FILE#anchor`, or `FILE` for the text before the
 * first `##` section) and a cited URL is matched as the import publishes it under its base URL.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { markdownSections } from '../src/domain/ingestion/text/sections.js';
import { fileUrl, listFolder, markdownDocument, readFolderFile } from '../src/importers/folder.js';
import type { SourceEntry } from '../src/domain/crawl/sources.js';

/** Where the shared evaluation data keeps the docs, relative to the project root. */
export const DOCS_ROOT = path.resolve('../shared/data/docs');

export interface DocsQuestion { question: string; gold: string[]; sources: string[]; kind: string; type: string; lang?: string }

/** One imported docs folder: its name in reports, where it is on disk and where it is published. */
export interface DocsFolder { name: string; dir: string; baseUrl: string; lang: string }

/** Express's languages with a question set (English has the API reference as well). */
export const EXPRESS_LANGS = ['en', 'de', 'es', 'ja', 'zh-cn'] as const;

/** The folders of a set: Vite's docs, or Express's docs per language (one collection each). */
export function docsFolders(set: 'vite' | 'express', root = DOCS_ROOT): DocsFolder[] {
  if (set === 'vite') return [{ name: 'vite', dir: path.join(root, 'vite'), baseUrl: 'https://vite.dev/', lang: 'en' }];
  return EXPRESS_LANGS.map((lang) => ({ name: `express-${lang}`, dir: path.join(root, 'express', lang), baseUrl: `https://expressjs.com/${lang}/`, lang }));
}

/** Whether the shared docs are there (a checkout without ../shared/data has none). */
export function docsAvailable(root = DOCS_ROOT): boolean {
  return existsSync(path.join(root, 'vite')) && existsSync(path.join(root, 'express'));
}

/** The entries `lore import dir --sections` makes of a folder (files it cannot read left out). */
export async function folderEntries(dir: string, baseUrl: string | null): Promise<SourceEntry[]> {
  const entries: SourceEntry[] = [];
  for (const file of (await listFolder(dir)).files) {
    const read = await readFolderFile(file, { baseUrl, sections: true });
    if (!('skipped' in read)) entries.push(...read.entries);
  }
  return entries;
}

/**
 * The text of every `##` section of a folder's Markdown and MDX files as their authors wrote it
 * (front matter left out, MDX kept: JSX tags and their attributes, such as a `<Param
 * default="100kb">`, are part of the section), by the source_id the import gives it. Gold
 * strings are checked against this, so a question whose answer the import loses still counts.
 */
export async function authoredSections(dir: string): Promise<Map<string, string>> {
  const sections = new Map<string, string>();
  for (const file of (await listFolder(dir)).files) {
    if (!/\.mdx?$/i.test(file.relative)) continue;
    const { text } = markdownDocument(await readFile(file.absolute, 'utf8'), false);
    for (const section of markdownSections(text)) {
      const explicit = section.title === null ? null : /\s*\{#([\w-]+)\}$/.exec(section.title);
      const anchor = explicit ? explicit[1]! : section.slug;
      sections.set(anchor === '' ? file.relative : `${file.relative}#${anchor}`, section.text);
    }
  }
  return sections;
}

/** The URL a question's source (`FILE` or `FILE#anchor`) has once imported under `baseUrl`. */
export function sourceUrl(baseUrl: string, source: string): string {
  const at = source.indexOf('#');
  return at < 0 ? fileUrl(baseUrl, source) : `${fileUrl(baseUrl, source.slice(0, at))}${source.slice(at)}`;
}

/**
 * Whether `url` (cited or retrieved) is one of `q`'s sources as imported under `baseUrl` — or,
 * given the imported entries' heading anchors by source_id (`meta.anchors`), a heading inside
 * one (`inSection`).
 */
export function isSourceOf(q: Pick<DocsQuestion, 'sources'>, baseUrl: string, url: string, anchors?: ReadonlyMap<string, unknown>): boolean {
  return q.sources.some((s) => inSection(url, sourceUrl(baseUrl, s), anchors?.get(s)));
}

/**
 * Whether `url` links the section at `gold` or one of the headings inside it, whose ids are
 * `anchors` (the section entry's `meta.anchors`): a citation links the sub-heading the words
 * it quotes stand under.
 */
export function inSection(url: string, gold: string, anchors: unknown): boolean {
  if (sameUrl(url, gold)) return true;
  if (typeof anchors !== 'object' || anchors === null || !url.includes('#') || !sameUrl(url.split('#')[0]!, gold.split('#')[0]!)) return false;
  const fragment = url.slice(url.indexOf('#') + 1);
  return Object.values(anchors).some((id) => typeof id === 'string' && sameUrl(encodeURIComponent(id), fragment));
}

/** URLs compared as a reader's browser would: percent-encoding undone, so `#wie-gehe-…` and its encoded form match. */
export const sameUrl = (a: string, b: string) => {
  const decode = (u: string) => { try { return decodeURI(u); } catch { return u; } };
  return decode(a) === decode(b);
};

/**
 * Case-insensitive containment, any run of white space as one space (a sentence wrapped in the
 * source is one line in an answer); spaces ignored for Chinese and Japanese, written without them.
 */
export function containsGold(text: string, gold: string, lang: string): boolean {
  const norm = (s: string) => s.replace(/\s+/g, ['zh', 'zh-cn', 'ja'].includes(lang) ? '' : ' ').toLowerCase();
  return norm(text).includes(norm(gold));
}

const KINDS = new Set(['table', 'code', 'list', 'prose']);
const TYPES = new Set(['definition', 'howto', 'yesno', 'value', 'comparison', 'explanation', 'why']);

/**
 * What is wrong with a question set over `entries` (by source_id): a field missing or of the
 * wrong kind, a repeated question, a source that is no entry, a gold string in none of its
 * sources' text (as imported). Empty when the set is sound.
 */
export function questionProblems(questions: readonly DocsQuestion[], entries: ReadonlyMap<string, string>, lang = 'en'): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, q] of questions.entries()) {
    const where = `${i + 1}: ${String(q.question)}`;
    if (typeof q.question !== 'string' || q.question.trim() === '') problems.push(`${where}: no question`);
    if (seen.has(q.question)) problems.push(`${where}: repeated`);
    seen.add(q.question);
    if (!Array.isArray(q.gold) || q.gold.length === 0 || !q.gold.every((g) => typeof g === 'string' && g.trim() !== '')) problems.push(`${where}: gold`);
    if (!Array.isArray(q.sources) || q.sources.length === 0) problems.push(`${where}: sources`);
    if (!KINDS.has(q.kind) || !TYPES.has(q.type)) problems.push(`${where}: kind/type`);
    const texts: string[] = [];
    for (const source of q.sources ?? []) {
      const text = entries.get(source);
      if (text === undefined) problems.push(`${where}: unknown source ${source}`);
      else texts.push(text);
    }
    if (texts.length > 0 && Array.isArray(q.gold) && !q.gold.some((g) => texts.some((t) => containsGold(t, g, q.lang ?? lang)))) problems.push(`${where}: no gold string in its sources`);
  }
  return problems;
}
