import type { Page, PageRequest } from '../pagination.js';
import type { Scope } from '../model.js';
import type { SourceEntry, SourceReport, StoredEntry } from './sources.js';

/**
 * The crawl capability's ports: the store of the server's crawlers (storage/crawlers.ts) and
 * the site crawl that the crawler implements (crawler/crawlRun.ts `runCrawl`), so the domain
 * runs one without importing it.
 */

export interface CrawlerSettings {
  start_url: string;
  include: string[];
  exclude: string[];
  max_pages: number;
  keep_gone: boolean;
  /** One entry per section of a page, as `lore crawl --sections` makes them (crawler/crawlRun.ts); else one a page. */
  sections: boolean;
  /** Hours between the starts of two runs; null: only when asked. */
  schedule_hours: number | null;
}

export interface CrawlerProgress {
  found: number;
  fetched: number;
  written: number;
  failed: number;
}

export interface CrawlerRun {
  started_at: string;
  finished_at: string;
  /** `finished`: the crawl ran to its end (failed pages are in the report); `failed`: it could not. */
  outcome: 'finished' | 'failed';
  error: string | null;
  report: {
    found: number;
    fetched: number;
    created: number;
    updated: number;
    unchanged: number;
    deleted: number;
    /** At most REPORTED_PAGES of each, with `skipped_total` / `failed_total` the counts. */
    skipped: { url: string; reason: string }[];
    failed: { url: string; reason: string }[];
    skipped_total: number;
    failed_total: number;
  };
}

export interface Crawler extends CrawlerSettings {
  id: string;
  collection_id: string;
  /** `running` while a process holds it, `queued` when due, else `idle`. */
  status: 'idle' | 'queued' | 'running';
  next_run_at: string | null;
  progress: CrawlerProgress | null;
  last_run: CrawlerRun | null;
  created_at: string;
  updated_at: string;
}

/** A crawler a process took to run. */
export interface ClaimedCrawler extends CrawlerSettings {
  id: string;
  organisationId: number;
  collection_id: string;
}

export interface CrawlerRepository {
  list(scope: Scope, collectionId: string, page: PageRequest): Promise<Page<Crawler>>;
  get(scope: Scope, collectionId: string, id: string): Promise<Crawler | null>;
  /** Creates a crawler, due at once; null when the organisation already has `limit` crawlers. */
  create(scope: Scope, collectionId: string, id: string, settings: CrawlerSettings, limit: number): Promise<Crawler | null>;
  update(scope: Scope, collectionId: string, id: string, settings: CrawlerSettings): Promise<Crawler | null>;
  delete(scope: Scope, collectionId: string, id: string): Promise<boolean>;
  /** Makes the crawler due now (a run in progress is not restarted); false when unknown. */
  requestRun(scope: Scope, collectionId: string, id: string): Promise<boolean>;
  /**
   * Takes a due crawler, leasing it for `leaseSeconds`, fairly among organisations: of those
   * running fewer than `runsPerOrganisation` crawls, the one running fewest, then the one
   * whose last run started longest ago (or never), then its crawler due longest. Null when
   * none is due (or every due one's organisation runs its most already).
   */
  claimDue(leaseSeconds: number, runsPerOrganisation: number): Promise<ClaimedCrawler | null>;
  /** Records progress and renews the lease; false when the crawler was deleted meanwhile. */
  progress(id: string, progress: CrawlerProgress, leaseSeconds: number): Promise<boolean>;
  /** Records the run, releases the lease and schedules the next run. */
  finish(id: string, run: CrawlerRun): Promise<void>;
}

/** `created` … `deleted` count entries: pages, or with `sections` the sections of pages. */
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

/** How far a crawl has come. */
export interface CrawlProgress {
  /** URLs in scope found. */
  found: number;
  /** Requests for pages made. */
  fetched: number;
}

/** A site crawl's settings (see crawler/crawl.ts for how each is read). */
export interface SiteCrawlSettings {
  start: string;
  maxPages: number;
  concurrency: number;
  /** Milliseconds between the starts of two requests to the site. */
  delayMs: number;
  timeoutMs: number;
  maxBytes: number;
  include: readonly string[];
  exclude: readonly string[];
  /** The fetch to use (the server's crawlers: one that refuses private addresses). */
  fetch?: typeof fetch;
  /** Keep the entries of pages that answer 404 or 410. */
  keepGone: boolean;
  /** One entry per section of a page, as `lore import --sections` makes them; else one a page. */
  sections: boolean;
  /** Stops the crawl between pages (closing Lore). */
  signal?: AbortSignal;
}

/**
 * The port a site crawl implements (crawler/crawlRun.ts `runCrawl`): crawls with `settings`,
 * writing to `sink` the pages whose entries differ from `stored` (by source id), deleting gone
 * ones, counting in `report`; `onProgress` after each page, and what it throws ends the crawl.
 */
export type SiteCrawl = (
  settings: SiteCrawlSettings,
  stored: ReadonlyMap<string, StoredEntry>,
  sink: EntrySink,
  report: CrawlReport,
  onProgress?: (progress: CrawlProgress) => Promise<void> | void,
) => Promise<void>;
