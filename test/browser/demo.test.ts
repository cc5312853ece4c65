// The demo a new user opens after `npm start`: Lore's own docs, both widgets, the page's strict
// CSP. Same seeding as the server's start (seedLoreDemo), on the port Lore really listens on.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { seedLoreDemo } from '../../src/loreDocs.js';
import { startServer, type TestServer } from '../helpers.js';
import { browserSkip, eventually, launchBrowser, startTogether, TEST, WAIT, withPage } from './fixtures.js';
import { ChatWidget, SearchWidget } from './pageObjects.js';

const SHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

// The questions the demo itself suggests (the chat's prompt chips and the page's "Or ask" link)
// are the first answers a new user reads: each must name the facts Lore's docs give, with its
// citations numbered 1, 2, 3… in order of first appearance. A prompt without facts here fails:
// add what its answer must say when the demo suggests a new question.
/** What each suggested question's answer must say (every pattern, case-insensitive). */
const FACTS: Record<string, RegExp[]> = {
  'What is Lore?': [/self-hostable/i, /search/i, /chat/i],
  'How do I embed the chat widget?': [/service\.js/, /<script|script tag/i],
  'Which answer providers can Lore use?': [/extractive/i, /OpenAI-compatible/i, /Anthropic/i, /GGUF|llama/i],
  'How does hybrid search rank results?': [/BM25/, /vector/i, /fus/i, /boost/i, /sort/i],
};

/** The citation markers of the chat's last answer (the widget renders `[n]` as a link `n`), in order. */
async function citationOrder(chat: ChatWidget): Promise<number[]> {
  return (await chat.lastAssistant.locator('[data-lore="answer"] .cite').allInnerTexts()).map((t) => Number(t.trim()));
}

async function checkAnswer(chat: ChatWidget, question: string): Promise<void> {
  const answer = await chat.lastAnswer();
  const facts = FACTS[question];
  assert.ok(facts, `the demo suggests "${question}", which this test has no facts for`);
  for (const fact of facts) assert.match(answer, fact, `"${question}" → ${answer}`);
  const order = await citationOrder(chat);
  assert.ok(order.length > 0, `"${question}" cites nothing: ${answer}`);
  const firsts = [...new Set(order)];
  assert.deepEqual(firsts, firsts.map((_, i) => i + 1), `"${question}": citations by first appearance ${firsts.join(', ')}: ${answer}`);
}

