import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isVagueQuery, scaffoldBigrams } from './questionWords.js';
import { analyze } from './tokenize.js';

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

describe('bigrams joining a question word to a word', () => {
  it('are the ones that straddle a question word of two characters or more', () => {
    assert.deepEqual([...scaffoldBigrams('如何安装 Express？', 'zh')], ['何安']);
    assert.deepEqual([...scaffoldBigrams('Express 5 中用什么替代 app.del()？', 'zh')].sort(), ['么替', '用什'].sort());
    // Every one of them is a term the tokeniser makes of the question.
    const terms = new Set(analyze('Express 5 中用什么替代 app.del()？', 'zh').terms);
    for (const bigram of scaffoldBigrams('Express 5 中用什么替代 app.del()？', 'zh')) assert.ok(terms.has(bigram), bigram);
  });

  it('leave bigrams inside a word or between words about something, and other languages', () => {
    // コール|バック: ルバ joins two words of one compound, both about something.
    assert.deepEqual([...scaffoldBigrams('ルートの残りのコールバックをスキップするには？', 'ja')], []);
    assert.deepEqual([...scaffoldBigrams('安装 Express', 'zh')], []);
    assert.deepEqual([...scaffoldBigrams('How do I install Express?', 'en')], []);
  });
});
