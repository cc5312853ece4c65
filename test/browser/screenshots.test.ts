// Screenshots for human review (not compared): the chat open with an answer and the search
// modal open with results and a summary, light and dark, desktop (1280×800) and 375 px wide.
// Saved to test-results/screenshots/ (gitignored); the paths are printed.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { browserSkip, TEST, eventually, js, launchBrowser, startTogether, startLore, withPage, type Lore, type WidgetRef } from './fixtures.js';
import { ChatWidget, SearchWidget } from './pageObjects.js';

const OUT = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

const HOST_CSS = `
body { margin: 0; font: 16px/1.6 Georgia, serif; color: #222; background: #fafafa; }
header { display: flex; align-items: center; gap: 24px; padding: 12px 32px; background: #fff; border-bottom: 1px solid #ddd; }
header strong { font: 700 18px/1 sans-serif; }
main { max-width: 720px; margin: 32px auto; padding: 0 20px; }
@media (prefers-color-scheme: dark) { body { background: #0f1115; color: #ddd; } header { background: #16181d; border-color: #2a2d34; } }
`;
const HOST_HTML = `
<header><strong>Acme Help</strong><div id="searchbox"></div></header>
<main>
  <h1>Getting started</h1>
  <p>Welcome to the Acme help center. Search the documentation or ask the assistant in the corner.</p>
  <p>Our guides cover accounts, billing, data export, the API and the Enterprise plan.</p>
</main>`;

const VIEWPORTS = { desktop: { width: 1280, height: 800 }, mobile: { width: 375, height: 740 } } as const;

describe('browser: screenshots', { skip: browserSkip }, () => {
  let lore: Lore;
  let browser: Browser;
  let chatWidget: WidgetRef;
  let searchWidget: WidgetRef;

  before(async () => {
    [lore, browser] = await startTogether(startLore(), launchBrowser());
    chatWidget = await lore.widget('chat', { prompts: ['How do I reset my password?', 'What does the Enterprise plan include?'] });
    searchWidget = await lore.widget('search', { summary: true });
    mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await lore?.close();
  });

  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      it(`${theme}, ${size} (${viewport.width}×${viewport.height})`, TEST, async (t) => {
        const url = lore.site.page({
          html: HOST_HTML,
          css: HOST_CSS,
          script: `
            window.chat = ServiceSdk.chat(${js(chatWidget.key)}, { theme: ${js(theme)}, show_result_thumbnails: true }).mount();
            window.search = ServiceSdk.search(${js(searchWidget.key)}, { theme: ${js(theme)}, target: '#searchbox', debounce: 200, show_result_thumbnails: true }).mount();`,
        });
        await withPage(browser, url, { viewport, colorScheme: theme }, async (tab) => {
          const shot = async (name: string) => {
            // Thumbnails load lazily: wait for every visible widget image to be decoded.
            await eventually(async () => assert.deepEqual(await tab.page.evaluate(() => Array.from(document.querySelectorAll('[data-lore-widget]'))
              .flatMap((host) => Array.from(host.shadowRoot!.querySelectorAll('img')))
              .filter((img) => img.getClientRects().length > 0 && !(img.complete && img.naturalWidth > 0))
              .map((img) => img.src)), [], 'images still loading'));
            const path = `${OUT}${name}-${theme}-${size}.png`;
            await tab.page.screenshot({ path, animations: 'disabled', caret: 'hide' });
            t.diagnostic(`screenshot: ${path}`);
          };
          const chat = new ChatWidget(tab.page);
          await chat.waitMounted();
          await chat.open();
          await chat.ask('What does the Enterprise plan include?');
          await chat.lastAnswer();
          await shot('chat');
          await chat.closeButton.click();
          await chat.expectOpen(false);

          const search = new SearchWidget(tab.page);
          await tab.page.evaluate('window.search.open()');
          await search.expectOpen(true);
          await search.type('How do I reset my password?');
          await search.resultTitles();
          await search.expectAttr(search.summary, 'data-state', 'done');
          await shot('search');
        });
      });
    }
  }
});
