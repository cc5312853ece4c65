import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../ingestion/text/tokenize.js';
import { COMMON_IDF, coverage, EVIDENCE_SIMILARITY, evidenceQuery, isEvidence, namedTerms, passageText } from './evidence.js';

/** A question as evidence weighs it, every word of it at idf 3 except `rare` ones at idf 6. */
function question(text: string, language: string, gate: { floor: number; slope: number; names?: boolean }, rare: string[] = []) {
  const terms = analyze(text, language).terms;
  const rareTerms = new Set(rare.flatMap((word) => analyze(word, language).terms));
  const matches = terms.map((term, slot) => ({ term, slot, weight: 1, idf: rareTerms.has(term) ? 6 : 3 }));
  return evidenceQuery(text, terms, matches, language, gate);
}

describe('evidence', () => {
  it('weighs the question’s words but not its question words', () => {
    // "Which institution must a pharmacy technician register with?": "hangi" (which) says what
    // is asked, not what about; a passage holding the rest holds the whole question.
    const asked = question('Eczane teknisyeni hangi kuruma kayıt yaptırmalıdır?', 'tr', { floor: 0.5, slope: 0 });
    assert.ok(!asked.slots.some((s) => s.terms.includes('hangi')), JSON.stringify(asked.slots));
    assert.equal(coverage(asked, 'Eczane teknisyeni kuruma kayıt yaptırmalıdır.'), 1);
    assert.equal(question('Which river is the longest?', 'en', { floor: 0.5, slope: 0 }).slots.length, 2);
  });

  it('needs fewer of the question’s words the closer the passage is, by the gate’s slope', () => {
    const asked = question('When did the Normans conquer England?', 'en', { floor: 0.8, slope: 2 }, ['normans']);
    const passage = 'The Normans were a people of northern France.';
    const held = coverage(asked, passage);
    assert.equal(held, 0.6, 'Normans: 4.5 of the 7.5 the question weighs (idf less COMMON_IDF; when and did weigh nothing)');
    assert.equal(isEvidence(asked, passage, EVIDENCE_SIMILARITY), false, 'at the threshold the floor itself');
    assert.equal(isEvidence(asked, passage, EVIDENCE_SIMILARITY + (0.8 - held) / 2 + 0.01), true, 'close enough to make up the rest');
    assert.equal(isEvidence(asked, 'Castles of the Loire valley.', 0.6), false, 'a passage holding none of it needs to be closer still');
    // With no slope, closeness counts for nothing.
    assert.equal(isEvidence({ ...asked, slope: 0 }, passage, 0.99), false);
  });

  it('weighs words in most passages nothing', () => {
    const asked = evidenceQuery('la farmacie', ['la', 'farmac'], [{ term: 'la', slot: 0, weight: 1, idf: COMMON_IDF - 0.5 }, { term: 'farmac', slot: 1, weight: 1, idf: 5 }], 'ro', { floor: 0.3, slope: 0 });
    assert.equal(coverage(asked, 'la'), 0);
    assert.equal(coverage(asked, 'farmacie'), 1);
  });

  it('keeps the rarest word weighing in a collection too small for any idf to reach far', () => {
    // Five passages: a word in one has idf 1.39, in two 0.88, in three 0.54.
    const matches = [{ term: 'tehnician', slot: 0, weight: 1, idf: 1.39 }, { term: 'farmac', slot: 1, weight: 1, idf: 0.88 }, { term: 'la', slot: 2, weight: 1, idf: 0.54 }];
    const asked = evidenceQuery('tehnician farmacie la', ['tehnician', 'farmac', 'la'], matches, 'ro', { floor: 0.3, slope: 0 });
    assert.ok(coverage(asked, 'tehnician') > 0.75, String(coverage(asked, 'tehnician')));
    assert.equal(coverage(asked, 'la'), 0);
  });

  it('tells the names a question asks about: capitalised words past the first, numbers of three digits or more', () => {
    assert.deepEqual([...namedTerms('Which Florida city has the biggest population?', 'en')], ['florida']);
    assert.deepEqual([...namedTerms('What is the name of the French colony established in 1564?', 'en')], ['french', '1564']);
    assert.deepEqual([...namedTerms('Goldenson proposed a merger in 12 weeks', 'en')], [], 'the first word begins a sentence; two digits are a count');
    assert.deepEqual([...namedTerms('Is The Who a band?', 'en')], [], 'stop words and question words name nothing');
  });

  it('holds none of a question a passage lacking one of its names holds, where the gate counts names', () => {
    const text = 'Which Florida city has the biggest population?';
    const passage = 'Los Angeles is the city with the biggest population in Southern California.';
    assert.ok(coverage(question(text, 'en', { floor: 0.4, slope: 0 }), passage) > 0.5, 'without names: city, biggest, population');
    const named = question(text, 'en', { floor: 0.4, slope: 0, names: true });
    assert.deepEqual(named.slots.filter((s) => s.named).map((s) => s.terms), [['florida']]);
    assert.equal(coverage(named, passage), 0);
    assert.equal(coverage(named, 'Jacksonville is the most populous city in Florida.'), 0.75, 'florida, city, population: not biggest');
  });

  it('does not hold a passage to a name most passages hold: the collection’s own subject', () => {
    // "Why does Lore weigh BM25 more for Chinese than for English?" in Lore's docs.
    const terms = analyze('Why does Lore weigh BM25 more for Chinese than for English?', 'en').terms;
    const matches = terms.map((term, slot) => ({ term, slot, weight: 1, idf: term === 'lore' ? COMMON_IDF - 0.5 : 3 }));
    const asked = evidenceQuery('Why does Lore weigh BM25 more for Chinese than for English?', terms, matches, 'en', { floor: 0.3, slope: 0, names: true });
    assert.deepEqual(asked.slots.filter((s) => s.named).flatMap((s) => s.terms), ['bm25', 'chines', 'english']);
    assert.equal(coverage(asked, 'BM25 weighs more in Chinese than in English, where the model is strong.'), 1);
    assert.equal(coverage(asked, 'Lore weighs BM25 more for some languages.'), 0, 'lacking Chinese and English');
  });

  it('weighs nothing for a bigram spanning two words of a Chinese question that the collection lacks', () => {
    // ICU reads 商 | 人们 | 资助 | 的 | 公司 | 叫 | 什么 | 名字; the bigrams 商人 (merchant) and 们资, 助的 … span them.
    const text = '商人们资助的公司叫什么名字？';
    const terms = [...new Set(analyze(text, 'zh').terms)];
    const inCollection = new Set(['商', '人们', '的', '公司', '叫', '商人']);
    const matches = terms.flatMap((term, slot) => (inCollection.has(term) ? [{ term, slot, weight: 1, idf: 3 }] : []));
    const asked = evidenceQuery(text, terms, matches, 'zh', { floor: 0.5, slope: 0 });
    const weighed = asked.slots.map((s) => s.terms[0]);
    assert.ok(weighed.includes('商人') && !weighed.includes('们资') && !weighed.includes('助的'), weighed.join(' '));
    assert.ok(weighed.includes('资助'), 'a word the collection lacks still weighs');
    assert.ok(!weighed.includes('叫') && !weighed.includes('名字'), 'question words ("called", "name") weigh nothing');
    // 商人, 资助, 公司 of 商, 人们, 资助, 公司, 商人 (3 of 11 with the spanning bigrams weighed).
    assert.equal(coverage(asked, '两位商人资助了一家公司，它的名字叫特斯拉。'), 3 / 5);
  });

  it('holds a Thai word by its letters where the dictionary cut a name otherwise', () => {
    // "Who is the general manager of the Broncos?": ของบรอนคอส is read ขอ|งบ|รอน|คอส here, ของ|ทีม|บร|อน|คอส in the passage.
    const text = 'ใครคือผู้จัดการทั่วไปของบรอนคอส';
    const terms = [...new Set(analyze(text, 'th').terms)];
    const asked = evidenceQuery(text, terms, terms.map((term, slot) => ({ term, slot, weight: 1, idf: 3 })), 'th', { floor: 0.5, slope: 0 });
    assert.deepEqual(asked.slots.map((s) => s.terms[0]), ['ผู้', 'จัดการ', 'ทั่วไป', 'ขอ', 'งบ', 'รอน', 'คอส']);
    // All but งบ (4 of 7 by the passage's terms: not ขอ, รอน).
    assert.equal(coverage(asked, 'จอห์น เอลเวย์ เป็นผู้จัดการทั่วไปของทีมบรอนคอส'), 6 / 7);
  });

  it('lets every passage through with a floor of 0', () => {
    const asked = question('When did the Normans conquer England?', 'en', { floor: 0, slope: 0 });
    assert.equal(isEvidence(asked, 'Nothing in common.', EVIDENCE_SIMILARITY), true);
  });
});

describe('passageText', () => {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `Sentence ${i} of a long reference section says something about its options.`).join(' ');
  const entry = ['## Changed', '', filler(40), '', '### Path route matching syntax', '', 'Wildcards must have a name: write `/*splat` instead of `/*`.', '', '```js', '# not a heading', "app.get('/*splat', handler)", '```', '', 'The chunk search found holds this sentence about wildcards.', '', '### req.params', '', filler(40), '', '### req.query', '', filler(60)].join('\n');

  it('reads a short entry whole and a long one as the sub-section holding its chunk', () => {
    assert.equal(passageText('chunk', 'a short entry'), 'a short entry');
    assert.ok(entry.length > 8000);
    const read = passageText('The chunk search found holds this sentence about wildcards.', entry);
    assert.ok(read.startsWith('### Path route matching syntax') && read.includes('`/*splat`') && read.includes('# not a heading'), read);
    assert.ok(!read.includes('### req.params'), 'ends at the next heading of its level');
  });

  it('keeps the chunk when it is not found in the entry', () => {
    assert.equal(passageText('a chunk rewritten', entry), 'a chunk rewritten');
  });
});
