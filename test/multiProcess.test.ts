/**
 * The scale-out path: two stateless Lore processes on one PostgreSQL database and one Redis.
 * Both start at once on an empty database (migrations and the schema set up once); a write
 * on one is searchable on the other at once; rate limits are shared through Redis; revoked
 * tokens and keys, answer credits and a changed usage quota take effect on both at once (the
 * requests each process counts reach the other's quota check within a second).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freshPostgresDatabase, MASTER_KEY } from './helpers.js';
import { call, startLoreProcess, type Lore } from './processes.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const PER_CREDENTIAL = 30;

describe('two Lore processes on one PostgreSQL and one Redis', { skip: process.env.LORE_TEST_DATABASE_URL ? false : 'LORE_TEST_DATABASE_URL is not set' }, () => {
  let a: Lore;
  let b: Lore;
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  before(async () => {
    database = await freshPostgresDatabase();
    const env = { DATABASE_URL: database.url, LORE_REDIS_URL: REDIS_URL, LORE_RATE_LIMIT: String(PER_CREDENTIAL), LORE_RATE_LIMIT_IP: '0' };
    // Both at once, on an empty database.
    [a, b] = await Promise.all([startLoreProcess(env), startLoreProcess(env)]);
  });
  after(async () => {
    for (const lore of [a, b]) {
      if (!lore) continue;
      lore.process.kill('SIGTERM');
      await lore.exited;
    }
    await database?.drop();
  });

  it('sets the schema up once when both start at once', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      const files = readdirSync(new URL('../src/storage/migrations/', import.meta.url)).filter((f) => /^\d{3}_/.test(f)).map((f) => f.slice(0, 3)).sort();
      assert.deepEqual(rows.map((r) => r.version), files);
    } finally {
      await client.end();
    }
  });

  it('serves on one what was written on the other, at once', async () => {
    const org = await call(a, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'Shared' });
    const token = org.body.token as string;
    const collection = (await call(b, 'POST', '/api/v1/collections', token, { name: 'Docs' })).body.data.id;
    const integration = (await call(a, 'POST', '/api/v1/integrations', token, { type: 'search_box', name: 'Box', collection_ids: [collection] })).body.data.id;
    const written = await call(a, 'POST', `/api/v1/collections/${collection}/entries`, token, { title: 'Refunds', raw_text: 'Refunds are paid within five working days to the original card.' });
    assert.equal(written.status, 201);
    const found = await call(b, 'GET', `/api/v1/integrations/${integration}/search?query=refunds+card`, token);
    assert.equal(found.status, 200);
    assert.equal(found.body.data[0]?.id, written.body.data.id);
  });

  it('shares the per-credential rate limit through Redis', async () => {
    const { token } = (await call(a, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'Limited' })).body;
    const statuses: number[] = [];
    for (let i = 0; i < PER_CREDENTIAL + 2; i++) statuses.push((await call(i % 2 === 0 ? a : b, 'GET', '/api/v1/collections', token)).status);
    assert.deepEqual(statuses.slice(0, PER_CREDENTIAL), Array(PER_CREDENTIAL).fill(200), 'both processes count into one window');
    assert.deepEqual(statuses.slice(PER_CREDENTIAL), [429, 429]);
  });

  it('applies a revoked token, a revoked key, answer credits and a usage quota on both at once', async () => {
    const org = (await call(a, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'Admin' })).body;
    const second = (await call(a, 'POST', `/api/v1/admin/organisations/${org.data.id}/tokens`, MASTER_KEY)).body;
    assert.equal((await call(b, 'GET', '/api/v1/collections', second.token)).status, 200);
    assert.equal((await call(a, 'DELETE', `/api/v1/admin/tokens/${second.token_id}`, MASTER_KEY)).status, 204);
    assert.equal((await call(b, 'GET', '/api/v1/collections', second.token)).status, 401, 'revoked token refused by the other process');

    const collection = (await call(a, 'POST', '/api/v1/collections', org.token, { name: 'Docs' })).body.data.id;
    await call(a, 'POST', `/api/v1/collections/${collection}/entries`, org.token, { title: 'Refunds', raw_text: 'Refunds are paid within five working days to the original card.' });
    const key = (await call(a, 'POST', '/api/v1/api-keys', org.token, { name: 'CMS', permissions: ['pages.read'], source_ids: [collection] })).body;
    assert.equal((await call(b, 'GET', '/api/v1/me', key.key)).status, 200);
    assert.equal((await call(a, 'DELETE', `/api/v1/api-keys/${key.data.id}`, org.token)).status, 204);
    assert.equal((await call(b, 'GET', '/api/v1/me', key.key)).status, 401, 'revoked key refused by the other process');

    const chatbot = (await call(a, 'POST', '/api/v1/integrations', org.token, { type: 'chatbot', name: 'Bot', collection_ids: [collection] })).body.data.id;
    assert.equal((await call(a, 'PATCH', `/api/v1/admin/organisations/${org.data.id}`, MASTER_KEY, { answer_credits: 1 })).status, 200);
    const ask = (lore: Lore) => call(lore, 'POST', `/api/v1/integrations/${chatbot}/chat`, org.token, { message: 'How are refunds paid?', stream: false });
    assert.equal((await ask(b)).status, 200);
    assert.equal((await ask(a)).status, 402, 'the last credit was taken by the other process');

    assert.equal((await call(b, 'PATCH', `/api/v1/admin/organisations/${org.data.id}`, MASTER_KEY, { answer_credits: null, usage_quota: 1 })).status, 200);
    assert.equal((await ask(a)).status, 402, 'the quota set through one process refuses the next answer on the other at once');
    assert.equal((await call(a, 'GET', '/api/v1/collections', org.token)).status, 402, 'the quota set through one process refuses the next request on the other at once');
  });
});
