/**
 * Website crawlers of collections, run by the server: a start URL, scope patterns and a
 * schedule; each run crawls the site through the SiteCrawl port (port.ts; crawler/crawlRun.ts,
 * as `lore crawl` does) and writes the pages through the entry service's batch upsert — the same chunking, embedding reuse and
 * atomic writes as the API. State another process must see lives in the database: which
 * process runs a crawler (a lease it renews), the progress of a run, the last run's report.
 * Every process looks for due crawlers; one takes each.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { batchWriter, emptyReport, WEB_SOURCE_TYPE } from './sources.js';
import type { ClaimedCrawler, Crawler, CrawlerProgress, CrawlerRepository, CrawlerRun, CrawlerSettings, CrawlJournal, CrawlReport, EntrySink, RunCheckpoint, RunState, SiteCrawl } from './port.js';
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
/** Crawlers an organisation may have by default (LORE_CRAWL_ORGANISATION_CRAWLERS; a 422 past it): a tenant cannot queue thousands. */
export const CRAWLERS_PER_ORGANISATION = 50;
/** Runs of one organisation's crawlers at once across processes by default (LORE_CRAWL_ORGANISATION_RUNS); others' crawlers take the rest. */
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
  /** Crawlers an organisation may have (default CRAWLERS_PER_ORGANISATION). */
  crawlersPerOrganisation?: number;
}): CrawlerService {
  const { crawlers } = deps;
  const LIMIT = deps.crawlersPerOrganisation ?? CRAWLERS_PER_ORGANISATION;
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
      const created = await crawlers.create(scope, collectionId, randomUUID(), { ...settings, start_url: startUrl }, LIMIT);
      if (!created) throw ValidationError.field('crawlers', `An organisation may have at most ${LIMIT} crawlers; delete one first.`);
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
  /**
   * One scheduling round: where another organisation's crawler waits for a slot and fairness
   * asks it, one of this process's runs gives its slot up; then due crawlers are taken into
   * the free slots. Resolves with the crawlers it started (their runs go on).
   */
  schedule(): Promise<string[]>;
  /** A scheduling round, then waits for the runs it started; true when it started any (tests call it). */
  tick(): Promise<boolean>;
  /** The crawlers this process is running now. */
  running(): string[];
  /** Stops: runs in progress save and give their slots up (cut after CLOSE_MS; they go on from their last save). */
  close(): Promise<void>;
}

/** How long `close` waits for runs to save and give their slots up before cutting them. */
const CLOSE_MS = 10_000;

/** What a run crawls by: a run whose crawler changed these meanwhile starts over. */
function runKey(crawler: ClaimedCrawler): string {
  return createHash('sha256').update(JSON.stringify([crawler.start_url, crawler.include, crawler.exclude, crawler.sections])).digest('hex').slice(0, 16);
}

