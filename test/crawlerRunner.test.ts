/**
 * The crawler runner's waits, with a fake repository and entry service over the fixture site:
 * a full embedding queue is waited out (not reported as failed pages), and the lease is
 * renewed while the run waits, whatever it waits for.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { site } from './fixtures/site.js';
import { createCrawlerRunner } from '../src/domain/crawl/crawlers.js';
import type { CrawlerRepository, CrawlerRun } from '../src/domain/crawl/port.js';
import type { EntryService } from '../src/domain/ingestion/entries.js';
import { OverloadedError } from '../src/domain/errors.js';
import { runCrawl } from '../src/crawler/crawlRun.js';

describe('crawler runner', () => {
  const web = site();
  before(() => web.listen());
  after(() => web.close());

  /** A runner over one due crawler of the fixture site; `upsert` stands for the entry service's batch upsert. */
  function runner(upsert: () => Promise<void>, options: { leaseSeconds?: number; alive?: () => boolean } = {}) {
    const renewals: number[] = [];
    const runs: CrawlerRun[] = [];
    let claimed = false;
    const crawlers = {
      async claimDue() {
        if (claimed) return null;
        claimed = true;
        return { id: 'c1', organisationId: 1, collection_id: 'col', start_url: `${web.url()}/docs/`, include: [], exclude: ['docs/huge'], max_pages: 100, keep_gone: false, run: null };
      },
      async begin() {
        return true;
      },
      async progress() {
        renewals.push(Date.now());
        return options.alive?.() ?? true;
      },
      async checkpoint() {
        return options.alive?.() ?? true;
      },
      async finish(_id: string, run: CrawlerRun) {
        runs.push(run);
      },
    } as unknown as CrawlerRepository;
    const entries = { batchUpsert: upsert, deleteBySource: async () => undefined } as unknown as EntryService;
    const run = createCrawlerRunner({ crawlers, entries, sourceEntries: async () => [], crawl: runCrawl, fetch, intervalMs: 0, delayMs: 0, leaseSeconds: options.leaseSeconds });
    return { run, renewals, runs };
  }

  it('waits out a full embedding queue (503) and writes the batch, instead of reporting its pages as failed', async () => {
    let calls = 0;
    const { run, runs } = runner(async () => {
      if (calls++ === 0) throw new OverloadedError('Too many texts are waiting to be embedded (5000); nothing was written.', 1);
    });
    assert.equal(await run.tick(), true);
    await run.close();
    assert.ok(calls >= 2, 'sent again after Retry-After');
    const report = runs[0]!.report!;
    assert.equal(runs[0]!.outcome, 'finished');
    assert.equal(report.created, 5);
    assert.ok(!report.failed.some((f) => /Too many texts/.test(f.reason)), JSON.stringify(report.failed));
  });

  it('renews its lease while it waits, and stops when the crawler is deleted meanwhile', async () => {
    const slow = runner(() => sleep(800), { leaseSeconds: 0.4 });
    const started = Date.now();
    await slow.run.tick();
    await slow.run.close();
    const during = slow.renewals.filter((t) => t - started < 800);
    assert.ok(during.length >= 2, `renewed ${during.length} times in the first 800 ms (a sixth of the lease: 67 ms)`);

    let alive = true;
    const deleted = runner(
      async () => {
        alive = false;
        await sleep(2_000);
      },
      { leaseSeconds: 0.4, alive: () => alive },
    );
    await deleted.run.tick();
    await deleted.run.close();
    assert.deepEqual([deleted.runs[0]!.outcome, deleted.runs[0]!.error], ['failed', 'the crawler was deleted']);
  });
});
