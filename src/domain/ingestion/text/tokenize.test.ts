import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze, analyzedWords, detectLanguage, termFrequencies } from './tokenize.js';

// Throughput (measured outside the tests, Node 20, one core): 7.8 MB of SciFact abstracts never
// seen before, detectLanguage + analyze per abstract: ~6 MB/s; once the per-language word cache
// is warm, 12–20 MB/s for English, more for Russian, Arabic, Hindi. To re-measure:
//   node --import tsx -e "import('./src/domain/ingestion/text/tokenize.ts').then(({analyze})=>{
//     const t='The quick brown fox jumps over the lazy dog. '.repeat(20000);
//     let s=performance.now(); analyze(t,'en'); console.log(t.length/1e3/(performance.now()-s),'MB/s')})"

const terms = (text: string, language?: string) => analyze(text, language).terms;
const shared = (a: readonly string[], b: readonly string[]) => {
  const set = new Set(b);
  return [...new Set(a)].filter((t) => set.has(t));
};

describe('detectLanguage', () => {
  const samples: [string, string][] = [
    ['en', 'The patient was treated with a new drug, and the results of the trial are shown in this table.'],
    ['de', 'Die Ergebnisse der Studie sind nicht eindeutig, und das ist auch für die Forscher eine Überraschung.'],
    ['es', 'El resultado de la prueba fue positivo y los médicos dicen que es una buena noticia para el país.'],
    ['fr', 'Le résultat de cette étude est important pour les patients qui sont dans une situation difficile.'],
    ['it', 'Il risultato della ricerca è importante per i pazienti che sono in una situazione difficile.'],
    ['pt', 'O resultado do estudo foi importante para os pacientes que não tinham outra opção de tratamento.'],
    ['nl', 'Het resultaat van het onderzoek is belangrijk voor de patiënten die er al lang op wachten.'],
    ['ro', 'Ședința consiliului a fost amânată pentru că nu sunt destui membri care să fie prezenți în sală.'],
    ['tr', 'Bu çalışma için çok önemli bir adım olarak görülüyor ve daha fazla araştırma gerekiyor.'],
    ['vi', 'Đây là một trong những thành phố lớn nhất của Việt Nam và có rất nhiều người sống ở đây.'],
    ['ru', 'Результаты исследования показали, что новый препарат эффективен при лечении болезни.'],
    ['uk', 'Результати дослідження показали, що новий препарат є ефективним і його можна застосовувати.'],
    ['bg', 'Резултатите от изследването показаха, че новото лекарство е ефективно при лечението на болестта.'],
    ['bg', 'България е държава в Югоизточна Европа, която се намира на Балканския полуостров.'],
    ['el', 'Τα αποτελέσματα της μελέτης δείχνουν ότι το νέο φάρμακο είναι αποτελεσματικό.'],
    ['ar', 'أظهرت نتائج الدراسة أن الدواء الجديد فعال في علاج المرض.'],
    ['fa', 'نتایج این پژوهش نشان می‌دهد که داروی جدید برای درمان بیماری مؤثر است.'],
    ['hi', 'अध्ययन के परिणामों से पता चला कि नई दवा प्रभावी है।'],
    ['th', 'ผลการศึกษาแสดงให้เห็นว่ายาใหม่มีประสิทธิภาพ'],
    ['zh', '研究结果表明新药是有效的。'],
    ['ja', '研究の結果、新しい薬が効果的であることが分かりました。'],
    ['ko', '연구 결과 새로운 약이 효과적인 것으로 나타났습니다.'],
  ];
  for (const [language, text] of samples) {
    it(`recognises ${language}`, () => assert.equal(detectLanguage(text), language));
  }

  it('recognises short questions', () => {
    assert.equal(detectLanguage('How many points did the Panthers defense surrender?'), 'en');
    assert.equal(detectLanguage('Wie viele Punkte hat die Verteidigung der Panthers abgegeben?'), 'de');
    assert.equal(detectLanguage('¿Cuántos puntos permitió la defensa?'), 'es');
    assert.equal(detectLanguage('黑豹队的防守丢了多少分？'), 'zh');
    // Two English function words and no other language's: "how" alone was not enough.
    assert.equal(detectLanguage("How long may an entry's raw_text be?"), 'en');
    assert.equal(detectLanguage('Can it run offline?'), 'en');
    // "wie" and "die" are Dutch words too: a German how-to names its asker ("ich", "kann").
    assert.equal(detectLanguage('Wie fahre ich die Anwendung sauber herunter?'), 'de');
    assert.equal(detectLanguage('Wie kann man die Anwendung strukturieren?'), 'de');
  });

  it('says und when there is nothing to go on', () => {
    assert.equal(detectLanguage(''), 'und');
    assert.equal(detectLanguage('   ...  '), 'und');
    assert.equal(detectLanguage('p53 IL-6'), 'und');
    assert.equal(detectLanguage('12345 67890'), 'und');
    assert.equal(detectLanguage('Los Angeles Lakers'), 'und');
  });

  it('goes by the main script, not by embedded Latin names', () => {
    assert.equal(detectLanguage('Что такое Engineering News-Record и кто его издаёт?'), 'ru');
    assert.equal(detectLanguage('ทีมกีฬาในแคลิฟอร์เนียใต้ ได้แก่ NFL (Los Angeles Rams, San Diego Chargers) และ NBA (Los Angeles Lakers)'), 'th');
    assert.equal(detectLanguage('Python 3.12 的新特性包括更好的错误信息'), 'zh');
    assert.equal(detectLanguage('The Greek letter σ denotes the standard deviation of the sample.'), 'en');
  });

  it('reads only the start of a huge text', () => {
    assert.equal(detectLanguage('Le chat est sur la table et le chien est dans le jardin. '.repeat(20_000)), 'fr');
  });
});

