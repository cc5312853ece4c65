import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, startServer, TIMESTAMP, UUID, type TestServer } from './helpers.js';

for (const backend of backends()) {
  describe(`collections [${backend}]`, () => {
    let server: TestServer;
    let acme: { id: number; token: string };
    let other: { id: number; token: string };

    before(async () => {
      server = await startServer(backend);
      acme = await server.createOrg('Acme');
      other = await server.createOrg('Other');
    });
    after(() => server.close());

    it('requires a valid bearer token', async () => {
      for (const token of [null, 'nonsense', `lore_aaaaaaaaaaaa_${'x'.repeat(43)}`, acme.token.slice(0, -1) + 'Z']) {
        const res = await server.call('GET', '/api/v1/collections', { token });
        assert.equal(res.status, 401);
        assert.deepEqual(res.body, { message: 'Unauthenticated.' });
      }
      const basic = await server.call('GET', '/api/v1/collections', { headers: { authorization: 'Basic abc' } });
      assert.equal(basic.status, 401);
    });

    it('creates, renames and deletes a collection', async () => {
      const created = await server.call('POST', '/api/v1/collections', { token: acme.token, body: { name: 'Docs' } });
      assert.equal(created.status, 201);
      const c = created.body.data;
      assert.deepEqual(Object.keys(created.body), ['data']);
      assert.deepEqual(Object.keys(c).sort(), ['created_at', 'id', 'name', 'organisation_id', 'updated_at']);
      assert.match(c.id, UUID);
      assert.equal(c.organisation_id, acme.id);
      assert.equal(c.name, 'Docs');
      assert.match(c.created_at, TIMESTAMP);
      assert.match(c.updated_at, TIMESTAMP);

      const renamed = await server.call('PATCH', `/api/v1/collections/${c.id}`, { token: acme.token, body: { name: 'Help' } });
      assert.equal(renamed.status, 200);
      assert.deepEqual(renamed.body, { data: { ...c, name: 'Help', updated_at: renamed.body.data.updated_at } });
      assert.ok(renamed.body.data.updated_at > c.updated_at);

      const deleted = await server.call('DELETE', `/api/v1/collections/${c.id}`, {
        token: acme.token,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.body, '');
      const again = await server.call('DELETE', `/api/v1/collections/${c.id}`, { token: acme.token });
      assert.equal(again.status, 404);
      assert.deepEqual(again.body, { message: 'Collection not found.' });
    });

    it('validates names with Laravel-shaped 422s', async () => {
      const missing = await server.call('POST', '/api/v1/collections', { token: acme.token, body: {} });
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body, { message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
      const long = await server.call('POST', '/api/v1/collections', { token: acme.token, body: { name: 'x'.repeat(256) } });
      assert.equal(long.status, 422);
      assert.deepEqual(long.body.errors, { name: ['The name field must not be greater than 255 characters.'] });
      const wrongType = await server.call('POST', '/api/v1/collections', { token: acme.token, body: { name: 5 } });
      assert.equal(wrongType.status, 422);
      assert.deepEqual(wrongType.body.errors, { name: ['The name field must be a string.'] });
    });

    it('never shows or changes another organisation’s collection', async () => {
      const mine = (await server.call('POST', '/api/v1/collections', { token: acme.token, body: { name: 'Private' } })).body.data;
      const list = await server.call('GET', '/api/v1/collections?per_page=100', { token: other.token });
      assert.ok(!list.body.data.some((c: { id: string }) => c.id === mine.id));
      const patch = await server.call('PATCH', `/api/v1/collections/${mine.id}`, { token: other.token, body: { name: 'Taken' } });
      assert.equal(patch.status, 404);
      assert.deepEqual(patch.body, { message: 'Collection not found.' });
      const del = await server.call('DELETE', `/api/v1/collections/${mine.id}`, { token: other.token });
      assert.equal(del.status, 404);
      const unknown = await server.call('DELETE', '/api/v1/collections/00000000-0000-4000-8000-000000000000', { token: other.token });
      assert.deepEqual([unknown.status, unknown.body], [del.status, del.body]);
      const notUuid = await server.call('PATCH', '/api/v1/collections/not-a-uuid', { token: other.token, body: { name: 'x' } });
      assert.equal(notUuid.status, 404);
      const still = await server.call('GET', '/api/v1/collections?per_page=100', { token: acme.token });
      assert.ok(still.body.data.some((c: { id: string; name: string }) => c.id === mine.id && c.name === 'Private'));
    });
  });

  describe(`pagination [${backend}]`, () => {
    let server: TestServer;
    let token: string;

    before(async () => {
      server = await startServer(backend);
      token = (await server.createOrg('Paged')).token;
      for (let i = 1; i <= 23; i++) {
        await server.call('POST', '/api/v1/collections', { token, body: { name: `c${String(i).padStart(2, '0')}` } });
      }
    });
    after(() => server.close());

    it('defaults to 15 per page with links and meta', async () => {
      const res = await server.call('GET', '/api/v1/collections', { token });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['data', 'links', 'meta']);
      assert.equal(res.body.data.length, 15);
      assert.deepEqual(res.body.data.map((c: { name: string }) => c.name).slice(0, 3), ['c01', 'c02', 'c03']);
      assert.deepEqual(res.body.meta, { current_page: 1, last_page: 2, per_page: 15, total: 23 });
      assert.deepEqual(res.body.links, {
        first: 'http://localhost/api/v1/collections?page=1&per_page=15',
        last: 'http://localhost/api/v1/collections?page=2&per_page=15',
        prev: null,
        next: 'http://localhost/api/v1/collections?page=2&per_page=15',
      });
    });

    it('pages through to the end and past it', async () => {
      const second = await server.call('GET', '/api/v1/collections?page=2', { token });
      assert.equal(second.body.data.length, 8);
      assert.equal(second.body.data[0].name, 'c16');
      assert.equal(second.body.links.next, null);
      assert.match(second.body.links.prev, /page=1&per_page=15$/);
      const past = await server.call('GET', '/api/v1/collections?page=9', { token });
      assert.equal(past.status, 200);
      assert.deepEqual(past.body.data, []);
      assert.deepEqual(past.body.meta, { current_page: 9, last_page: 2, per_page: 15, total: 23 });
    });

    it('clamps per_page instead of rejecting it', async () => {
      const big = await server.call('GET', '/api/v1/collections?per_page=1000', { token });
      assert.equal(big.status, 200);
      assert.equal(big.body.meta.per_page, 100);
      assert.equal(big.body.data.length, 23);
      const small = await server.call('GET', '/api/v1/collections?per_page=0', { token });
      assert.equal(small.body.meta.per_page, 1);
      assert.equal(small.body.meta.last_page, 23);
      const junk = await server.call('GET', '/api/v1/collections?per_page=abc&page=-3', { token });
      assert.equal(junk.status, 200);
      assert.deepEqual(junk.body.meta, { current_page: 1, last_page: 2, per_page: 15, total: 23 });
      const five = await server.call('GET', '/api/v1/collections?per_page=5&page=3', { token });
      assert.deepEqual(five.body.data.map((c: { name: string }) => c.name), ['c11', 'c12', 'c13', 'c14', 'c15']);
    });
  });
}
