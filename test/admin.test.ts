import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { backends, MASTER_KEY, startServer, TIMESTAMP, type TestServer } from './helpers.js';

const run = promisify(execFile);

for (const backend of backends()) {
  describe(`admin [${backend}]`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend);
    });
    after(() => server.close());

    it('requires the master key', async () => {
      for (const token of [null, 'wrong-key', MASTER_KEY + 'x']) {
        const res = await server.call('GET', '/api/v1/admin/organisations', { token });
        assert.deepEqual([res.status, res.body], [401, { message: 'Unauthenticated.' }]);
      }
      const org = await server.createOrg('Tenant');
      const asTenant = await server.call('GET', '/api/v1/admin/organisations', { token: org.token });
      assert.equal(asTenant.status, 401);
      const masterOnV1 = await server.call('GET', '/api/v1/collections', { token: MASTER_KEY });
      assert.equal(masterOnV1.status, 401);
    });

    it('creates an organisation with a token shown once', async () => {
      const res = await server.call('POST', '/api/v1/admin/organisations', { token: MASTER_KEY, body: { name: 'Acme' } });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'token', 'token_id']);
      const { data, token, token_id } = res.body;
      assert.deepEqual(Object.keys(data).sort(), ['answer_credits', 'created_at', 'id', 'name', 'public_id', 'updated_at', 'usage_quota']);
      assert.equal(typeof data.id, 'number');
      assert.match(data.public_id, /^org_[a-z0-9]{12}$/);
      assert.equal(data.answer_credits, null);
      assert.match(data.created_at, TIMESTAMP);
      assert.match(token, new RegExp(`^lore_${token_id}_[A-Za-z0-9_-]{43}$`));
      const stored = await server.container.db.query<{ token_hash: Uint8Array }>('SELECT token_hash FROM api_tokens WHERE id = $1', [token_id]);
      assert.equal(stored[0]!.token_hash.length, 32, 'only a SHA-256 hash is stored');
      assert.ok(!Buffer.from(stored[0]!.token_hash).toString('latin1').includes(token));
      const works = await server.call('GET', '/api/v1/collections', { token });
      assert.equal(works.status, 200);
    });

    it('lists and updates organisations', async () => {
      const { id } = await server.createOrg('Before');
      const patched = await server.call('PATCH', `/api/v1/admin/organisations/${id}`, {
        token: MASTER_KEY,
        body: { name: 'After', answer_credits: 100, usage_quota: null },
      });
      assert.equal(patched.status, 200);
      assert.deepEqual([patched.body.data.name, patched.body.data.answer_credits, patched.body.data.usage_quota], ['After', 100, null]);
      const list = await server.call('GET', '/api/v1/admin/organisations?per_page=100', { token: MASTER_KEY });
      assert.ok(list.body.data.some((o: { id: number; name: string }) => o.id === id && o.name === 'After'));
      const bad = await server.call('PATCH', `/api/v1/admin/organisations/${id}`, { token: MASTER_KEY, body: { answer_credits: -1 } });
      assert.equal(bad.status, 422);
      assert.deepEqual(Object.keys(bad.body.errors), ['answer_credits']);
      const unknown = await server.call('PATCH', '/api/v1/admin/organisations/999999', { token: MASTER_KEY, body: { name: 'x' } });
      assert.deepEqual([unknown.status, unknown.body], [404, { message: 'Organisation not found.' }]);
    });

    it('issues and revokes tokens', async () => {
      const org = await server.createOrg('Tokens');
      const second = await server.call('POST', `/api/v1/admin/organisations/${org.id}/tokens`, { token: MASTER_KEY });
      assert.equal(second.status, 201);
      assert.equal((await server.call('GET', '/api/v1/collections', { token: second.body.token })).status, 200);
      const revoked = await server.call('DELETE', `/api/v1/admin/tokens/${second.body.token_id}`, { token: MASTER_KEY });
      assert.equal(revoked.status, 204);
      assert.equal((await server.call('GET', '/api/v1/collections', { token: second.body.token })).status, 401);
      assert.equal((await server.call('GET', '/api/v1/collections', { token: org.token })).status, 200, 'other tokens still work');
      const again = await server.call('DELETE', `/api/v1/admin/tokens/${second.body.token_id}`, { token: MASTER_KEY });
      assert.equal(again.status, 404);
      const noOrg = await server.call('POST', '/api/v1/admin/organisations/999999/tokens', { token: MASTER_KEY });
      assert.equal(noOrg.status, 404);
    });
  });
}

describe('lore CLI', () => {
  let server: TestServer;
  let url: string;
  before(async () => {
    server = await startServer('pglite');
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => server.close());

  const lore = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args, '--url', url], {
      env: { ...process.env, LORE_MASTER_KEY: MASTER_KEY },
    });

  it('creates an organisation and a token on a running server', async () => {
    const org = JSON.parse((await lore('org', 'create', '--name', 'CLI Co', '--json')).stdout);
    assert.equal(org.data.name, 'CLI Co');
    assert.match(org.token, /^lore_/);
    const token = JSON.parse((await lore('token', 'create', '--org', String(org.data.id), '--json')).stdout);
    assert.match(token.token, /^lore_/);
    const res = await fetch(`${url}/api/v1/collections`, { headers: { authorization: `Bearer ${token.token}` } });
    assert.equal(res.status, 200);
  });

  it('fails clearly with a wrong master key', async () => {
    await assert.rejects(
      run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'org', 'list', '--url', url, '--master-key', 'wrong'], { env: process.env }),
      (error: { code: number; stderr: string }) => error.code === 1 && /401/.test(error.stderr),
    );
  });
});
