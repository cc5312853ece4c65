import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retrievalQuery } from './service.js';

describe('retrievalQuery', () => {
  it('drops English how-to and "can I" scaffolding, and nothing else', () => {
    assert.equal(retrievalQuery('How do I turn off the demo?'), 'turn off the demo?');
    assert.equal(retrievalQuery('how can we embed the chat widget'), 'embed the chat widget');
    assert.equal(retrievalQuery('How to rotate a widget secret'), 'rotate a widget secret');
    assert.equal(retrievalQuery('Can I use OpenAI?'), 'use OpenAI?');
    for (const q of ['What is Lore?', 'How many requests per minute?', 'How do I', 'Wie kann ich das Demo abschalten?', 'How does search rank?']) assert.equal(retrievalQuery(q), q);
  });
});
