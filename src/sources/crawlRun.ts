/**
 * A crawl into a collection: the crawl's results (sources/crawl.ts) as entry writes, deletes
 * and a report, whatever writes them — Lore's API for `lore crawl`, the entry service for the
 * server's crawlers (domain/crawlers.ts).
 */
import { LIMITS } from '../domain/entries.js';
import { crawl, type CrawlOptions, type CrawlProgress } from './crawl.js';
import type { SourceEntry, SourceReport, StoredEntry } from './loreApi.js';

export const WEB_SOURCE_TYPE = 'web';

export interface CrawlReport extends SourceReport {
  /** URLs in scope found (links, sitemaps, known pages). */
  found: number;
  /** Requests for pages made. */
  fetched: number;
}

/** Where the pages go. `write` may batch; it and `remove` count what they did in the report. */
export interface EntrySink {
  write(entry: SourceEntry): Promise<void>;
  flush(): Promise<void>;
  remove(sourceId: string): Promise<void>;
}

export interface CrawlSettings extends Omit<CrawlOptions, 'known'> {
  keepGone: boolean;
  /** Stops the crawl between pages (closing Lore). */
  signal?: AbortSignal;
}

/**
 * Crawls, writing the pages whose content changed (by content hash, or where they are
 * fetched), deleting known pages that answer 404 or 410 unless `keepGone`, and reporting the
 * rest. `onProgress` is called after each result; what it throws ends the crawl.
 */
export async function runCrawl(
  settings: CrawlSettings,
  stored: ReadonlyMap<string, StoredEntry>,
  sink: EntrySink,
  report: CrawlReport,
  onProgress?: (progress: CrawlProgress) => Promise<void> | void,
): Promise<void> {
  const known = new Map([...stored].map(([url, { meta, sourceUrl }]) => [url, { location: sourceUrl, etag: text(meta.etag), lastModified: text(meta.last_modified) }]));
  const progress: CrawlProgress = { found: 0, fetched: 0 };
  for await (const result of crawl({ ...settings, known }, progress)) {
    if (settings.signal?.aborted) throw new Error('the crawl was stopped');
    switch (result.kind) {
      case 'page': {
        const before = stored.get(result.url);
        if (before?.meta.content_sha256 === result.contentHash && before.sourceUrl === result.location) report.unchanged++;
        else if (result.url.length > LIMITS.sourceId) report.skipped.push({ path: result.url, reason: `URL longer than ${LIMITS.sourceId} characters` });
        else if (result.text.length > LIMITS.rawText) report.skipped.push({ path: result.url, reason: `longer than ${LIMITS.rawText.toLocaleString('en')} characters` });
        else
          await sink.write({
            source_type: WEB_SOURCE_TYPE,
            source_id: result.url,
            title: (result.title ?? result.url).slice(0, LIMITS.title),
            raw_text: result.text,
            source_url: result.location.length <= LIMITS.sourceUrl ? result.location : null,
            meta: { content_sha256: result.contentHash, etag: result.etag, last_modified: result.lastModified, ...(result.anchors && { anchors: result.anchors }) },
          });
        break;
      }
      case 'unchanged':
        report.unchanged++;
        break;
      case 'gone':
        if (stored.has(result.url) && !settings.keepGone) await sink.remove(result.url);
        else report.skipped.push({ path: result.url, reason: `HTTP ${result.status}${stored.has(result.url) ? ' (kept: keep gone pages)' : ''}` });
        break;
      case 'skipped':
        report.skipped.push({ path: result.url, reason: result.reason });
        break;
      case 'failed':
        report.failed.push({ path: result.url, reason: result.reason });
        break;
    }
    report.found = progress.found;
    report.fetched = progress.fetched;
    await onProgress?.(progress);
  }
  await sink.flush();
  report.found = progress.found;
  report.fetched = progress.fetched;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