describe('browser: the demo page', { skip: browserSkip }, () => {
  let server: TestServer;
  let browser: Browser;
  let origin: string;

  before(async () => {
    [server, browser] = await startTogether(startServer('pglite', { config: { demo: true } }), launchBrowser());
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

  /** Whether the element at the centre of `#lore-demo-search` is the search box (or inside it), and whether the chat launcher's box overlaps it. */
  const searchBoxUncovered = (page: Page) =>
    page.evaluate(() => {
      const trigger = document.getElementById('lore-demo-search')!;
      const box = trigger.getBoundingClientRect();
      const at = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
      const launcher = document.querySelector('[data-lore-widget="chat"]')!.shadowRoot!.querySelector('[data-lore="launcher"]')!.getBoundingClientRect();
      const overlaps = launcher.left < box.right && box.left < launcher.right && launcher.top < box.bottom && box.top < launcher.bottom;
      return { centre: at !== null && trigger.contains(at), overlaps, box: [box.x, box.y, box.width, box.height].map(Math.round), launcher: [launcher.x, launcher.y].map(Math.round) };
    });

  for (const viewport of [{ width: 375, height: 812 }, { width: 375, height: 667 }, { width: 375, height: 635 }]) {
    it(`at ${viewport.width}×${viewport.height} the chat launcher covers nothing of the search box`, TEST, async () => {
      await withPage(browser, `${origin}/`, { viewport, hasTouch: true, isMobile: true }, async ({ page }) => {
        await new ChatWidget(page).el('launcher').waitFor({ timeout: WAIT });
        const seen = await searchBoxUncovered(page);
        assert.deepEqual([seen.centre, seen.overlaps], [true, false], JSON.stringify(seen));
      });
    });
  }

  it('shows the Ctrl K hint with a keyboard, ⌘ K on a Mac, and no key hints on a touch-only device', TEST, async () => {
    const hint = '#lore-demo-search kbd';
    await withPage(browser, `${origin}/`, { viewport: { width: 1280, height: 800 } }, async ({ page }) => {
      const search = new SearchWidget(page);
      await search.waitMounted();
      assert.equal(await page.locator(hint).textContent(), 'Ctrl K');
      assert.ok(await page.locator(hint).isVisible());
      await page.click('#lore-demo-search');
      assert.ok(await search.host.locator('.foot .keys').isVisible(), 'the modal’s key hints');
    });
    await withPage(browser, `${origin}/`, { init: "Object.defineProperty(Navigator.prototype, 'platform', { get: () => 'MacIntel' });" }, async ({ page }) => {
      await eventually(async () => assert.equal(await page.locator(hint).textContent(), '⌘ K'));
    });
    // A tablet (wide enough for the hints) and a phone, touch only.
    for (const viewport of [{ width: 1024, height: 768 }, { width: 375, height: 812 }]) {
      await withPage(browser, `${origin}/`, { viewport, hasTouch: true, isMobile: true }, async ({ page }) => {
        const search = new SearchWidget(page);
        await search.waitMounted();
        assert.equal(await page.locator(hint).isVisible(), false, `${viewport.width}: the page’s hint`);
        await page.tap('#lore-demo-search');
        await search.el('search-input').waitFor({ timeout: WAIT });
        assert.equal(await search.host.locator('.keys').isVisible(), false, `${viewport.width}: the modal’s key hints`);
      });
    }
  });

  it('serves the API reference at /docs under its Content-Security-Policy, with package.json’s version', TEST, async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    await withPage(browser, `${origin}/docs`, {}, async ({ page }) => {
      const title = page.locator('.swagger-ui .info .title');
      await title.waitFor({ timeout: WAIT });
      assert.match((await title.textContent()) ?? '', new RegExp(`^Lore API\\s*${version.replace(/\./g, '\\.')}`));
      await page.locator('.opblock').first().waitFor({ timeout: WAIT });
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
      // A near tie in retrieval between README's Configuration row and its "Moving to
      // PostgreSQL" section (whose best sentence is about backups): an edit of Lore's docs that
      // changes their average chunk length can put the latter first and this answer with it.
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

  it('answers each prompt chip of the chat with its facts, citations numbered 1, 2, 3… as first seen', TEST, async () => {
    mkdirSync(SHOTS, { recursive: true });
    await withPage(browser, `${origin}/`, { viewport: { width: 1280, height: 900 } }, async (tab) => {
      const chat = new ChatWidget(tab.page);
      await chat.waitMounted();
      await chat.open();
      const prompts = await chat.chips();
      assert.ok(prompts.length >= 3, JSON.stringify(prompts));
      for (const [i, prompt] of prompts.entries()) {
        if (i > 0) await chat.newButton.click({ timeout: WAIT });
        await chat.prompts.filter({ hasText: prompt }).click({ timeout: WAIT });
        await checkAnswer(chat, prompt);
        await tab.page.screenshot({ path: `${SHOTS}demo-prompt-${prompt.replace(/\W+/g, '-').toLowerCase().replace(/^-|-$/g, '')}.png` });
      }
    });
  });

  it('answers the page\'s "Or ask" question with its facts', TEST, async () => {
    await withPage(browser, `${origin}/`, {}, async (tab) => {
      const chat = new ChatWidget(tab.page);
      await chat.waitMounted();
      const ask = tab.page.locator('#lore-demo-ask');
      const question = (await ask.getAttribute('data-question', { timeout: WAIT }))!;
      await ask.click({ timeout: WAIT });
      await checkAnswer(chat, question);
    });
  });
});

