/**
 * Website crawlers of collections, run by the server: a start URL, scope patterns and a
 * schedule; each run crawls the site through the SiteCrawl port (port.ts; crawler/crawlRun.ts,
 * as `lore crawl` does) and writes the pages through the entry service's batch upsert — the same chunking, embedding reuse and
 * atomic writes as the API. State another process must see lives in the database: which
 * process runs a crawler (a lease it renews), the progress of a run, the last run's report.
 * Every process looks for due crawlers; one takes each.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { batchWriter, emptyReport, WEB_SOURCE_TYPE } from './sources.js';
import type { Crawler, CrawlerProgress, CrawlerRepository, CrawlerRun, CrawlerSettings, CrawlReport, EntrySink, SiteCrawl } from './port.js';
import type { EntryService } from '../ingestion/entries.js';
import { NotFoundError, OverloadedError, ValidationError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { EntryRepository } from '../ingestion/port.js';

export interface CrawlerService {
  list(scope: Scope, collectionId: string, page: PageRequest): Promise<Page<Crawler>>;
  get(scope: Scope, collectionId: string, id: string): Promise<Crawler>;
  /** Creates a crawler; its first run starts at once. */
  create(scope: Scope, collectionId: string, settings: CrawlerSettings): Promise<Crawler>;
  update(scope: Scope, collectionId: string, id: string, settings: Partial<CrawlerSettings>): Promise<Crawler>;
  delete(scope: Scope, collectionId: string, id: string): Promise<void>;
  run(scope: Scope, collectionId: string, id: string): Promise<Crawler>;
}

const REPORTED_PAGES = 100;
/** Crawlers an organisation may have (a 422 past it): a tenant cannot queue thousands. */
export const CRAWLERS_PER_ORGANISATION = 50;
/** Runs of one organisation's crawlers at once, across processes; others' crawlers take the rest. */
export const RUNS_PER_ORGANISATION = 2;

/** A start URL a crawler may have: http(s), no credentials (private addresses: see `privateTarget`, and every fetch is checked). */
export function checkStartUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw ValidationError.field('start_url', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw ValidationError.field('start_url', 'must be an absolute http(s) URL');
  if (url.username || url.password) throw ValidationError.field('start_url', 'must not carry credentials');
  url.hash = '';
  return url.toString();
}

export function createCrawlerService(deps: {
  crawlers: CrawlerRepository;
  collectionExists: (scope: Scope, id: string) => Promise<boolean>;
  /**
   * The private address a crawl of a start URL would reach, or null; absent when private
   * networks may be crawled (LORE_CRAWL_PRIVATE_NETWORKS). Such a crawler is refused when
   * created, moved there or run, rather than accepted and failing every page.
   */
  privateTarget?: (url: string) => Promise<string | null>;
}): CrawlerService {
  const { crawlers } = deps;
  async function requirePublic(startUrl: string): Promise<void> {
    const target = await deps.privateTarget?.(startUrl);
    if (target) {
      throw ValidationError.field('start_url', `reaches a private address (${target}); this server crawls public addresses only unless LORE_CRAWL_PRIVATE_NETWORKS is on`);
    }
  }
  async function requireCollection(scope: Scope, collectionId: string) {
    if (!isUuid(collectionId) || !(await deps.collectionExists(scope, collectionId))) throw new NotFoundError('Collection');
  }
  async function get(scope: Scope, collectionId: string, id: string): Promise<Crawler> {
    await requireCollection(scope, collectionId);
    const crawler = isUuid(id) ? await crawlers.get(scope, collectionId, id) : null;
    if (!crawler) throw new NotFoundError('Crawler');
    return crawler;
  }
  return {
    async list(scope, collectionId, page) {
      await requireCollection(scope, collectionId);
      return crawlers.list(scope, collectionId, page);
    },
    get,
    async create(scope, collectionId, settings) {
      await requireCollection(scope, collectionId);
      const startUrl = checkStartUrl(settings.start_url);
      await requirePublic(startUrl);
      const created = await crawlers.create(scope, collectionId, randomUUID(), { ...settings, start_url: startUrl }, CRAWLERS_PER_ORGANISATION);
      if (!created) throw ValidationError.field('crawlers', `An organisation may have at most ${CRAWLERS_PER_ORGANISATION} crawlers; delete one first.`);
      return created;
    },
    async update(scope, collectionId, id, patch) {
      const current = await get(scope, collectionId, id);
      const settings: CrawlerSettings = {
        start_url: patch.start_url === undefined ? current.start_url : checkStartUrl(patch.start_url),
        include: patch.include ?? current.include,
        exclude: patch.exclude ?? current.exclude,
        max_pages: patch.max_pages ?? current.max_pages,
        keep_gone: patch.keep_gone ?? current.keep_gone,
        sections: patch.sections ?? current.sections,
        schedule_hours: patch.schedule_hours === undefined ? current.schedule_hours : patch.schedule_hours,
      };
      if (settings.start_url !== current.start_url) await requirePublic(settings.start_url);
      const updated = await crawlers.update(scope, collectionId, id, settings);
      if (!updated) throw new NotFoundError('Crawler');
      return updated;
    },
    async delete(scope, collectionId, id) {
      await requireCollection(scope, collectionId);
      if (!isUuid(id) || !(await crawlers.delete(scope, collectionId, id))) throw new NotFoundError('Crawler');
    },
    async run(scope, collectionId, id) {
      await requirePublic((await get(scope, collectionId, id)).start_url);
      if (!(await crawlers.requestRun(scope, collectionId, id))) throw new NotFoundError('Crawler');
      return get(scope, collectionId, id);
    },
  };
}

