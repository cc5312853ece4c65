// service-analytics.js (global ServiceAnalytics) in real Chromium: data-dl-click link tracking
// with sendBeacon, and the manual ServiceAnalytics.init({key, sessionId}).trackClick form.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, TEST, captureEvents, eventually, js, launchBrowser, startTogether, startLore, withPage, type Lore, type WidgetRef } from './fixtures.js';

describe('browser: service-analytics.js', { skip: browserSkip }, () => {
  let lore: Lore;
  let browser: Browser;
  let widget: WidgetRef;

  const LINKS = `
    <a id="r1" href="/docs/reset" data-dl-click data-dl-rank="1" data-dl-source="result">Reset your password</a>
    <a id="r2" href="/docs/billing" data-dl-click data-dl-url="https://docs.example.com/billing" data-dl-rank="2" data-dl-source="summary">Billing</a>
    <a id="plain" href="/docs/export">Not tracked</a>`;
  const beaconTag = (attributes: string) => `<script src="${lore.api}/widget/v1/service-analytics.js" data-widget="${widget.key}" ${attributes}></script>`;

  before(async () => {
    [lore, browser] = await startTogether(startLore({ constant: true }), launchBrowser());
    widget = await lore.widget('search');
  });
  after(async () => {
    await browser?.close();
    await lore?.close();
  });

  it('data-dl-click links send a beacon with url, rank, source and the data-session id', TEST, async () => {
    const url = lore.site.page({ sdk: false, head: beaconTag('data-session="sess_from_search"'), html: LINKS });
    await withPage(browser, url, {}, async (tab) => {
      const { bodies, answers } = await captureEvents(tab.page);
      const before = (await lore.events(widget.id)).length;
      await tab.page.click('#r1');
      await tab.page.waitForURL(`${lore.site.origin}/docs/reset`);
      await eventually(() => assert.equal(bodies.length, 1));
      assert.deepEqual(bodies[0], { name: 'click', url: `${lore.site.origin}/docs/reset`, rank: 1, source: 'result', session_id: 'sess_from_search' });

      await tab.page.goBack();
      await tab.page.click('#r2');
      await eventually(() => assert.equal(bodies.length, 2));
      assert.deepEqual(bodies[1], { name: 'click', url: 'https://docs.example.com/billing', rank: 2, source: 'summary', session_id: 'sess_from_search' });

      await tab.page.goBack();
      await tab.page.click('#plain');
      await tab.page.waitForURL(`${lore.site.origin}/docs/export`);
      await tab.page.goBack();
      await tab.page.click('#r1');
      await eventually(() => assert.equal(bodies.length, 3));
      assert.equal(bodies[2].url, `${lore.site.origin}/docs/reset`, 'a link without data-dl-click sends nothing');

      await eventually(async () => {
        const stored = (await lore.events(widget.id)).slice(before);
        assert.deepEqual(stored.map((e) => [e.url, e.rank, e.source, e.session_id]), [
          [`${lore.site.origin}/docs/reset`, 1, 'result', 'sess_from_search'],
          ['https://docs.example.com/billing', 2, 'summary', 'sess_from_search'],
          [`${lore.site.origin}/docs/reset`, 1, 'result', 'sess_from_search'],
        ], `stored by the server; it answered: ${answers.join(' | ')}`);
      });
    });
  });

  it('without data-session, a tab session is used', TEST, async () => {
    const url = lore.site.page({ sdk: false, head: beaconTag(''), html: LINKS });
    await withPage(browser, url, {}, async (tab) => {
      const { bodies } = await captureEvents(tab.page);
      await tab.page.click('#r1');
      await eventually(() => assert.equal(bodies.length, 1));
      assert.match(bodies[0].session_id ?? '', /^[A-Za-z0-9_-]{1,64}$/);
    });
  });

  it('ServiceAnalytics.init({key, sessionId}).trackClick({url, rank, source})', TEST, async () => {
    const url = lore.site.page({
      sdk: false,
      head: `<script src="${lore.api}/widget/v1/service-analytics.js"></script>`,
      script: `window.tracker = ServiceAnalytics.init({ key: ${js(widget.key)}, sessionId: 'manual_1' });`,
    });
    await withPage(browser, url, {}, async (tab) => {
      const { bodies, answers } = await captureEvents(tab.page);
      const before = (await lore.events(widget.id)).length;
      await tab.page.evaluate(() => (window as any).tracker.trackClick({ url: 'https://docs.example.com/limits', rank: 3, source: 'result' }));
      await eventually(() => assert.equal(bodies.length, 1));
      assert.deepEqual(bodies[0], { name: 'click', url: 'https://docs.example.com/limits', rank: 3, source: 'result', session_id: 'manual_1' });
      await eventually(async () => {
        const stored = (await lore.events(widget.id)).slice(before);
        assert.deepEqual(stored, [{ name: 'click', url: 'https://docs.example.com/limits', rank: 3, source: 'result', session_id: 'manual_1' }], `stored; the server answered: ${answers.join(' | ')}`);
      });
    });
  });
});
