import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isVagueQuery } from './questionWords.js';

describe('vague queries', () => {
  it('finds one letter, stop words and question words alone too vague to summarise', () => {
    for (const query of ['h', 'H', ' x ', 'the', 'The', 'how do i', 'How do I?', 'what is the', 'Wie ist das?', '?', '…', '', 'a b c', '什么']) {
      assert.equal(isVagueQuery(query), true, query);
    }
  });

  it('summarises a query with one word about something, in any language', () => {
    for (const query of ['hi', 'postgres', 'What is Lore?', 'how do i reset my password', 'the API', 'PGlite', '猫', '검색', 'Suche', 'поиск', 'c++ tutorial', '42']) {
      assert.equal(isVagueQuery(query), false, query);
    }
  });
});
