/**
 * The operator's view: Prometheus metrics behind the master key or a metrics token, a
 * request id on every response, and /readyz reflecting the database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { constantEmbedder, MASTER_KEY, startServer, type TestServer } from './helpers.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describe('operations: metrics, request ids, readiness', () => {
  let server: TestServer;
  let token: string;
  let integration: string;
  before(async () => {
    server = await startServer('pglite', { embedder: constantEmbedder, config: { metricsToken: METRICS_TOKEN } });
    token = (await server.createOrg()).token;
    const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
    await server.call('POST', `/api/v1/collections/${collection}/entries`, { token, body: { title: 'Passwords', raw_text: 'Reset your password from the account page.' } });
    integration = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
  });
  after(() => server.close());

  it('serves /metrics only to the master key or the metrics token', async () => {
    for (const credential of [null, token, 'wrong']) {
      const res = await server.call('GET', '/metrics', { token: credential });
      assert.deepEqual([res.status, res.body], [401, { message: 'Unauthenticated.' }]);
    }
    for (const credential of [MASTER_KEY, METRICS_TOKEN]) {
      const res = await server.call('GET', '/metrics', { token: credential });
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    }
  });

  it('counts requests by route template and status, and times searches, answers and embeddings', async () => {
    await server.call('GET', `/api/v1/integrations/${integration}/search?query=password`, { token });
    await server.call('GET', `/api/v1/integrations/${integration}/search?query=${'x'.repeat(2000)}`, { token });
    await server.call('GET', '/api/v1/no-such-route', { token });
    const streamed = await server.call('GET', `/api/v1/integrations/${integration}/summarise?query=reset+password`, { token });
    assert.equal(streamed.status, 200);
    const text = (await server.call('GET', '/metrics', { token: MASTER_KEY })).body as string;
    const search = '/api/v1/integrations/:integration/search';
    assert.match(text, new RegExp(`lore_http_requests_total\\{method="GET",route="${search}",status="200"\\} 1`));
    assert.match(text, new RegExp(`lore_http_requests_total\\{method="GET",route="${search}",status="422"\\} 1`));
    assert.match(text, /lore_http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
    assert.match(text, new RegExp(`lore_http_request_duration_seconds_count\\{method="GET",route="${search}"\\} 2`));
    assert.match(text, /lore_answer_first_delta_seconds_count\{route="\/api\/v1\/integrations\/:integration\/summarise"\} 1/);
    assert.match(text, /lore_answer_duration_seconds_count\{route="\/api\/v1\/integrations\/:integration\/summarise"\} 1/);
    assert.match(text, /lore_embed_duration_seconds_count\{kind="query"\} [1-9]/);
    assert.match(text, /lore_embedder_in_flight_texts 0/);
    assert.match(text, /lore_process_resident_memory_bytes \d+/);
    // No identifier of a tenant's data in any label: routes are templates.
    assert.ok(!text.includes(integration));
  });

  it('gives every response an X-Request-Id, keeping a well-formed one the caller sent', async () => {
    const mine = await server.call('GET', '/healthz', { headers: { 'x-request-id': 'trace-42.a:b' } });
    assert.equal(mine.headers['x-request-id'], 'trace-42.a:b');
    const generated = await server.call('GET', '/api/v1/collections', { token, headers: { 'x-request-id': 'bad id <script>' } });
    assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const streamed = await server.call('GET', `/api/v1/integrations/${integration}/summarise?query=password`, { token, headers: { 'x-request-id': 'sse-1' } });
    assert.equal(streamed.headers['x-request-id'], 'sse-1');
  });

  it('reports readiness from the database, now: 503 naming it when it stops answering', async () => {
    assert.deepEqual((await server.call('GET', '/readyz')).body, { status: 'ok' });
    const other = await startServer('pglite', { embedder: constantEmbedder });
    await other.container.db.close();
    const res = await other.call('GET', '/readyz');
    assert.deepEqual([res.status, res.body], [503, { status: 'unavailable', database: 'down', embedder: 'ok' }]);
    assert.equal((await other.call('GET', '/healthz')).status, 200, 'liveness does not depend on the database');
    await other.app.close();
  });
});
