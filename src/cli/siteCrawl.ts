/**
 * `lore crawl <start-url> --collection <id>`: a website into a collection of a running Lore,
 * one entry per page (source_type `web`, source_id the page's URL), through the public API's
 * batch upsert — the same chunking, embedding reuse and atomic writes as any write. A re-crawl
 * asks each known page conditionally (ETag / Last-Modified) and sends only pages whose content
 * changed, so an unchanged site re-embeds nothing; pages that answer 404 or 410 are deleted
 * (`--keep-gone` keeps them). With `--sections`, a page is an entry per section (source_id
 * `URL#slug`, source_url at the site's own heading id), as `lore import --sections` makes them;
 * the entries a page read no longer makes (a section removed, or the other mode's) are
 * deleted. See src/crawler/crawl.ts for scope and politeness.
 */
import cliProgress from 'cli-progress';
import { cleanUrl } from '../crawler/crawl.js';
import { batchWriter, emptyReport, WEB_SOURCE_TYPE } from '../domain/crawl/sources.js';
import type { CrawlReport } from '../domain/crawl/port.js';
import { runCrawl } from '../crawler/crawlRun.js';
import { apiBatchUpsert, deleteBySource, formatReport, ImportError, loreClient, storedEntries } from './loreApi.js';

export type { CrawlReport };

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
  /** One entry per section of a page (`##`, a long one split at `###`) (see `SiteCrawlSettings.sections`). */
  sections?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  progress?: boolean;
}

export async function crawlSite(options: CrawlCommandOptions): Promise<CrawlReport> {
  const start = cleanUrl(options.start);
  if (!start) throw new ImportError(`${options.start} is not an http(s) URL`);
  const api = loreClient(options.server, options.token);
  const stored = await storedEntries(api, options.collection, WEB_SOURCE_TYPE);
  const report: CrawlReport = { ...emptyReport(), found: 0, fetched: 0 };
  const bar = (options.progress ?? process.stderr.isTTY)
    ? new cliProgress.SingleBar({ format: 'crawling [{bar}] {value}/{total} pages fetched · {written} written · {failed} failed', hideCursor: true, stream: process.stderr }, cliProgress.Presets.shades_classic)
    : null;
  bar?.start(1, 0, { written: 0, failed: 0 });
  const writer = batchWriter(apiBatchUpsert(api, options.collection), stored, report);
  await runCrawl(
    {
      start,
      maxPages: options.maxPages,
      concurrency: options.concurrency,
      delayMs: options.delayMs,
      timeoutMs: options.timeoutMs ?? 15_000,
      maxBytes: options.maxBytes ?? 5 * 1024 * 1024,
      include: options.include,
      exclude: options.exclude,
      keepGone: options.keepGone,
      sections: options.sections ?? false,
    },
    stored,
    { ...writer, remove: async (sourceId) => void (await deleteBySource(api, options.collection, WEB_SOURCE_TYPE, sourceId, report)) },
    report,
    (progress) => {
      bar?.setTotal(Math.max(1, progress.found));
      bar?.update(progress.fetched, { written: report.created + report.updated, failed: report.failed.length });
    },
  );
  bar?.update(report.fetched, { written: report.created + report.updated, failed: report.failed.length });
  bar?.stop();
  return report;
}

/** The report as the command prints it; with `sections`, its counts are of sections. */
export function formatCrawlReport(start: string, collection: string, report: CrawlReport, sections = false): string {
  return formatReport(`Crawled ${start} into collection ${collection}${sections ? ', one entry a section' : ''}: ${report.fetched} pages fetched of ${report.found} found`, report);
}
