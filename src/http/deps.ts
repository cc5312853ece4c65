/**
 * What the HTTP layer is given — the services and a few settings (built by the container) — and
 * the app's type, which routes take: apart from app.ts, so routes need not import the module
 * that imports them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { AnswerService } from '../domain/answers/service.js';
import type { ApiKeyService } from '../domain/access/apiKeys.js';
import type { CollectionService } from '../domain/ingestion/collections.js';
import type { DemoService } from '../domain/widgets/demo.js';
import type { EntryService } from '../domain/ingestion/entries.js';
import type { IntegrationService } from '../domain/search/integrations.js';
import type { OrganisationService } from '../domain/access/organisations.js';
import type { PagesService } from '../domain/ingestion/pages.js';
import type { SearchService } from '../domain/search/service.js';
import type { UsageService } from '../domain/access/usage.js';
import type { AnalyticsService } from '../domain/analytics/service.js';
import type { WidgetService } from '../domain/widgets/service.js';
import type { VisitorConversationService } from '../domain/widgets/visitors.js';
import type { CrawlerService } from '../domain/crawl/crawlers.js';

/** What the HTTP layer needs: services and a few settings. Built by the container. */
export interface AppDeps {
  config: Pick<Config, 'publicUrl' | 'bodyLimit' | 'rateLimits' | 'redisUrl' | 'trustProxy' | 'demo' | 'metricsToken'>;
  organisations: OrganisationService;
  collections: CollectionService;
  entries: EntryService;
  integrations: IntegrationService;
  search: SearchService;
  answers: AnswerService;
  usage: UsageService;
  analytics: AnalyticsService;
  apiKeys: ApiKeyService;
  pages: PagesService;
  widgets: WidgetService;
  visitors: VisitorConversationService;
  crawlers: CrawlerService;
  demo: Pick<DemoService, 'keys'>;
  /** Lore's own documents, which the demo shows: their names, and the markdown of one (null when unknown). */
  loreDocs: { names(): Promise<string[]>; read(name: string): Promise<string | null> };
  masterKeyHash: Uint8Array;
  /** Resolves when the database is migrated and models are loaded. */
  ready: () => boolean;
  /** Whether the database answers and the embedding model embeds, now (for /readyz). */
  readiness: () => Promise<{ database: boolean; embedder: boolean }>;
  metrics: Metrics;
}

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
}

