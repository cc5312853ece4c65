import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerErrorHandling } from '../src/http/errors.js';
import { ADAPTER_DIR, WIDGET_SCRIPTS_DIR, widgetScriptRoutes } from '../src/http/routes/widgetScripts.js';
import { constantEmbedder, startServer, type TestServer } from './helpers.js';

// Scripts are static files: one backend is enough.
describe('widget scripts', () => {
  let server: TestServer;
  let origin: string;

  before(async () => {
    server = await startServer('pglite', { embedder: constantEmbedder });
    origin = await server.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => server.close());

  for (const name of ['service.js', 'service-analytics.js']) {
    it(`serves /widget/v1/${name} publicly with cache, CORS and CORP headers`, async () => {
      const response = await fetch(`${origin}/widget/v1/${name}`, { headers: { origin: 'https://elsewhere.example' } });
      assert.equal(response.status, 200);
      const body = await response.text();
      assert.equal(body, await readFile(`${WIDGET_SCRIPTS_DIR}/${name}`, 'utf8'));
      assert.ok(body.length > 0);
      const h = response.headers;
      assert.equal(h.get('content-type'), 'text/javascript; charset=utf-8');
      assert.equal(h.get('cache-control'), 'public, max-age=300');
      assert.equal(h.get('access-control-allow-origin'), '*');
      assert.equal(h.get('cross-origin-resource-policy'), 'cross-origin');
      assert.equal(h.get('x-content-type-options'), 'nosniff');
      const etag = h.get('etag');
      assert.ok(etag);

      // fetch() adds `Cache-Control: no-cache` to a request with If-None-Match (which forces a
      // full response), so the revalidation a browser cache makes is sent with max-age=0.
      const again = await fetch(`${origin}/widget/v1/${name}`, { headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
      assert.equal(again.headers.get('etag'), etag);
    });
  }

  it('serves the InstantSearch adapter as a module any page may import; says to build it when missing', async () => {
    const response = await fetch(`${origin}/widget/v1/lore-instantsearch.js`, { headers: { origin: 'https://elsewhere.example' } });
    assert.equal(response.status, 200);
    const body = await response.text();
    assert.equal(body, await readFile(`${ADAPTER_DIR}/lore-instantsearch.js`, 'utf8'));
    assert.match(body, /export\s*\{[^}]*createLoreSearchClient/);
    assert.equal(response.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    const app = Fastify();
    registerErrorHandling(app);
    await app.register(widgetScriptRoutes, { adapterDir: '/nonexistent/adapters/instantsearch/dist' });
    const missing = await app.inject({ method: 'GET', url: '/widget/v1/lore-instantsearch.js' });
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: 'The browser SDK is not built: run `npm run build` (missing adapters/instantsearch/dist/lore-instantsearch.js).' }]);
    await app.close();
  });

  it('sends the pre-compressed copy the browser accepts (brotli, then gzip), with Vary', async () => {
    const { gunzipSync, brotliDecompressSync } = await import('node:zlib');
    const plain = await readFile(`${WIDGET_SCRIPTS_DIR}/service.js`);
    for (const [accept, encoding, decode] of [['gzip, deflate, br', 'br', brotliDecompressSync], ['gzip', 'gzip', gunzipSync]] as const) {
      const response = await server.app.inject({ method: 'GET', url: '/widget/v1/service.js', headers: { 'accept-encoding': accept } });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-encoding'], encoding);
      assert.match(String(response.headers.vary), /accept-encoding/i);
      assert.equal(response.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.ok(decode(response.rawPayload).equals(plain), encoding);
    }
    const identity = await server.app.inject({ method: 'GET', url: '/widget/v1/service.js', headers: { 'accept-encoding': 'identity' } });
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.ok(identity.rawPayload.equals(plain));
  });

  it('serves the UI strings of a locale as JSON, and no unknown locale', async () => {
    const response = await fetch(`${origin}/widget/v1/locales/zh-Hant.json`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    const strings = (await response.json()) as Record<string, string>;
    assert.equal(typeof strings.send, 'string');
    assert.equal((await fetch(`${origin}/widget/v1/locales/xx.json`)).status, 404);
    assert.equal((await fetch(`${origin}/widget/v1/locales/en.json`)).status, 404);
  });

  it('serves nothing else under /widget/ (no listing, no other files)', async () => {
    for (const path of ['/widget/', '/widget/v1/', '/widget/v1/other.js', '/widget/v1/../build.mjs', '/widget/dist/v1/service.js', '/widget/v1/service.js.map']) {
      const response = await fetch(`${origin}${path}`);
      assert.equal(response.status, 404, path);
      assert.deepEqual(await response.json(), { message: 'Not found.' }, path);
    }
  });

  it('needs no credential: an API token is ignored, none is required', async () => {
    const response = await server.call('GET', '/widget/v1/service.js', { token: 'not-a-token' });
    assert.equal(response.status, 200);
  });

  it('says to run npm run build when the build output is missing', async () => {
    const app = Fastify();
    registerErrorHandling(app);
    await app.register(widgetScriptRoutes, { dir: '/nonexistent/widget/dist/v1' });
    const response = await app.inject({ method: 'GET', url: '/widget/v1/service.js' });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), { message: 'The browser SDK is not built: run `npm run build` (missing widget/dist/v1/service.js).' });
    await app.close();
  });
});
