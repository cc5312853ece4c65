// instantsearch.js with Lore's adapter (adapters/instantsearch) in real Chromium: a host page
// on another origin, under the fixtures' strict CSP, mounts searchBox, hits (highlighted with
// InstantSearch's Highlight and Snippet helpers), a searchable refinementList on a meta key, pagination,
// stats and configure, against a running Lore authorising the page by its origin.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { marked, type Tokens } from 'marked';
import type { Browser, Page } from 'playwright-core';
import { searchBoxOver } from '../helpers.js';
import { browserSkip, eventually, js, launchBrowser, startLore, startTogether, TEST, WAIT, withPage, type Lore, type PageOptions } from './fixtures.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/** A handbook whose every entry mentions accounts: 12 hits for "account", 3 pages of 4, over three categories. */
const HANDBOOK: [string, string, string][] = [
  ['Guides', 'Create an account', 'Sign up with your email address to create an account, then confirm it from the link we send.'],
  ['Guides', 'Invite people to your account', 'Owners invite colleagues to the account from Settings, People; each invitation expires after a week.'],
  ['Guides', 'Close your account', 'Closing an account deletes its data after thirty days; export what you need first.'],
  ['Guides', 'Switch between accounts', 'People who belong to several accounts switch between them from the menu in the top bar.'],
  ['Guides', '<img src=x onerror="window.__xss=1"> Account & <b>safety</b>', 'Keep your account safe: 1 < 2 & "quotes" stay text; <script>window.__xss=2</script> turn on two-factor sign-in.'],
  ['Reference', 'Account roles', 'An account has owners, admins and members; only owners manage billing for the account.'],
  ['Reference', 'Account settings', 'The account settings hold the name, the logo, the time zone and the default language.'],
  ['Reference', 'Account limits', 'Each account holds up to 50 projects and 200 members on the standard plan.'],
  ['Reference', 'Account API', 'The account endpoint returns the account name, plan and owners as JSON.'],
  ['Troubleshooting', 'Locked account', 'After five failed sign-ins the account is locked for fifteen minutes.'],
  ['Troubleshooting', 'Account email not received', 'When the account email does not arrive, look in the spam folder, then ask us to send it again.'],
  ['Troubleshooting', 'Merged account data', 'Two accounts cannot be merged; move projects from one account to the other instead.'],
];

const CSS = `
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: #1f2937; background: #f8fafc; }
.page { max-width: 1080px; margin: 0 auto; padding: 24px 16px; }
h1 { font-size: 22px; margin: 0 0 16px; }
.layout { display: grid; grid-template-columns: 220px 1fr; gap: 24px; margin-top: 16px; }
@media (max-width: 640px) { .layout { grid-template-columns: 1fr; gap: 8px; } }
.ais-SearchBox-form { display: flex; gap: 6px; }
.ais-RefinementList .ais-SearchBox { margin-bottom: 6px; }
.ais-RefinementList .ais-SearchBox-input { padding: 6px 8px; }
.ais-SearchBox-input { flex: 1; min-width: 0; font: inherit; padding: 10px 12px; border: 1px solid #cbd5e1; border-radius: 8px; }
.ais-SearchBox-submit, .ais-SearchBox-reset { border: 1px solid #cbd5e1; background: #fff; border-radius: 8px; padding: 0 10px; }
.ais-SearchBox-submitIcon, .ais-SearchBox-resetIcon { width: 12px; height: 12px; }
.ais-SearchBox-loadingIndicator[hidden], .ais-SearchBox-reset[hidden] { display: none; }
.ais-SearchBox-input::-webkit-search-cancel-button { display: none; }
.ais-RefinementList-list, .ais-Hits-list, .ais-Pagination-list { list-style: none; margin: 0; padding: 0; }
.ais-RefinementList-label { display: flex; gap: 8px; align-items: center; padding: 4px 0; cursor: pointer; }
.ais-RefinementList-count { margin-left: auto; background: #e2e8f0; border-radius: 10px; padding: 0 8px; font-size: 12px; }
.ais-Hits-item { background: #fff; border: 1px solid #e2e8f0; border-radius: 8px; padding: 12px 14px; margin-bottom: 10px; }
.ais-Hits-item h3 { margin: 0 0 4px; font-size: 16px; }
.ais-Hits-item a { color: #1d4ed8; text-decoration: none; }
.ais-Hits-item p { margin: 0 0 6px; color: #475569; }
.category { font-size: 12px; color: #64748b; }
mark, .ais-Highlight-highlighted, .ais-Snippet-highlighted { background: #fde68a; color: inherit; padding: 0 1px; }
.ais-Stats { color: #64748b; font-size: 13px; }
.ais-Pagination-list { display: flex; gap: 4px; flex-wrap: wrap; }
.ais-Pagination-link { display: block; min-width: 32px; text-align: center; padding: 4px 8px; border: 1px solid #cbd5e1; border-radius: 6px; background: #fff; color: inherit; text-decoration: none; }
.ais-Pagination-item--selected .ais-Pagination-link { background: #1d4ed8; border-color: #1d4ed8; color: #fff; }
.ais-Pagination-item--disabled { opacity: .4; }
`;