/**
 * Runs due crawlers in this process, `concurrency` at a time, looking for them every
 * `intervalMs` and as soon as a slot frees. A run renews its lease every sixth of it
 * (whatever it waits for: a slow site, Crawl-delay, the embedding queue) and saves its
 * frontier and report with each small batch it writes, so a run cut anywhere — its process
 * killed, or its slot given to another organisation — goes on from its last save in whichever
 * process takes it next (a dead process's lease lapses within `leaseSeconds`).
 *
 * Fairness: when every slot is full and a crawler waits, a run yields its slot at once if its
 * organisation holds two runs more than the waiting one's, or after `sliceSeconds` if it holds
 * more or the waiting crawler is its own organisation's; the claim order (organisations
 * holding fewest first, then the crawler taken longest ago) then gives the slot to the one
 * waiting, and the run goes on when its turn comes again.
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
  /** Runs at once in this process (LORE_CRAWL_CONCURRENCY, default 2); 0: this process runs none. */
  concurrency?: number;
  /** Runs of one organisation at once across processes (default RUNS_PER_ORGANISATION). */
  runsPerOrganisation?: number;
  /** How long a run keeps its slot while another organisation waits with fewer runs (default 300 s). */
  sliceSeconds?: number;
  /** How long a run's lease lasts without renewal (default 30 s). */
  leaseSeconds?: number;
  log?: (error: unknown) => void;
}): CrawlerRunner {
  const LEASE_SECONDS = deps.leaseSeconds ?? 30;
  const CONCURRENCY = deps.concurrency ?? 2;
  const RUNS = deps.runsPerOrganisation ?? RUNS_PER_ORGANISATION;
  const SLICE_MS = (deps.sliceSeconds ?? 300) * 1000;
  let closed = false;
  const runs = new Map<string, { organisationId: number; since: number; pause: AbortController; stop: AbortController; done: Promise<void> }>();
  let round: Promise<string[]> | null = null;

  async function runOne(crawler: ClaimedCrawler, pause: AbortSignal, stop: AbortController): Promise<void> {
    const { id } = crawler;
    const scope = { organisationId: crawler.organisationId };
    const key = runKey(crawler);
    let state: RunState;
    let resume: CrawlJournal['resume'] = null;
    if (crawler.run && crawler.run.key === key) {
      state = crawler.run;
      const { pending, settled } = await deps.crawlers.frontier(id);
      resume = { seeded: state.seeded, pending, settled, found: state.report.found, fetched: state.report.fetched };
    } else {
      state = { started_at: new Date().toISOString(), key, seeded: false, report: emptyRunReport() };
      if (!(await deps.crawlers.begin(id, state, LEASE_SECONDS))) return;
    }
    // The report goes on from the saved one: its counts, and its lists (the first REPORTED_PAGES, with totals).
    const saved = state.report;
    const report: CrawlReport = {
      ...emptyReport(),
      found: saved.found,
      fetched: saved.fetched,
      created: saved.created,
      updated: saved.updated,
      unchanged: saved.unchanged,
      deleted: saved.deleted,
      skipped: saved.skipped.map(({ url, reason }) => ({ path: url, reason })),
      failed: saved.failed.map(({ url, reason }) => ({ path: url, reason })),
    };
    const earlier = { skipped: saved.skipped_total - saved.skipped.length, failed: saved.failed_total - saved.failed.length };
    const failedTotal = () => earlier.failed + report.failed.length;
    const runReport = (): CrawlerRun['report'] => ({
      found: report.found,
      fetched: report.fetched,
      created: report.created,
      updated: report.updated,
      unchanged: report.unchanged,
      deleted: report.deleted,
      skipped: report.skipped.slice(0, REPORTED_PAGES).map(({ path, reason }) => ({ url: path, reason })),
      failed: report.failed.slice(0, REPORTED_PAGES).map(({ path, reason }) => ({ url: path, reason })),
      skipped_total: earlier.skipped + report.skipped.length,
      failed_total: failedTotal(),
    });
    const progress = (): CrawlerProgress => ({ found: report.found, fetched: report.fetched, written: report.created + report.updated, failed: failedTotal() });
    const deleted = () => stop.abort(new Error('the crawler was deleted'));
    const renew = async () => {
      if (!(await deps.crawlers.progress(id, progress(), LEASE_SECONDS))) deleted();
    };
    // Renewed on a timer too, so no wait between results lets the lease lapse while the run goes on.
    const heartbeat = setInterval(() => void renew().catch((caught) => deps.log?.(caught)), (LEASE_SECONDS * 1000) / 6);
    heartbeat.unref();
    let found: RunCheckpoint['found'] = [];
    const journal: CrawlJournal = {
      resume,
      found: (target, settled) => void found.push({ ...target, settled }),
      seeded: () => void (state.seeded = true),
      async save(settled) {
        state.report = runReport();
        const batch = found;
        found = [];
        if (!(await deps.crawlers.checkpoint(id, { found: batch, settled, run: state, progress: progress() }, LEASE_SECONDS))) deleted();
      },
    };
    let outcome: CrawlerRun['outcome'] = 'finished';
    let error: string | null = null;
    try {
      const stored = new Map(
        (await deps.sourceEntries(scope, crawler.collection_id, WEB_SOURCE_TYPE)).map((e) => [e.source_id, { meta: (e.meta ?? {}) as Record<string, unknown>, sourceUrl: e.source_url }]),
      );
      const sink = serviceSink(deps.entries, scope, crawler.collection_id, stored, report, stop.signal);
      let lastReport = 0;
      const ended = await deps.crawl(
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
          signal: stop.signal,
          pause,
        },
        stored,
        sink,
        report,
        async () => {
          if (Date.now() - lastReport < 1000) return;
          lastReport = Date.now();
          await renew();
          stop.signal.throwIfAborted();
        },
        journal,
      );
      if (ended === 'paused') {
        // Saved: the slot goes to whoever is next, and the run goes on when taken again.
        await deps.crawlers.release(id);
        return;
      }
      stop.signal.throwIfAborted();
    } catch (caught) {
      // Closing: the lease lapses and the run goes on from its last save, here or elsewhere.
      if (closed) return;
      outcome = 'failed';
      error = (stop.signal.aborted ? (stop.signal.reason as Error) : (caught as Error)).message;
    } finally {
      clearInterval(heartbeat);
    }
    await deps.crawlers.finish(id, { started_at: state.started_at, finished_at: new Date().toISOString(), outcome, error, report: runReport() }).catch((caught) => deps.log?.(caught));
  }

  function start(crawler: ClaimedCrawler): void {
    const pause = new AbortController();
    const stop = new AbortController();
    const run = { organisationId: crawler.organisationId, since: Date.now(), pause, stop, done: Promise.resolve() };
    runs.set(crawler.id, run);
    run.done = runOne(crawler, pause.signal, stop)
      .catch((caught) => deps.log?.(caught))
      .finally(() => {
        runs.delete(crawler.id);
        // A slot freed: the next crawler need not wait for the interval.
        if (!closed && timer) void schedule();
      });
  }

  /** Where fairness asks it, one of this process's runs gives its slot up (and has, when this resolves). */
  async function giveWay(): Promise<void> {
    const organisations = await deps.crawlers.organisations();
    const held = new Map(organisations.map((o) => [o.organisationId, o.running]));
    const waiting = new Set(organisations.filter((o) => o.waiting).map((o) => o.organisationId));
    // The fewest runs an organisation with a crawler waiting holds, of those that may run one more.
    const least = Math.min(...organisations.filter((o) => o.waiting && o.running < RUNS).map((o) => o.running));
    let chosen: { run: { since: number; pause: AbortController; done: Promise<void> }; rank: number } | null = null;
    for (const run of runs.values()) {
      const holds = held.get(run.organisationId) ?? 1;
      const sliceOver = Date.now() - run.since >= SLICE_MS;
      // 2: its organisation holds two runs more than one waiting; 1: its slice is over and one
      // with fewer waits, or one of its own organisation's crawlers does (turns within it).
      const rank = holds > least + 1 ? 2 : sliceOver && (holds > least || waiting.has(run.organisationId)) ? 1 : 0;
      if (rank > 0 && (!chosen || rank > chosen.rank || (rank === chosen.rank && run.since < chosen.run.since))) chosen = { run, rank };
    }
    if (!chosen) return;
    chosen.run.pause.abort();
    await chosen.run.done;
  }

  async function scheduleRound(): Promise<string[]> {
    if (closed || CONCURRENCY === 0) return [];
    if (runs.size >= CONCURRENCY) await giveWay();
    const started: string[] = [];
    while (!closed && runs.size < CONCURRENCY) {
      const crawler = await deps.crawlers.claimDue(LEASE_SECONDS, RUNS);
      if (!crawler) break;
      start(crawler);
      started.push(crawler.id);
    }
    return started;
  }

  function schedule(): Promise<string[]> {
    round ??= scheduleRound()
      .catch((caught) => {
        deps.log?.(caught);
        return [];
      })
      .finally(() => {
        round = null;
      });
    return round;
  }

  const interval = deps.intervalMs ?? 15_000;
  const timer = interval > 0 && CONCURRENCY > 0 ? setInterval(() => void schedule(), interval).unref() : null;
  // The first look at once: a run cut when the last process stopped goes on without waiting.
  if (timer) setImmediate(() => void schedule());
  return {
    schedule,
    running: () => [...runs.keys()],
    async tick() {
      const started = await schedule();
      await Promise.all(started.map((id) => runs.get(id)?.done));
      return started.length > 0;
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await round;
      const all = [...runs.values()];
      for (const run of all) run.pause.abort();
      const saved = Promise.all(all.map((run) => run.done));
      const cut = setTimeout(() => all.forEach((run) => run.stop.abort(new Error('Lore is closing'))), CLOSE_MS);
      await saved;
      clearTimeout(cut);
    },
  };
}

/** A run's report before anything is done. */
function emptyRunReport(): CrawlerRun['report'] {
  return { found: 0, fetched: 0, created: 0, updated: 0, unchanged: 0, deleted: 0, skipped: [], failed: [], skipped_total: 0, failed_total: 0 };
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
