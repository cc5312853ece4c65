import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../ingestion/text/tokenize.js';
import { analyseQuery, looseMatching } from './query.js';

/** looseMatching as the search service calls it: over the query's own analysis. */
function loose(query: string, language = 'en', options = { typing: true, typos: true }) {
  return looseMatching(query, analyze(query, language).terms, language, options);
}

describe('looseMatching: the word being typed', () => {
  it('is the last word, lower-cased and unstemmed, in the slot of its term', () => {
    const { prefix } = loose('Content Ty');
    assert.equal(prefix?.typed, 'ty');
    assert.equal(prefix?.slot, analyze('Content Ty', 'en').terms.indexOf('ty'));
    assert.equal(loose('reset passw').prefix?.typed, 'passw');
    // The last piece of a dotted or hyphenated word, as the tokeniser splits them.
    assert.equal(loose('import.meta.gl').prefix?.typed, 'gl');
  });

  it('brings the stems it begins with, of at least half its length and four letters', () => {
    assert.deepEqual(loose('listin').prefix?.stems, ['list', 'listi']);
    assert.deepEqual(loose('configura').prefix?.stems, ['confi', 'config', 'configu', 'configur']);
    assert.deepEqual(loose('abc').prefix?.stems, []);
  });

  it('is none when the query ends in a space or punctuation, a number, one letter, or a script without spaces, or is not being typed', () => {
    for (const [query, language] of [['reset ', 'en'], ['reset?', 'en'], ['version 42', 'en'], ['a', 'en'], ['reset p', 'en'], ['数据库', 'zh'], ['ฐานข้อมูล', 'th']] as const) {
      assert.equal(loose(query, language).prefix, null, query);
    }
    assert.equal(loose('reset passw', 'en', { typing: false, typos: true }).prefix, null);
  });

  it('takes a slot of its own when its word has no term (a stop word)', () => {
    const terms = analyze('password the', 'en').terms;
    const { prefix } = looseMatching('password the', terms, 'en', { typing: true, typos: false });
    assert.equal(prefix?.typed, 'the');
    assert.equal(prefix?.slot, terms.includes('the') ? terms.indexOf('the') : terms.length);
  });
});

describe('looseMatching: typos', () => {
  it('allows one edit from four letters, two from eight, counted on the word as typed', () => {
    const { typos } = loose('card subscription recieve ', 'en');
    const byTerm = new Map(typos.map((t) => [t.term, t]));
    assert.equal(byTerm.get('card')?.edits, 1);
    assert.equal(byTerm.get('subscript')?.edits ?? byTerm.get('subscrip')?.edits, 2);
    assert.equal(byTerm.get('reciev')?.edits, 1);
  });

  it('leaves short words, numbers, codes and identifiers, and scripts without spaces alone', () => {
    assert.deepEqual(loose('cad p53 http2 max_len v1.2.3 ').typos, []);
    assert.deepEqual(loose('数据库备份 ', 'zh').typos, []);
    assert.deepEqual(loose('ฐานข้อมูลสำรอง ', 'th').typos, []);
  });

  it('carries the stems of its word with a letter dropped or two swapped, where a typo broke the suffix the stemmer reads', () => {
    const byTerm = new Map(loose('dnyamic customizign dependenccies ').typos.map((t) => [t.term, t.corrections]));
    assert.ok(byTerm.get('dnyamic')?.includes('dynam'), String(byTerm.get('dnyamic'))); // "dynamic", three edits from "dnyamic"
    assert.ok(byTerm.get('customizign')?.includes('custom'));
    assert.ok([...byTerm.values()].every((c) => c.length <= 40 && !c.some((t) => byTerm.has(t))));
  });

  it('is none with typos off', () => {
    assert.deepEqual(loose('recieve ', 'en', { typing: true, typos: false }).typos, []);
  });
});

describe('analyseQuery', () => {
  it('reads an undetermined query in the collections\' languages, without the words one of them stops', async () => {
    const { terms, language } = await analyseQuery('The Origins', async () => ['en', 'und']);
    assert.equal(language, 'en');
    assert.deepEqual(terms, ['origin']);
    // Only undetermined text to search: no language says "the" is a stop word.
    assert.deepEqual((await analyseQuery('The Origins', async () => ['und'])).terms, ['the', 'origin']);
  });

  it('counts a word read in several languages once: "Page actions" is two words, whatever its variants', async () => {
    const { terms, words } = await analyseQuery('Page actions', async () => ['en', 'fr', 'und']);
    assert.ok(terms.length > 2, terms.join());
    assert.equal(words, 2);
  });

  it('reads a query in the language it is told, when its text tells too little (a question without its scaffolding)', async () => {
    const asked = async () => { throw new Error('the collections\' languages are not needed'); };
    assert.deepEqual(await analyseQuery('configuro las cabeceras?', asked, 'es'), { terms: ['configur', 'cabecer'], language: 'es', words: 2 });
    // Told nothing (or 'und'), it is undetermined and read in each of the collections' languages.
    const read = await analyseQuery('configuro las cabeceras?', async () => ['es', 'en'], 'und');
    assert.equal(read.language, 'und');
    assert.ok(read.terms.includes('cabecera'), read.terms.join());
  });
});

describe('looseMatching: words joined', () => {
  it('joins two adjacent words of letters, and a hyphenated word, into the term the text may hold, in the slots of their terms', () => {
    const terms = analyze('How do I shut down gracefully?', 'en').terms;
    const { joined } = loose('How do I shut down gracefully?');
    const shutdown = joined.find((j) => j.term === 'shutdown');
    assert.deepEqual(shutdown?.slots, [terms.indexOf('shut'), terms.indexOf('down')]);
    assert.deepEqual(loose('shut-down').joined, [{ term: 'shutdown', slots: [0, 1] }]);
    // "in" is a stop word: its join still stands for "log".
    assert.ok(loose('log in page').joined.some((j) => j.term === 'login' && j.slots.length === 1));
  });

  it('joins nothing across punctuation, with digits, in scripts without spaces, or without typos', () => {
    assert.deepEqual(loose('shut, down').joined.filter((j) => j.term === 'shutdown'), []);
    assert.deepEqual(loose('http 2').joined, []);
    assert.deepEqual(loose('数据 库', 'zh').joined, []);
    assert.deepEqual(loose('shut down', 'en', { typing: false, typos: false }).joined, []);
    // A word of one letter, or a joined term under five letters, looks nothing up ("doi", "iset").
    assert.deepEqual(loose('do I set up').joined.map((j) => j.term), ['setup']);
  });

  it('joins the verb a German question splits, its particle last, as the text writes it whole', () => {
    const asked = 'Wie richte ich einen Fehlerhandler ein?';
    const terms = analyze(asked, 'de').terms;
    const [first] = loose(asked, 'de').joined;
    assert.deepEqual(first, { term: analyze('einrichten', 'de').terms[0], slots: [terms.indexOf(analyze('richte', 'de').terms[0]!)] });
    assert.equal(loose('Wie fahre ich die Anwendung sauber herunter?', 'de').joined[0]?.term, analyze('Herunterfahren', 'de').terms[0]);
    // A question without a question word has its verb first.
    assert.equal(loose('Lege ich die Template-Engine fest?', 'de').joined[0]?.term, analyze('festlegen', 'de').terms[0]);
    // No particle last: no verb joined ("Express" is no particle).
    assert.ok(!loose('Wie installiere ich Express?', 'de').joined.some((j) => j.slots.length === 1 && j.term.startsWith('express')));
  });
});
