// Quality of the embed: hostile host CSS does not reach the widgets, the widgets' styles do not
// leak into the page, a second copy of service.js is harmless, and the strict CSP holds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, TEST, eventually, js, launchBrowser, startTogether, openPage, startLore, WAIT, withPage, type Lore, type WidgetRef } from './fixtures.js';
import { ChatWidget, SearchWidget } from './pageObjects.js';

const HOSTILE_CSS = `
* { color: red !important; font-size: 40px !important; font-family: "Comic Sans MS", cursive !important; line-height: 3 !important; }
button { display: none !important; }
div, section, p, a, textarea, input { border: 5px solid lime; margin: 30px; padding: 30px; box-sizing: content-box; }
`;

const PAGE_HTML = `
<div id="searchbox"></div>
<main id="page">
  <h1 id="title">Host page</h1>
  <p id="text">Some <a id="link" href="/docs/reset">page text</a>.</p>
  <button id="button" type="button">Page button</button>
  <input id="field" placeholder="Page input">
</main>`;

/** Computed styles that show a leak or an intrusion. */
const PROPS = ['color', 'font-size', 'font-family', 'line-height', 'display', 'margin-top', 'padding-top', 'border-top-width', 'background-color', 'box-sizing', 'width', 'height'];

describe('browser: quality of embed', { skip: browserSkip }, () => {
  let lore: Lore;
  let browser: Browser;
  let chatWidget: WidgetRef;
  let searchWidget: WidgetRef;

  /** Mounts both widgets: the chat bubble and a search box in #searchbox, light theme. */
  const mountScript = () => `
    window.chat = ServiceSdk.chat(${js(chatWidget.key)}, { theme: 'light' }).mount();
    window.search = ServiceSdk.search(${js(searchWidget.key)}, { theme: 'light', target: '#searchbox', debounce: 200 }).mount();`;

  /** Opens the chat with an answer and the search modal with results; returns widget styles. */
  const exercise = async (page: Page) => {
    const chat = new ChatWidget(page);
    const search = new SearchWidget(page);
    await chat.waitMounted();
    await search.waitMounted();
    await chat.open();
    await chat.ask('How do I reset my password?');
    await chat.lastAnswer();
    const styles: Record<string, Record<string, string>> = {};
    const read = async (name: string, locator: ReturnType<ChatWidget['el']>) => {
      styles[name] = await locator.evaluate(async (el, props) => {
        // An opening animation still running (a loaded machine) would show a scaled box.
        const finite = (el.getRootNode() as Document | ShadowRoot).getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity);
        await Promise.all(finite.map((a) => a.finished.catch(() => {})));
        const style = getComputedStyle(el);
        const box = el.getBoundingClientRect();
        return Object.fromEntries([...props.map((p) => [p, style.getPropertyValue(p)]), ['box', `${Math.round(box.width)}x${Math.round(box.height)}`]]);
      }, PROPS);
    };
    await read('launcher', chat.launcher);
    await read('panel', chat.panel);
    await read('input', chat.input);
    await read('answer', chat.lastAssistant.locator('[data-lore="answer"] p').first());
    await read('citation', chat.lastAssistant.locator('[data-lore="citation"]').first());
    await read('search-button', search.button);
    await chat.closeButton.click();
    await chat.expectOpen(false);
    await search.button.click();
    await search.expectOpen(true);
    await search.type('download invoices');
    await search.resultTitles();
    await read('search-input', search.input);
    await read('result', search.results.first());
    await page.keyboard.press('Escape');
    await search.expectOpen(false);
    return styles;
  };

  /** Computed styles of the host page's own elements. */
  const pageStyles = (page: Page) => page.evaluate((props) => {
    const out: Record<string, Record<string, string>> = {};
    for (const id of ['page', 'title', 'text', 'link', 'button', 'field']) {
      const style = getComputedStyle(document.getElementById(id)!);
      out[id] = Object.fromEntries(props.map((p) => [p, style.getPropertyValue(p)]));
    }
    for (const el of [document.documentElement, document.body]) {
      const style = getComputedStyle(el);
      out[el.tagName] = Object.fromEntries(props.filter((p) => !['width', 'height'].includes(p)).map((p) => [p, style.getPropertyValue(p)]));
    }
    return out;
  }, PROPS);

  before(async () => {
    [lore, browser] = await startTogether(startLore(), launchBrowser());
    chatWidget = await lore.widget('chat');
    searchWidget = await lore.widget('search', { summary: false });
  });
  after(async () => {
    await browser?.close();
    await lore?.close();
  });

  it('hostile host CSS does not change the widgets', TEST, async () => {
    const clean = await withPage(browser, lore.site.page({ html: PAGE_HTML, script: mountScript() }), {}, (tab) => exercise(tab.page));
    const hostile = await withPage(browser, lore.site.page({ html: PAGE_HTML, css: HOSTILE_CSS, script: mountScript() }), {}, async (tab) => {
      assert.equal(await tab.page.$eval('#text', (el) => getComputedStyle(el).color), 'rgb(255, 0, 0)', 'the hostile CSS is applied to the page');
      return exercise(tab.page);
    });
    assert.deepEqual(hostile, clean);
  });

  it('the widgets’ styles do not leak into the page', TEST, async () => {
    const bare = await withPage(browser, lore.site.page({ html: PAGE_HTML, sdk: false }), {}, (tab) => pageStyles(tab.page));
    await withPage(browser, lore.site.page({ html: PAGE_HTML, script: mountScript() }), {}, async (tab) => {
      const before = await pageStyles(tab.page);
      await exercise(tab.page);
      assert.deepEqual(await pageStyles(tab.page), bare, 'after using both widgets');
      assert.deepEqual(before, bare, 'with both widgets mounted');
      const global = await tab.page.evaluate(() => ({
        styles: document.querySelectorAll('style, link[rel="stylesheet"]').length,
        adopted: document.adoptedStyleSheets.length,
        htmlStyle: document.documentElement.getAttribute('style'),
        bodyStyle: document.body.getAttribute('style'),
        hosts: Array.from(document.querySelectorAll('[data-lore-widget]')).map((el) => `${el.getAttribute('data-lore-widget')}:${el.shadowRoot ? 'open' : 'closed'}`),
        shadowStyleElements: Array.from(document.querySelectorAll('[data-lore-widget]')).map((el) => el.shadowRoot!.querySelectorAll('style').length),
      }));
      assert.deepEqual(global, {
        styles: 1, // the page's own page.css
        adopted: 0,
        htmlStyle: global.htmlStyle || null,
        bodyStyle: global.bodyStyle || null,
        hosts: ['search:open', 'chat:open'],
        shadowStyleElements: [0, 0],
      });
      for (const attr of [global.htmlStyle, global.bodyStyle]) assert.ok(!attr || !/\S/.test(attr.replace(/[a-z-]+:\s*;?/g, '')), `no leftover inline style: ${attr}`);
    });
  });

  it('service.js included twice defines ServiceSdk once, and widgets mount and work', TEST, async () => {
    const url = lore.site.page({ html: PAGE_HTML, sdk: 2, script: mountScript() });
    const tab = await openPage(browser, url);
    try {
      await tab.context.addInitScript(() => {
        let value: unknown;
        const w = window as any;
        w.__sdkAssignments = 0;
        Object.defineProperty(window, 'ServiceSdk', { configurable: true, get: () => value, set: (next) => { w.__sdkAssignments++; value = next; } });
      });
      await tab.page.reload();
      assert.equal(await tab.page.evaluate('window.__sdkAssignments'), 1);
      await exercise(tab.page);
      assert.equal(await tab.page.locator('[data-lore-widget="chat"]').count(), 1);
      assert.equal(await tab.page.locator('[data-lore-widget="search"]').count(), 1);
      await tab.assertClean();
    } finally {
      await tab.close();
    }
  });

  it('runs under the strict CSP without violations, inline styles or console errors', TEST, async () => {
    await withPage(browser, lore.site.page({ html: PAGE_HTML, script: mountScript() }), {}, async (tab) => {
      const csp = await eventually(async () => {
        const response = await tab.page.request.get(tab.page.url());
        return response.headers()['content-security-policy'];
      });
      assert.match(csp ?? '', /style-src 'self'/);
      assert.doesNotMatch(csp ?? '', /unsafe-inline|unsafe-eval/);
      await exercise(tab.page);
      const search = new SearchWidget(tab.page);
      await search.button.click({ timeout: WAIT });
      await search.type('reset password');
      await search.resultTitles();
      await tab.page.keyboard.press('Escape');
      assert.deepEqual(await tab.problems(), []);
    });
  });
});
