import type { AnswersConfig, Config } from './config.js';
import { createAnswerService } from './domain/answers/service.js';
import { createRetrieval } from './domain/answers/retrieval.js';
import { createApiKeyService } from './domain/access/apiKeys.js';
import { createCollectionService } from './domain/ingestion/collections.js';
import { createDemoService, type DemoService } from './domain/widgets/demo.js';
import { createEntryService } from './domain/ingestion/entries.js';
import { createIngestion } from './domain/ingestion/pipeline.js';
import { createIntegrationService } from './domain/search/integrations.js';
import { createSearchService } from './domain/search/service.js';
import { createSearchLog, type SearchLog } from './domain/analytics/searchLog.js';
import { createOrganisationService } from './domain/access/organisations.js';
import { createPagesService } from './domain/ingestion/pages.js';
import { createUsageService } from './domain/access/usage.js';
import { createAnalyticsService } from './domain/analytics/service.js';
import { createMetrics } from './metrics.js';
import { createWidgetService } from './domain/widgets/service.js';
import { createVisitorConversationService } from './domain/widgets/visitors.js';
import type { AnswerProvider } from './domain/answers/port.js';
import type { Embedder } from './domain/ingestion/port.js';
import type { AppDeps } from './http/app.js';
import { loreDocNames, readLoreDoc } from './loreDocs.js';
import { calibrationFor } from './providers/embeddings/calibration.js';
import { createLocalEmbedder } from './providers/embeddings/local.js';
import { createOpenAIEmbedder } from './providers/embeddings/openai.js';
import { createAnthropicProvider } from './providers/llm/anthropic.js';
import { createExtractiveProvider, embeddingSimilarity } from './providers/llm/extractive.js';
import { createLlamaProvider } from './providers/llm/llama.js';
import { createOpenAIChatProvider } from './providers/llm/openai.js';
import { createApiKeyRepository } from './storage/apiKeys.js';
import { createConversationRepository } from './storage/conversations.js';
import { createCollectionRepository } from './storage/collections.js';
import type { Db } from './storage/db.js';
import { createEntryRepository } from './storage/entries.js';
import { createMaintenance } from './storage/maintenance.js';
import { createInstanceSettingsRepository } from './storage/instanceSettings.js';
import { createIntegrationRepository } from './storage/integrations.js';
import { createSearchRepository } from './storage/search.js';
import { ensureVectorIndex, migrate } from './storage/migrate.js';
import { createOrganisationRepository } from './storage/organisations.js';
import { openDatabase } from './storage/open.js';
import { createUsageRepository } from './storage/usage.js';
import { createAnalyticsRepository } from './storage/analytics.js';
import { createWidgetRepository } from './storage/widgets.js';
import { createCrawlerRepository } from './storage/crawlers.js';
import { createCrawlerRunner, createCrawlerService, type CrawlerRunner } from './domain/crawl/crawlers.js';
import { runCrawl } from './crawler/crawlRun.js';
import { createCrawlFetch, privateTarget } from './crawler/guardedFetch.js';

export interface Container {
  deps: AppDeps;
  /** Seeds the demo organisation (main.ts at start, when LORE_DEMO is on; tests). */
  demo: DemoService;
  db: Db;
  embedder: Embedder;
  /** The analytics log of searches, written every second (tests flush it to read it at once). */
  searchLog: SearchLog;
  /** Runs due website crawlers (every 15 s; tests call `tick` to run one at once). */
  crawlerRunner: CrawlerRunner;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Replaces the configured embedder (tests, benchmarks). */
  embedder?: Embedder;
  /** Replaces the configured answer provider (tests). */
  answerProvider?: AnswerProvider;
  /** How often due crawlers are looked for (default 15 s); 0: only when `crawlerRunner.tick` is called (tests). */
  crawlerIntervalMs?: number;
  /** Replaces the configured database (tests). */
  db?: Db;
  masterKeyHash: Uint8Array;
}

/** How long /readyz waits for the database and the model. */
const READINESS_TIMEOUT_MS = 2000;

