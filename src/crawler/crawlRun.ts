/**
 * A crawl into a collection: the crawl's results (crawler/crawl.ts) as entry writes, deletes
 * and a report, whatever writes them — Lore's API for `lore crawl`, the entry service for the
 * server's crawlers (domain/crawl/crawlers.ts).
 */
import { LIMITS } from '../domain/ingestion/entries.js';
import { sectionParts, slugify } from '../domain/ingestion/text/sections.js';
import { entryHash, overLimits, WEB_SOURCE_TYPE, type SourceEntry, type StoredEntry } from '../domain/crawl/sources.js';
import type { CrawlJournal, CrawlProgress, CrawlReport, EntrySink, SiteCrawlSettings } from '../domain/crawl/port.js';
import { crawl, type CrawlResult } from './crawl.js';

type Page = Extract<CrawlResult, { kind: 'page' }>;

/**
 * Crawls, writing the pages whose entries changed (content hash, where they are fetched, one
 * entry or sections), deleting known pages that answer 404 or 410 unless `keepGone`, and
 * reporting the rest. A page read is written whole — its section entries all, with the page's
 * validators — and the entries it made before and makes no more (a section removed, or the
 * other mode's) are deleted. `onProgress` is called after each result; what it throws ends
 * the crawl.
 *
 * With a `journal` (the server's crawlers), results are written in small batches as they come
 * (SAVE_RESULTS, or SAVE_MS after the first unsaved one) and each batch is saved with the
 * URLs it settles, so a run cut at any point goes on from its last save and fetches again
 * only what it had not saved; `pause` stops it once its requests in flight are answered,
 * written and saved ('paused').
 */
export async function runCrawl(
  settings: SiteCrawlSettings,
  stored: ReadonlyMap<string, StoredEntry>,
  sink: EntrySink,
  report: CrawlReport,
  onProgress?: (progress: CrawlProgress) => Promise<void> | void,
  journal?: CrawlJournal,
): Promise<'finished' | 'paused'> {
  const pages = storedPages(stored);
  // A page stored in the other mode is not asked conditionally: a 304 would leave it so.
  const known = new Map(
    [...pages].map(([url, page]) => [url, { location: page.location, ...(page.sections === settings.sections && { etag: page.etag, lastModified: page.lastModified }) }]),
  );
  const progress: CrawlProgress = { found: 0, fetched: 0 };
  const results = crawl({ ...settings, known, journal }, progress);
  // Results handled but not yet saved as settled, and since when.
  const unsaved: string[] = [];
  let unsavedSince = 0;
  const save = async () => {
    await sink.flush();
    await journal!.save(unsaved.splice(0));
  };
  let ended: 'finished' | 'paused';
  for (;;) {
    const next = await results.next();
    if (next.done) {
      ended = next.value;
      break;
    }
    const result = next.value;
    if (settings.signal?.aborted) throw new Error('the crawl was stopped');
    switch (result.kind) {
      case 'page': {
        const ids = pages.get(result.url)?.ids ?? [];
        const { entries, left } = settings.sections ? pageSections(result) : pageEntry(result);
        report.skipped.push(...left);
        const made = new Set(entries.map((entry) => entry.source_id));
        const same = (entry: SourceEntry) => {
          const before = stored.get(entry.source_id);
          return before?.meta.content_sha256 === entry.meta.content_sha256 && before.sourceUrl === entry.source_url && before.meta.page === entry.meta.page;
        };
        if (entries.every(same) && ids.every((id) => made.has(id))) report.unchanged += entries.length;
        else for (const entry of entries) await sink.write(entry);
        // A page none of whose entries can be kept keeps what it had, as when it fails.
        if (entries.length > 0) for (const id of ids) if (!made.has(id)) await sink.remove(id);
        break;
      }
      case 'unchanged':
        report.unchanged += pages.get(result.url)?.ids.length ?? 1;
        break;
      case 'gone': {
        const ids = pages.get(result.url)?.ids ?? [];
        if (ids.length > 0 && !settings.keepGone) for (const id of ids) await sink.remove(id);
        else report.skipped.push({ path: result.url, reason: `HTTP ${result.status}${ids.length > 0 ? ' (kept: keep gone pages)' : ''}` });
        break;
      }
      case 'skipped':
        report.skipped.push({ path: result.url, reason: result.reason });
        break;
      case 'failed':
        report.failed.push({ path: result.url, reason: result.reason });
        break;
    }
    report.found = progress.found;
    report.fetched = progress.fetched;
    if (journal) {
      if (unsaved.length === 0) unsavedSince = Date.now();
      unsaved.push(result.url);
      if (unsaved.length >= SAVE_RESULTS || Date.now() - unsavedSince >= SAVE_MS) await save();
    }
    await onProgress?.(progress);
  }
  report.found = progress.found;
  report.fetched = progress.fetched;
  if (journal) await save();
  else await sink.flush();
  return ended;
}