export interface CrawlerRunner {
  /** Looks for a due crawler and runs it; resolves when that run ends (tests call it). */
  tick(): Promise<boolean>;
  /** Stops looking; a run in progress is cut, its lease left to expire. */
  close(): Promise<void>;
}

/**
 * Runs due crawlers in this process, one at a time, every `intervalMs`. A run renews its
 * lease with each progress report and, whatever it waits for (a slow site, Crawl-delay, the
 * embedding queue), every quarter of the lease; a crawler deleted meanwhile stops its run.
 */
export function createCrawlerRunner(deps: {
  crawlers: CrawlerRepository;
  entries: EntryService;
  /** What the collection holds of a source type (EntryRepository.sourceEntries). */
  sourceEntries: EntryRepository['sourceEntries'];
  /** The site crawl (crawler/crawlRun.ts `runCrawl`). */
  crawl: SiteCrawl;
  fetch: typeof fetch;
  /** How often due crawlers are looked for (default 15 s); 0: only when `tick` is called. */
  intervalMs?: number;
  /** Milliseconds between two requests to a site (politeness). */
  delayMs?: number;
  /** How long a run's lease lasts without renewal (default 120 s). */
  leaseSeconds?: number;
  log?: (error: unknown) => void;
}): CrawlerRunner {
  const LEASE_SECONDS = deps.leaseSeconds ?? 120;
  const controller = new AbortController();
  let current: Promise<boolean> = Promise.resolve(false);
  let busy = false;

  async function runOne(): Promise<boolean> {
    const crawler = await deps.crawlers.claimDue(LEASE_SECONDS, RUNS_PER_ORGANISATION);
    if (!crawler) return false;
    const scope = { organisationId: crawler.organisationId };
    const started = new Date().toISOString();
    const report: CrawlReport = { ...emptyReport(), found: 0, fetched: 0 };
    let outcome: CrawlerRun['outcome'] = 'finished';
    let error: string | null = null;
    // The run stops when the process closes or the crawler is deleted; its lease is renewed
    // on a timer too, so no wait between results lets it lapse while the run goes on.
    const run = new AbortController();
    const stop = () => run.abort(controller.signal.reason);
    controller.signal.addEventListener('abort', stop);
    let latest: CrawlerProgress = { found: 0, fetched: 0, written: 0, failed: 0 };
    const renew = async () => {
      if (!(await deps.crawlers.progress(crawler.id, latest, LEASE_SECONDS))) run.abort(new Error('the crawler was deleted'));
    };
    const heartbeat = setInterval(() => void renew().catch((caught) => deps.log?.(caught)), (LEASE_SECONDS * 1000) / 4);
    heartbeat.unref();
    try {
      const stored = new Map(
        (await deps.sourceEntries(scope, crawler.collection_id, WEB_SOURCE_TYPE)).map((e) => [e.source_id, { meta: (e.meta ?? {}) as Record<string, unknown>, sourceUrl: e.source_url }]),
      );
      const sink = serviceSink(deps.entries, scope, crawler.collection_id, stored, report, run.signal);
      let lastReport = 0;
      await deps.crawl(
        {
          start: crawler.start_url,
          maxPages: crawler.max_pages,
          concurrency: 2,
          delayMs: deps.delayMs ?? 250,
          timeoutMs: 15_000,
          maxBytes: 5 * 1024 * 1024,
          include: crawler.include,
          exclude: crawler.exclude,
          keepGone: crawler.keep_gone,
          sections: crawler.sections,
          fetch: deps.fetch,
          signal: run.signal,
        },
        stored,
        sink,
        report,
        async (progress) => {
          latest = { ...progress, written: report.created + report.updated, failed: report.failed.length };
          if (Date.now() - lastReport < 1000) return;
          lastReport = Date.now();
          await renew();
          run.signal.throwIfAborted();
        },
      );
      run.signal.throwIfAborted();
    } catch (caught) {
      outcome = 'failed';
      error = (run.signal.aborted && !controller.signal.aborted ? run.signal.reason as Error : caught as Error).message;
    } finally {
      clearInterval(heartbeat);
      controller.signal.removeEventListener('abort', stop);
    }
    if (controller.signal.aborted) return true; // closing: the lease expires, another process runs it again
    await deps.crawlers.finish(crawler.id, {
      started_at: started,
      finished_at: new Date().toISOString(),
      outcome,
      error,
      report: {
        found: report.found,
        fetched: report.fetched,
        created: report.created,
        updated: report.updated,
        unchanged: report.unchanged,
        deleted: report.deleted,
        skipped: report.skipped.slice(0, REPORTED_PAGES).map(({ path, reason }) => ({ url: path, reason })),
        failed: report.failed.slice(0, REPORTED_PAGES).map(({ path, reason }) => ({ url: path, reason })),
        skipped_total: report.skipped.length,
        failed_total: report.failed.length,
      },
    }).catch((caught) => deps.log?.(caught));
    return true;
  }

  const tick = () => {
    if (busy || controller.signal.aborted) return current;
    busy = true;
    current = runOne()
      .catch((caught) => {
        deps.log?.(caught);
        return false;
      })
      .finally(() => {
        busy = false;
      });
    return current;
  };
  const interval = deps.intervalMs ?? 15_000;
  const timer = interval > 0 ? setInterval(() => void tick(), interval).unref() : null;
  return {
    tick,
    async close() {
      if (timer) clearInterval(timer);
      controller.abort();
      await current;
    },
  };
}

