/**
 * Resumable crawl runs, with Lore as child processes (`lore serve`): a server crawler's run is
 * killed with SIGKILL five times mid-crawl; while nobody holds it, a process that runs no
 * crawls (LORE_CRAWL_CONCURRENCY=0) shows it `interrupted` with when it was last seen; each
 * restart goes on from the last save, and the run finishes with every page in the collection
 * once, each fetched at most twice in all. On PGlite (a data folder) and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loopbackSite } from './fixtures/loopbackSite.js';
import { backends, MASTER_KEY } from './helpers.js';
import { call, processDatabase, startLoreProcess, type Lore } from './processes.js';

const PAGES = 120;
const KILLS = 5;
/** Short lease and interval (test-only settings) so a cut run is taken up in seconds. */
const FAST = { LORE_CRAWL_PRIVATE_NETWORKS: 'on', LORE_TEST_CRAWL_LEASE_SECONDS: '2', LORE_TEST_CRAWL_INTERVAL_MS: '300' };

/** A book of PAGES chapters under /book/, each linking to the next three; `fetches` counts requests by path. */
function book() {
  const topics = ['harbour', 'lantern', 'orchard', 'glacier', 'meadow', 'quarry', 'bakery', 'observatory', 'canal', 'foundry'];
  return loopbackSite((path, _req, res) => {
    const match = /^\/book\/(?:chapter-(\d+))?$/.exec(path);
    if (!match) {
      res.statusCode = 404;
      return res.end('not found');
    }
    const n = Number(match[1] ?? 0);
    const links = [1, 2, 3].map((k) => n + k).filter((k) => k <= PAGES).map((k) => `<a href="/book/chapter-${k}">Chapter ${k}</a>`);
    const topic = `${topics[n % topics.length]} ${n}`;
    // A little slow, as real sites are: the crawl lasts long enough to be cut.
    setTimeout(() => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(
        `<!doctype html><html><head><title>Chapter ${n}</title></head><body><nav>${links.join(' ')}</nav><main><h1>Chapter ${n}: the ${topic}</h1>` +
          `<p>Chapter ${n} tells of the ${topic} at length, so that the page holds enough text to be read as an article by any reader who opens it.</p>` +
          `<p>The ${topic} is described once more in other words, with its history and its people, in this chapter only.</p></main></body></html>`,
      );
    }, 40);
  });
}

for (const backend of backends()) {
  describe(`resumable crawl runs [${backend}]`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it(`goes on from its last save after ${KILLS} SIGKILLs mid-crawl: every page once, each fetched at most twice`, async () => {
      const site = book();
      const origin = await site.listen();
      cleanups.push(site.close);
      const { env, drop } = await processDatabase(backend, 'crawl-resume');
      cleanups.push(drop);

      let lore: Lore = await startLoreProcess({ ...env, ...FAST });
      const stopLore = async (signal: NodeJS.Signals) => {
        lore.process.kill(signal);
        await lore.exited;
      };
      cleanups.push(async () => {
        if (lore.process.exitCode === null && lore.process.signalCode === null) await stopLore('SIGTERM');
      });
      const token = (await call(lore, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'Books' })).body.token as string;
      const collection = (await call(lore, 'POST', '/api/v1/collections', token, { name: 'Book' })).body.data.id as string;
      const created = await call(lore, 'POST', `/api/v1/collections/${collection}/crawlers`, token, { start_url: `${origin}/book/` });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const path = `/api/v1/collections/${collection}/crawlers/${created.body.data.id}`;
      const crawler = async () => (await call(lore, 'GET', path, token)).body.data;

      const kills: { fetched: number; at: string }[] = [];
      let fetchedAtStart = 0;
      for (let k = 0; k < KILLS; k++) {
        // Let the run fetch a dozen pages more than it had (a few saves), then cut it where it is.
        for (;;) {
          const now = await crawler();
          assert.notEqual(now.last_run?.outcome, 'finished', `the run finished before kill ${k + 1}`);
          if (now.status === 'running' && (now.progress?.fetched ?? 0) >= fetchedAtStart + 12) break;
          await sleep(50);
        }
        await stopLore('SIGKILL');
        kills.push({ fetched: [...site.fetches].filter(([p]) => p.startsWith('/book/')).reduce((n, [, c]) => n + c, 0), at: new Date().toISOString() });

        if (k === 0) {
          // A process that runs no crawls sees the run nobody holds, once its lease has lapsed.
          lore = await startLoreProcess({ ...env, ...FAST, LORE_CRAWL_CONCURRENCY: '0' });
          await sleep(2_500);
          const seen = await crawler();
          assert.equal(seen.status, 'interrupted');
          assert.ok(seen.last_seen_at && seen.last_seen_at <= kills[0]!.at, `last seen ${seen.last_seen_at}, killed ${kills[0]!.at}`);
          assert.ok(seen.progress.fetched > 0, 'its progress so far');
          await stopLore('SIGTERM');
        }
        lore = await startLoreProcess({ ...env, ...FAST });
        fetchedAtStart = (await crawler()).progress?.fetched ?? 0;
      }

      let done = await crawler();
      for (let waited = 0; done.status !== 'idle' && waited < 120_000; waited += 200) {
        await sleep(200);
        done = await crawler();
      }
      assert.equal(done.status, 'idle', JSON.stringify(done));
      assert.equal(done.last_run.outcome, 'finished', JSON.stringify(done.last_run));

      const entries: { source_id: string }[] = [];
      for (let page = 1; page <= 2; page++) entries.push(...(await call(lore, 'GET', `/api/v1/collections/${collection}/entries?per_page=100&page=${page}`, token)).body.data);
      const expected = ['/book', ...Array.from({ length: PAGES }, (_, i) => `/book/chapter-${i + 1}`)];
      assert.deepEqual(entries.map((e) => e.source_id.replace(origin, '')).sort(), expected.sort(), 'every page once');
      const pages = [...site.fetches].filter(([p]) => p.startsWith('/book/'));
      const twice = pages.filter(([, n]) => n === 2).length;
      assert.deepEqual(pages.filter(([, n]) => n > 2), [], 'no page fetched more than twice');
      const report = done.last_run.report;
      assert.ok(report.created <= PAGES + 1 && report.created + report.unchanged >= PAGES + 1, JSON.stringify(report));
      assert.equal(report.failed_total, 0, JSON.stringify(report.failed));
      process.stderr.write(
        `[${backend}] ${KILLS} kills after ${kills.map((k) => k.fetched).join(', ')} page requests; pages ${pages.length}, requests ${pages.reduce((n, [, c]) => n + c, 0)}, fetched twice ${twice}; report created ${report.created}, unchanged ${report.unchanged}, fetched ${report.fetched}\n`,
      );
      await stopLore('SIGTERM');
    });
  });
}
