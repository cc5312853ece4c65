import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DemoKeys } from '../src/domain/widgets/demo.js';
import { DEMO_CSP } from '../src/http/demo/page.js';
import { loreDocEntries, seedLoreDemo } from '../src/loreDocs.js';
import { backends, constantEmbedder, startServer, type TestServer } from './helpers.js';

const PORT = 4123;
const ORIGIN = `http://127.0.0.1:${PORT}`;
const CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data: https:; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const widgetPath = (key: string, path: string) => `/api/v1/${key.replace('/', '/widgets/')}/${path}`;

for (const backend of backends()) {
  describe(`demo [${backend}]`, () => {
    let server: TestServer;
    let keys: DemoKeys;
    const seed = (port = PORT, publicUrl?: string) => seedLoreDemo(server.container.demo, { port, publicUrl });
    const demoOrganisations = async () =>
      (await server.container.db.query<{ n: number }>("SELECT count(*)::int AS n FROM organisations WHERE name = 'Lore demo'"))[0]!.n;
    const websitesOf = async (key: string) =>
      (await server.container.db.query<{ websites: string[] }>('SELECT websites FROM widgets WHERE id = $1', [key.split('/')[1]]))[0]!.websites;

    before(async () => {
      server = await startServer(backend, { config: { demo: true } });
    });
    after(() => server.close());

    it('seeds one organisation with Lore’s docs, and reuses it when seeded again', async () => {
      assert.equal((await server.call('GET', '/')).status, 302, 'no demo before seeding');
      keys = (await seed())!;
      assert.match(keys.search, /^org_\w+\/wgt_\w+$/);
      assert.match(keys.chat, /^org_\w+\/wgt_\w+$/);
      assert.deepEqual(await seed(), keys);
      assert.equal(await demoOrganisations(), 1);
      const entries = await server.container.db.query<{ source_id: string; source_url: string; title: string }>(
        "SELECT source_id, source_url, title FROM entries WHERE source_type = 'file' ORDER BY source_id",
      );
      const expected = await loreDocEntries(ORIGIN);
      assert.equal(entries.length, expected.length);
      assert.ok(entries.length >= 20, `${entries.length} sections`);
      assert.ok(entries.some((e) => e.source_id === 'README.md#walk-through' && e.source_url === `${ORIGIN}/demo/docs/#walk-through` && e.title === 'Walk-through'));
      assert.ok(entries.some((e) => e.source_id === 'SEARCH.md#filters-boosts-and-sorts' && e.source_url === `${ORIGIN}/demo/docs/SEARCH#filters-boosts-and-sorts`));
      for (const key of [keys.search, keys.chat]) assert.deepEqual(await websitesOf(key), [`127.0.0.1:${PORT}`, `localhost:${PORT}`]);
    });

    it('follows a new port and LORE_PUBLIC_URL, keeping websites an admin added', async () => {
      await server.container.db.query("UPDATE widgets SET websites = array_append(websites, 'docs.example.com') WHERE id = $1", [keys.chat.split('/')[1]]);
      assert.deepEqual(await seed(4124, 'https://lore.example.com/'), keys);
      assert.deepEqual(await websitesOf(keys.chat), ['docs.example.com', '127.0.0.1:4124', 'localhost:4124', 'lore.example.com']);
      assert.deepEqual(await websitesOf(keys.search), ['127.0.0.1:4124', 'localhost:4124', 'lore.example.com']);
      const [entry] = await server.container.db.query<{ source_url: string }>("SELECT source_url FROM entries WHERE source_id = 'README.md#walk-through'");
      assert.equal(entry!.source_url, 'https://lore.example.com/demo/docs/#walk-through');
      assert.deepEqual(await seed(), keys);
      assert.deepEqual(await websitesOf(keys.chat), ['docs.example.com', `127.0.0.1:${PORT}`, `localhost:${PORT}`]);
      assert.equal(await demoOrganisations(), 1);
    });

    it('serves the page with a strict CSP, the keys in meta tags and only external scripts and styles', async () => {
      const res = await server.call('GET', '/', { headers: { accept: 'text/html' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.headers['content-security-policy'], CSP);
      assert.equal(DEMO_CSP, CSP);
      const html: string = res.body;
      assert.ok(html.includes(`<meta name="lore-search-key" content="${keys.search}">`));
      assert.ok(html.includes(`<meta name="lore-chat-key" content="${keys.chat}">`));
      assert.deepEqual([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0]), [
        '<script src="/widget/v1/service.js" defer>',
        `<script src="/widget/v1/service-analytics.js" data-widget="${keys.search}" defer>`,
        '<script src="/demo.js" defer>',
      ]);
      assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i);
      assert.match(html, /<button id="lore-demo-search"/);
      assert.match(html, /<button id="lore-demo-ask"[^>]* data-question="[^"]+"/);

      const script = await server.call('GET', '/demo.js');
      assert.deepEqual([script.status, script.headers['content-type']], [200, 'text/javascript; charset=utf-8']);
      assert.match(script.body, /sdk\.search\(searchKey, \{ trigger: '#lore-demo-search' \}\)\.mount\(\)/);
      assert.equal((await server.call('GET', '/demo.js', { headers: { 'if-none-match': String(script.headers.etag) } })).status, 304);
      const css = await server.call('GET', '/demo.css');
      assert.deepEqual([css.status, css.headers['content-type']], [200, 'text/css; charset=utf-8']);
      assert.equal((await server.call('GET', '/widget/v1/service.js')).status, 200);
    });

    it('answers the widgets’ config for the demo origin with CORS', async () => {
      const chat = await server.call('GET', widgetPath(keys.chat, 'config'), { headers: { origin: ORIGIN } });
      assert.equal(chat.status, 200);
      assert.equal(chat.headers['access-control-allow-origin'], ORIGIN);
      assert.equal(chat.body.type, 'chatbot');
      assert.equal(chat.body.variant, 'bubble');
      assert.ok(chat.body.greeting.length > 0);
      assert.ok(chat.body.prompts.length >= 3 && chat.body.prompts.length <= 4, JSON.stringify(chat.body.prompts));
      const search = await server.call('GET', widgetPath(keys.search, 'config'), { headers: { origin: ORIGIN } });
      assert.equal(search.headers['access-control-allow-origin'], ORIGIN);
      assert.deepEqual([search.body.type, search.body.variant, search.body.summary], ['search', 'modal', true]);
    });

    it('finds a Lore doc section through the demo search widget, from the page’s origin or same-origin', async () => {
      const res = await server.call('GET', widgetPath(keys.search, 'search?query=How+do+I+run+Lore+on+a+PostgreSQL+server'), { headers: { origin: ORIGIN } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
      const hit = res.body.data[0];
      assert.equal(hit.source_type, 'file');
      assert.ok(hit.source_url.startsWith(`${ORIGIN}/demo/docs/`), hit.source_url);
      // Browsers send a same-origin GET without Origin: the page the server itself serves still counts.
      const sameOrigin = await server.call('GET', widgetPath(keys.search, 'search?query=widgets'), { headers: { host: `127.0.0.1:${PORT}`, 'sec-fetch-site': 'same-origin' } });
      assert.equal(sameOrigin.status, 200);
      const crossSite = await server.call('GET', widgetPath(keys.search, 'search?query=widgets'), { headers: { host: `127.0.0.1:${PORT}`, 'sec-fetch-site': 'cross-site' } });
      assert.equal(crossSite.status, 401);
      const otherHost = await server.call('GET', widgetPath(keys.search, 'search?query=widgets'), { headers: { host: 'evil.example:4123', 'sec-fetch-site': 'same-origin' } });
      assert.equal(otherHost.status, 403);
    });

    it('chats through the demo chat widget, citing the docs', async () => {
      const res = await server.call('POST', widgetPath(keys.chat, 'chat'), { body: { message: 'How do I embed the chat widget on my website?' }, headers: { origin: ORIGIN } });
      assert.equal(res.status, 200);
      const events = res.body.split('\n\n').map((b: string) => b.slice(6)).filter((d: string) => d.startsWith('{')).map((d: string) => JSON.parse(d));
      const citations = events.filter((e: { type: string }) => e.type === 'citation');
      assert.ok(citations.length > 0, res.body);
      for (const { citation } of citations) assert.ok(citation.url.startsWith(`${ORIGIN}/demo/docs/`), citation.url);
    });

    it('shows the documents the results link to, with anchors, under the same CSP', async () => {
      const res = await server.call('GET', '/demo/docs/');
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-security-policy'], CSP);
      assert.match(res.body, /<h2 id="walk-through">Walk-through<\/h2>/);
      // A sub-section's anchor too, as --sections links it (a long section split at its ###).
      assert.match(res.body, /<h3 id="a-docs-folder">A docs folder<\/h3>/);
      assert.match(res.body, /<h1 id="lore">Lore<\/h1>/);
      assert.match(res.body, /<a href="\/demo\/docs\/ANSWERS">ANSWERS.md<\/a>/);
      const search = await server.call('GET', '/demo/docs/SEARCH');
      assert.equal(search.status, 200);
      assert.match(search.body, /<h2 id="filters-boosts-and-sorts">/);
      // Where earlier versions linked the documents.
      for (const [old, now] of [['/demo/docs/README.md', '/demo/docs/'], ['/demo/docs/SEARCH.md', '/demo/docs/SEARCH']]) {
        const moved = await server.call('GET', old!);
        assert.deepEqual([moved.status, moved.headers.location], [301, now], old);
      }
      for (const path of ['/demo/docs/package.json', '/demo/docs/..%2Fpackage.json', '/demo/docs/SPEC.md', '/demo/docs/README', '/demo/docs/SPEC']) {
        assert.deepEqual([(await server.call('GET', path)).status, (await server.call('GET', path)).body], [404, { message: 'Document not found.' }], path);
      }
    });

    it('stays removed once an admin deleted a demo widget', async () => {
      await server.container.db.query('DELETE FROM widgets WHERE id = $1', [keys.chat.split('/')[1]]);
      assert.equal(await seed(), null);
      assert.equal(await seed(), null);
      assert.equal(await demoOrganisations(), 1);
      const res = await server.call('GET', '/');
      assert.deepEqual([res.status, res.headers.location], [302, '/docs']);
      assert.equal((await server.call('GET', '/demo/docs/')).status, 404);
    });
  });
}

describe('demo off (LORE_DEMO=off)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer('pglite', { embedder: constantEmbedder, config: { demo: false } });
  });
  after(() => server.close());

  it('redirects / to the API reference and serves no demo files', async () => {
    const res = await server.call('GET', '/');
    assert.deepEqual([res.status, res.headers.location], [302, '/docs']);
    for (const path of ['/demo.js', '/demo.css', '/demo/docs/', '/demo/docs/README.md']) assert.equal((await server.call('GET', path)).status, 404, path);
  });
});