const HTML = `<div class="page">
<h1>Handbook search</h1>
<div id="searchbox"></div>
<div class="layout">
  <aside><h2 class="category">Category</h2><div id="categories"></div></aside>
  <section><div id="stats"></div><div id="hits"></div><div id="pagination"></div></section>
</div>
</div>`;

/**
 * The page script: instantsearch.js and the adapter's built file (dist/lore-instantsearch.js,
 * what a site installs), bundled; the Lore URL and widget key are set in front of it.
 */
async function pageScript(): Promise<string> {
  execFileSync(process.execPath, ['adapters/instantsearch/build.mjs'], { cwd: ROOT });
  const contents = `
import instantsearch from 'instantsearch.js';
import { configure, hits, pagination, refinementList, searchBox, stats } from 'instantsearch.js/es/widgets';
import { createLoreSearchClient } from './adapters/instantsearch/dist/lore-instantsearch.js';

const search = instantsearch({ indexName: 'handbook', searchClient: createLoreSearchClient(window.LORE) });
search.on('error', (event) => { window.__searchErrors = [...(window.__searchErrors || []), String(event.error && event.error.message)]; });
search.addWidgets([
  configure({ hitsPerPage: 4 }),
  searchBox({ container: '#searchbox', placeholder: 'Search the handbook' }),
  stats({ container: '#stats' }),
  refinementList({ container: '#categories', attribute: 'category', searchable: true, searchablePlaceholder: 'Find a category' }),
  hits({
    container: '#hits',
    templates: {
      item: (hit, { html, components }) => html\`<article>
        <h3><a href=\${hit.url}>\${components.Highlight({ hit, attribute: 'title' })}</a></h3>
        <p>\${components.Snippet({ hit, attribute: 'raw_text' })}</p>
        <span class="category">\${hit.category}</span>
      </article>\`,
      empty: () => 'No results',
    },
  }),
  pagination({ container: '#pagination' }),
]);
search.start();
`;
  const out = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'js', sourcefile: 'instantsearch-page.js' },
    bundle: true, format: 'iife', write: false, target: ['chrome100'], logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  return out.outputFiles[0]!.text;
}

/**
 * The adapter README's example page, its markup and script blocks as pasted, with a running
 * Lore's URL and widget in place of the README's placeholders; the script bundled with
 * instantsearch.js and the built adapter.
 */
