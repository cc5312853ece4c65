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
  /**
   * `running` while a process holds it; `interrupted` when its run's process stopped reporting
   * (died) and no other has taken it up yet; `queued` when due (or a run waits for a slot to
   * go on); else `idle`.
   */
  status: 'idle' | 'queued' | 'running' | 'interrupted';
  next_run_at: string | null;
  progress: CrawlerProgress | null;
  /** When the process running the run in progress last reported; null between runs. */
  last_seen_at: string | null;
  last_run: CrawlerRun | null;
  created_at: string;
  updated_at: string;
}

/** A crawler a process took to run, with what its run in progress has done (null: none). */
export interface ClaimedCrawler extends CrawlerSettings {
  id: string;
  organisationId: number;
  collection_id: string;
  run: RunState | null;
}

/** A run in progress as the database keeps it between its slices (and across a crash). */
export interface RunState {
  started_at: string;
  /** The settings it crawls by (`runKey`): a run whose crawler changed them starts over. */
  key: string;
  /** Whether its seeds (start URL, known pages, sitemaps) are all in its frontier. */
  seeded: boolean;
  /** The report so far (its lists capped as the last run's are). */
  report: CrawlerRun['report'];
}

/** A URL a crawl queued: its key (normaliseUrl) and where to fetch it. */
export interface CrawlTarget {
  url: string;
  location: string;
}

/** What a run saves with each batch it writes: URLs queued since (in order; `settled` when they need no fetch), URLs whose results are written, its state. */
export interface RunCheckpoint {
  found: (CrawlTarget & { settled: boolean })[];
  settled: string[];
  run: RunState;
  progress: CrawlerProgress;
}

/** How far organisations' crawls are: runs held now, and whether a due crawler waits for a slot. */
export interface OrganisationCrawls {
  organisationId: number;
  running: number;
  waiting: boolean;
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
   * Takes a due crawler (or one whose run waits to go on), leasing it for `leaseSeconds`,
   * fairly among organisations: of those running fewer than `runsPerOrganisation` crawls, the
   * one running fewest, then the one that took a crawler longest ago (or never); of its
   * crawlers, the one taken longest ago (or never), then due longest. Null when none is due
   * (or every due one's organisation runs its most already).
   */
  claimDue(leaseSeconds: number, runsPerOrganisation: number): Promise<ClaimedCrawler | null>;
  /** Organisations with runs held or due crawlers waiting (the runner's fairness check). */
  organisations(): Promise<OrganisationCrawls[]>;
  /** A run in progress's frontier: the URLs still to fetch (in order) and those settled. */
  frontier(id: string): Promise<{ pending: CrawlTarget[]; settled: Set<string> }>;
  /** Starts a run from nothing (its frontier emptied); false when the crawler was deleted. */
  begin(id: string, run: RunState, leaseSeconds: number): Promise<boolean>;
  /** Records progress and renews the lease; false when the crawler was deleted meanwhile. */
  progress(id: string, progress: CrawlerProgress, leaseSeconds: number): Promise<boolean>;
  /** Saves a run's checkpoint and renews the lease, atomically; false when the crawler was deleted. */
  checkpoint(id: string, checkpoint: RunCheckpoint, leaseSeconds: number): Promise<boolean>;
  /** Gives the run's slot up (its checkpoint saved): due, it continues when taken again. */
  release(id: string): Promise<void>;
  /** Ends every lease now: a process that owns the database alone (PGlite) knows the runs it finds leased were cut. */
  expireLeases(): Promise<void>;
  /** Records the run, forgets its frontier, releases the lease and schedules the next run. */
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
  /** Stops the crawl between pages, as failed (the crawler deleted). */
  signal?: AbortSignal;
  /** Stops the crawl at once, its results so far saved (`journal`), to go on later: it resolves 'paused'. */
  pause?: AbortSignal;
}

/**
 * A crawl that can stop and go on (the server's crawlers): where an earlier slice stopped,
 * what it finds, and a save after each small batch of results written.
 */
export interface CrawlJournal {
  /** Where the run stopped before: its frontier and counts; null for a run from the start. */
  resume: { seeded: boolean; pending: CrawlTarget[]; settled: ReadonlySet<string>; found: number; fetched: number } | null;
  /** A URL queued, in order (`settled`: it needs no fetch, as one robots.txt disallows). */
  found(target: CrawlTarget, settled: boolean): void;
  /** Every seed (start URL, known pages, sitemaps) is queued. */
  seeded(): void;
  /** The results of these URLs are written: saves them with what was found and the report. */
  save(settled: string[]): Promise<void>;
}

/**
 * The port a site crawl implements (crawler/crawlRun.ts `runCrawl`): crawls with `settings`,
 * writing to `sink` the pages whose entries differ from `stored` (by source id), deleting gone
 * ones, counting in `report`; `onProgress` after each page, and what it throws ends the crawl.
 * With a `journal` it resumes where it says, saves as it writes, and stops on `pause`.
 */
export type SiteCrawl = (
  settings: SiteCrawlSettings,
  stored: ReadonlyMap<string, StoredEntry>,
  sink: EntrySink,
  report: CrawlReport,
  onProgress?: (progress: CrawlProgress) => Promise<void> | void,
  journal?: CrawlJournal,
) => Promise<'finished' | 'paused'>;