describe('analyze: segmentation', () => {
  it('segments Chinese into words (plus character bigrams)', () => {
    const t = terms('我们在北京大学学习');
    assert.ok(t.includes('北京') || t.includes('北京大学'), t.join(' '));
    assert.ok(t.includes('学习'));
    assert.ok(t.includes('大学'));
    assert.ok(t.every((x) => [...x].length <= 4), 'no whole-sentence terms');
  });

  it('matches a Chinese query however the text around it is cut', () => {
    const doc = terms('北京大学是中国著名的综合性大学，创办于1898年。');
    for (const query of ['北京大学', '北京的大学', '综合性', '创办']) {
      assert.ok(shared(terms(query, 'zh'), doc).length > 0, query);
    }
  });

  it('segments Japanese, keeping kana voicing marks', () => {
    const t = terms('東京に行きました。カタカナのテストです。');
    assert.ok(t.includes('東京'));
    assert.ok(t.includes('テスト'));
    assert.ok(terms('がっこう', 'ja').some((x) => x.includes('が')), 'が is not folded to か');
  });

  it('segments Thai, which has no spaces', () => {
    const t = terms('ภาษาไทยเป็นภาษาที่สวยงาม');
    assert.ok(t.includes('ภาษา'));
    assert.ok(t.includes('ไทย'));
    assert.ok(t.length >= 5);
  });

  it('keeps Thai SARA AM intact so the dictionary still finds words', () => {
    // NFKC would split ำ into ํ + า; both spellings give the same terms.
    assert.deepEqual(terms('ทำให้การดำเนินงาน', 'th'), terms('ท\u0E4D\u0E32ให้การด\u0E4D\u0E32เนินงาน', 'th'));
    assert.ok(terms('ทำให้การดำเนินงาน', 'th').includes('ดำเนิน'));
  });

  it('splits Korean words into bigrams so stems match through particles', () => {
    const doc = terms('연구를 통해 새로운 결과가 나왔다');
    assert.ok(doc.includes('연구를'));
    assert.ok(doc.includes('연구'));
    assert.ok(shared(terms('연구 결과', 'ko'), doc).length >= 2);
  });

  it('keeps numbers and alphanumerics', () => {
    const t = terms('p53 and IL-6 rose in 2020 (covid-19); pi is 3.14; 1,000 cases', 'en');
    for (const expected of ['p53', 'il', '6', 'il6', '2020', 'covid', '19', 'covid19', '3.14', '1,000']) {
      assert.ok(t.includes(expected), `${expected} in ${t.join(' ')}`);
    }
    // The joined form matches a query typed without the hyphen, and the parts a spaced one.
    assert.ok(shared(terms('COVID19', 'en'), t).includes('covid19'));
    assert.ok(shared(terms('SARS-CoV-2', 'en'), terms('sarscov2 sars cov 2', 'en')).length >= 3);
    assert.ok(!terms('1990-2000', 'en').includes('19902000'));
  });

  it('handles dots, underscores and apostrophes', () => {
    assert.ok(terms('the U.S. economy', 'en').includes('us'));
    assert.deepEqual(terms('node.js', 'en'), ['node', 'js']);
    assert.deepEqual(terms('max_length', 'en'), ['max', 'length']);
    assert.deepEqual(terms("NFL's", 'en'), terms('NFL', 'en'));
    assert.deepEqual(terms('it’s', 'en'), terms("it's", 'en'));
    assert.ok(terms("l'homme", 'fr').includes(terms('homme', 'fr')[0]!));
    assert.deepEqual(terms("dell'anno", 'it'), terms('anno', 'it'));
    assert.deepEqual(terms("Ankara'nın", 'tr'), terms('Ankara', 'tr'));
  });
});

