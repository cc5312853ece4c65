/**
 * Website crawlers run by the server (POST /api/v1/collections/{collection}/crawlers): the
 * first run at once, status and report over the API, a re-run that writes nothing, schedules,
 * the sections setting, validation, tenant isolation, one process at a time, and no fetching
 * of private addresses unless LORE_CRAWL_PRIVATE_NETWORKS allows it. On both backends.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CRAWLERS_PER_ORGANISATION, RUNS_PER_ORGANISATION } from '../src/domain/crawl/crawlers.js';
import { createCrawlerRepository } from '../src/storage/crawlers.js';
import { site } from './fixtures/site.js';
import { backends, constantEmbedder, startServer, type TestServer } from './helpers.js';

for (const backend of backends()) {
  describe(`website crawlers [${backend}]`, () => {
    const web = site();
    let server: TestServer;
    let token: string;
    let collection: string;
    before(async () => {
      await web.listen();
      server = await startServer(backend, { embedder: constantEmbedder });
      token = (await server.createOrg()).token;
      collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Site' } })).body.data.id;
    });
    after(async () => {
      await server.close();
      await web.close();
    });
    const base = () => `/api/v1/collections/${collection}/crawlers`;

    it('crawls a site at once, reports the run, and writes nothing when re-run on an unchanged site', async () => {
      const created = await server.call('POST', base(), { token, body: { start_url: `${web.url()}/docs/`, exclude: ['docs/huge'] } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const crawler = created.body.data;
      assert.deepEqual(
        [crawler.type, crawler.status, crawler.max_pages, crawler.schedule_hours, crawler.keep_gone, crawler.sections, crawler.include, crawler.exclude, crawler.last_run],
        ['website', 'queued', 1000, null, false, false, [], ['docs/huge'], null],
      );
      assert.equal(await server.container.crawlerRunner.tick(), true);

      const done = (await server.call('GET', `${base()}/${crawler.id}`, { token })).body.data;
      assert.equal(done.status, 'idle');
      assert.equal(done.next_run_at, null, 'no schedule: no next run');
      assert.equal(done.last_run.outcome, 'finished');
      const report = done.last_run.report;
      assert.deepEqual([report.created, report.updated, report.unchanged, report.deleted, report.failed_total], [5, 0, 0, 0, 2]);
      assert.ok(report.skipped.some((s: { url: string; reason: string }) => s.url.endsWith('/docs/private/secret') && s.reason === 'disallowed by robots.txt'));
      const entries = (await server.call('GET', `/api/v1/collections/${collection}/entries?per_page=100`, { token })).body.data as { source_type: string; source_id: string }[];
      assert.deepEqual(entries.map((e) => e.source_id.replace(web.url(), '')).sort(), ['/docs', '/docs/a', '/docs/b', '/docs/manual.pdf', '/docs/orphan']);
      assert.ok(entries.every((e) => e.source_type === 'web'));

      const rerun = await server.call('POST', `${base()}/${crawler.id}/run`, { token });
      assert.deepEqual([rerun.status, rerun.body.data.status], [202, 'queued']);
      await server.container.crawlerRunner.tick();
      const again = (await server.call('GET', `${base()}/${crawler.id}`, { token })).body.data.last_run.report;
      assert.deepEqual([again.created, again.updated, again.unchanged], [0, 0, 5]);

      const scheduled = await server.call('PATCH', `${base()}/${crawler.id}`, { token, body: { schedule_hours: 24 } });
      assert.equal(scheduled.status, 200);
      const next = Date.parse(scheduled.body.data.next_run_at) - Date.parse(scheduled.body.data.last_run.started_at);
      assert.equal(next, 24 * 3_600_000, 'the next run a schedule after the last one started');
      assert.equal(await server.container.crawlerRunner.tick(), false, 'nothing due');

      const listed = await server.call('GET', base(), { token });
      assert.deepEqual([listed.status, listed.body.meta.total, listed.body.data[0].id], [200, 1, crawler.id]);
      assert.equal((await server.call('DELETE', `${base()}/${crawler.id}`, { token })).status, 204);
      assert.equal((await server.call('GET', `${base()}/${crawler.id}`, { token })).status, 404);
      assert.equal((await server.call('GET', `/api/v1/collections/${collection}/entries?per_page=1`, { token })).body.meta.total, 5, 'its pages stay');
    });

    it('keeps its sections setting, and crawls a page into an entry per section or one as it says', async () => {
      const guide = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Guide' } })).body.data.id;
      const crawlers = `/api/v1/collections/${guide}/crawlers`;
      const created = await server.call('POST', crawlers, { token, body: { start_url: `${web.url()}/guide/`, sections: true } });
      assert.deepEqual([created.status, created.body.data.sections], [201, true], JSON.stringify(created.body));
      await server.container.crawlerRunner.tick();
      const ids = async () =>
        Object.fromEntries(
          ((await server.call('GET', `/api/v1/collections/${guide}/entries?per_page=100`, { token })).body.data as { source_id: string; source_url: string }[]).map((e) => [e.source_id.replace(web.url(), ''), e.source_url.replace(web.url(), '')]),
        );
      const sections = await ids();
      assert.equal(Object.keys(sections).length, 11, JSON.stringify(sections));
      assert.equal(sections['/guide/setup#server'], '/guide/setup#sec-config-server');
      assert.equal(sections['/guide/setup#troubleshooting'], '/guide/setup#trouble');
      assert.equal((await server.call('GET', `${crawlers}/${created.body.data.id}`, { token })).body.data.sections, true, 'stored');

      const patched = await server.call('PATCH', `${crawlers}/${created.body.data.id}`, { token, body: { sections: false } });
      assert.deepEqual([patched.status, patched.body.data.sections], [200, false]);
      await server.call('POST', `${crawlers}/${created.body.data.id}/run`, { token });
      await server.container.crawlerRunner.tick();
      assert.deepEqual(await ids(), { '/guide': '/guide/', '/guide/faq': '/guide/faq', '/guide/setup': '/guide/setup' }, 'one entry a page, the sections deleted');
      assert.equal((await server.call('GET', crawlers, { token })).body.data[0].sections, false, 'listed');
      await server.call('DELETE', `${crawlers}/${created.body.data.id}`, { token });
    });

    it('validates what it is given', async () => {
      const bad = async (body: unknown) => (await server.call('POST', base(), { token, body })).status;
      assert.equal(await bad({ start_url: 'ftp://example.test/' }), 422);
      assert.equal(await bad({ start_url: 'not a url' }), 422);
      assert.equal(await bad({ start_url: 'https://user:secret@example.test/' }), 422);
      assert.equal(await bad({ start_url: 'https://example.test/', max_pages: 0 }), 422);
      assert.equal(await bad({ start_url: 'https://example.test/', schedule_hours: 0 }), 422);
      assert.equal(await bad({ start_url: 'https://example.test/', type: 'folder' }), 422);
      assert.equal(await bad({ start_url: 'https://example.test/', sections: 'yes' }), 422);
      assert.equal((await server.call('POST', '/api/v1/collections/00000000-0000-4000-8000-000000000000/crawlers', { token, body: { start_url: 'https://example.test/' } })).status, 404);
    });

    it("never shows or changes another organisation's crawlers", async () => {
      const mine = (await server.call('POST', base(), { token, body: { start_url: 'https://example.test/docs/', schedule_hours: 12 } })).body.data;
      const other = (await server.createOrg('Other')).token;
      const path = `${base()}/${mine.id}`;
      assert.equal((await server.call('GET', base(), { token: other })).status, 404);
      assert.equal((await server.call('POST', base(), { token: other, body: { start_url: 'https://example.test/' } })).status, 404);
      assert.equal((await server.call('GET', path, { token: other })).status, 404);
      assert.equal((await server.call('PATCH', path, { token: other, body: { max_pages: 1 } })).status, 404);
      assert.equal((await server.call('POST', `${path}/run`, { token: other })).status, 404);
      assert.equal((await server.call('DELETE', path, { token: other })).status, 404);
      assert.equal((await server.call('GET', path, { token })).body.data.max_pages, 1000);
      await server.call('DELETE', path, { token });
    });

    it('lets one process at a time take a due crawler', async () => {
      const crawler = (await server.call('POST', base(), { token, body: { start_url: 'https://example.test/' } })).body.data;
      const repository = createCrawlerRepository(server.container.db);
      const claims = await Promise.all([repository.claimDue(60, 2), repository.claimDue(60, 2)]);
      assert.deepEqual(claims.map((c) => c?.id ?? null).sort(), [crawler.id, null].sort());
      assert.equal((await server.call('GET', `${base()}/${crawler.id}`, { token })).body.data.status, 'running');
      assert.equal(await repository.claimDue(60, 2), null, 'leased');
      await server.call('DELETE', `${base()}/${crawler.id}`, { token });
    });

    it('takes due crawlers fairly: organisations in turn, at most RUNS_PER_ORGANISATION runs of one at once', async () => {
      const orgs = await Promise.all(['Busy', 'Late'].map(async (name) => {
        const { token: t } = await server.createOrg(name);
        const c = (await server.call('POST', '/api/v1/collections', { token: t, body: { name: 'Site' } })).body.data.id;
        return { token: t, base: `/api/v1/collections/${c}/crawlers` };
      }));
      const [busy, late] = orgs as [(typeof orgs)[0], (typeof orgs)[0]];
      const busyIds: string[] = [];
      for (let i = 0; i < 5; i++) busyIds.push((await server.call('POST', busy.base, { token: busy.token, body: { start_url: `https://example.test/${i}/` } })).body.data.id);
      const lateId = (await server.call('POST', late.base, { token: late.token, body: { start_url: 'https://example.test/late/' } })).body.data.id;
      const repository = createCrawlerRepository(server.container.db);
      const claimed: string[] = [];
      for (let claim = await repository.claimDue(60, RUNS_PER_ORGANISATION); claim; claim = await repository.claimDue(60, RUNS_PER_ORGANISATION)) claimed.push(claim.id);
      const mine = claimed.filter((id) => busyIds.includes(id) || id === lateId);
      // The busy organisation's first crawler, then the late one's (created after all five), then the busy one's second: no more while two run.
      assert.deepEqual(mine, [busyIds[0], lateId, busyIds[1]]);
      for (const id of busyIds) await server.call('DELETE', `${busy.base}/${id}`, { token: busy.token });
      await server.call('DELETE', `${late.base}/${lateId}`, { token: late.token });
    });

    it(`refuses an organisation's crawler past ${CRAWLERS_PER_ORGANISATION} with 422`, async () => {
      const { token: t } = await server.createOrg('Many');
      const c = (await server.call('POST', '/api/v1/collections', { token: t, body: { name: 'Site' } })).body.data.id;
      const many = `/api/v1/collections/${c}/crawlers`;
      for (let i = 0; i < CRAWLERS_PER_ORGANISATION; i++) {
        assert.equal((await server.call('POST', many, { token: t, body: { start_url: `https://example.test/${i}/`, schedule_hours: 24 } })).status, 201);
      }
      const refused = await server.call('POST', many, { token: t, body: { start_url: 'https://example.test/one-more/' } });
      assert.equal(refused.status, 422);
      assert.match(refused.body.errors.crawlers[0], /at most 50 crawlers/);
      const list = await server.call('GET', `${many}?per_page=100`, { token: t });
      assert.equal(list.body.meta.total, CRAWLERS_PER_ORGANISATION);
      await server.call('DELETE', `${many}/${list.body.data[0].id}`, { token: t });
      assert.equal((await server.call('POST', many, { token: t, body: { start_url: 'https://example.test/one-more/' } })).status, 201, 'a slot freed');
      // Left due, they would be taken by the next test's runs.
      for (const crawler of (await server.call('GET', `${many}?per_page=100`, { token: t })).body.data) await server.call('DELETE', `${many}/${crawler.id}`, { token: t });
    });
  });
}

describe('website crawlers and private addresses', () => {
  const web = site();
  let server: TestServer;
  before(async () => {
    await web.listen();
    server = await startServer('pglite', { embedder: constantEmbedder, config: { crawlPrivateNetworks: false } });
  });
  after(async () => {
    await server.close();
    await web.close();
  });

  it('refuses a crawler whose start URL reaches a private address, created, moved there or run, with 422 naming the setting', async () => {
    const { token, id } = await server.createOrg();
    const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Site' } })).body.data.id;
    const base = `/api/v1/collections/${collection}/crawlers`;
    const refused = (res: { status: number; body: { errors?: Record<string, string[]> } }) => {
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body.errors ?? {}), ['start_url']);
      assert.match(res.body.errors!.start_url![0]!, /private address .*LORE_CRAWL_PRIVATE_NETWORKS/);
    };
    for (const start of [`${web.url()}/docs/`, `${web.url().replace('127.0.0.1', 'localhost')}/docs/`, 'http://[::ffff:127.0.0.1]/', 'http://[::7f00:1]/', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/']) {
      refused(await server.call('POST', base, { token, body: { start_url: start } }));
    }
    assert.equal((await server.call('GET', base, { token })).body.meta.total, 0, 'nothing created');
    // A name that does not resolve (no network here) is accepted: its run reports what it finds.
    const crawler = await server.call('POST', base, { token, body: { start_url: 'https://docs.unresolvable.invalid/' } });
    assert.equal(crawler.status, 201, JSON.stringify(crawler.body));
    refused(await server.call('PATCH', `${base}/${crawler.body.data.id}`, { token, body: { start_url: `${web.url()}/docs/` } }));
    // Stored before this check existed: running it is refused too.
    const stored = (await createCrawlerRepository(server.container.db).create({ organisationId: id }, collection, randomUUID(), { start_url: `${web.url()}/docs/`, include: [], exclude: [], max_pages: 10, keep_gone: false, sections: false, schedule_hours: null }, 50))!;
    refused(await server.call('POST', `${base}/${stored.id}/run`, { token }));
    await server.call('DELETE', `${base}/${stored.id}`, { token });
    await server.call('DELETE', `${base}/${crawler.body.data.id}`, { token });
    assert.equal(web.requests.size, 0, 'the site was never asked');
  });

  it('does not fetch a private address when a run reaches one anyway (a name that moved there)', async () => {
    const { token, id } = await server.createOrg();
    const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Site' } })).body.data.id;
    const repository = createCrawlerRepository(server.container.db);
    for (const start of [`${web.url()}/docs/`, `${web.url().replace('127.0.0.1', 'localhost')}/docs/`]) {
      // As if its name resolved publicly when it was created.
      const crawler = (await repository.create({ organisationId: id }, collection, randomUUID(), { start_url: start, include: [], exclude: [], max_pages: 10, keep_gone: false, sections: false, schedule_hours: null }, 50))!;
      await server.container.crawlerRunner.tick();
      const run = (await server.call('GET', `/api/v1/collections/${collection}/crawlers/${crawler.id}`, { token })).body.data.last_run;
      assert.equal(run.report.created, 0);
      assert.match(run.report.failed[0]?.reason ?? '', /is a private address/, JSON.stringify(run.report));
    }
    assert.equal(web.requests.size, 0, 'the site was never asked');
  });
});
