import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createContainer, createEmbedder } from '../src/container.js';
import { hashSecret } from '../src/domain/credentials.js';
import { buildApp } from '../src/http/app.js';

const MASTER_KEY = 'bench-master-key-0123456789abcdef';

/**
 * Starts Lore for a benchmark, listening on loopback: PGlite in a temporary folder, or the
 * server in DATABASE_URL. Creates an organisation; `call` speaks to the API as it (or as
 * admin with `asAdmin`).
 */
export async function startLore(name: string) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `lore-${name}-`));
  const config = loadConfig({ ...process.env, LORE_DATA_DIR: dataDir, LORE_LOG_LEVEL: 'silent' });
  const embedder = await createEmbedder(config);
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