describe('analyze: folding', () => {
  it('folds case and accents', () => {
    for (const language of ['fr', 'en', 'und']) {
      assert.deepEqual(terms('Café', language), terms('cafe', language), language);
      assert.deepEqual(terms('CAFÉ', language), terms('café', language), language);
    }
    assert.deepEqual(terms('Ñandú', 'und'), ['nandu']);
    assert.deepEqual(terms('naïve', 'und'), terms('naive', 'und'));
  });

  it('folds German ß, Turkish dotted and dotless i, Scandinavian letters', () => {
    assert.deepEqual(terms('Straße', 'und'), ['strasse']);
    assert.deepEqual(terms('Straße', 'de'), terms('Strasse', 'de'));
    assert.deepEqual(terms('İstanbul', 'tr'), terms('istanbul', 'tr'));
    assert.deepEqual(terms('ılık', 'tr'), terms('ilik', 'tr'));
    assert.deepEqual(terms('IŞIK', 'tr'), terms('ışık', 'tr'));
    assert.deepEqual(terms('İstanbul', 'en'), ['istanbul']);
    assert.deepEqual(terms('København', 'da'), terms('kobenhavn', 'da'));
  });

  it('normalises compatibility forms', () => {
    assert.deepEqual(terms('ＡＢＣ１２３', 'und'), ['abc123']);
    assert.deepEqual(terms('ﬁnance', 'en'), terms('finance', 'en'));
    assert.ok(terms('6½ inches', 'en').includes('6'), '6½ does not become 61');
  });

  it('strips Greek, Arabic and Russian accents but keeps letters that need their marks', () => {
    assert.deepEqual(terms('ΜΕΛΈΤΗ', 'el'), terms('μελετη', 'el'));
    assert.deepEqual(terms('الْكِتَابُ', 'ar'), terms('الكتاب', 'ar'));
    assert.deepEqual(terms('ёлка', 'ru'), terms('елка', 'ru'));
    assert.notDeepEqual(terms('мой', 'und'), terms('мои', 'und')); // й is a letter, not и + accent
  });

  it('keeps Devanagari vowel signs and Vietnamese tones', () => {
    assert.ok(terms('पुस्तक', 'hi')[0]!.includes('ु'));
    assert.deepEqual(terms('Đây là một thành phố', 'vi'), ['đây', 'là', 'một', 'thành', 'phố']);
    assert.notDeepEqual(terms('mà', 'vi'), terms('má', 'vi'));
  });
});

