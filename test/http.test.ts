import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from './helpers.js';

describe('HTTP surface', () => {
  let server: TestServer;
  let token: string;
  let collection: string;
  before(async () => {
    server = await startServer('pglite');
    token = (await server.createOrg()).token;
    collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'c' } })).body.data.id;
  });
  after(() => server.close());

  it('reports health and readiness', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const res = await server.call('GET', path);
      assert.deepEqual([res.status, res.body], [200, { status: 'ok' }]);
    }
  });

  it('serves an OpenAPI 3.1 document of every route, and /docs', async () => {
    const res = await server.call('GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    const paths = Object.keys(res.body.paths);
    for (const path of [
      '/api/v1/collections', '/api/v1/collections/{collection}', '/api/v1/collections/{collection}/entries',
      '/api/v1/collections/{collection}/entries/upsert', '/api/v1/collections/{collection}/entries/batch',
      '/api/v1/collections/{collection}/entries/{entry}', '/api/v1/collections/{collection}/entries/by-source/{sourceType}/{sourceId}',
      '/api/v1/admin/organisations',
    ]) {
      assert.ok(paths.includes(path), `${path} missing from OpenAPI`);
    }
    assert.ok(res.body.paths['/api/v1/collections/{collection}/entries'].post.requestBody);
    const docs = await server.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger/i);
  });

  it('gives the OpenAPI document package.json’s version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal((await server.call('GET', '/api/v1/openapi.json')).body.info.version, version);
  });

  it('serves /docs and its scripts with a Content-Security-Policy: own scripts only, no inline or eval, no framing', async () => {
    for (const url of ['/docs/', '/docs/static/swagger-initializer.js', '/docs/static/swagger-ui-bundle.js', '/docs/json']) {
      const res = await server.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      const csp = String(res.headers['content-security-policy'] ?? '');
      const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name!, values]));
      assert.deepEqual(directives.get('script-src'), ["'self'"], `${url}: ${csp}`);
      assert.deepEqual(directives.get('object-src'), ["'none'"], url);
      assert.deepEqual(directives.get('frame-ancestors'), ["'self'"], url);
      assert.ok(!csp.includes('unsafe-'), `${url}: ${csp}`);
    }
    // Swagger UI's page loads only its own files: no inline script the policy would block.
    const page = (await server.app.inject({ method: 'GET', url: '/docs/' })).body;
    assert.doesNotMatch(page, /<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('answers malformed JSON with 400, never 500', async () => {
    for (const payload of ['{"name": ', '[1,2', 'nul', '{"__proto__": {"x": 1}}']) {
      const res = await server.call('POST', '/api/v1/collections', { token, payload });
      assert.ok(res.status === 400 || res.status === 422, `${payload} → ${res.status}`);
      assert.equal(typeof res.body.message, 'string');
    }
    const array = await server.call('POST', '/api/v1/collections', { token, payload: '[]' });
    assert.equal(array.status, 422);
    const empty = await server.call('POST', '/api/v1/collections', { token, payload: '' });
    assert.equal(empty.status, 422);
    assert.deepEqual(empty.body.errors, { body: ['The body field must be an object.'] });
  });

  it('refuses oversized bodies with 413', async () => {
    const res = await server.call('POST', `/api/v1/collections/${collection}/entries`, {
      token,
      payload: JSON.stringify({ raw_text: 'x'.repeat(11 * 1024 * 1024) }),
    });
    assert.deepEqual([res.status, res.body], [413, { message: 'The request body is too large.' }]);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await server.call('GET', '/api/v1/nothing-here', { token });
    assert.deepEqual([res.status, res.body], [404, { message: 'Not found.' }]);
  });

  it('accepts body-less DELETEs sent with Content-Type: application/json', async () => {
    const c = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'gone' } })).body.data.id;
    const res = await server.call('DELETE', `/api/v1/collections/${c}`, { token, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 204);
  });
});
