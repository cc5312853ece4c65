/**
 * Many tenants, one crawler fleet: a process runs two crawls at once; an organisation with 50
 * crawlers due holds both slots until another organisation's crawler is due, which starts in
 * the next scheduling round (one of the first's runs gives its slot up, its work saved); runs
 * that have had their time slice give way to an organisation with fewer; a run that gave its
 * slot up goes on later from where it was, fetching nothing twice. On both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loopbackSite } from './fixtures/loopbackSite.js';
import { backends, constantEmbedder, startServer, type TestServer } from './helpers.js';

/** Endless slow sites: /NAME/p0 links to /NAME/p1 and so on, each page served after 100 ms; `fetches` by path. */
function endless() {
  return loopbackSite((path, _req, res) => {
    const match = /^\/(\w+)\/(?:p(\d+))?$/.exec(path);
    if (!match) {
      res.statusCode = 404;
      return res.end();
    }
    const n = Number(match[2] ?? 0);
    setTimeout(() => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<!doctype html><html><head><title>${match[1]} ${n}</title></head><body><main><h1>Page ${n} of ${match[1]}</h1>` +
          `<p>Page ${n} of ${match[1]} is long enough to be read as an article by any reader of it, with a sentence or two more.</p>` +
          `<p><a href="/${match[1]}/p${n + 1}">Next page</a></p></main></body></html>`,
      );
    }, 100);
  });
}

for (const backend of backends()) {
  describe(`crawler fleet [${backend}]`, () => {
    const site = endless();
    let origin: string;
    let server: TestServer;
    before(async () => {
      origin = await site.listen();
      // Two slots, at most two runs an organisation, and a one-second time slice.
      server = await startServer(backend, { embedder: constantEmbedder, config: { crawl: { concurrency: 2, runsPerOrganisation: 2, crawlersPerOrganisation: 50, sliceSeconds: 1 } } });
    });
    after(async () => {
      await server.close();
      await site.close();
    });

    async function organisation(name: string) {
      const { token } = await server.createOrg(name);
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Site' } })).body.data.id;
      const base = `/api/v1/collections/${collection}/crawlers`;
      return {
        create: async (site: string) => (await server.call('POST', base, { token, body: { start_url: `${origin}/${site}/` } })).body.data.id as string,
        get: async (id: string) => (await server.call('GET', `${base}/${id}`, { token })).body.data,
        delete: async (id: string) => (await server.call('DELETE', `${base}/${id}`, { token })).status,
      };
    }

    it("starts another organisation's crawl in the next round while one has 50 due, and takes turns by time slice", async () => {
      const runner = server.container.crawlerRunner;
      const busy = await organisation('Busy');
      const busyIds: string[] = [];
      for (let i = 0; i < 50; i++) busyIds.push(await busy.create(`busy${i}`));
      const first = await runner.schedule();
      assert.equal(first.length, 2);
      assert.ok(first.every((id) => busyIds.includes(id)), 'the busy organisation takes both slots');
      await sleep(1_200);

      const late = await organisation('Late');
      const created = Date.now();
      const lateId = await late.create('late');
      const second = await runner.schedule();
      const waited = Date.now() - created;
      assert.deepEqual(second, [lateId], 'the late crawl starts in the next round');
      assert.equal((await late.get(lateId)).status, 'running');
      const gaveWay = busyIds.filter((id) => first.includes(id));
      const states = await Promise.all(gaveWay.map((id) => busy.get(id)));
      const yielded = states.find((c) => c.status === 'queued')!;
      assert.ok(yielded, `one busy run gave its slot up: ${JSON.stringify(states)}`);
      assert.ok(yielded.progress.fetched > 0 && yielded.last_run === null, 'its run is kept, not ended');

      // One run each now; a third organisation waits with none: the run whose slice is over gives way.
      const third = await organisation('Third');
      const thirdId = await third.create('third');
      await sleep(1_100);
      assert.deepEqual(await runner.schedule(), [thirdId], 'the third starts once a slice is over');
      process.stderr.write(`[${backend}] late crawl started ${waited} ms after it was created, in one scheduling round\n`);

      // The run that gave its slot up goes on from where it stopped once a slot is its again.
      const before = site.fetches.get(`/${new URL(yielded.start_url).pathname.split('/')[1]}/p1`) ?? 0;
      for (const id of [lateId]) assert.equal(await late.delete(id), 204);
      assert.equal(await third.delete(thirdId), 204);
      for (const id of busyIds) if (id !== yielded.id) assert.equal(await busy.delete(id), 204);
      let resumed = await busy.get(yielded.id);
      for (let i = 0; i < 50 && resumed.status !== 'running'; i++) {
        await sleep(100);
        await runner.schedule();
        resumed = await busy.get(yielded.id);
      }
      assert.equal(resumed.status, 'running');
      const fetchedBefore = yielded.progress.fetched;
      await sleep(1_500);
      const later = await busy.get(yielded.id);
      assert.ok(later.progress.fetched > fetchedBefore, `goes on: ${fetchedBefore} → ${later.progress.fetched}`);
      const name = new URL(yielded.start_url).pathname.split('/')[1];
      assert.equal(site.fetches.get(`/${name}/p1`), before, 'pages fetched before are not fetched again');
      assert.deepEqual([...site.fetches].filter(([path, n]) => path.startsWith(`/${name}/`) && n > 1), [], 'no page of it fetched twice');
      assert.equal(await busy.delete(yielded.id), 204);
    });

    it("takes turns among one organisation's crawlers when they wait for its slots", async () => {
      const runner = server.container.crawlerRunner;
      // The last test's runs end once they see their crawlers deleted.
      while (runner.running().length > 0) await sleep(100);
      const solo = await organisation('Solo');
      const ids = [await solo.create('solo0'), await solo.create('solo1'), await solo.create('solo2')];
      assert.deepEqual(await runner.schedule(), ids.slice(0, 2));
      assert.deepEqual(await runner.schedule(), [], 'a slice is not over yet');
      await sleep(1_100);
      assert.deepEqual(await runner.schedule(), [ids[2]], 'the third gets a turn');
      const states = await Promise.all(ids.map((id) => solo.get(id)));
      assert.deepEqual(states.map((c) => c.status), ['queued', 'running', 'running'], 'the first gave its slot up and waits to go on');
      for (const id of ids) await solo.delete(id);
    });
  });
}
