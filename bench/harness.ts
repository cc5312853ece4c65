import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createContainer, createEmbedder } from '../src/container.js';
import { hashSecret } from '../src/domain/credentials.js';
import type { Embedder } from '../src/domain/ports.js';
import { buildApp } from '../src/http/app.js';

const MASTER_KEY = 'bench-master-key-0123456789abcdef';

export interface StartOptions {
  /** A PostgreSQL server URL; default DATABASE_URL from the environment, else PGlite. */
  databaseUrl?: string;
  /** Replaces the configured embedder (e.g. one that caches vectors between runs). */
  embedder?: Embedder;
}

/**
 * Starts Lore for a benchmark, listening on loopback: PGlite in a temporary folder, or the
 * PostgreSQL server named by `databaseUrl` / DATABASE_URL. Creates an organisation; `call`
 * speaks to the API as it.
 */
export async function startLore(name: string, options: StartOptions = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `lore-${name}-`));
  // Load from one token and one IP is the point of a benchmark: rate limits are off unless set.
  const env: NodeJS.ProcessEnv = { LORE_RATE_LIMIT: '0', LORE_RATE_LIMIT_IP: '0', LORE_ANSWER_RATE_LIMIT: '0', ...process.env, LORE_DATA_DIR: dataDir, LORE_LOG_LEVEL: 'silent' };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  const config = loadConfig(env);
  const embedder = options.embedder ?? (await createEmbedder(config));
  const container = await createContainer(config, { embedder, masterKeyHash: hashSecret(MASTER_KEY) });
  const app = await buildApp(container.deps);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });

  async function request(token: string, method: string, route: string, body?: unknown): Promise<any> {
    const response = await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? null : response.json();
  }

  const org = await request(MASTER_KEY, 'POST', '/api/v1/admin/organisations', { name: `${name}-${Date.now()}` });
  return {
    url,
    token: org.token as string,
    embedder,
    container,
    scope: { organisationId: org.data.id as number },
    call: (method: string, route: string, body?: unknown) => request(org.token, method, route, body),
    async close() {
      await app.close();
      await container.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates (or re-creates) the database `name` on the server at `serverUrl` and returns its
 * URL, so a benchmark never writes into a database it did not make.
 */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Percentile (nearest rank) of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
