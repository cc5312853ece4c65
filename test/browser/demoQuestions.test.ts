// The questions the demo itself suggests (the chat's prompt chips and the page's "Or ask" link)
// are the first answers a new user reads: each must name the facts Lore's docs give, with its
// citations numbered 1, 2, 3… in order of first appearance. A prompt without facts here fails:
// add what its answer must say when the demo suggests a new question.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { seedLoreDemo } from '../../src/loreDocs.js';
import { startServer, type TestServer } from '../helpers.js';
import { browserSkip, launchBrowser, TEST, WAIT, withPage } from './fixtures.js';
import { ChatWidget } from './pageObjects.js';

const SHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

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

describe('browser: the demo answers the questions it suggests', { skip: browserSkip }, () => {
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

  it('each prompt chip of the chat', TEST, async () => {
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

  it('the page\'s "Or ask" link', TEST, async () => {
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
