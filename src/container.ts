import type { Config } from './config.js';
import { createCollectionService } from './domain/collections.js';
import { createEntryService } from './domain/entries.js';
import { createIngestion } from './domain/ingestion.js';
import { createIntegrationService } from './domain/integrations.js';
import { createSearchService } from './domain/search.js';
import { createOrganisationService } from './domain/organisations.js';
import type { Embedder } from './domain/ports.js';
import type { AppDeps } from './http/app.js';
import { createLocalEmbedder } from './providers/embeddings/local.js';
import { createOpenAIEmbedder } from './providers/embeddings/openai.js';
import { createCollectionRepository } from './storage/collections.js';
import type { Db } from './storage/db.js';
import { createEntryRepository } from './storage/entries.js';
import { createIntegrationRepository } from './storage/integrations.js';
import { createSearchRepository } from './storage/search.js';
import { ensureVectorIndex, migrate } from './storage/migrate.js';
import { createOrganisationRepository } from './storage/organisations.js';
import { openPglite } from './storage/pglite.js';
import { openPostgres } from './storage/postgres.js';

export interface Container {
  deps: AppDeps;
  db: Db;
  embedder: Embedder;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Replaces the configured embedder (tests, benchmarks). */
  embedder?: Embedder;
  /** Replaces the configured database (tests). */
  db?: Db;
  masterKeyHash: Uint8Array;
}

/** The one place that picks implementations: database, embedder, services. */
export async function createContainer(config: Config, options: ContainerOptions): Promise<Container> {
  const db = options.db ?? (config.databaseUrl ? await openPostgres(config.databaseUrl) : await openPglite(config.dataDir));
  await migrate(db);
  const embedder = options.embedder ?? (await createEmbedder(config));
  await ensureVectorIndex(db, embedder.dimensions);

  const organisationRepository = createOrganisationRepository(db);
  const collectionRepository = createCollectionRepository(db);
  const entryRepository = createEntryRepository(db, embedder);
  const ingestion = createIngestion({ embedder, entries: entryRepository });
  const integrations = createIntegrationService({ integrations: createIntegrationRepository(db) });

  const deps: AppDeps = {
    config,
    masterKeyHash: options.masterKeyHash,
    organisations: createOrganisationService({ organisations: organisationRepository }),
    collections: createCollectionService({ collections: collectionRepository }),
    entries: createEntryService({ collections: collectionRepository, entries: entryRepository, ingestion }),
    integrations,
    search: createSearchService({ integrations, search: createSearchRepository(db), embedder }),
    ready: () => true,
  };
  return { deps, db, embedder, close: () => db.close() };
}

export function createEmbedder(config: Config): Promise<Embedder> | Embedder {
  const e = config.embeddings;
  if (e.kind === 'openai') {
    return createOpenAIEmbedder({ baseUrl: e.baseUrl, apiKey: e.apiKey, model: e.model, dimensions: e.dimensions });
  }
  return createLocalEmbedder({ model: e.model, modelPath: e.modelPath, dtype: e.dtype });
}
