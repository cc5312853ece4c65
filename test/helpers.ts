import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../src/config.js';
import { createContainer, type Container } from '../src/container.js';
import { hashSecret } from '../src/domain/access/credentials.js';
import type { AnswerProvider } from '../src/domain/answers/port.js';
import type { Embedder } from '../src/domain/ingestion/port.js';
import { buildApp, type App } from '../src/http/app.js';
import { createLocalEmbedder } from '../src/providers/embeddings/local.js';
import type { Db } from '../src/storage/db.js';
import { openPglite } from '../src/storage/pglite.js';
import { openPostgres } from '../src/storage/postgres.js';

export type Backend = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when LORE_TEST_DATABASE_URL names a server (as .ci/run does). */
export function backends(): Backend[] {
  return process.env.LORE_TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

export const MASTER_KEY = 'test-master-key-0123456789abcdef';

let realEmbedder: Promise<Embedder> | undefined;
/** The real default model, loaded once per test process. */
export function defaultEmbedder(): Promise<Embedder> {
  realEmbedder ??= createLocalEmbedder({ model: 'onnx-community/all-MiniLM-L6-v2-ONNX', dtype: 'int8' });
  return realEmbedder;
}

/** A new database on the test PostgreSQL server (LORE_TEST_DATABASE_URL): its URL, and its removal. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = process.env.LORE_TEST_DATABASE_URL!;
  const name = `lore_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A fresh database: in-memory PGlite, or a new database on the test PostgreSQL server. */
export async function freshDb(backend: Backend): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (backend === 'pglite') return { db: await openPglite(undefined), drop: async () => {} };
  const database = await freshPostgresDatabase();
  return { db: await openPostgres(database.url, 4), drop: database.drop };
}

export interface Response<T = any> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
}

export interface TestServer {
  app: App;
  container: Container;
  backend: Backend;
  /** Calls the API as `token` (an API v1 token, the master key, or null for none). */
  call<T = any>(method: string, url: string, options?: { token?: string | null; body?: unknown; payload?: string; headers?: Record<string, string> }): Promise<Response<T>>;
  /** Creates an organisation through the admin API; returns its id and API token. */
  createOrg(name?: string): Promise<{ id: number; token: string; tokenId: string }>;
  close(): Promise<void>;
}

/**
 * Starts the real app on a real database (not listening; requests go through inject).
 * Rate limits are off unless `config` sets them, so suites making many requests are not throttled.
 */
export async function startServer(
  backend: Backend,
  options: { embedder?: Embedder; config?: Partial<Config>; answerProvider?: AnswerProvider; logger?: object } = {},
): Promise<TestServer> {
  const { db, drop } = await freshDb(backend);
  const config: Config = {
    port: 0,
    host: '127.0.0.1',
    dataDir: '/nonexistent',
    databaseUrl: undefined,
    masterKey: MASTER_KEY,
    publicUrl: undefined,
    embeddings: { kind: 'local', model: 'onnx-community/all-MiniLM-L6-v2-ONNX', modelPath: undefined, dtype: 'int8' },
    logLevel: 'silent',
    logFormat: 'json',
    bodyLimit: 10 * 1024 * 1024,
    rateLimits: { perCredential: 0, perIp: 0, answers: 0 },
    redisUrl: undefined,
    trustProxy: false,
    answers: { kind: 'extractive' },
    conversationTtlDays: 30,
    demo: false,
    metricsToken: undefined,
    ingestQueue: 2000,
    queryCache: 1000,
    crawlPrivateNetworks: true,
    crawl: { concurrency: 2, runsPerOrganisation: 2, crawlersPerOrganisation: 50, sliceSeconds: 300 },
    ...options.config,
  };
  const embedder = options.embedder ?? (await defaultEmbedder());
  // Crawlers run only when a test calls crawlerRunner.tick(): fuzzed start URLs are never fetched.
  const container = await createContainer(config, { db, embedder, answerProvider: options.answerProvider, masterKeyHash: hashSecret(MASTER_KEY), crawlerIntervalMs: 0 });
  // A 500 is a bug whatever the test: its error goes to stderr, where the run shows it.
  const logger = options.logger ?? { level: 'error', stream: { write: (line: string) => line.includes('"unhandled error"') && process.stderr.write(line) } };
  const app = await buildApp(container.deps, { logger });

  const call: TestServer['call'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined || opts.payload !== undefined) headers['content-type'] ??= 'application/json';
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers,
      payload: opts.payload ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
    });
    let body: unknown = response.body;
    if (String(response.headers['content-type'] ?? '').includes('json') && response.body !== '') body = response.json();
    return { status: response.statusCode, body: body as any, headers: response.headers };
  };

  return {
    app,
    container,
    backend,
    call,
    async createOrg(name = 'Acme') {
      const res = await call('POST', '/api/v1/admin/organisations', { token: MASTER_KEY, body: { name } });
      if (res.status !== 201) throw new Error(`createOrg failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.data.id, token: res.body.token, tokenId: res.body.token_id };
    },
    async close() {
      await app.close();
      await container.close();
      await drop();
    },
  };
}

/** A collection named `name` holding `entries` (one batch, checked) and a search box over it, for `token`'s organisation. */
export function searchBoxOver(server: TestServer, token: string, name: string, entries: object[]): Promise<{ collection: string; integration: string }> {
  return integrationOver(server, token, 'search_box', name, entries);
}

/** A collection named `name` holding `entries` (one batch, checked) and a chatbot over it, for `token`'s organisation. */
export function chatbotOver(server: TestServer, token: string, name: string, entries: object[]): Promise<{ collection: string; integration: string }> {
  return integrationOver(server, token, 'chatbot', name, entries);
}

async function integrationOver(server: TestServer, token: string, type: 'search_box' | 'chatbot', name: string, entries: object[]): Promise<{ collection: string; integration: string }> {
  const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name } })).body.data.id as string;
  const res = await server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token, body: { entries } });
  if (res.status !== 200) throw new Error(`entries/batch answered ${res.status}: ${JSON.stringify(res.body)}`);
  const integration = (await server.call('POST', '/api/v1/integrations', { token, body: { type, name: type === 'chatbot' ? 'Bot' : 'Box', collection_ids: [collection] } })).body.data.id as string;
  return { collection, integration };
}

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** For tests that need no real embeddings: a constant vector spares loading the model. */
export const constantEmbedder: Embedder = {
  model: 'constant',
  dimensions: 4,
  embed: async (texts) => texts.map(() => Float32Array.from([1, 0, 0, 0])),
};
