/**
 * `lore crawl <start-url> --collection <id>`: a website into a collection of a running Lore,
 * one entry per page (source_type `web`, source_id and source_url the page's URL), through the
 * public API's batch upsert — the same chunking, embedding reuse and atomic writes as any
 * write. A re-crawl asks each known page conditionally (ETag / Last-Modified) and sends only
 * pages whose content changed, so an unchanged site re-embeds nothing; pages that answer 404
 * or 410 are deleted (`--keep-gone` keeps them). See src/sources/crawl.ts for scope and
 * politeness.
 */
import cliProgress from 'cli-progress';
import { LIMITS } from './domain/entries.js';
import { cleanUrl, crawl, type CrawlProgress } from './sources/crawl.js';
import { batchWriter, deleteBySource, emptyReport, formatReport, ImportError, loreClient, storedEntries, type SourceReport } from './sources/loreApi.js';

export { ImportError };

export const WEB_SOURCE_TYPE = 'web';

export interface CrawlCommandOptions {
  start: string;
  collection: string;
  server: string;
  token: string;
  maxPages: number;
  concurrency: number;
  delayMs: number;
  include: readonly string[];
  exclude: readonly string[];
  keepGone: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  progress?: boolean;
}

export interface CrawlReport extends SourceReport {
  /** URLs in scope found (links, sitemaps, known pages). */
  found: number;
  /** Requests for pages made. */
  fetched: number;
}

export async function crawlSite(options: CrawlCommandOptions): Promise<CrawlReport> {
  const start = cleanUrl(options.start);
  if (!start) throw new ImportError(`${options.start} is not an http(s) URL`);
  const api = loreClient(options.server, options.token);
  const stored = await storedEntries(api, options.collection, WEB_SOURCE_TYPE);
  const known = new Map([...stored].map(([url, { meta, sourceUrl }]) => [url, { location: sourceUrl, etag: text(meta.etag), lastModified: text(meta.last_modified) }]));
  const report: CrawlReport = { ...emptyReport(), found: 0, fetched: 0 };
  const progress: CrawlProgress = { found: 0, fetched: 0 };
  const bar = (options.progress ?? process.stderr.isTTY)
    ? new cliProgress.SingleBar({ format: 'crawling [{bar}] {value}/{total} pages fetched · {changed} written · {failed} failed', hideCursor: true, stream: process.stderr }, cliProgress.Presets.shades_classic)
    : null;
  bar?.start(1, 0, { changed: 0, failed: 0 });
  const writer = batchWriter(api, options.collection, stored, report);

  for await (const result of crawl(
    {
      start,
      maxPages: options.maxPages,
      concurrency: options.concurrency,
      delayMs: options.delayMs,
      timeoutMs: options.timeoutMs ?? 15_000,
      maxBytes: options.maxBytes ?? 5 * 1024 * 1024,
      include: options.include,
      exclude: options.exclude,
      known,
    },
    progress,
  )) {
    switch (result.kind) {
      case 'page': {
        const before = stored.get(result.url);
        if (before?.meta.content_sha256 === result.contentHash && before.sourceUrl === result.location) {
          report.unchanged++;
          break;
        }
        if (result.url.length > LIMITS.sourceId) {
          report.skipped.push({ path: result.url, reason: `URL longer than ${LIMITS.sourceId} characters` });
          break;
        }
        if (result.text.length > LIMITS.rawText) {
          report.skipped.push({ path: result.url, reason: `longer than ${LIMITS.rawText.toLocaleString('en')} characters` });
          break;
        }
        await writer.add({
          source_type: WEB_SOURCE_TYPE,
          source_id: result.url,
          title: (result.title ?? result.url).slice(0, LIMITS.title),
          raw_text: result.text,
          source_url: result.location.length <= LIMITS.sourceUrl ? result.location : null,
          meta: { content_sha256: result.contentHash, etag: result.etag, last_modified: result.lastModified },
        });
        break;
      }
      case 'unchanged':
        report.unchanged++;
        break;
      case 'gone':
        if (stored.has(result.url) && !options.keepGone) await deleteBySource(api, options.collection, WEB_SOURCE_TYPE, result.url, report);
        else report.skipped.push({ path: result.url, reason: `HTTP ${result.status}${stored.has(result.url) ? ' (kept: --keep-gone)' : ''}` });
        break;
      case 'skipped':
        report.skipped.push({ path: result.url, reason: result.reason });
        break;
      case 'failed':
        report.failed.push({ path: result.url, reason: result.reason });
        break;
    }
    bar?.setTotal(Math.max(1, progress.found));
    bar?.update(progress.fetched, { changed: report.created + report.updated, failed: report.failed.length });
  }
  await writer.flush();
  bar?.update(progress.fetched, { changed: report.created + report.updated, failed: report.failed.length });
  bar?.stop();
  report.found = progress.found;
  report.fetched = progress.fetched;
  return report;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function formatCrawlReport(start: string, collection: string, report: CrawlReport): string {
  return formatReport(`Crawled ${start} into collection ${collection}: ${report.fetched} pages fetched of ${report.found} found`, report);
}