/** A resumable run writes and saves its results at least every SAVE_RESULTS results or SAVE_MS. */
const SAVE_RESULTS = 5;
const SAVE_MS = 1_000;

/** The entries of a page, and the parts of it left out (over an entry's limits) with why. */
interface PageEntries {
  entries: SourceEntry[];
  left: { path: string; reason: string }[];
}

/** A page as one entry: source_id its key, `meta.anchors` its headings' ids (answers link the section they quote). */
function pageEntry(page: Page): PageEntries {
  const refused = overLimits(page.url, page.text, 'URL');
  if (refused) return { entries: [], left: [{ path: page.url, reason: refused }] };
  const { contentHash, etag, lastModified, anchors } = page;
  return {
    entries: [
      {
        source_type: WEB_SOURCE_TYPE,
        source_id: page.url,
        title: (page.title ?? page.url).slice(0, LIMITS.title),
        raw_text: page.text,
        source_url: page.location.length <= LIMITS.sourceUrl ? page.location : null,
        meta: { content_sha256: contentHash, etag, last_modified: lastModified, ...(anchors && { anchors }) },
      },
    ],
    left: [],
  };
}

/**
 * A page as one entry per section (`sectionParts`): source_id `key#slug` (the key alone for the
 * text before the first section), the heading path as title (the page's title before the
 * first section), source_url where the page was fetched with the id the site gives the heading
 * (its slug when the page gives none). `meta.page` names the page (its key) and marks the
 * entry a section, `meta.page_title` gives the page's title (not for the text before the
 * first section, titled by it); `meta.content_sha256` hashes what the entry holds.
 */
function pageSections(page: Page): PageEntries {
  const entries: SourceEntry[] = [];
  const left: PageEntries['left'] = [];
  for (const part of sectionParts({ title: page.title, text: titled(page.text, page.title) }, page.anchors)) {
    const sourceId = `${page.url}${part.fragment}`;
    const { text } = part;
    const refused = overLimits(sourceId, text, 'URL');
    if (refused) {
      left.push({ path: sourceId, reason: refused });
      continue;
    }
    const title = (part.title ?? page.url).slice(0, LIMITS.title);
    const sourceUrl = `${page.location}${part.link}`;
    const source_url = sourceUrl.length <= LIMITS.sourceUrl ? sourceUrl : null;
    const { anchors } = part;
    const pageTitle = part.pageTitle?.slice(0, LIMITS.title) || null;
    const contentHash = entryHash({ title, text, sourceUrl: source_url, anchors, pageTitle });
    entries.push({
      source_type: WEB_SOURCE_TYPE,
      source_id: sourceId,
      title,
      raw_text: text,
      source_url,
      meta: { content_sha256: contentHash, etag: page.etag, last_modified: page.lastModified, page: page.url, ...(anchors && { anchors }), ...(pageTitle && { page_title: pageTitle }) },
    });
  }
  return { entries, left };
}

/** Why an entry of `sourceId` holding `text` cannot be written; null when it can. */
/**
 * A page's Markdown with a first heading that repeats the page's title made its `#` title:
 * Readability hands the page's `<h1>` on as an `<h2>`, which would otherwise be a section
 * holding the page's introduction.
 */
function titled(markdown: string, title: string | null): string {
  const first = /^#{2,6}[ \t]+(.+?)[ \t#]*(?:\n|$)/.exec(markdown);
  return first && title !== null && slugify(first[1]!) === slugify(title) ? markdown.replace(/^#+/, '#') : markdown;
}

/** A page's stored entries (its own, or its sections', which name it in `meta.page`) and where it was fetched and how it answered. */
interface StoredPage {
  ids: string[];
  /** Whether they are sections; null when some are and some not (a run between modes that stopped). */
  sections: boolean | null;
  location: string | null;
  etag: string | null;
  lastModified: string | null;
}

/** The stored entries by page (key). */
function storedPages(stored: ReadonlyMap<string, StoredEntry>): Map<string, StoredPage> {
  const pages = new Map<string, StoredPage>();
  for (const [id, { meta, sourceUrl }] of stored) {
    const sections = typeof meta.page === 'string';
    const key = sections ? (meta.page as string) : id;
    const page = pages.get(key);
    if (page) {
      page.ids.push(id);
      if (page.sections !== sections) page.sections = null;
    } else {
      // A section's source_url is the page's location with the section's anchor.
      pages.set(key, { ids: [id], sections, location: sourceUrl?.replace(/#.*$/s, '') ?? null, etag: text(meta.etag), lastModified: text(meta.last_modified) });
    }
  }
  return pages;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