/** Waits on a full embedding queue (503 Overloaded) at most this many times a batch, as told, up to 30 s each. */
const OVERLOADED_RETRIES = 20;

/**
 * Writes through the entry service (batched as the API is; a batch refused as invalid is
 * retried entry by entry; one refused because the embedding queue is full waits and is sent
 * again, as `lore crawl` does on a 503).
 */
function serviceSink(entries: EntryService, scope: Scope, collectionId: string, stored: ReadonlyMap<string, unknown>, report: CrawlReport, signal: AbortSignal): EntrySink {
  const writer = batchWriter(
    async (items) => {
      for (let attempt = 0; ; attempt++) {
        try {
          await entries.batchUpsert(scope, collectionId, items);
          return null;
        } catch (error) {
          if (error instanceof OverloadedError && attempt < OVERLOADED_RETRIES) {
            await sleep(Math.min(30, error.retryAfterSeconds) * 1000, undefined, { signal });
            continue;
          }
          return { reason: (error as Error).message, split: error instanceof ValidationError };
        }
      }
    },
    stored,
    report,
  );
  return {
    ...writer,
    async remove(sourceId) {
      try {
        await entries.deleteBySource(scope, collectionId, WEB_SOURCE_TYPE, sourceId);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
      report.deleted++;
    },
  };
}