describe('analyze: stemming', () => {
  it('stems English', () => {
    assert.deepEqual(terms('running runs run', 'en'), ['run', 'run', 'run']);
    assert.deepEqual(terms('studies', 'en'), terms('study', 'en'));
  });

  it('stems German, Spanish, French, Romanian', () => {
    assert.deepEqual(terms('Häuser Hauses Haus', 'de'), ['haus', 'haus', 'haus']);
    assert.deepEqual(terms('canciones', 'es'), terms('canción', 'es'));
    assert.deepEqual(terms('canción', 'es'), terms('cancion', 'es'));
    assert.deepEqual(terms('étudiants', 'fr'), terms('étudiant', 'fr'));
    assert.deepEqual(terms('orașe', 'ro'), terms('orașul', 'ro'));
  });

  it('stems Russian, Greek, Arabic, Turkish, Hindi, Bulgarian', () => {
    assert.deepEqual(terms('книги книгой', 'ru'), terms('книга книга', 'ru'));
    assert.deepEqual(terms('πόλεις', 'el'), terms('πόλη', 'el'));
    assert.deepEqual(terms('الدراسات', 'ar'), terms('دراسة', 'ar'));
    assert.deepEqual(terms('kitaplardan', 'tr'), terms('kitap', 'tr'));
    assert.deepEqual(terms('किताबों', 'hi'), terms('किताब', 'hi'));
    assert.doesNotThrow(() => terms('растяжения книгите', 'bg'));
    assert.deepEqual(terms('книгите', 'bg'), terms('книга', 'bg'));
  });

  it('stems Latin-script words in unknown or non-Latin-script text in English', () => {
    assert.deepEqual(terms('Running shoes', 'und'), terms('running shoes', 'en'));
    assert.ok(terms('我喜欢 running', 'zh').includes('run'));
    assert.deepEqual(terms('running', 'vi'), ['running']); // Vietnamese has no stemmer
  });

  it('accepts regional codes and unknown languages', () => {
    assert.deepEqual(terms('running', 'en-GB'), ['run']);
    assert.deepEqual(terms('Straße', 'xx'), ['strasse']);
  });
});

describe('analyze: queries and documents', () => {
  const pairs: [string, string, string][] = [
    ['en', 'The Panthers defense gave up just 308 points, ranking sixth in the league.', 'How many points did the Panthers defense surrender?'],
    ['de', 'Die Einwohner der Stadt feierten das Fest im Sommer mit vielen Gästen.', 'Wann feiern die Einwohner das Fest?'],
    ['es', 'Los ctenóforos comen grandes cantidades de comida en un solo día.', '¿Cuánta comida come un ctenóforo en un día?'],
    ['ru', 'Компания Tesla производила электрические дуговые лампы.', 'Что производила компания Tesla?'],
    ['el', 'Η άμυνα των Panthers δέχτηκε μόνο 308 πόντους.', 'Πόσους πόντους δέχτηκε η άμυνα των Panthers;'],
    ['ar', 'تخلى دفاع فريق بانثرز عن 308 نقاط فقط.', 'كم عدد النقاط التي تخلى عنها دفاع بانثرز؟'],
    ['zh', '黑豹队的防守只丢了308分，在联盟中排名第六。', '黑豹队的防守丢了多少分？'],
    ['th', 'แนวรับของแพนเทอร์สเสียไปเพียง 308 แต้ม', 'แนวรับของแพนเทอร์สเสียไปกี่แต้ม'],
    ['vi', 'Đội thủ Panthers chỉ thua 308 điểm, xếp thứ sáu trong giải.', 'Đội thủ Panthers đã thua bao nhiêu điểm?'],
    ['hi', 'पैंथर्स की रक्षा ने केवल 308 अंक दिए।', 'पैंथर्स की रक्षा ने कितने अंक दिए?'],
  ];
  for (const [language, doc, query] of pairs) {
    it(`${language}: a question shares terms with its passage`, () => {
      const d = analyze(doc);
      assert.equal(d.language, language);
      const q = terms(query, language);
      assert.ok(shared(q, d.terms).length >= 2, `${q.join(' ')} / ${d.terms.join(' ')}`);
    });
  }

  it('gives a word the same terms alone as inside a sentence', () => {
    // snippet.ts analyses single words to highlight matches.
    for (const [sentence, language] of [
      ['The studies of running horses were published in 2020.', 'en'],
      ['Die Häuser der Stadt wurden im Krieg zerstört.', 'de'],
      ['Результаты исследования показали эффективность.', 'ru'],
    ] as const) {
      const all = new Set(terms(sentence, language));
      for (const word of sentence.split(/[\s.]+/).filter(Boolean)) {
        // With a companion word, so that a lone stop word is dropped as it is in the sentence.
        const alone = terms(`${word} zyxw`, language).filter((t) => t !== 'zyxw');
        for (const t of alone) assert.ok(all.has(t), `${word} → ${t}`);
      }
    }
  });

  it('lists words with their offsets and the terms analyze gives them (snippets)', () => {
    const text = 'The running horses: 北京大学的研究 showed it.';
    const words = [...analyzedWords(text, 'en')];
    for (const w of words) assert.ok(/\p{L}/u.test(text.slice(w.start, w.end)), text.slice(w.start, w.end));
    const byWord = new Map(words.map((w) => [text.slice(w.start, w.end), w.terms]));
    assert.deepEqual(byWord.get('running'), terms('running zyxw', 'en').filter((t) => t !== 'zyxw'));
    // The Han run is cut into ICU words, not marked as one block.
    const han = words.filter((w) => /\p{Script=Han}/u.test(text.slice(w.start, w.end)));
    assert.ok(han.length >= 2, han.map((w) => text.slice(w.start, w.end)).join('|'));
    const all = new Set(terms(text, 'en'));
    for (const w of words) for (const t of w.terms) assert.ok(all.has(t), t);
  });

  it('is deterministic across calls (the word cache changes nothing)', () => {
    const text = 'Die Häuser der Stadt: 北京大学, covid-19, l’homme, İstanbul. '.repeat(3);
    const first = analyze(text, 'de');
    assert.deepEqual(analyze(text, 'de'), first);
    assert.deepEqual(analyze(text.toUpperCase(), 'de').terms.length, first.terms.length);
  });

  it('reports the language it used', () => {
    assert.equal(analyze('Die Ergebnisse der Studie sind nicht eindeutig.').language, 'de');
    assert.equal(analyze('whatever', 'fr').language, 'fr');
  });
});

