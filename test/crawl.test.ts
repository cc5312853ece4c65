/**
 * `lore crawl <url> --collection <id>` against a real Lore over HTTP and a site served by the
 * test: scope (origin, path prefix, robots.txt), sitemaps (an index, a malformed one), one
 * entry per page whatever the URL's form (trailing slash, fragment, tracking parameters,
 * redirects, canonical links), HTML and PDF read, the rest reported with reasons (errors,
 * redirect loops, other content types, size cap); a re-crawl that asks conditionally and
 * writes nothing, a changed page updated and a page gone deleted; with --sections, an entry
 * per section linked at the site's heading ids, kept in step as pages change, go, or the mode
 * does; the command's errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { crawlSite, type CrawlReport } from '../src/cli/siteCrawl.js';
import { normaliseUrl } from '../src/crawler/crawl.js';
import { site } from './fixtures/site.js';
import { constantEmbedder, startServer, type TestServer } from './helpers.js';
import { runLoreCli } from './processes.js';

describe('lore crawl <url> (website crawler)', () => {
  const web = site();
  let server: TestServer;
  let lore: string;
  let token: string;
  let collection: string;
  before(async () => {
    await web.listen();
    server = await startServer('pglite', { embedder: constantEmbedder });
    lore = await server.app.listen({ port: 0, host: '127.0.0.1' });
    token = (await server.createOrg()).token;
    collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Site' } })).body.data.id;
  });
  after(async () => {
    await server.close();
    await web.close();
  });

  const crawl = (options: { keepGone?: boolean } = {}) =>
    crawlSite({ start: `${web.url()}/docs/`, collection, server: lore, token, maxPages: 100, concurrency: 2, delayMs: 0, include: [], exclude: [], keepGone: options.keepGone ?? false, maxBytes: 64 * 1024, progress: false });
  const entries = async (of = collection) =>
    new Map(
      ((await server.call('GET', `/api/v1/collections/${of}/entries?per_page=100`, { token })).body.data as { source_id: string; source_type: string; source_url: string; title: string; raw_text: string; meta: Record<string, unknown>; updated_at: string }[]).map((e) => [
        e.source_id.replace(web.url(), ''),
        e,
      ]),
    );
  const reasons = (report: CrawlReport) => Object.fromEntries([...report.skipped, ...report.failed].map((r) => [r.path.replace(web.url(), ''), r.reason]));

  it('normalises the URL forms of one page to one', () => {
    const forms = ['http://x.test/docs/a', 'http://x.test/docs/a/', 'http://X.test/docs/a#install', 'http://x.test/docs/a?utm_source=news&gclid=1', 'http://x.test:80/docs/a'];
    assert.deepEqual(new Set(forms.map((f) => normaliseUrl(f))), new Set(['http://x.test/docs/a']));
    assert.equal(normaliseUrl('http://x.test/search?b=2&a=1'), 'http://x.test/search?a=1&b=2');
    assert.equal(normaliseUrl('mailto:help@x.test'), null);
  });

  it('crawls what is in scope into one entry a page and reports the rest', async () => {
    const report = await crawl();
    const stored = await entries();
    assert.deepEqual([...stored.keys()].sort(), ['/docs', '/docs/a', '/docs/b', '/docs/manual.pdf', '/docs/orphan']);
    assert.ok([...stored.values()].every((e) => e.source_type === 'web'));
    assert.equal(stored.get('/docs')!.source_url, `${web.url()}/docs/`, 'linked where it was fetched');
    const a = stored.get('/docs/a')!;
    assert.equal(a.title, 'Install');
    assert.match(a.raw_text, /^Installing is explained here/, 'the article, not the navigation');
    assert.match(a.raw_text, /```sh\nnpm install acme\n```/);
    assert.ok(!a.raw_text.includes('Blog') && !a.raw_text.includes('©'), 'no footer');
    assert.deepEqual([stored.get('/docs/manual.pdf')!.title, stored.get('/docs/manual.pdf')!.raw_text], ['Acme manual', 'Refunds are paid within five working days.']);

    assert.deepEqual([report.created, report.updated, report.unchanged, report.deleted], [5, 0, 0, 0]);
    const why = reasons(report);
    assert.equal(why['/docs/old'], `redirects to ${web.url()}/docs/a`);
    assert.match(why['/docs/loop'] ?? '', /redirect/i);
    assert.equal(why['/docs/error'], 'HTTP 500');
    assert.equal(why['/docs/missing'], 'HTTP 404');
    assert.equal(why['/docs/logo.png'], 'not HTML (image/png)');
    assert.equal(why['/docs/huge'], 'larger than 64 kB');
    assert.equal(why['/docs/private/secret'], 'disallowed by robots.txt');
    assert.equal(why['/docs/dup'], `canonical URL is ${web.url()}/docs/b`);
    assert.equal(why['/sitemap.xml'], 'not a sitemap (no <urlset> or <sitemapindex>)');
    assert.equal(report.failed.length, 2, JSON.stringify(report.failed));
    assert.equal(web.requests.get('/docs/private/secret'), undefined, 'robots.txt obeyed');
    assert.equal(web.requests.get('/blog/post'), undefined, 'outside the path prefix');
    assert.equal(web.requests.get('/docs/a'), 2, 'asked once, and once more through the redirect to it');
  });

  it("keeps each page's section ids, and answers link the section they quote", async () => {
    const a = (await server.call('GET', `/api/v1/collections/${collection}/entries?per_page=100`, { token })).body.data.find((e: { source_id: string }) => e.source_id === `${web.url()}/docs/a`);
    assert.deepEqual(a.meta.anchors, { 'on-linux': 'on-linux', upgrading: 'upgrade-notes' }, 'the id on the heading, and that of the section it opens');
    const integration = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Site', collection_ids: [collection] } })).body.data.id;
    const upgrade = await server.call('GET', `/api/v1/integrations/${integration}/summarise?query=${encodeURIComponent('How do I upgrade Acme?')}&stream=false&threshold=0`, { token });
    const urls = (answer: { body: { references: { url: string }[] } }) => answer.body.references.map((r) => r.url).filter((u) => u.startsWith(`${web.url()}/docs/a`));
    assert.match(upgrade.body.summary, /npm update acme/);
    assert.deepEqual(urls(upgrade), [`${web.url()}/docs/a#upgrade-notes`]);
    const linux = await server.call('GET', `/api/v1/integrations/${integration}/summarise?query=${encodeURIComponent('Which glibc does Acme need on Linux?')}&stream=false&threshold=0`, { token });
    assert.match(linux.body.summary, /glibc 2\.31/);
    assert.deepEqual(urls(linux), [`${web.url()}/docs/a#on-linux`]);
  });

  it('re-crawls an unchanged site without writing, then updates a changed page and deletes a page gone', async () => {
    const before = await entries();
    web.requests.clear();
    const cli = await runLoreCli(['crawl', `${web.url()}/docs/`, '--collection', collection, '--url', lore, '--delay-ms', '0'], { ...process.env, LORE_TOKEN: token });
    assert.equal(cli.code, 0, cli.stderr);
    // The command's default size cap (5 MB) takes /docs/huge, which the 64 kB above refused.
    assert.match(cli.stdout, / — 1 new, 0 changed, 5 unchanged, 0 deleted, 6 skipped, 2 failed\./);
    assert.equal(web.requests.get('/docs/a'), 2, 'asked conditionally (304), and through the redirect to it');
    const after = await entries();
    for (const [id, entry] of before) assert.equal(after.get(id)!.updated_at, entry.updated_at, `${id} not written again`);

    web.state.orphanGone = true;
    web.state.bText = 'Payments';
    const report = await crawl();
    assert.deepEqual([report.created, report.updated, report.unchanged, report.deleted], [0, 1, 3, 1]);
    const stored = await entries();
    assert.ok(!stored.has('/docs/orphan'), 'a page now 404 is deleted, though only the sitemap named it');
    assert.equal(stored.get('/docs/b')!.title, 'Payments');
  });

  describe('--sections', () => {
    let guide: string;
    before(async () => {
      guide = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Guide' } })).body.data.id;
    });
    const crawlGuide = (sections = true) =>
      crawlSite({ start: `${web.url()}/guide/`, collection: guide, server: lore, token, maxPages: 100, concurrency: 2, delayMs: 0, include: [], exclude: [], keepGone: false, sections, progress: false });
    /** The guide's entries: source_id → [title, source_url], the site's origin left out. */
    const linked = async () => Object.fromEntries([...(await entries(guide))].map(([id, e]) => [id, [e.title, e.source_url.replace(web.url(), '')]]));
    const sectioned = {
      '/guide': ['Guide', '/guide/'],
      '/guide/faq': ['FAQ', '/guide/faq'],
      '/guide/faq#billing': ['Billing', '/guide/faq#billing'],
      '/guide/faq#refunds': ['Refunds', '/guide/faq#refunds'],
      '/guide/setup': ['Setup', '/guide/setup'],
      '/guide/setup#install': ['Install', '/guide/setup#sec-install'],
      '/guide/setup#configuration': ['Configuration', '/guide/setup#sec-config'],
      '/guide/setup#server': ['Configuration › Server', '/guide/setup#sec-config-server'],
      '/guide/setup#storage': ['Configuration › Storage', '/guide/setup#sec-config-storage'],
      '/guide/setup#troubleshooting': ['Troubleshooting', '/guide/setup#trouble'],
      '/guide/setup#uninstall': ['Uninstall', '/guide/setup#uninstall'],
    };

    it("makes an entry per section, titled by its heading path and linked at the site's heading id", async () => {
      const report = await crawlGuide();
      assert.deepEqual(await linked(), sectioned, "the section's id on its heading, on the section it opens, or its slug when it has none");
      assert.deepEqual([report.created, report.updated, report.unchanged, report.deleted, report.failed.length], [11, 0, 0, 0, 0]);
      const tooLong = `/guide#${'a-heading-far-too-long-'.repeat(25).slice(0, -1)}`;
      assert.deepEqual(reasons(report), { '/sitemap.xml': 'not a sitemap (no <urlset> or <sitemapindex>)', [tooLong]: 'URL longer than 500 characters' }, 'a section over the limits is left out');
      const stored = await entries(guide);
      assert.equal(stored.get('/guide/setup#install')!.raw_text, '## Install\n\nInstall Acme with npm install acme on any machine with Node.js 20 or later.');
      assert.match(stored.get('/guide/setup')!.raw_text, /^Setting Acme up is explained here/, 'the text before the first section is the page');
      assert.ok(!stored.get('/guide/setup#configuration')!.raw_text.includes('### Server'), 'a long section split at its sub-headings');
      assert.match(stored.get('/guide/faq')!.raw_text, /^# FAQ\n\nThe FAQ is explained here/, 'a first heading repeating the title is the page, not a section');
      assert.ok([...stored].every(([id, e]) => e.meta.page === `${web.url()}${id.split('#')[0]}`), 'each names its page');
      assert.deepEqual([stored.get('/guide/setup')!.meta.page_title, stored.get('/guide/setup#server')!.meta.page_title], [undefined, 'Setup'], "a section names its page's title");
    });

    it('re-crawls: an unchanged page is not written, a changed one loses the sections it no longer has, a page gone its sections', async () => {
      const before = await entries(guide);
      web.state.troubleshooting = false;
      const report = await crawlGuide();
      assert.equal(web.statuses.get('/guide/faq'), 304, 'asked conditionally');
      assert.deepEqual([report.created, report.updated, report.unchanged, report.deleted], [0, 6, 4, 1], 'the changed page rewritten whole; the others counted by their entries');
      const after = await entries(guide);
      assert.ok(!after.has('/guide/setup#troubleshooting'), 'the section removed is deleted');
      for (const id of ['/guide', '/guide/faq', '/guide/faq#billing', '/guide/faq#refunds']) assert.equal(after.get(id)!.updated_at, before.get(id)!.updated_at, `${id} not written again`);

      web.state.faqGone = true;
      const gone = await crawlGuide();
      assert.deepEqual([gone.created, gone.updated, gone.unchanged, gone.deleted], [0, 0, 7, 3]);
      assert.deepEqual(Object.keys(await linked()).filter((id) => id.startsWith('/guide/faq')), [], 'a page gone takes its sections with it');
      assert.ok(!Object.keys(reasons(gone)).some((url) => url.startsWith('/guide/faq')), 'a page gone is not reported skipped');
    });

    it('switched off and on, leaves no entry of the other form', async () => {
      web.state.troubleshooting = true;
      web.state.faqGone = false;
      await crawlGuide();
      assert.deepEqual(await linked(), sectioned);

      const pages = await crawlGuide(false);
      assert.equal(web.statuses.get('/guide/faq'), 200, 'a page stored in sections is read again, not asked conditionally');
      assert.deepEqual(await linked(), { '/guide': ['Guide', '/guide/'], '/guide/faq': ['FAQ', '/guide/faq'], '/guide/setup': ['Setup', '/guide/setup'] });
      assert.deepEqual([pages.created, pages.updated, pages.unchanged, pages.deleted], [0, 3, 0, 8]);
      assert.match((await entries(guide)).get('/guide/faq')!.raw_text, /Refunds are paid/, 'the whole page');

      const again = await runLoreCli(['crawl', `${web.url()}/guide/`, '--collection', guide, '--url', lore, '--delay-ms', '0', '--sections'], { ...process.env, LORE_TOKEN: token });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /, one entry a section: 3 pages fetched of 3 found — 8 new, 3 changed, 0 unchanged, 0 deleted, 2 skipped, 0 failed\./);
      assert.equal(web.statuses.get('/guide/faq'), 200);
      assert.deepEqual(await linked(), sectioned);
    });
  });

  it('crawls nothing while robots.txt answers with a server error (RFC 9309)', async () => {
    web.state.robotsDown = true;
    web.requests.clear();
    try {
      const report = await crawl();
      assert.deepEqual([report.created, report.updated, report.deleted], [0, 0, 0]);
      assert.equal(reasons(report)['/robots.txt'], 'HTTP 503: nothing is crawled while robots.txt cannot be read');
      assert.deepEqual([...web.requests.keys()].filter((p) => p.startsWith('/docs')), [], 'no page asked');
    } finally {
      web.state.robotsDown = false;
    }
  });

  it('ends with a clear message on bad arguments (exit 2) or an unreachable server (exit 1)', async () => {
    const cases: [string[], Record<string, string>, RegExp, number][] = [
      [['crawl'], { LORE_TOKEN: token }, /crawl needs a start URL/, 2],
      [['crawl', `${web.url()}/docs/`], { LORE_TOKEN: token }, /crawl needs --collection ID/, 2],
      [['crawl', 'ftp://example.test/', '--collection', collection, '--url', lore], { LORE_TOKEN: token }, /is not an http\(s\) URL/, 2],
      [['crawl', `${web.url()}/docs/`, '--collection', collection, '--url', lore], {}, /set LORE_TOKEN or pass --token/, 2],
      [['crawl', `${web.url()}/docs/`, '--collection', collection, '--url', lore, '--concurrency', '0'], { LORE_TOKEN: token }, /--concurrency must be a whole number from 1 to 16/, 2],
      [['crawl', `${web.url()}/docs/`, '--collection', collection, '--url', 'http://127.0.0.1:9'], { LORE_TOKEN: token }, /cannot reach Lore at http:\/\/127\.0\.0\.1:9/, 1],
    ];
    for (const [args, env, message, code] of cases) {
      const result = await runLoreCli(args, { ...process.env, LORE_TOKEN: '', ...env });
      assert.equal(result.code, code, args.join(' '));
      assert.match(result.stderr, new RegExp(`^lore: .*${message.source}`), args.join(' '));
    }
  });
});
