// The search widget (ServiceSdk.search) in real Chromium, on a host page of another origin
// with a strict CSP; driven through the data-lore markers of docs/WIDGET.md.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, TEST, captureEvents, eventually, js, launchBrowser, startTogether, startLore, WAIT, withPage, type HostPage, type Lore, type Opened, type PageOptions, type WidgetRef } from './fixtures.js';
import { SearchWidget } from './pageObjects.js';

describe('browser: search widget', { skip: browserSkip }, () => {
  let lore: Lore;
  let browser: Browser;
  let widget: WidgetRef;

  /** A page mounting `ServiceSdk.search(key, options)` as `window.search`. */
  const searchPage = (options: Record<string, unknown> = {}, page: HostPage = {}) =>
    lore.site.page({ ...page, script: `window.search = ServiceSdk.search(${js(widget.key)}, ${js(options)}).mount();` });

  const withSearch = (url: string, fn: (search: SearchWidget, tab: Opened) => Promise<void>, options: PageOptions = {}) =>
    withPage(browser, url, options, async (tab) => {
      const search = new SearchWidget(tab.page);
      await search.waitMounted();
      await fn(search, tab);
    });

  const handle = (page: Page, call: string) => page.evaluate(`window.search.${call}`);

  /** Whether the deepest focused element is inside the search widget. */
  const focusInWidget = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-lore-widget') === 'search');

  before(async () => {
    [lore, browser] = await startTogether(startLore(), launchBrowser());
    widget = await lore.widget('search');
  });
  after(async () => {
    await browser?.close();
    await lore?.close();
  });

  it('Ctrl+K and Cmd+K open the modal; Escape closes; focus is trapped inside and returned', TEST, async () => {
    // SPEC.md: `target` is required for an SDK-rendered search box (the modal's launcher).
    const url = searchPage({ debounce: 200, target: '#searchbox' }, { html: '<button id="before" type="button">Before</button><div id="searchbox"></div><p>Text</p>' });
    await withSearch(url, async (search, tab) => {
      await search.button.waitFor({ state: 'visible', timeout: WAIT });
      assert.equal(await search.modal.getAttribute('data-open'), 'false');
      await tab.page.focus('#before');
      await tab.page.keyboard.press('Control+k');
      await search.expectOpen(true);
      await search.expectFocus('search-input');
      await search.type('reset password');
      await search.resultTitles();
      for (let i = 0; i < 8; i++) {
        await tab.page.keyboard.press('Tab');
        assert.equal(await focusInWidget(tab.page), true, `focus stays in the modal after ${i + 1} Tab`);
      }
      for (let i = 0; i < 8; i++) {
        await tab.page.keyboard.press('Shift+Tab');
        assert.equal(await focusInWidget(tab.page), true, `focus stays in the modal after ${i + 1} Shift+Tab`);
      }
      // A visitor cannot reopen before the dialog's queued close event: wait for it (see the
      // "reopened at once" test for what happens when a page does).
      let closes = await search.closeEvents();
      await tab.page.keyboard.press('Escape');
      await search.expectOpen(false);
      await search.expectFocus('#before');
      await search.waitCloseEvents(closes);

      await tab.page.keyboard.press('Meta+k');
      await search.expectOpen(true);
      closes = await search.closeEvents();
      await tab.page.keyboard.press('Escape');
      await search.expectOpen(false);
      await search.waitCloseEvents(closes);

      await search.button.click();
      await search.expectOpen(true);
      await tab.page.keyboard.press('Escape');
      await search.expectOpen(false);
      await search.expectFocus('search-button');
    });
  });

  it('open() and close() on the handle; no launcher without a target', TEST, async () => {
    await withSearch(searchPage(), async (search, tab) => {
      assert.equal(await search.button.count(), 0);
      await handle(tab.page, 'open()');
      await search.expectOpen(true);
      await handle(tab.page, 'close()');
      await search.expectOpen(false);
    });
  });

  it('close() then open() in the same task leaves the modal open', TEST, async () => {
    // The dialog's close event is queued when it closes; it must not close the reopened modal.
    await withSearch(searchPage(), async (search, tab) => {
      await handle(tab.page, 'open()');
      await search.expectOpen(true);
      const closes = await search.closeEvents();
      await tab.page.evaluate('window.search.close(); window.search.open()');
      await search.waitCloseEvents(closes);
      assert.deepEqual(await search.modal.evaluate((dialog) => [(dialog as HTMLDialogElement).open, dialog.getAttribute('data-open')]), [true, 'true']);
    });
  });

  it('searches after the debounce; results in rank order', TEST, async () => {
    await withSearch(searchPage({ debounce: 200 }), async (search, tab) => {
      await handle(tab.page, 'open()');
      await search.type('download invoices');
      const titles = await search.resultTitles();
      assert.match(titles[0]!, /Invoices and billing/);
      const ranks = await search.results.evaluateAll((links) => links.map((l) => l.getAttribute('data-rank')));
      assert.deepEqual(ranks, ranks.map((_, i) => String(i + 1)));
      assert.equal(await search.results.first().getAttribute('href'), `${lore.site.origin}/docs/billing`);
    });
  });

  it('waits before searching by default (1000 ms debounce): no request right after typing', TEST, async () => {
    // Counted in the page, as fetch is called: no wait for the request to reach the test.
    const init = `const f = window.fetch; window.__searches = 0;
      window.fetch = function (input, ...rest) { if (/\\/search\\?/.test(String(input instanceof Request ? input.url : input))) window.__searches++; return f.call(this, input, ...rest); };`;
    await withSearch(searchPage({ summary: false }), async (search, tab) => {
      const searches = () => tab.page.evaluate(() => (window as any).__searches as number);
      await handle(tab.page, 'open()');
      await search.input.waitFor({ state: 'visible', timeout: WAIT });
      await search.type('export');
      assert.equal(await searches(), 0, 'no search request right after typing');
      assert.match((await search.resultTitles())[0]!, /Export your data/);
      assert.equal(await searches(), 1, 'one request once the debounce elapsed');
    }, { init });
  });

  it('inline: renders a search box into its target', TEST, async () => {
    const url = searchPage({ variant: 'inline', target: '#slot', debounce: 200 }, { html: '<h1>Docs</h1><div id="slot"></div>' });
    await withSearch(url, async (search, tab) => {
      assert.equal(await tab.page.locator('#slot [data-lore-widget="search"]').count(), 1);
      assert.equal(await search.button.count(), 0);
      await search.type('rate limit');
      assert.match((await search.resultTitles())[0]!, /API rate limits/);
    });
  });

  it('inline with trigger = an existing input: results appear after that input', TEST, async () => {
    const url = searchPage({ variant: 'inline', trigger: '#q', debounce: 200 }, { html: '<form><input id="q" type="search" aria-label="Search docs"></form><p id="after">Below</p>' });
    await withSearch(url, async (search, tab) => {
      assert.equal(await search.button.count(), 0, 'no SDK search box');
      await tab.page.fill('#q', 'reset password');
      assert.match((await search.resultTitles())[0]!, /Reset your password/);
      const placed = await tab.page.evaluate(() => {
        const input = document.getElementById('q')!;
        const host = document.querySelector('[data-lore-widget="search"]')!;
        const result = host.shadowRoot!.querySelector('[data-lore="result"]')!;
        return { after: Boolean(input.compareDocumentPosition(host) & Node.DOCUMENT_POSITION_FOLLOWING), below: result.getBoundingClientRect().top >= input.getBoundingClientRect().bottom };
      });
      assert.deepEqual(placed, { after: true, below: true });
    });
  });

  it('summary: streamed above the results when enabled', TEST, async () => {
    await withSearch(searchPage({ summary: true, debounce: 200 }), async (search, tab) => {
      await handle(tab.page, 'open()');
      await search.input.waitFor({ state: 'visible', timeout: WAIT });
      await search.recordStates();
      await search.type('How do I reset my password?');
      await search.resultTitles();
      await search.expectAttr(search.summary, 'data-state', 'done');
      assert.match(await search.summary.innerText(), /reset/i);
      const states = await search.states();
      assert.ok(states.includes('summary:streaming'), `states: ${states}`);
      const summaryBox = (await search.summary.boundingBox())!;
      const firstResult = (await search.results.first().boundingBox())!;
      assert.ok(summaryBox.y + summaryBox.height <= firstResult.y + 1, 'the summary is above the results');
    });
  });

  it('summary citation markers link to their source; a click is tracked with source summary', TEST, async () => {
    await withSearch(searchPage({ summary: true, debounce: 200 }), async (search, tab) => {
      const { bodies } = await captureEvents(tab.page);
      await handle(tab.page, 'open()');
      await search.type('How do I reset my password?');
      await search.resultTitles();
      await search.expectAttr(search.summary, 'data-state', 'done');
      const links = search.summary.locator('a');
      const hrefs = await links.evaluateAll((all) => all.map((a) => `${a.textContent} → ${a.getAttribute('href')}`));
      assert.ok(hrefs.length > 0, 'the summary cites its sources');
      assert.deepEqual(hrefs, hrefs.map(() => `1 → ${lore.site.origin}/docs/reset`));
      const popup = tab.page.context().waitForEvent('page').catch(() => undefined);
      await links.first().click();
      await eventually(() => assert.equal(bodies.length, 1));
      assert.deepEqual({ ...bodies[0], session_id: undefined }, { name: 'click', url: `${lore.site.origin}/docs/reset`, rank: null, source: 'summary', session_id: undefined });
      await (await popup)?.close();
    });
  });

  it('no summary with summary: false (a search widget’s config has it on by default)', TEST, async () => {
    await withSearch(searchPage({ debounce: 200, summary: false }), async (search, tab) => {
      let summaries = 0;
      tab.page.on('request', (r) => { if (r.url().includes('/summarize?')) summaries++; });
      await handle(tab.page, 'open()');
      await search.type('How do I reset my password?');
      await search.resultTitles();
      assert.equal(await search.summary.isVisible(), false);
      assert.equal(summaries, 0, 'no summarize request');
    });
  });

  it('a result click sends a click event with url, rank and source', TEST, async () => {
    await withSearch(searchPage({ debounce: 200 }), async (search, tab) => {
      const { bodies, answers } = await captureEvents(tab.page);
      await handle(tab.page, 'open()');
      await search.type('export my data');
      await search.resultTitles();
      const first = search.results.first();
      const href = await first.getAttribute('href');
      assert.equal(href, `${lore.site.origin}/docs/export`);
      const before = (await lore.events(widget.id)).length;
      await first.click();
      await eventually(() => assert.equal(bodies.length, 1));
      assert.deepEqual({ ...bodies[0], session_id: undefined }, { name: 'click', url: href, rank: 1, source: 'result', session_id: undefined });
      assert.ok(bodies[0].session_id);
      await eventually(async () => {
        const stored = (await lore.events(widget.id)).slice(before);
        assert.deepEqual(stored, [{ name: 'click', url: href, rank: 1, source: 'result', session_id: bodies[0].session_id }], `stored; the server answered: ${answers.join(' | ')}`);
      });
    });
  });

  it('thumbnails with show_result_thumbnails', TEST, async () => {
    await withSearch(searchPage({ debounce: 200, show_result_thumbnails: true }), async (search, tab) => {
      await handle(tab.page, 'open()');
      await search.type('reset password');
      await search.resultTitles();
      const thumb = search.results.first().locator('[data-lore="result-thumb"]');
      assert.equal(await thumb.getAttribute('src', { timeout: WAIT }), `${lore.site.origin}/img/blue.svg`);
      await eventually(async () => assert.ok(await thumb.evaluate((img) => (img as HTMLImageElement).naturalWidth > 0), 'the thumbnail loaded'));
    });
    await withSearch(searchPage({ debounce: 200 }), async (search, tab) => {
      await handle(tab.page, 'open()');
      await search.type('reset password');
      await search.resultTitles();
      assert.equal(await search.el('result-thumb').count(), 0, 'off by default');
    });
  });
});
