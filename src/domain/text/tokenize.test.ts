import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze, detectLanguage, termFrequencies } from './tokenize.js';

const terms = (text: string, language?: string) => analyze(text, language).terms;

describe('detectLanguage', () => {
  const samples: [string, string][] = [
    ['en', 'The patient was treated with a new drug and the results of the trial are shown in this table.'],
    ['de', 'Die Ergebnisse der Studie sind nicht eindeutig, und das ist auch für die Forscher eine Überraschung.'],
    ['es', 'El resultado de la prueba fue positivo y los médicos dicen que es una buena noticia para el país.'],
    ['fr', 'Le résultat de cette étude est important pour les patients qui sont dans une situation difficile.'],
    ['ro', 'Ședința consiliului a fost amânată pentru că nu sunt destui membri care să fie prezenți în sală.'],
    ['tr', 'Bu çalışma için çok önemli bir adım olarak görülüyor ve daha fazla araştırma gerekiyor.'],
    ['vi', 'Đây là một trong những thành phố lớn nhất của Việt Nam và có rất nhiều người sống ở đây.'],
    ['ru', 'Результаты исследования показали, что новый препарат эффективен.'],
    ['el', 'Τα αποτελέσματα της μελέτης δείχνουν ότι το νέο φάρμακο είναι αποτελεσματικό.'],
    ['ar', 'أظهرت نتائج الدراسة أن الدواء الجديد فعال في علاج المرض.'],
    ['hi', 'अध्ययन के परिणामों से पता चला कि नई दवा प्रभावी है।'],
    ['th', 'ผลการศึกษาแสดงให้เห็นว่ายาใหม่มีประสิทธิภาพ'],
    ['zh', '研究结果表明新药是有效的。'],
    ['ja', '研究の結果、新しい薬が効果的であることが分かりました。'],
    ['ko', '연구 결과 새로운 약이 효과적인 것으로 나타났습니다.'],
  ];
  for (const [language, text] of samples) {
    it(`recognises ${language}`, () => assert.equal(detectLanguage(text), language));
  }
  it('says und when unsure', () => {
    assert.equal(detectLanguage('p53 IL-6'), 'und');
    assert.equal(detectLanguage(''), 'und');
  });
});

describe('analyze', () => {
  it('segments Chinese, Japanese and Thai into words', () => {
    assert.ok(terms('我们在北京大学学习').some((t) => t === '北京' || t === '北京大学'));
    assert.ok(terms('ภาษาไทยเป็นภาษาที่สวยงาม').includes('ภาษา'));
    assert.ok(terms('東京に行きました').includes('東京'));
    assert.ok(terms('연구 결과 새로운 약').includes('연구'));
  });

  it('folds case and accents', () => {
    assert.deepEqual(terms('Café', 'fr'), terms('CAFE', 'fr'));
    assert.deepEqual(terms('İstanbul ılık', 'tr').length, 2);
    assert.equal(terms('Straße', 'und')[0], 'strasse');
  });

  it('stems in the document language', () => {
    assert.deepEqual(terms('running runs', 'en'), ['run', 'run']);
    assert.equal(terms('Häuser', 'de')[0], terms('Hauses', 'de')[0]);
    assert.equal(terms('canciones', 'es')[0], terms('canción', 'es')[0]);
    assert.equal(terms('книги', 'ru')[0], terms('книга', 'ru')[0]);
  });

  it('gives a query and its document shared terms', () => {
    const doc = new Set(terms('Die Einwohner der Stadt feierten das Fest im Sommer.'));
    const query = terms('Wann feiern die Einwohner das Fest?', 'de');
    assert.ok(query.filter((t) => doc.has(t)).length >= 2);
  });

  it('keeps numbers and alphanumerics', () => {
    const t = terms('p53 and IL-6 in 2020 covid-19', 'en');
    for (const expected of ['p53', 'il', '6', '2020', 'covid', '19']) assert.ok(t.includes(expected), expected);
  });

  it('drops English stop words but never empties a query', () => {
    assert.ok(!terms('the cat and the hat', 'en').includes('the'));
    assert.deepEqual(terms('the and of', 'en'), ['the', 'and', 'of']);
  });

  it('gives nothing for empty or punctuation-only input and bounds term length', () => {
    assert.deepEqual(terms('   ...!?  '), []);
    assert.deepEqual(terms(''), []);
    assert.deepEqual(terms('x'.repeat(100), 'und'), []);
  });

  it('handles long input', () => {
    const long = 'The quick brown fox jumps over the lazy dog. '.repeat(10_000);
    assert.equal(terms(long, 'en').length, 70_000);
  });

  it('counts term frequencies', () => {
    assert.deepEqual([...termFrequencies(['a', 'b', 'a'])], [['a', 2], ['b', 1]]);
  });
});