/** Whether `work` settles successfully within `ms`. */
async function withTimeout(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How often conversations past their TTL are deleted. */
const EXPIRY_INTERVAL_MS = 60 * 60 * 1000;

/** The one place that picks implementations: database, embedder, services. */
export async function createContainer(config: Config, options: ContainerOptions): Promise<Container> {
  const db = options.db ?? (await openDatabase(config));
  await migrate(db);
  const metrics = createMetrics({ db });
  const embedder = metrics.instrument(options.embedder ?? (await createEmbedder(config)));
  await ensureVectorIndex(db, embedder.dimensions);

  const organisationRepository = createOrganisationRepository(db);
  const collectionRepository = createCollectionRepository(db);
  const maintenance = createMaintenance(db, { log: (error) => process.emitWarning(`Index maintenance failed: ${String(error)}`) });
  const entryRepository = createEntryRepository(db, embedder, maintenance);
  const ingestion = createIngestion({ embedder, entries: entryRepository, queueLimit: config.ingestQueue });
  const integrations = createIntegrationService({ integrations: createIntegrationRepository(db) });
  // Test-only: how often the usage counters and the search log are written (default 1 s), so a
  // test can tell the write at shutdown from a periodic one.
  const flushIntervalMs = Number(process.env.LORE_TEST_FLUSH_INTERVAL_MS) || undefined;
  const usage = createUsageService({
    usage: createUsageRepository(db),
    flushIntervalMs,
    log: (error) => process.emitWarning(`Usage counters could not be saved; retrying every second: ${String(error)}`),
  });

  const entries = createEntryService({ collections: collectionRepository, entries: entryRepository, ingestion });
  const searchRepository = createSearchRepository(db);
  const analyticsRepository = createAnalyticsRepository(db);
  const searchLog = createSearchLog({
    write: (rows) => analyticsRepository.logSearches(rows),
    flushIntervalMs,
    log: (error) => process.emitWarning(`The search log could not be saved; retrying every second: ${String(error)}`),
  });
  const search = createSearchService({ integrations, search: searchRepository, embedder, calibration: calibrationFor(embedder.model), searchLog, queryCache: config.queryCache });
  const conversations = createConversationRepository(db);
  const widgetRepository = createWidgetRepository(db);
  const visitors = createVisitorConversationService({ conversations, widgets: widgetRepository, ttlDays: config.conversationTtlDays });
  const organisations = createOrganisationService({ organisations: organisationRepository });
  const collections = createCollectionService({ collections: collectionRepository });
  const widgets = createWidgetService({ widgets: widgetRepository, integrations });
  const crawlerRepository = createCrawlerRepository(db);
  // PGlite's folder is this process's alone: a run it finds leased was cut when the last one
  // stopped, and goes on now rather than when its lease lapses.
  if (db.backend === 'pglite') await crawlerRepository.expireLeases();
  const crawlers = createCrawlerService({
    crawlers: crawlerRepository,
    crawlersPerOrganisation: config.crawl.crawlersPerOrganisation,
    collectionExists: async (scope, id) => (await collectionRepository.get(scope, id)) !== null,
    ...(!config.crawlPrivateNetworks && { privateTarget }),
  });
  const crawlerRunner = createCrawlerRunner({
    crawlers: crawlerRepository,
    entries,
    sourceEntries: (scope, collectionId, sourceType) => entryRepository.sourceEntries(scope, collectionId, sourceType),
    crawl: runCrawl,
    fetch: createCrawlFetch(config.crawlPrivateNetworks),
    intervalMs: options.crawlerIntervalMs ?? (Number(process.env.LORE_TEST_CRAWL_INTERVAL_MS) || undefined),
    leaseSeconds: Number(process.env.LORE_TEST_CRAWL_LEASE_SECONDS) || undefined,
    concurrency: config.crawl.concurrency,
    runsPerOrganisation: config.crawl.runsPerOrganisation,
    sliceSeconds: config.crawl.sliceSeconds,
    log: (error) => process.emitWarning(`A crawler run failed: ${String(error)}`),
  });
  const demo = createDemoService({ settings: createInstanceSettingsRepository(db), organisations, collections, entries, integrations, widgets });
  const deps: AppDeps = {
    config,
    masterKeyHash: options.masterKeyHash,
    organisations,
    collections,
    entries,
    integrations,
    search,
    answers: createAnswerService({
      integrations,
      retrieve: createRetrieval({ search, pageChunks: (...args) => searchRepository.pageChunks(...args) }),
      provider: options.answerProvider ?? (await createAnswerProvider(config.answers, config.embeddings.kind === 'local' ? embedder : undefined)),
      credits: usage,
      conversations,
      summaries: { record: (scope, row) => analyticsRepository.recordSummary(scope, row) },
      log: (error) => process.emitWarning(`Answer bookkeeping failed: ${String(error)}`),
    }),
    usage,
    analytics: createAnalyticsService({ analytics: analyticsRepository, integrations }),
    apiKeys: createApiKeyService({ apiKeys: createApiKeyRepository(db), collections: collectionRepository }),
    pages: createPagesService({ organisations: organisationRepository, collections: collectionRepository, entries }),
    widgets,
    visitors,
    crawlers,
    demo,
    loreDocs: { names: loreDocNames, read: readLoreDoc },
    ready: () => true,
    metrics,
    readiness: async () => ({
      database: await withTimeout(db.query('SELECT 1'), READINESS_TIMEOUT_MS),
      // The local model is checked by using it (a few ms); a remote provider is not called:
      // a paid request per health probe, and its outages are answered with 503s anyway.
      embedder: config.embeddings.kind === 'local' && !options.embedder ? await withTimeout(embedder.embed(['ready']), READINESS_TIMEOUT_MS) : true,
    }),
  };
  // Expiry of conversations not kept (SPEC.md: anonymous conversations expire); unref'd so it never holds the process open.
  const expiry = setInterval(() => {
    visitors.expire(new Date()).catch((error) => process.emitWarning(`Conversation clean-up failed: ${String(error)}`));
  }, EXPIRY_INTERVAL_MS).unref();
  return {
    deps,
    demo,
    db,
    embedder,
    searchLog,
    crawlerRunner,
    async close() {
      clearInterval(expiry);
      // Crawls in progress save and give their slots up: another process (or the next start) goes on with them.
      await crawlerRunner.close();
      await usage.close();
      await searchLog.close();
      // A running VACUUM finishes and releases its lease: closed under it, the lease would stay
      // held for its 30 minutes and no process would run the job meanwhile.
      await maintenance.idle();
      await db.close();
    },
  };
}

/**
 * The configured answer provider: the embedded extractive default, an HTTP model, or a local
 * GGUF model (loaded before this resolves).
 */
export function createAnswerProvider(config: AnswersConfig, localEmbedder?: Embedder): Promise<AnswerProvider> | AnswerProvider {
  if (config.kind === 'openai') return createOpenAIChatProvider({ baseUrl: config.baseUrl, apiKey: config.apiKey, model: config.model, timeoutMs: config.timeoutMs });
  if (config.kind === 'anthropic') {
    return createAnthropicProvider({ baseUrl: config.baseUrl, apiKey: config.apiKey ?? '', model: config.model, timeoutMs: config.timeoutMs });
  }
  if (config.kind === 'llama') return loadLlamaProvider(config);
  // The local model re-scores the writer's best candidates by meaning; a remote one would put
  // a paid network call in every answer.
  return createExtractiveProvider({ similarity: localEmbedder ? embeddingSimilarity(localEmbedder) : undefined });
}

// Loaded at start, like the local embedder: /healthz waits for the model, and a model that
// cannot load stops the start with its reason instead of failing every answer.
async function loadLlamaProvider(config: Extract<AnswersConfig, { kind: 'llama' }>): Promise<AnswerProvider> {
  const provider = createLlamaProvider({ modelPath: config.modelPath, contextSize: config.contextSize, threads: config.threads, parallel: config.parallel });
  await provider.ready();
  return provider;
}

export function createEmbedder(config: Config): Promise<Embedder> | Embedder {
  const e = config.embeddings;
  if (e.kind === 'openai') {
    return createOpenAIEmbedder({ baseUrl: e.baseUrl, apiKey: e.apiKey, model: e.model, dimensions: e.dimensions });
  }
  return createLocalEmbedder({ model: e.model, modelPath: e.modelPath, dtype: e.dtype });
}