describe('analyze: stop words, empty input, limits', () => {
  it('drops English stop words but never empties a query', () => {
    const t = terms('the cat and the hat', 'en');
    assert.ok(!t.includes('the') && !t.includes('and'));
    assert.deepEqual(t, ['cat', 'hat']);
    assert.deepEqual(terms('the and of', 'en'), ['the', 'and', 'of']);
    assert.deepEqual(terms('To be or not to be', 'en'), ['not']);
    assert.deepEqual(terms('der die das', 'de'), ['der', 'die', 'das']);
  });

  it('does not remove stop words in languages without a list', () => {
    assert.ok(terms('the cat', 'und').includes('the'));
    assert.ok(terms('và của', 'vi').length === 2);
  });

  it('gives nothing for empty, blank or punctuation-only input', () => {
    for (const text of ['', '   ', '\n\t', '...!?', '— – - …', '。，！？', '(){}[]<>', '🙂🙂']) {
      assert.deepEqual(terms(text), [], JSON.stringify(text));
    }
  });

  it('drops terms longer than 64 characters', () => {
    assert.deepEqual(terms('x'.repeat(65), 'und'), []);
    assert.deepEqual(terms('x'.repeat(64), 'und'), ['x'.repeat(64)]);
    assert.deepEqual(terms(`short ${'a'.repeat(5000)} words`, 'und'), terms('short words', 'und'));
  });

  it('handles very long input', () => {
    const sentence = 'The quick brown fox jumps over the lazy dog and runs into the forest. ';
    const long = sentence.repeat(7_000); // ~500,000 characters
    const result = analyze(long);
    assert.equal(result.language, 'en');
    assert.equal(result.terms.length, 7_000 * terms(sentence, 'en').length);
    assert.equal(termFrequencies(result.terms).get('fox'), 7_000);
  });

  it('handles long runs without spaces', () => {
    assert.ok(terms('北京大学'.repeat(50_000), 'zh').length >= 100_000);
    assert.ok(terms('ภาษาไทย'.repeat(20_000), 'th').length >= 20_000);
    assert.equal(terms('ab-'.repeat(50_000), 'en').length, 50_000);
  });
});

describe('termFrequencies', () => {
  it('counts terms', () => {
    assert.deepEqual([...termFrequencies(['a', 'b', 'a'])], [['a', 2], ['b', 1]]);
    assert.equal(termFrequencies([]).size, 0);
  });

  it('sums to the document length', () => {
    const { terms: t } = analyze('Running runs, and the runner ran to the running track.', 'en');
    const tf = termFrequencies(t);
    assert.equal([...tf.values()].reduce((a, b) => a + b, 0), t.length);
    assert.equal(tf.get('run'), 3);
  });
});