async function readmePage(api: string, widgetKey: string): Promise<{ html: string; script: string }> {
  const blocks = marked.lexer(readFileSync(`${ROOT}adapters/instantsearch/README.md`, 'utf8')).filter((t): t is Tokens.Code => t.type === 'code');
  const html = blocks.find((b) => b.lang === 'html')!.text;
  const [organisation, widget] = widgetKey.split('/') as [string, string];
  const source = blocks.find((b) => b.lang === 'js')!.text;
  const contents = [[`'https://lore.example.com'`, js(api)], [`'org_…'`, js(organisation)], [`'wgt_…'`, js(widget)]]
    .reduce((text, [placeholder, value]) => {
      assert.ok(text!.includes(placeholder!), `the README's example has ${placeholder}`);
      return text!.replace(placeholder!, value!);
    }, source);
  const out = await build({
    stdin: { contents, resolveDir: ROOT, loader: 'js', sourcefile: 'README.js' },
    alias: { '@lore/instantsearch-adapter': './adapters/instantsearch/dist/lore-instantsearch.js' },
    absWorkingDir: ROOT, bundle: true, format: 'iife', write: false, target: ['chrome100'], logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  return { html, script: out.outputFiles[0]!.text };
}

describe('browser: InstantSearch with the Lore adapter', { skip: browserSkip }, () => {
  let lore: Lore;
  let browser: Browser;
  let url: string;
  let widgetKey: string;

  before(async () => {
    [lore, browser] = await startTogether(startLore({ constant: true }), launchBrowser());
    const entries = HANDBOOK.map(([category, title, raw_text], i) => ({ source_type: 'doc', source_id: `h${i}`, title, raw_text, source_url: `${lore.site.origin}/docs/h${i}`, meta: { category } }));
    const { integration } = await searchBoxOver(lore.server, lore.org.token, 'Handbook', entries);
    const widget = await lore.widget('search', {}, { integration });
    widgetKey = widget.key;
    const lorePage = { url: lore.api, widget: widget.key };
    const head = '<meta name="viewport" content="width=device-width, initial-scale=1">';
    url = lore.site.page({ sdk: false, head, html: HTML, css: CSS, script: `window.LORE = ${js(lorePage)};\n${await pageScript()}` });
  });
  after(async () => {
    await browser?.close();
    await lore?.close();
  });

  /** The page, with the adapter's console warnings collected: a standard page sends nothing Lore cannot do. */
  const withSearchPage = (fn: (page: Page) => Promise<void>, options: PageOptions = {}) =>
    withPage(browser, url, options, async (tab) => {
      const warnings: string[] = [];
      tab.page.on('console', (m) => void (m.type() === 'warning' && /Lore InstantSearch adapter/.test(m.text()) && warnings.push(m.text())));
      await tab.page.locator('#searchbox .ais-SearchBox-input').waitFor({ timeout: WAIT });
      await fn(tab.page);
      assert.deepEqual(await tab.page.evaluate(() => (window as any).__searchErrors ?? []), []);
      assert.deepEqual(warnings, []);
    });

  const titles = (page: Page) => page.locator('.ais-Hits-item h3').allInnerTexts();
  const stats = (page: Page) => page.locator('.ais-Stats-text').innerText();
  const counts = async (page: Page) =>
    Object.fromEntries(await page.locator('.ais-RefinementList-item').evaluateAll((items) =>
      items.map((li) => [li.querySelector('.ais-RefinementList-labelText')!.textContent, Number(li.querySelector('.ais-RefinementList-count')!.textContent)])));
  const type = async (page: Page, text: string) => {
    await page.locator('#searchbox .ais-SearchBox-input').pressSequentially(text, { delay: 30 });
  };

  it('shows nothing before a query, then highlighted hits as the visitor types', TEST, async () => {
    await withSearchPage(async (page) => {
      // InstantSearch's first search has an empty query: answered without asking Lore.
      await page.locator('.ais-Hits--empty').waitFor({ timeout: WAIT });
      await type(page, 'accou');
      await eventually(async () => assert.match(await stats(page), /^12 results found/));
      assert.equal((await titles(page)).length, 4);
      // The word being typed matches as a prefix: Lore marks the words it matched in its
      // snippets ("account"), the titles show the same words marked.
      const marks = await page.locator('.ais-Hits-item h3 mark').allInnerTexts();
      assert.ok(marks.length >= 4 && marks.every((m) => /^account$/i.test(m)), `title marks: ${marks}`);
      assert.ok((await page.locator('.ais-Hits-item p mark').count()) >= 4);
    });
  });

  it('keeps markup in titles and texts as text: no injected element runs', TEST, async () => {
    await withSearchPage(async (page) => {
      await type(page, 'safety ');
      const hit = page.locator('.ais-Hits-item', { hasText: 'safety' }).first();
      await hit.waitFor({ timeout: WAIT });
      assert.equal(await hit.locator('h3').innerText(), '<img src=x onerror="window.__xss=1"> Account & <b>safety</b>');
      assert.equal(await hit.locator('img, b, script').count(), 0);
      assert.deepEqual(await hit.locator('h3 mark').allInnerTexts(), ['safety']);
      // Lore's snippet is the text as plain text (HTML tags dropped), escaped; shown as text.
      assert.match(await hit.locator('p').innerText(), /1 < 2 & "quotes" stay text; window\.__xss=2 turn on/);
      assert.equal(await page.evaluate(() => (window as any).__xss), undefined);
    });
  });

  it('a refinement narrows the hits; the counts come from Lore', TEST, async () => {
    await withSearchPage(async (page) => {
      await type(page, 'account ');
      await eventually(async () => assert.deepEqual(await counts(page), { Guides: 5, Reference: 4, Troubleshooting: 3 }));
      await page.locator('.ais-RefinementList-item', { hasText: 'Reference' }).locator('input').click();
      await eventually(async () => assert.match(await stats(page), /^4 results found/));
      assert.deepEqual(await page.locator('.ais-Hits-item .category').allInnerTexts(), ['Reference', 'Reference', 'Reference', 'Reference']);
      // An OR refinement list keeps the other values' counts (InstantSearch asks again without the filter).
      assert.deepEqual(await counts(page), { Guides: 5, Reference: 4, Troubleshooting: 3 });
      await page.locator('.ais-RefinementList-item', { hasText: 'Troubleshooting' }).locator('input').click();
      await eventually(async () => assert.match(await stats(page), /^7 results found/));
      assert.deepEqual(new Set(await page.locator('.ais-Hits-item .category').allInnerTexts()), new Set(['Reference', 'Troubleshooting']));

      await page.setViewportSize({ width: 1280, height: 800 });
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}instantsearch-desktop.png`, fullPage: true });
    });
  });

  it("a searchable refinement list finds values among the query's hits", TEST, async () => {
    await withSearchPage(async (page) => {
      await type(page, 'account ');
      await eventually(async () => assert.equal(Object.keys(await counts(page)).length, 3));
      await page.locator('#categories .ais-SearchBox-input').pressSequentially('trou', { delay: 30 });
      await eventually(async () => assert.deepEqual(await counts(page), { Troubleshooting: 3 }));
      assert.equal(await page.locator('.ais-RefinementList-labelText mark').innerText(), 'Trou');
      await page.locator('.ais-RefinementList-item input').click();
      await eventually(async () => assert.match(await stats(page), /^3 results found/));
    });
  });

  it('pagination moves through the pages', TEST, async () => {
    await withSearchPage(async (page) => {
      await type(page, 'account ');
      await eventually(async () => assert.match(await stats(page), /^12 results found/));
      assert.deepEqual(await page.locator('.ais-Pagination-item--page').allInnerTexts(), ['1', '2', '3']);
      const first = await titles(page);
      await page.locator('.ais-Pagination-item--page', { hasText: '3' }).click();
      await eventually(async () => assert.equal(await page.locator('.ais-Pagination-item--selected').innerText(), '3'));
      const third = await eventually(async () => {
        const shown = await titles(page);
        assert.equal(shown.length, 4);
        assert.ok(shown.every((t) => !first.includes(t)), `page 3 ${shown} differs from page 1 ${first}`);
        return shown;
      });
      await page.locator('.ais-Pagination-item--previousPage').click();
      await eventually(async () => {
        const second = await titles(page);
        assert.equal(second.length, 4);
        assert.equal(new Set([...first, ...second, ...third]).size, 12, 'the three pages hold the twelve hits');
      });
    });
  });

  it("runs the adapter README's example page as pasted", TEST, async () => {
    const readme = await readmePage(lore.api, widgetKey);
    await withPage(browser, lore.site.page({ sdk: false, ...readme }), {}, async ({ page }) => {
      await page.locator('.ais-SearchBox-input').pressSequentially('account ', { delay: 30 });
      await eventually(async () => assert.equal(await page.locator('#hits .ais-Hits-item').count(), 8));
      assert.equal(await page.locator('#hits .ais-Hits-item a').first().locator('mark').first().innerText(), 'Account');
      await eventually(async () => assert.deepEqual(await page.locator('#category .ais-RefinementList-labelText').allInnerTexts(), ['Guides', 'Reference', 'Troubleshooting']));
      assert.deepEqual(await page.locator('#pagination .ais-Pagination-item--page').allInnerTexts(), ['1', '2']);
    });
  });

  it("runs the README's whole InstantSearch page as pasted: the adapter imported from Lore, instantsearch.js from its CDN", TEST, async () => {
    const block = marked.lexer(readFileSync(`${ROOT}README.md`, 'utf8'))
      .find((t): t is Tokens.Code => t.type === 'code' && t.lang === 'html' && t.text.includes('/widget/v1/lore-instantsearch.js'));
    assert.ok(block, "the README's InstantSearch page");
    const installed = (JSON.parse(readFileSync(`${ROOT}node_modules/instantsearch.js/package.json`, 'utf8')) as { version: string }).version;
    const cdn = `https://cdn.jsdelivr.net/npm/instantsearch.js@${installed}/dist/instantsearch.production.min.js`;
    assert.ok(block.text.includes(cdn), `the README loads the instantsearch.js the tests use (${installed})`);
    const html = [["'https://lore.example.com", `'${lore.api}`], ["'org_…/wgt_…'", js(widgetKey)]].reduce((text, [placeholder, value]) => {
      assert.ok(text.includes(placeholder!), `the README's page has ${placeholder}`);
      return text.replaceAll(placeholder!, value!);
    }, block.text);
    // Served by the site (its host is on the widget's websites) without the fixtures' CSP, as a
    // plain page would be; the CDN, offline here, answered from node_modules.
    await withPage(browser, 'about:blank', {}, async ({ page }) => {
      await page.route(cdn, (route) => route.fulfill({ contentType: 'text/javascript', path: `${ROOT}node_modules/instantsearch.js/dist/instantsearch.production.min.js` }));
      await page.goto(lore.site.page({ sdk: false, csp: false, html }));
      await page.locator('.ais-SearchBox-input').pressSequentially('account ', { delay: 30 });
      await eventually(async () => assert.equal(await page.locator('#hits .ais-Hits-item').count(), 8));
      assert.equal(await page.locator('#hits .ais-Hits-item a').first().locator('mark').first().innerText(), 'Account');
      await eventually(async () => assert.deepEqual(await page.locator('#category .ais-RefinementList-labelText').allInnerTexts(), ['Guides', 'Reference', 'Troubleshooting']));
      await page.locator('#category .ais-RefinementList-labelText', { hasText: 'Reference' }).click();
      await eventually(async () => assert.equal(await page.locator('#hits .ais-Hits-item').count(), 4));
    });
  });

  it('fits a phone: 375 px wide', TEST, async () => {
    await withSearchPage(async (page) => {
      await type(page, 'accou');
      await eventually(async () => assert.match(await stats(page), /^12 results found/));
      await eventually(async () => assert.equal(Object.keys(await counts(page)).length, 3));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, 'no horizontal scroll');
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}instantsearch-mobile.png`, fullPage: true });
    }, { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
  });
});
