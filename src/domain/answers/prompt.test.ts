import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildMessages, languageName, systemPrompt } from './prompt.js';

const passages = [
  { ref: 1, title: 'Plans', url: 'https://example.com/plans', text: 'Pro costs 49 euros.' },
  { ref: 2, title: null, url: null, text: 'Starter is free.' },
];

describe('answer prompts', () => {
  it('carry the persona, the operator instructions, the language and the numbered passages', () => {
    const prompt = systemPrompt({ task: 'chat', persona: 'sales-assistant', instructions: 'Never discuss discounts.', locale: 'de', passages });
    assert.match(prompt, /sales assistant/);
    assert.match(prompt, /Instructions from the site operator:\nNever discuss discounts\./);
    assert.match(prompt, /Write the answer in German\./);
    assert.match(prompt, /\[1\] Plans — https:\/\/example\.com\/plans\nPro costs 49 euros\./);
    assert.match(prompt, /\[2\]\nStarter is free\./);
    assert.match(prompt, /cite it by its number in square brackets/);
  });

  it('ask for the question’s language when no locale is known, and summaries stay short', () => {
    const prompt = systemPrompt({ task: 'summary', passages });
    assert.match(prompt, /in the language of the question/);
    assert.match(prompt, /short summary/);
    assert.doesNotMatch(prompt, /Instructions from the site operator/);
  });

  it('put the system prompt first, then the earlier turns, then the question', () => {
    const messages = buildMessages({ task: 'chat', passages }, [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello!' }], 'Price?');
    assert.deepEqual(messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.equal(messages.at(-1)!.content, 'Price?');
  });

  it("title a section passage under its page's title", () => {
    const prompt = systemPrompt({ task: 'chat', passages: [{ ref: 1, title: 'The Why', url: 'https://vite.dev/guide/dep-pre-bundling#the-why', text: 'CommonJS to ESM.', pageTitle: 'Dependency Pre-Bundling' }] });
    assert.match(prompt, /\n\[1\] Dependency Pre-Bundling › The Why — https:\/\/vite\.dev\/guide\/dep-pre-bundling#the-why\nCommonJS to ESM\./);
  });

  it('name the page the visitor is on, when the chat has one', () => {
    const prompt = systemPrompt({ task: 'chat', passages, page: { url: 'https://example.com/plans#pro', title: 'Plans' } });
    assert.match(prompt, /The visitor is reading the page “Plans” \(https:\/\/example\.com\/plans#pro\): “this page” or “here” in their messages means it\./);
    assert.match(systemPrompt({ task: 'chat', passages, page: { url: 'https://example.com/x' } }), /reading the page https:\/\/example\.com\/x:/);
    assert.doesNotMatch(systemPrompt({ task: 'chat', passages }), /reading the page/);
  });

  it('names languages in English, and keeps tags it cannot name', () => {
    assert.equal(languageName('pt-BR'), 'Brazilian Portuguese');
    assert.equal(languageName('zz'), 'zz');
  });
});
