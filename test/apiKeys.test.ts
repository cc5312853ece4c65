import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { backends, constantEmbedder, startServer, TIMESTAMP, type TestServer } from './helpers.js';

const KEY = /^lore_key_([a-z0-9]{12})_[A-Za-z0-9_-]{43}$/;
const API_KEY_FIELDS = ['created_at', 'id', 'name', 'permissions', 'source_ids'];

for (const backend of backends()) {
  describe(`organisation API keys [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let otherToken: string;
    let docs: string;
    let blog: string;
    let foreign: string;

    const create = (body: unknown, as = token) => server.call('POST', '/api/v1/api-keys', { token: as, body });
    const collection = async (name: string, as: string) =>
      (await server.call('POST', '/api/v1/collections', { token: as, body: { name } })).body.data.id as string;

    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
      token = (await server.createOrg('Acme')).token;
      otherToken = (await server.createOrg('Other')).token;
      docs = await collection('Docs', token);
      blog = await collection('Blog', token);
      foreign = await collection('Foreign', otherToken);
    });
    after(() => server.close());

    it('creates a key shown once, stored only as its SHA-256', async () => {
      const res = await create({ name: 'CMS sync', permissions: ['pages.read', 'pages.write'], source_ids: [docs] });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'key']);
      const { data, key } = res.body;
      assert.deepEqual(Object.keys(data).sort(), API_KEY_FIELDS);
      assert.match(key, KEY);
      assert.equal(KEY.exec(key)![1], data.id, 'the key carries its public id');
      assert.match(data.created_at, TIMESTAMP);
      assert.deepEqual({ ...data, id: 0, created_at: 0 }, {
        id: 0, name: 'CMS sync', permissions: ['pages.read', 'pages.write'], source_ids: [docs], created_at: 0,
      });

      const rows = await server.container.db.query<{ key_hash: Uint8Array; row: string }>(
        'SELECT key_hash, k::text AS row FROM api_keys k WHERE id = $1',
        [data.id],
      );
      assert.deepEqual(Buffer.from(rows[0]!.key_hash), createHash('sha256').update(key).digest());
      const secret = key.split('_').slice(3).join('_');
      assert.ok(!rows[0]!.row.includes(secret), 'the secret is not stored');
    });

    it('limits to every source by default, and normalises a source list', async () => {
      const all = await create({ name: 'All', permissions: ['search'] });
      assert.equal(all.status, 201);
      assert.equal(all.body.data.source_ids, null);
      const explicitNull = await create({ name: 'Null', permissions: ['chat'], source_ids: null });
      assert.equal(explicitNull.body.data.source_ids, null);
      const upper = await create({ name: 'Upper', permissions: ['summarize'], source_ids: [blog.toUpperCase(), blog, docs] });
      assert.equal(upper.status, 201);
      assert.deepEqual(upper.body.data.source_ids, [blog, docs]);
    });

    it('lists active keys, paginated, never with a secret and never another organisation’s', async () => {
      const created = await create({ name: 'Listed', permissions: ['pages.read'] });
      const theirs = await create({ name: 'Theirs', permissions: ['pages.read'] }, otherToken);
      const res = await server.call('GET', '/api/v1/api-keys?per_page=100', { token });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'links', 'meta']);
      for (const item of res.body.data) assert.deepEqual(Object.keys(item).sort(), API_KEY_FIELDS);
      const ids = res.body.data.map((k: { id: string }) => k.id);
      assert.ok(ids.includes(created.body.data.id));
      assert.ok(!ids.includes(theirs.body.data.id));
      const text = JSON.stringify(res.body);
      assert.ok(!text.includes(created.body.key) && !text.includes('lore_key_'), 'no key material in the list');
      assert.ok(!text.includes('Theirs') && !text.includes(foreign));
      assert.equal(res.body.meta.total, ids.length);

      const paged = await server.call('GET', '/api/v1/api-keys?per_page=1&page=2', { token });
      assert.deepEqual([paged.body.data.length, paged.body.meta.current_page, paged.body.meta.per_page], [1, 2, 1]);
      assert.equal(paged.body.data[0].id, ids[1]);
    });

    it('revokes a key: 204, then 401 for the key and 404 for a second revoke', async () => {
      const { data, key } = (await create({ name: 'Short-lived', permissions: ['pages.read'] })).body;
      assert.equal((await server.call('GET', '/api/v1/me', { token: key })).status, 200);

      const foreignRevoke = await server.call('DELETE', `/api/v1/api-keys/${data.id}`, { token: otherToken });
      assert.deepEqual([foreignRevoke.status, foreignRevoke.body], [404, { message: 'API key not found.' }]);
      assert.equal((await server.call('GET', '/api/v1/me', { token: key })).status, 200, 'another organisation cannot revoke it');

      const res = await server.call('DELETE', `/api/v1/api-keys/${data.id}`, { token, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 204);
      const revoked = await server.call('GET', '/api/v1/me', { token: key });
      assert.deepEqual([revoked.status, revoked.body], [401, { message: 'Unauthenticated.' }]);
      assert.equal((await server.call('DELETE', `/api/v1/api-keys/${data.id}`, { token })).status, 404);
      const list = await server.call('GET', '/api/v1/api-keys?per_page=100', { token });
      assert.ok(!list.body.data.some((k: { id: string }) => k.id === data.id));
      assert.equal((await server.call('DELETE', '/api/v1/api-keys/nope', { token })).status, 404);
    });

    it('validates permissions and sources with field keys', async () => {
      const missing = await create({});
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body.errors, {
        name: ['The name field is required.'],
        permissions: ['The permissions field is required.'],
      });
      const empty = await create({ name: 'x', permissions: [] });
      assert.deepEqual([empty.status, empty.body.errors], [422, { permissions: ['The permissions field must have at least 1 item.'] }]);
      const unknown = await create({ name: 'x', permissions: ['search', 'admin'] });
      assert.deepEqual([unknown.status, unknown.body.errors], [422, { 'permissions.1': ['The selected permissions.1 is invalid.'] }]);
      const duplicated = await create({ name: 'x', permissions: ['search', 'chat', 'search'] });
      assert.deepEqual([duplicated.status, duplicated.body.errors], [422, { permissions: ['The permissions field has a duplicate value.'] }]);
      const typed = await create({ name: 7, permissions: 'search' });
      assert.deepEqual([typed.status, Object.keys(typed.body.errors).sort()], [422, ['name', 'permissions']]);

      const sources = await create({ name: 'x', permissions: ['pages.read'], source_ids: [docs, foreign, 'not-a-uuid', '00000000-0000-4000-8000-000000000000'] });
      assert.equal(sources.status, 422);
      assert.deepEqual(sources.body.errors, {
        'source_ids.1': ['The selected source_ids.1 is invalid.'],
        'source_ids.2': ['The selected source_ids.2 is invalid.'],
        'source_ids.3': ['The selected source_ids.3 is invalid.'],
      });
      const noSources = await create({ name: 'x', permissions: ['pages.read'], source_ids: [] });
      assert.deepEqual([noSources.status, noSources.body.errors], [422, { source_ids: ['The source_ids field must have at least 1 item.'] }]);
      const count = await server.container.db.query<{ n: number }>("SELECT count(*)::int AS n FROM api_keys WHERE name = 'x'");
      assert.equal(count[0]!.n, 0, 'nothing was stored');
    });

    it('refuses missing, malformed, unknown and tampered credentials with 401', async () => {
      const { key } = (await create({ name: 'Valid', permissions: ['pages.read'] })).body;
      const tampered = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
      const unknown = key.replace(KEY.exec(key)![1], 'zzzzzzzzzzzz');
      for (const credential of [null, 'lore_key_', 'lore_key_abc_def', tampered, unknown, `${key}x`]) {
        const res = await server.call('GET', '/api/v1/me', { token: credential });
        assert.deepEqual([res.status, res.body], [401, { message: 'Unauthenticated.' }], String(credential));
      }
    });

    it('gives an API key 403 on every route that is not /me, pages or widgets', async () => {
      const { key } = (await create({ name: 'Everything', permissions: ['pages.read', 'pages.write', 'search', 'chat', 'summarize'] })).body;
      const integration = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'custom', name: 'i', collection_ids: [docs] } })).body.data.id;
      const routes: [string, string, unknown?][] = [
        ['GET', '/api/v1/collections'],
        ['POST', '/api/v1/collections', { name: 'nope' }],
        ['GET', `/api/v1/collections/${docs}/entries`],
        ['PUT', `/api/v1/collections/${docs}/entries/upsert`, { raw_text: 'x', source_type: 'a', source_id: 'b' }],
        ['GET', '/api/v1/integrations'],
        ['GET', `/api/v1/integrations/${integration}/search?query=x`],
        ['GET', `/api/v1/integrations/${integration}/summarise?query=x&stream=false`],
        ['POST', `/api/v1/integrations/${integration}/chat`, { message: 'hi', stream: false }],
        ['GET', '/api/v1/usage'],
        ['GET', '/api/v1/api-keys'],
        ['POST', '/api/v1/api-keys', { name: 'escalate', permissions: ['search'] }],
      ];
      for (const [method, url, body] of routes) {
        const res = await server.call(method, url, { token: key, body });
        assert.equal(res.status, 403, `${method} ${url}`);
        assert.deepEqual(Object.keys(res.body), ['message']);
      }
      const entries = await server.container.db.query<{ n: number }>("SELECT count(*)::int AS n FROM collections WHERE name = 'nope'");
      assert.equal(entries[0]!.n, 0);
      // The same routes still work with the organisation's API v1 token.
      assert.equal((await server.call('GET', '/api/v1/collections', { token })).status, 200);
    });
  });
}
