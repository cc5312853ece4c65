// The demo a new user opens after `npm start`: Lore's own docs, both widgets, the page's strict
// CSP. Same seeding as the server's start (seedLoreDemo), on the port Lore really listens on.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { seedLoreDemo } from '../../src/loreDocs.js';
import { startServer, type TestServer } from '../helpers.js';
import { browserSkip, eventually, launchBrowser, TEST, WAIT, withPage } from './fixtures.js';
import { ChatWidget, SearchWidget } from './pageObjects.js';

const SHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

describe('browser: the demo page', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;
  let origin: string;

  before(async () => {
    [server, browser] = await Promise.all([startServer('pglite', { config: { demo: true } }), launchBrowser()]);
    origin = (await server.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
    await seedLoreDemo(server.container.demo, { port: Number(new URL(origin).port), publicUrl: undefined });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('search: the box opens the modal; a question finds Lore’s docs with a summary', TEST, async () => {
    await withPage(browser, `${origin}/`, {}, async (tab) => {
      const search = new SearchWidget(tab.page);
      await search.waitMounted();
      await tab.page.click('#lore-demo-search', { timeout: WAIT });
      const input = search.el('search-input');
      await input.fill('how do I embed the chat widget', { timeout: WAIT });
      await search.el('result').first().waitFor({ timeout: WAIT });
      const titles = await search.el('result').allInnerTexts();
      assert.ok(titles.length >= 3, JSON.stringify(titles));
      await search.el('summary').and(tab.page.locator('[data-state="done"]')).waitFor({ timeout: WAIT });
      assert.ok((await search.el('summary').innerText()).length > 40);
    });
  });

  it('chat: the bubble answers a question about Lore with citations to its docs', TEST, async () => {
    await withPage(browser, `${origin}/`, {}, async (tab) => {
      const chat = new ChatWidget(tab.page);
      await chat.waitMounted();
      await chat.open();
      await chat.ask('How do I run the tests?');
      assert.match(await chat.lastAnswer(), /test/i);
      const citations = await chat.citations();
      assert.ok(citations.length >= 1);
      for (const { href } of citations) assert.ok(href?.startsWith(`${origin}/demo/docs/`), href ?? 'no href');
      await eventually(async () => assert.equal(await chat.lastAssistant.getAttribute('data-state'), 'done'));
    });
  });

  // The questions a new user asked when the answers stitched fragments (issue 12); each answer
  // is saved as a screenshot for review (test-results/screenshots/demo-*.png).
  const QUESTIONS: Array<{ question: string; check: (answer: string, html: string) => void }> = [
    { question: 'What is Lore?', check: (answer) => assert.match(answer, /^Lore is a self-hostable knowledge search, summary and chat service\b/) },
    {
      question: 'How do I run Lore on PostgreSQL instead of PGlite?',
      check: (answer) => assert.match(answer, /^DATABASE_URL: use a PostgreSQL server .* instead of PGlite/),
    },
    {
      question: 'How do I embed the chat widget on my site?',
      check: (_answer, html) => assert.match(html, /<code>[^]*service\.js[^]*<\/code>/),
    },
  ];
  for (const { question, check } of QUESTIONS) {
    it(`chat answers a new user's question readably: ${question}`, TEST, async () => {
      mkdirSync(SHOTS, { recursive: true });
      await withPage(browser, `${origin}/`, { viewport: { width: 1280, height: 900 } }, async (tab) => {
        const chat = new ChatWidget(tab.page);
        await chat.waitMounted();
        await chat.open();
        await chat.ask(question);
        const answer = await chat.lastAnswer();
        const html = await chat.lastAssistant.locator('[data-lore="answer"]').innerHTML();
        check(answer, html);
        assert.doesNotMatch(answer, /[—–-]\s+[—–-]|\s\|\s|:\s*(?:\[\d+\])?\s*$/, 'no empty cells, pipes or dangling colon');
        await tab.page.screenshot({ path: `${SHOTS}demo-chat-${question.replace(/\W+/g, '-').toLowerCase().replace(/^-|-$/g, '')}.png` });
      });
    });
  }

  it('search: the summary of "how do I create an API key" quotes no heading and no colon without its block', TEST, async () => {
    mkdirSync(SHOTS, { recursive: true });
    await withPage(browser, `${origin}/`, { viewport: { width: 1280, height: 900 } }, async (tab) => {
      const search = new SearchWidget(tab.page);
      await search.waitMounted();
      await tab.page.click('#lore-demo-search', { timeout: WAIT });
      await search.type('how do I create an API key');
      await search.el('summary').and(tab.page.locator('[data-state="done"]')).waitFor({ timeout: WAIT });
      const summary = (await search.summary.innerText()).trim();
      assert.match(summary, /create a key with the API token/i);
      assert.match(summary, /curl -s -X POST \$LORE_URL\/api\/v1\/api-keys/, 'the command that creates the key');
      assert.doesNotMatch(summary, /Pages API: pushing pages/, 'a heading quoted as a sentence');
      assert.doesNotMatch(summary, /:\s*(?:\[\d+\])?\s*$/m, 'a colon whose block was left out');
      await tab.page.screenshot({ path: `${SHOTS}demo-search-summary-create-an-api-key.png` });
    });
  });
});

