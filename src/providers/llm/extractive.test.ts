import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnswerChunk, AnswerRequest } from '../../domain/answers/port.js';
import { createExtractiveProvider, embeddingSimilarity, type ExtractiveProviderOptions } from './extractive.js';
import { openCodeSpan, splitSentences } from './sentences.js';
import { analyze } from '../../domain/ingestion/text/tokenize.js';

type Passages = AnswerRequest['passages'];

/**
 * XQuAD paragraphs xq00_2 (the answer, in its third sentence) and xq00_3 (a distractor from
 * the same article), with question 56beb6533aeaaa14008c9289, in four languages.
 */
const XQUAD = {
  en: {
    question: 'How old was John Elway when he played in Super Bowl XXXIII?',
    answer: '38',
    gold: "Peyton Manning became the first quarterback ever to lead two different teams to multiple Super Bowls. He is also the oldest quarterback ever to play in a Super Bowl at age 39. The past record was held by John Elway, who led the Broncos to victory in Super Bowl XXXIII at age 38 and is currently Denver's Executive Vice President of Football Operations and General Manager.",
    other: 'Six-time Grammy winner and Academy Award nominee Lady Gaga performed the national anthem, while Academy Award winner Marlee Matlin provided American Sign Language (ASL) translation.',
  },
  de: {
    question: 'Wie alt war John Elway, als er im Super Bowl XXXIII spielte?',
    answer: '38',
    gold: 'Peyton Manning wurde zum ersten Quarterback, der zwei verschiedene Teams zu mehreren Super Bowls führte. Mit 39 Jahren ist er zudem auch der älteste Quarterback, der je in einem Super Bowl spielte. Vor Manning wurde der Rekord von John Elway gehalten, der im Alter von 38 Jahren die Broncos zum Sieg beim Super Bowl XXXIII führte und derzeit Denvers Executive Vice President of Football Operations und General Manager ist.',
    other: 'Die sechs-malige Grammy-Gewinnerin und Oscar-Nominierte Lady Gaga führte die Nationalhymne auf, während die Oscar-Gewinnerin Marlee Matlin in die Amerikanische Gebärdensprache (ASL) übersetzte.',
  },
  zh: {
    question: '约翰·埃尔维参加第 33 届超级碗时多大？',
    answer: '38岁',
    gold: '培顿·曼宁成为史上首位带领两支不同球队多次进入超级碗的四分卫。他也以 39 岁高龄参加超级碗而成为史上年龄最大的四分卫。过去的记录是由约翰·埃尔维保持的，他在 38岁时带领野马队赢得第 33 届超级碗，目前担任丹佛的橄榄球运营执行副总裁兼总经理。',
    other: '六次格莱美奖得主及奥斯卡奖提名者女神卡卡献唱了国歌，而奥斯卡奖得主玛丽·麦特琳担任了美国手语 (ASL) 翻译。',
  },
  th: {
    question: 'จอห์น เอลเวย์ อายุเท่าไรตอนที่เขาเล่นในซูเปอร์โบว์ลครั้งที่ 33',
    answer: 'เมื่ออายุ 38 ปี',
    gold: 'เพย์ตัน แมนนิง กลายเป็นควอเตอร์แบ็กคนแรกที่นำ สอง ทีมไปสู่ซูเปอร์โบว์ลหลายครั้ง  เขายังเป็นควอเตอร์แบ็กที่อายุมากที่สุดที่เคยเล่นในซูเปอร์โบว์ลอีกด้วย โดยมีอายุ 39 ปี  สถิติเดิมเป็นของ จอห์น เอลเวย์ ซึ่งนำทีม บรอนคอส ไปสู่ชัยชนะในการแข่งขัน ซูเปอร์โบว์ลครั้งที่ 33 เมื่ออายุ 38 ปี และปัจจุบันเขาคือ รองประธานผู้บริหารทีมฟุตบอลและผู้จัดการทั่วไป ของเดนเวอร์',
    other: 'เลดีกากา ซึ่งชนะรางวัลแกรมมี หก รางวัล และได้เข้าชิงรางวัล อคาเดมี เป็นผู้ขับร้อง เพลงชาติ ในขณะที่ มาร์ลี แมตลิน ผู้ชนะรางวัลอคาเดมีเป็นผู้แปลให้เป็น ภาษามือแบบอเมริกัน ',
  },
};

function passages(...texts: string[]): Passages {
  return texts.map((text, i) => ({ ref: i + 1, title: null, url: null, text }));
}

function open(): AbortSignal {
  return new AbortController().signal;
}

async function chunksOf(question: string, given: Passages, options?: ExtractiveProviderOptions): Promise<AnswerChunk[]> {
  const chunks: AnswerChunk[] = [];
  for await (const chunk of createExtractiveProvider(options).stream({ messages: [], question, passages: given }, open())) chunks.push(chunk);
  return chunks;
}

async function answer(question: string, given: Passages, options?: ExtractiveProviderOptions): Promise<string> {
  return (await chunksOf(question, given, options)).map((c) => (c.type === 'text' ? c.delta : '')).join('');
}

function citations(text: string): number[] {
  return [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
}

/** The answer's sentences: each ends with its citation (and the punctuation after it). */
function sentencesOf(text: string): string[] {
  return text.split(/(?<=\[\d+\][.!?。！？]?)\s*/u).filter(Boolean);
}

describe('extractive answer provider', () => {
  it('names itself lore / extractive-1', () => {
    const provider = createExtractiveProvider();
    assert.equal(provider.provider, 'lore');
    assert.equal(provider.model, 'extractive-1');
  });

  for (const [language, fixture] of Object.entries(XQUAD)) {
    it(`quotes the sentence holding the answer and cites its passage (${language})`, async () => {
      // The answer's passage is ranked second, behind a distractor from the same article.
      const given = passages(fixture.other, fixture.gold);
      const best = await answer(fixture.question, given, { maxSentences: 1 });
      assert.ok(best.includes(fixture.answer), best);
      assert.deepEqual(citations(best), [2]);
      assert.ok(best.length < fixture.gold.length * 0.75, 'one sentence, not the paragraph');
      const full = await answer(fixture.question, given);
      assert.ok(full.includes(fixture.answer), full);
      assert.ok(citations(full).includes(2));
    });
  }

  it('writes the citation before the final punctuation, without a space in Chinese', async () => {
    assert.match(await answer(XQUAD.en.question, passages(XQUAD.en.gold), { maxSentences: 1 }), /General Manager \[1\]\.$/);
    assert.match(await answer(XQUAD.zh.question, passages(XQUAD.zh.gold), { maxSentences: 1 }), /总经理\[1\]。$/);
  });

  it('cites only the refs it was given, and drops citation markers found in the passages', async () => {
    const given: Passages = [
      { ref: 3, title: 'Plans', url: 'https://example.com/plans', text: 'Lore costs 20 euros a month [7]. The free plan has 1,000 searches [12].' },
      { ref: 9, title: null, url: null, text: 'Lore is priced per organisation. Prices include taxes [2].' },
    ];
    const text = await answer('How much does Lore cost per month?', given);
    assert.ok(text.includes('20 euros a month'), text);
    assert.ok(citations(text).length > 0);
    for (const ref of citations(text)) assert.ok(ref === 3 || ref === 9, `cites [${ref}]`);
  });

  it('does not repeat a sentence that several passages share', async () => {
    // Overlapping chunks of one entry repeat sentences.
    const shared = 'Webhooks are retried five times with exponential backoff.';
    const text = await answer('How often are webhooks retried?', passages(`${shared} Each attempt times out after ten seconds.`, `Delivery logs are kept for a week. ${shared}`, shared));
    assert.equal(text.split('retried five times').length - 1, 1, text);
    const sentences = sentencesOf(text).map((s) => s.replace(/\s*\[\d+\]/, ''));
    assert.equal(new Set(sentences).size, sentences.length);
  });

  it('answers "What is X?" with the sentence that defines X, not with rows that only name it (regression: the demo)', async () => {
    const table = '| `LORE_LLM` | `extractive` | who writes answers in Lore |\n| `LORE_LLM_MODEL` | — | the Lore model |\n| `LORE_LLM_THREADS` | 4 | Lore threads |';
    const given = passages(table, 'Install it with npm. Lore is a self-hostable knowledge search, summary and chat service. It runs offline.');
    const text = await answer('What is Lore?', given, { maxSentences: 1 });
    assert.ok(text.startsWith('Lore is a self-hostable knowledge search'), text);
  });

  it('quotes the passage a sentence links to rather than the sentence pointing there (Vite: "How do I create a new Vite project?")', async () => {
    const given: Passages = [
      {
        ref: 1,
        title: 'Server-Side Rendering',
        url: 'https://vite.dev/guide/ssr#example-projects',
        text: 'You can also scaffold a new Vite project locally by [running `create-vite`](https://vite.dev/guide/#scaffolding-your-first-vite-project).',
      },
      {
        ref: 2,
        title: 'Scaffolding Your First Vite Project',
        url: 'https://vite.dev/guide/#scaffolding-your-first-vite-project',
        text: 'Run `npm create vite@latest` to scaffold a new Vite project.',
      },
    ];
    const question = 'How do I create a new Vite project?';
    const text = await answer(question, given, { maxSentences: 1 });
    assert.ok(text.includes('npm create vite@latest'), text);
    assert.deepEqual(citations(text), [2]);
    // The same sentence linking elsewhere points to no passage given: as good a match, and ranked first, it is quoted.
    const elsewhere = given.map((p, i) => (i === 0 ? { ...p, text: p.text.replace('https://vite.dev/guide/#scaffolding-your-first-vite-project', 'https://github.com/vitejs/vite') } : p));
    assert.deepEqual(citations(await answer(question, elsewhere, { maxSentences: 1 })), [1]);
    // An anchor is the same section however its letters are written: percent-encoded (Ü) in the link, as they are (ü) in the passage's URL.
    const encoded: Passages = [
      { ...given[0]!, text: given[0]!.text.replace('https://vite.dev/guide/#scaffolding-your-first-vite-project', 'https://vite.dev/guide/#%C3%9Cbersicht') },
      { ...given[1]!, url: 'https://vite.dev/guide/#übersicht' },
    ];
    assert.deepEqual(citations(await answer(question, encoded, { maxSentences: 1 })), [2]);
  });

  it('quotes the option a sibling inherits from, not the sibling repeating it (Vite: preview.proxy defaults to server.proxy)', async () => {
    const given: Passages = [
      {
        ref: 1,
        title: 'Preview Options',
        url: 'https://vite.dev/config/preview-options#previewproxy',
        text: '## preview.proxy\n\n- **Type:** `Record<string, string | ProxyOptions>`\n- **Default:** [`server.proxy`](https://vite.dev/config/server-options#server-proxy)\n\nConfigure custom proxy rules for the preview server. If the key starts with `^`, it will be interpreted as a `RegExp`.',
      },
      {
        ref: 2,
        title: 'Server Options',
        url: 'https://vite.dev/config/server-options#serverproxy',
        text: '## server.proxy\n\n- **Type:** `Record<string, string | ProxyOptions>`\n\nConfigure custom proxy rules for the dev server. If the key starts with `^`, it will be interpreted as a `RegExp`.',
      },
    ];
    const text = await answer('Can a proxy key be a regular expression?', given, { maxSentences: 1 });
    assert.ok(text.includes('`RegExp`'), text);
    assert.deepEqual(citations(text), [2]);
    // A question naming the sibling is answered from it.
    assert.deepEqual(citations(await answer('Can a preview proxy key be a regular expression?', given, { maxSentences: 1 })), [1]);
  });

  it('reads the verb a German question splits as one word ("richte … ein": einrichten)', async () => {
    const given: Passages = [
      {
        ref: 1,
        title: 'Fehlerbehandlung',
        url: 'https://expressjs.com/de/guide/error-handling',
        text: '## Der Standard-Fehlerhandler\n\nWenn du einen Fehler an `next()` übergibst und ihn nicht in einem benutzerdefinierten Handler behandelst, wird er vom eingebauten Fehlerhandler behandelt.',
      },
      {
        ref: 2,
        title: 'FAQ',
        url: 'https://expressjs.com/de/starter/faq',
        text: '## Eigene Fehlerhandler\n\nEinen eigenen Fehlerhandler einrichten Sie wie andere Middleware, außer mit vier anstatt drei Argumenten, spezifisch mit der Signatur `(err, req, res, next)`.',
      },
    ];
    const text = await answer('Wie richte ich einen Fehlerhandler ein?', given, { maxSentences: 1 });
    assert.ok(text.includes('(err, req, res, next)'), text);
  });

  it('does not answer from a section the docs mark as deprecated, unless asked about it (Vite: `vite optimize`)', async () => {
    const given: Passages = [
      {
        ref: 1,
        title: 'Command Line Interface',
        url: 'https://vite.dev/guide/cli#vite-optimize',
        text: '### `vite optimize`\n\nPre-bundle dependencies for the dev server.\n\n**Deprecated**: the pre-bundle process runs automatically and does not need to be called.',
      },
      {
        ref: 2,
        title: 'Dependency Pre-Bundling',
        url: 'https://vite.dev/guide/dep-pre-bundling',
        text: '## Automatic Dependency Discovery\n\nThe dev server pre-bundles dependencies it discovers in your source code on its first start.',
      },
    ];
    const question = 'How does the dev server pre-bundle dependencies?';
    assert.ok((await answer(question, given, { maxSentences: 1 })).includes('discovers in your source code'));
    assert.ok((await answer('Is vite optimize deprecated? How does it pre-bundle dependencies for the dev server?', given, { maxSentences: 1 })).includes('Pre-bundle dependencies for the dev server'));
  });

  it('does not let question words decide: "how many" alone is no overlap', async () => {
    const given = passages('How many people visit, and how much they pay, is not known to anyone.', 'Mars has two small moons, Phobos and Deimos, discovered in 1877.');
    const text = await answer('How many moons does Mars have?', given, { maxSentences: 1 });
    assert.ok(text.startsWith('Mars has two small moons'), text);
  });

  it('answers "how many" with a sentence stating a number, not one whose only digits are in a path (regression: Lore\'s docs, `/api/v1/…`)', async () => {
    const given = passages('The batch upsert route `POST /api/v1/collections/{id}/entries/batch` takes entries as JSON.', 'One batch upsert takes at most 50 entries, all or nothing.');
    assert.match(await answer('How many entries can one batch upsert hold?', given, { maxSentences: 1 }), /^One batch upsert takes at most 50 entries/);
  });

  it('keeps to at most 3 sentences and about 600 characters by default, and to the configured limits', async () => {
    const handbook = [
      'The handbook explains how Lore answers questions from your own documentation.',
      'Lore answers questions by quoting the handbook sentences that match them best.',
      'Every answer cites the handbook pages it quotes, so readers can check the source.',
      'Questions in German or Thai are answered from handbook pages in the same language.',
      'The handbook is reindexed every night, and new pages can be answered from at once.',
      'Answers stay short: the handbook is quoted, never paraphrased.',
    ];
    const question = 'How does Lore answer questions from the handbook?';
    const quoted = (text: string) => handbook.filter((s) => text.includes(s.slice(0, -1))).length;
    const text = await answer(question, passages(handbook.slice(0, 3).join(' '), handbook.slice(3).join(' ')));
    assert.ok(quoted(text) >= 2 && quoted(text) <= 3, text);
    assert.ok(text.length <= 620, `${text.length} characters`);
    const short = await answer(question, passages(handbook.join(' ')), { maxSentences: 2, maxChars: 160 });
    assert.ok(quoted(short) <= 2 && short.length <= 170, short);
    assert.equal(quoted(await answer(question, passages(handbook.join(' ')), { maxSentences: 1 })), 1);
  });

  it('cuts a single sentence longer than the limit at a word boundary', async () => {
    const sentence = `The retention policy ${'keeps every conversation, message and citation for thirty days '.repeat(12)}before deleting them.`;
    const text = await answer('How long is the retention policy?', passages(sentence), { maxChars: 300 });
    assert.match(text, /^The retention policy keeps .* \w+… \[1\]$/u);
    assert.ok(text.length <= 306, `${text.length} characters`);
  });

  it('never quotes a sentence its paragraph repeats twice: the short best sentence reads on past the repeat (regression: Express ja)', async () => {
    const paragraph = 'Express 4 dropped the port from req.host. Express 5 keeps the port. Express 5 keeps the port. The host header is read as sent.';
    const text = await answer('Does Express 5 keep the port?', passages(paragraph));
    assert.equal(text.split('Express 5 keeps the port').length - 1, 1, text);
  });

  it('answers with the best sentence it has even without any overlap, and with nothing when there is no text', async () => {
    const text = await answer('Qu’est-ce que c’est ?', passages('Lore searches your documentation. It also writes short answers.'));
    assert.equal(citations(text).length, 1);
    const chunks = await chunksOf('What is Lore?', passages('', '   '));
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0]!.type, 'end');
    assert.equal(chunks[0]!.type === 'end' && chunks[0]!.usage.completionTokens, 0);
  });

  it('re-scores one answer at a time with the model: one that would wait is written from the words alone', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = { model: 'slow', dimensions: 2, embed: async (texts: readonly string[]) => (calls++, await gate, texts.map(() => Float32Array.from([1, 0]))) };
    const similarity = embeddingSimilarity(slow);
    const first = similarity('q', ['a', 'b']);
    assert.deepEqual(await similarity('q', ['c']), [], 'skipped while another runs');
    release();
    assert.deepEqual(await first, [1, 1]);
    assert.deepEqual(await similarity('q', ['d']), [1], 'free again');
    assert.equal(calls, 2);
  });

  it('re-scores its best English candidates by meaning when given a similarity, and leaves other languages to the words', async () => {
    const question = 'Which database should a big site use?';
    const given = passages('A database stores the entries. PostgreSQL with pgvector scales to millions of chunks.');
    const asked: string[][] = [];
    // A stand-in for the model: close in meaning only to the sentence about scaling.
    const similarity = async (q: string, texts: readonly string[]) => {
      asked.push([q, ...texts]);
      return texts.map((t) => (t.includes('scales') ? 1 : 0));
    };
    const lexical = await answer(question, given, { maxSentences: 1 });
    assert.match(lexical, /^A database stores/);
    const semantic = await answer(question, given, { maxSentences: 1, similarity });
    assert.match(semantic, /^PostgreSQL with pgvector scales/);
    assert.equal(asked[0]![0], question);
    assert.equal(asked[0]!.length, 3);

    asked.length = 0;
    await answer(XQUAD.de.question, passages(XQUAD.de.gold, XQUAD.de.other), { similarity });
    assert.equal(asked.length, 0);
  });

  it('hears every passage that matches about as well, even when one passage holds the best 8 candidates (Express: "How big can a cookie-session cookie be?")', async () => {
    const many = [
      'The session cookie is signed with the keys you give.',
      'A session cookie is sent back on every response that changes it.',
      'Each session cookie carries the name you choose.',
      'The session cookie expires when the browser closes, unless maxAge is set.',
      'A session cookie may be marked secure.',
      'The session cookie is read before your routes run.',
      'Setting req.session to null clears the session cookie.',
      'The session cookie is httpOnly by default.',
      'A signed session cookie is checked on every request.',
    ];
    const given: Passages = [
      { ref: 1, title: 'cookie-session', url: null, text: many.join(' ') },
      { ref: 2, title: 'Limits', url: null, text: 'Browsers keep a session cookie of at most 4093 bytes per domain.' },
    ];
    const asked: string[][] = [];
    const similarity = async (_: string, texts: readonly string[]) => {
      asked.push([...texts]);
      return texts.map((t) => (t.includes('4093') ? 1 : 0));
    };
    const question = 'How big can a session cookie be?';
    assert.deepEqual(citations(await answer(question, given, { maxSentences: 1 })), [1], 'by the words, the first passage');
    const text = await answer(question, given, { maxSentences: 1, similarity });
    assert.match(text, /at most 4093 bytes/);
    assert.deepEqual(citations(text), [2]);
    assert.equal(asked[0]!.length, 9, "the best 8 by the words, and the second passage's best");
  });

  it("reads a section's page title as a weaker heading of it (Vite: \"Why does Vite pre-bundle dependencies?\" of \"Dependency Pre-Bundling › The Why\")", async () => {
    const given: Passages = [
      { ref: 1, title: 'Server Options', url: null, text: 'The dev server listens on port 5173.' },
      { ref: 2, title: 'Caching', url: null, text: 'Vite caches pre-bundled dependencies in node_modules/.vite.' },
      { ref: 3, title: 'The Why', url: null, text: 'Vite pre-bundles dependencies shipped as CommonJS or UMD.' },
    ];
    const question = 'Why does Vite pre-bundle dependencies?';
    assert.deepEqual(citations(await answer(question, given, { maxSentences: 1 })), [2], 'a tie of words, decided by rank');
    const paged = [given[0]!, { ...given[1]!, pageTitle: 'Features' }, { ...given[2]!, pageTitle: 'Dependency Pre-Bundling' }];
    assert.deepEqual(citations(await answer(question, paged, { maxSentences: 1 })), [3]);
  });

  it('is deterministic', async () => {
    const given = passages(XQUAD.en.other, XQUAD.en.gold, XQUAD.de.gold);
    assert.equal(await answer(XQUAD.en.question, given), await answer(XQUAD.en.question, given));
  });
});

describe('extractive answer streaming', () => {
  it('streams several deltas, never splitting a citation, then one end with integer usage', async () => {
    const chunks = await chunksOf(XQUAD.en.question, passages(XQUAD.en.other, XQUAD.en.gold));
    const deltas = chunks.flatMap((c) => (c.type === 'text' ? [c.delta] : []));
    assert.ok(deltas.length >= 5, `${deltas.length} deltas`);
    for (const delta of deltas) assert.equal(/\[\d*$|^\d*\]/.test(delta), false, `delta ${JSON.stringify(delta)}`);
    const last = chunks.at(-1)!;
    assert.equal(chunks.filter((c) => c.type === 'end').length, 1);
    assert.equal(last.type, 'end');
    if (last.type !== 'end') return;
    assert.equal(last.reason, 'stop');
    assert.ok(Number.isInteger(last.usage.promptTokens) && last.usage.promptTokens > 50);
    assert.ok(Number.isInteger(last.usage.completionTokens) && last.usage.completionTokens > 10);
  });

  it('rejects with the abort reason before the first delta and between deltas', async () => {
    const provider = createExtractiveProvider();
    const request = { messages: [], question: XQUAD.en.question, passages: passages(XQUAD.en.other, XQUAD.en.gold) };
    const aborted = new AbortController();
    const reason = new Error('client went away');
    aborted.abort(reason);
    await assert.rejects(provider.stream(request, aborted.signal)[Symbol.asyncIterator]().next(), (error) => error === reason);

    const controller = new AbortController();
    const received: AnswerChunk[] = [];
    await assert.rejects(
      (async () => {
        for await (const chunk of provider.stream(request, controller.signal)) {
          received.push(chunk);
          controller.abort(reason);
        }
      })(),
      (error) => error === reason,
    );
    assert.equal(received.length, 1);
  });
});

describe('sentence splitting for extractive answers', () => {
  it('splits English, keeping abbreviations and initials inside their sentence', () => {
    assert.deepEqual(splitSentences('J. R. R. Tolkien wrote it. Dr. Smith moved to the U.S. Army in 1990. Did he? Yes!', 'en'), [
      'J. R. R. Tolkien wrote it.',
      'Dr. Smith moved to the U.S. Army in 1990.',
      'Did he?',
      'Yes!',
    ]);
  });

  it('keeps German ordinals and z. B. inside their sentence', () => {
    assert.deepEqual(splitSentences('Er wurde am 3. Oktober 1990 geboren, z. B. in Berlin. Das ist gut.', 'de'), [
      'Er wurde am 3. Oktober 1990 geboren, z. B. in Berlin.',
      'Das ist gut.',
    ]);
  });

  it('splits Chinese, Hindi and Arabic at their own sentence marks', () => {
    assert.deepEqual(splitSentences(XQUAD.zh.gold, 'zh').length, 3);
    assert.deepEqual(splitSentences('ब्रोंकोस ने 23–16 से हराया। फिर उन्होंने पैट्रिओट्स को हराया। वे नहीं हारे।', 'hi'), [
      'ब्रोंकोस ने 23–16 से हराया।',
      'फिर उन्होंने पैट्रिओट्स को हराया।',
      'वे नहीं हारे।',
    ]);
    assert.deepEqual(splitSentences('ما هي لور؟ لور خدمة بحث. إنها سريعة!', 'ar'), ['ما هي لور؟', 'لور خدمة بحث.', 'إنها سريعة!']);
  });

  it('splits Thai at double spaces, and a long run of single-spaced text at spaces between clauses', () => {
    assert.equal(splitSentences(XQUAD.th.gold, 'th').length, 3);
    const single = splitSentences(XQUAD.th.gold.replace(/\s+/g, ' '), 'th');
    assert.ok(single.length >= 2, JSON.stringify(single));
    assert.equal(single.join(' '), XQUAD.th.gold.replace(/\s+/g, ' ').trim());
    assert.ok(single.every((s) => s.length >= 40 && s.length <= 300), JSON.stringify(single));
  });

  it('never breaks inside inline code', () => {
    assert.deepEqual(splitSentences('Data lives in `./.lore` by default. Run `npm start`. Done.'), ['Data lives in `./.lore` by default.', 'Run `npm start`.', 'Done.']);
  });

  it('never breaks inside a Markdown link, a URL or a path, nor starts a sentence in one (regression: Vite and Fastify docs)', () => {
    assert.deepEqual(
      splitSentences('See [Node.js. Docs](https://nodejs.org/en/) for it. Visit https://vite.dev/guide/. It works. Read ./config.md#server-proxy. Then /guide/ too.'),
      ['See [Node.js. Docs](https://nodejs.org/en/) for it.', 'Visit https://vite.dev/guide/.', 'It works.', 'Read ./config.md#server-proxy.', 'Then /guide/ too.'],
    );
    assert.deepEqual(splitSentences('It is done. [Vite](https://vite.dev) is fast. See [the *e.g.* case](https://x.y/a.b?c=d). Done.'), [
      'It is done.',
      '[Vite](https://vite.dev) is fast.',
      'See [the *e.g.* case](https://x.y/a.b?c=d).',
      'Done.',
    ]);
  });

  it('keeps the closing emphasis of a bold lead-in with its sentence (regression: docs/SEARCH.md)', () => {
    assert.deepEqual(splitSentences('**Exact scores for the candidates.** The union is scored exactly. *Note.* Done.'), [
      '**Exact scores for the candidates.**',
      'The union is scored exactly.',
      '*Note.*',
      'Done.',
    ]);
  });
});

describe('extractive answers on Markdown documentation', () => {
  const ask = (question: string, ...texts: string[]) => answer(question, passages(...texts));

  it('lets an FAQ heading speak for its section only to a question of its kind: which engines it supports is no answer to how to set one (regression: Express in Spanish)', async () => {
    const guide = [
      '# Usar motores de plantillas con Express',
      '',
      'En tiempo de ejecución, el motor de plantillas reemplaza variables en un archivo de plantilla con valores reales.',
      '',
      "Por ejemplo, para usar el motor de plantillas Pug: `app.set('view engine', 'pug')`.",
    ].join('\n');
    const faq = ['## ¿Qué motores de plantillas soporta Express?', '', 'Express soporta cualquier motor de plantillas que cumpla con la firma `(ruta, locales, callback)`.'].join('\n');
    assert.match(await ask('¿Cómo configuro el motor de plantillas?', guide, faq), /view engine/);
    assert.match(await ask('¿Qué motores de plantillas soporta Express?', guide, faq), /^Express soporta cualquier motor/);
  });

  it('lets an FAQ heading speak for its section only when it names enough of the question: one shared word is another question (regression: Express in German)', async () => {
    const shutdown = [
      '## Angemessenes Herunterfahren',
      '',
      'Der Prozessmanager sendet zuerst ein SIGTERM-Signal an die Anwendung. Sobald die Anwendung dieses Signal erhält, sollte sie aufhören, neue Anfragen anzunehmen.',
    ].join('\n');
    const faq = ['## Wie kann ich meine Anwendung strukturieren?', '', 'Die Antwort hängt vom Umfang Ihrer Anwendung und dem beteiligten Team ab.'].join('\n');
    assert.match(await answer('Wie fahre ich die Anwendung sauber herunter?', passages(shutdown, faq), { maxSentences: 1 }), /SIGTERM/);
    assert.match(await answer('Wie kann ich meine Anwendung strukturieren?', passages(shutdown, faq), { maxSentences: 1 }), /^Die Antwort hängt/);
  });

  it('outside English, prefers the passage holding all of the question to a sentence sharing most of it: security headers are Helmet, not CORS (regression: Express in Spanish)', async () => {
    const cors = [
      '## Opciones de configuración',
      '',
      '- `origin`: Configura la cabecera CORS **Access-Control-Allow-Origin**.',
      '- `methods`: Configura la cabecera CORS **Access-Control-Allow-Methods**.',
    ].join('\n');
    const helmet = [
      '# Mejores prácticas de seguridad',
      '',
      '## Usar Helmet',
      '',
      'Helmet ayuda a proteger la aplicación estableciendo las cabeceras de respuesta HTTP adecuadas.',
      '',
      '```js',
      "app.use(helmet())",
      '```',
    ].join('\n');
    assert.match(await answer('¿Cómo configuro las cabeceras de seguridad?', passages(cors, helmet), { maxSentences: 1 }), /^Helmet ayuda/);
  });

  it('outside English, weighs the question\'s words by how telling they are in the collections, not only among the passages: a graceful shutdown is SIGTERM, not a sentence sharing the common words (regression: Express in Spanish)', async () => {
    const question = '¿Cómo apago la aplicación de forma controlada?';
    const timeout = ['## Responder', '', 'Controla de qué forma la aplicación responde a un error.'].join('\n');
    const shutdown = ['## Apagado controlado', '', 'Para apagar el servidor, el gestor de procesos envía primero una señal SIGTERM.'].join('\n');
    // Search's matches: "apago" is rare in the docs, "aplicación", "forma" and "controlada" common.
    const [apag, ...common] = analyze('apago aplicación forma controlada', 'es').terms;
    const terms = [{ term: apag!, idf: 6 }, ...common.map((term) => ({ term, idf: 0.7 }))];
    const ask = async (given?: AnswerRequest['terms']) => {
      let text = '';
      const request = { messages: [], question, passages: passages(timeout, shutdown), ...(given && { terms: given }) };
      for await (const c of createExtractiveProvider({ maxSentences: 1 }).stream(request, open())) if (c.type === 'text') text += c.delta;
      return text;
    };
    assert.match(await ask(terms), /SIGTERM \[2\]/);
    // Without the collections' idf, the passages alone cannot tell the common words from the telling one.
    assert.match(await ask(), /forma la aplicación responde/);
  });

  it('weighs a word of the question that the passages do not hold, so a page in another language holding one of its words does not hold it all (regression: Express in German)', async () => {
    const english = ['# Developing template engines', '', 'Use the `app.engine(ext, callback)` method to create your own template engine.'].join('\n');
    const german = ['# Template-Engines verwenden', '', "Um die Template-Engine festzulegen, setzen Sie `app.set('view engine', 'pug')`."].join('\n');
    assert.match(await answer('Wie lege ich die Template-Engine fest?', passages(english, german), { maxSentences: 1 }), /view engine/);
  });

  it('does not let a bigram joining a question word to a word decide: 如何安装 is answered by how to install it, not by a sentence that also says 如何安装 (regression: Express in Chinese)', async () => {
    const middleware = ['## 第三方中间件', '', '下面的示例演示了如何安装并加载 cookie 解析中间件 `cookie-parser`。', '', '```sh', 'npm install cookie-parser', '```'].join('\n');
    const installing = ['# 安装', '', '现在，在 `myapp` 目录中安装 Express，并将其保存到依赖列表中。', '', '```sh', 'npm install express', '```'].join('\n');
    assert.match(await answer('如何安装 Express？', passages(middleware, installing), { maxSentences: 1 }), /npm install express/);
  });

  it('reads the parts of a dotted identifier as names, not stop words: Spanish "del" of `app.del()` (regression: Express in Spanish)', async () => {
    const router = ['### app.router', '', 'El objeto `app.router`, que fue eliminado en Express 4, ha regresado en Express 5.'].join('\n');
    const del = ['### app.del()', '', 'Express 5 ya no soporta la función `app.del()`. Para registrar rutas HTTP DELETE, utilice la función `app.delete()` en su lugar.'].join('\n');
    assert.match(await answer('¿Qué reemplaza a app.del() en Express 5?', passages(router, del), { maxSentences: 2 }), /app\.delete\(\)/);
  });

  it('reads Japanese how-tos asked with どのように…できますか as how-tos, so such an FAQ heading speaks for its section to a how-to (regression: Express in Japanese)', async () => {
    const faq = ['## どのようにユーザーを認証できますか?', '', '任意の認証スキームを使用できます。'].join('\n');
    const other = ['# セッション', '', 'セッションミドルウェアはユーザーの状態を保存します。'].join('\n');
    assert.equal(await answer('ユーザーを認証するには？', passages(other, faq), { maxSentences: 1 }), '任意の認証スキームを使用できます[2]。');
  });

  it('reads `req.` and `res.` in English code as the request and the response: "How do I read a request header?" is answered by `req.get()` (regression: Express\'s `res.cookie()`)', async () => {
    const doc = ['# Headers', '', 'Header names are case-insensitive when you read them.', '', 'Use `req.get(field)` to read a header field.'].join('\n');
    assert.match(await answer('How do I read a request header?', passages(doc), { maxSentences: 1 }), /^Use `req\.get\(field\)` to read a header field \[1\]\.$/);
  });

  it('quotes third-party docs as text: containers as labels, relative links resolved against the page, no HTML, entities or MDX (regression: Vite and Express docs)', async () => {
    const vite = [
      '::: tip Compatibility Note',
      'Vite requires [Node.js](https://nodejs.org/en/) version 20.19+, 22.12+. However, some templates require a higher Node.js version to work.',
      ':::',
      '',
      'If an ESM dependency is excluded, add it to [`optimizeDeps.include`](/config/dep-optimization-options.md#optimizedeps-include) in your [config](./index.md).',
    ].join('\n');
    const versions = await answer('Which Node.js versions does Vite require?', [{ ref: 1, title: 'Getting Started', url: 'https://vite.dev/guide/#scaffolding', text: vite }]);
    assert.match(versions, /^Compatibility Note: Vite requires \[Node\.js\]\(https:\/\/nodejs\.org\/en\/\) version 20\.19\+, 22\.12\+/);
    assert.doesNotMatch(versions, /:::/);
    const include = await answer('When should I add a dependency to optimizeDeps.include?', [{ ref: 1, title: null, url: 'https://vite.dev/guide/dep-pre-bundling', text: vite }]);
    assert.match(include, /\[`optimizeDeps\.include`\]\(https:\/\/vite\.dev\/config\/dep-optimization-options#optimizedeps-include\) in your \[config\]\(https:\/\/vite\.dev\/guide\/\)/);
    const long = await answer('Which Node.js versions does Vite require?', [{ ref: 1, title: null, url: null, text: vite }], { maxChars: 60 });
    assert.match(long, /^Compatibility Note: Vite requires…|^Compatibility Note: Vite requires \[Node\.js\]\(https:\/\/nodejs\.org\/en\/\)/);
    assert.doesNotMatch(long, /\]\([^)]*$|\[[^\]]*…/);
    const unresolved = await ask('When should I add a dependency to optimizeDeps.include?', vite);
    assert.match(unresolved, /add it to `optimizeDeps\.include` in your config \[1\]\./);

    const express = [
      "import Alert from '@components/primitives/Alert/Alert.astro';",
      '',
      '<a id="security"></a>',
      'Finally, Express apps&mdash;like any other web apps&mdash;can be vulnerable to a variety of web-based attacks.',
      '',
      '<Alert type="warning">',
      '',
      "As `req.body`'s shape is based on user-controlled input, all properties and values in this object are untrusted.",
      '',
      '</Alert>',
    ].join('\n');
    const attacks = await ask('Can Express apps be vulnerable to attacks?', express);
    assert.equal(attacks, 'Finally, Express apps—like any other web apps—can be vulnerable to a variety of web-based attacks [1].');
    const body = await ask('Is req.body untrusted?', express);
    assert.match(body, /^Warning: As `req\.body`'s shape is based on user-controlled input/);
    for (const text of [attacks, body]) assert.doesNotMatch(text, /<|&\w+;|import /);
  });
  const config = [
    'Environment variables, validated at start:',
    '',
    '| Variable | Default | Meaning |',
    '|---|---|---|',
    '| `PORT`, `HOST` | `3000`, `127.0.0.1` | where to listen |',
    '| `LORE_DATA_DIR` | `./.lore` | PGlite database and the master-key hash |',
    '| `DATABASE_URL` | — | use a PostgreSQL server (with pgvector ≥ 0.8) instead of PGlite |',
  ].join('\n');

  it('quotes a table row as a statement: first cell, colon, meaning, other cells by header; no pipes, no empty cells (regression: the demo)', async () => {
    const text = await ask('How do I use PostgreSQL instead of PGlite?', config);
    assert.equal(text, '`DATABASE_URL`: use a PostgreSQL server (with pgvector ≥ 0.8) instead of PGlite [1].');
    const port = await ask('Which port does it listen on by default?', config);
    assert.match(port, /^`PORT`, `HOST`: where to listen \(default `3000`, `127\.0\.0\.1`\) \[1\]\.$/);
  });

  it('answers a how-to with the sentence that introduces a code block and the block, cited before the colon (regression: the demo)', async () => {
    const doc = [
      '## Pages API',
      '',
      'Pages are pushed from a server. Export the token, create an organisation, and use its API token:',
      '',
      '```sh',
      'curl -X POST http://127.0.0.1:3000/api/v1/api-keys -H "Authorization: Bearer $TOKEN" -d \'{"permissions": ["pages.write"]}\'',
      '```',
      '',
      'Keys are shown once.',
    ].join('\n');
    const text = await ask('how do I create an API key', 'Lore is a search service. It has an API.', doc);
    assert.match(text, /^Export the token, create an organisation, and use its API token \[2\]:\n\n```sh\ncurl -X POST .*api-keys .*\n```$/s);
    assert.ok(!text.includes('Pages API'), 'no heading quoted');
  });

  it('never quotes a heading, and drops the colon of a sentence whose block is too long to bring', async () => {
    const long = ['Install it with these commands:', '', '```sh', ...Array.from({ length: 40 }, (_, i) => `step-${i}`), '```'].join('\n');
    const text = await ask('How do I install the commands?', `# Install the commands\n\n${long}`);
    assert.equal(text, 'Install it with these commands [1].');
  });

  it('brings the whole numbered list for a how-to whose best match is one of its steps', async () => {
    const doc = 'To rotate a widget secret:\n\n1. Open the widget.\n2. Rotate the secret with `POST /api/v1/widgets/{id}/rotate-secret`.\n3. Update your server.';
    const text = await ask('How do I rotate the widget secret?', doc);
    assert.match(text, /^To rotate a widget secret \[1\]:\n\n1\. Open the widget\.\n2\. Rotate the secret .*\n3\. Update your server\.$/s);
    const steps = await ask('How do I rotate the widget secret?', '1. Open the widget.\n2. Rotate the widget secret.\n3. Update your server.');
    assert.equal(steps, '1. Open the widget.\n2. Rotate the widget secret.\n3. Update your server [1].');
  });

  it('does not quote the first sentence of a chunk cut in its middle, and reads the whole entry when given', async () => {
    const chunk = 'and XQuAD in twelve languages are measured by the bench. The answers bench reports gold strings.';
    const text = await ask('Which languages does the XQuAD bench measure?', chunk);
    assert.ok(!text.startsWith('and'), text);
    const source = `Quality on SciFact and XQuAD is measured. SciFact ${chunk}`;
    const whole = await answer('Which languages does the XQuAD bench measure?', [{ ref: 1, title: null, url: null, text: chunk, source }]);
    assert.ok(whole.startsWith('Quality on SciFact') || whole.startsWith('SciFact and XQuAD'), whole);
  });

  it('never ends inside inline code: skips a sentence whose code span the chunk cuts off, and cuts long sentences before a span (regression: the "postgres" summary)', async () => {
    const chunk = [
      'Repeated queries skip the model (`LORE_QUERY_CACHE`, the last 1,000 query embeddings a process saw).',
      'Measured on 2026-11-26 at 10k chunks on PostgreSQL with the cache off',
      '(`npm run bench:search -- --chunks 10000 --backends postgres --baseline off --seconds',
    ].join('\n');
    const text = await ask('How was the cache measured on PostgreSQL with 10000 chunks?', chunk);
    assert.equal(openCodeSpan(text), -1, text);
    assert.ok(!text.includes('--seconds'), text);
    const long = `Start the server with ${'plenty of words before the command '.repeat(3)}\`lore serve --port 3000 --host 127.0.0.1 --data-dir ./.lore --master-key secret\` and then open it.`;
    const cut = await answer('How do I start the server?', passages(long), { maxChars: 150 });
    assert.match(cut, /^Start the server with .*command… \[1\]$/, cut);
    const kept = `Run \`lore serve --port 3000 --host 127.0.0.1 --data-dir ./.lore\` ${'and then the words that follow it '.repeat(4)}to the end.`;
    assert.match(await answer('How do I run lore serve?', passages(kept), { maxChars: 60 }), /^Run `lore serve [^`]*`… \[1\]$/);
  });

  it('answers "What is X?" with X’s definition and its paragraph, not with other passages that name X', async () => {
    const text = await ask('What is Lore?', 'Lore retries HTTP providers twice. Lore downloads nothing.', 'Lore is a self-hostable search service. It answers from your docs.');
    assert.equal(text, 'Lore is a self-hostable search service. It answers from your docs [2].');
  });

  it('answers "What are the steps …?" and "Which X does it have?" with the list: whole when short, else an outline of its items (regression: the docs set)', async () => {
    const short = 'Answers are made in steps:\n\n1. Retrieve the passages.\n2. Generate the text.\n3. Cite the passages.';
    const text = await ask('What are the steps of answering a question?', short, 'Lore answers from documents.');
    assert.equal(text, 'Answers are made in steps [1]:\n\n1. Retrieve the passages.\n2. Generate the text.\n3. Cite the passages.');
    const filler = 'with many details that no outline needs to repeat, and more of them, and then some more words to make the item long, longer than a list an answer may bring whole';
    const long = [
      '- `npm run bench:quality` — nDCG@10 on SciFact (12 languages, plus English questions); the threshold ' + filler + '.',
      '- `npm run bench:search` — search at scale; one table of p50/p95 ' + filler + '. Another sentence.',
      '- `npm run bench:answers` — answers on two sets. Docs: questions about the benchmarks Lore has, ' + filler + '.',
      '- `npm run bench:soak` — mixed traffic for 5 minutes ' + filler + '.',
    ].join('\n');
    const outline = await ask('Which benchmarks does Lore have?', long);
    assert.equal(
      outline,
      [
        '- `npm run bench:quality` — nDCG@10 on SciFact (12 languages, plus English questions); the threshold with many details that no outline needs to repeat…',
        '- `npm run bench:search` — search at scale; one table of p50/p95 with many details that no outline needs to repeat, and more of them…',
        '- `npm run bench:answers` — answers on two sets.',
        '- `npm run bench:soak` — mixed traffic for 5 minutes with many details that no outline needs to repeat, and more of them… [1]',
      ].join('\n'),
    );
  });

  it('reads "How do X work?" as a question about X, not as a how-to: steps get no how-to bonus, and the sentences around the match count', async () => {
    const steps = '1. Candidates are found.\n2. Their `final_score` is the similarity after boosts.\n3. They are sorted.';
    const doc = 'Boosts weigh the similarity by a fit. A boost never raises a score above the similarity. Sorts replace relevance order.';
    const text = await ask('How do boosts change the score?', steps, doc);
    assert.ok(text.startsWith('Boosts weigh the similarity by a fit. A boost never raises a score'), text);
  });

  it('answers from an item that introduces nested items with the item and its items, once each, nothing from other passages, and escapes brackets that would read as citations', async () => {
    const doc = [
      '1. Candidates are found by both signals.',
      '2. Calibration into `similarity` ∈ [0, 1]:',
      '   - vector: the cosine mapped from a range to [0, 1];',
      '   - lexical: BM25 divided by the score of a chunk of average length;',
      '   - hybrid: a weighted sum of the two.',
      '3. Boosts are applied.',
    ].join('\n');
    const text = await ask('How is the lexical score calibrated?', doc, 'The lexical score of a chunk is exact. The lexical stage is fast.');
    assert.equal(text, 'Calibration into `similarity` ∈ \\[0, 1] [1]:\n\n- Vector: the cosine mapped from a range to \\[0, 1];\n- Lexical: BM25 divided by the score of a chunk of average length;\n- Hybrid: a weighted sum of the two.');
  });

  it('keeps code as written: citation-like brackets in code and inline code stay', async () => {
    const doc = 'Read the first row with this snippet:\n\n```js\nconst first = rows[1]; // [2]\n```';
    const text = await ask('How do I read the first row?', doc);
    assert.ok(text.includes('const first = rows[1]; // [2]'), text);
  });

  it('leads what it quotes from a reference section with the name and its type and default, and finds an identifier by its words', async () => {
    const port = '## server.port\n\n- **Type:** `number`\n- **Default:** `5173`\n- **Related:** [server.host](./server-options#server-host)\n\nSpecify server port.';
    const strict = '## server.strictPort\n\n- **Type:** `boolean`\n\nSet to `true` to exit if port is already in use, instead of automatically trying the next available port.';
    const other = '## Proxy\n\nRequests can be proxied to another origin.';
    assert.equal(await ask('What is the default server port?', port, other), '`server.port` (type: `number`; default: `5173`): Specify server port [1].');
    const text = await ask('Which option makes the strict port check?', other, strict);
    assert.ok(text.startsWith('`server.strictPort` (type: `boolean`): Set to `true` to exit'), text);
    // A union type is left out of the lead (its pipes would read as a table); the heading of a guide section leads nothing.
    const union = await ask('What is the limit?', '## build.limit\n\n- **Type:** `number` | `string`\n- **Default:** `4096`\n\nThe limit in bytes.');
    assert.equal(union, '`build.limit` (default: `4096`): The limit in bytes [1].');
    assert.equal(await ask('Can requests be proxied?', other), 'Requests can be proxied to another origin [1].');
  });

  it('reads a paragraph of fields under a heading as that option\'s lead, and leads each reference section an answer quotes (regression: Express\'s middleware docs)', async () => {
    const api = [
      '### compression([options])',
      '',
      '##### filter',
      '',
      'A function to decide if the response should be considered for compression.',
      '',
      '##### threshold',
      '',
      'Type: `Number` or `String`<br />',
      'Default: `1kb`',
      '',
      'The byte threshold for the response body size before compression is considered for the response.',
    ].join('\n');
    const text = await ask('Below what size is the response body not considered for compression?', api);
    assert.ok(text.includes('`threshold` (type: `Number` or `String`; default: `1kb`): The byte threshold for the response body size'), text);
    assert.ok(!/Type: `Number`/.test(text), text);
  });

  it('never quotes an example the docs mark as one not to follow, and answers a how-to with the one they recommend', async () => {
    const doc = [
      '## Decorators',
      '',
      'You can add a user property to every request by assigning it in a hook, but that is an anti-pattern:',
      '',
      '```js',
      '// Bad example! Do not do this',
      "app.addHook('onRequest', (req) => { req.user = load(req) })",
      '```',
      '',
      'Add the user property with `decorateRequest`, then set it in the hook:',
      '',
      '```js',
      "app.decorateRequest('user', null)",
      "app.addHook('onRequest', async (req) => { req.user = await load(req) })",
      '```',
    ].join('\n');
    const text = await ask('How do I add a user property to every request?', doc);
    assert.ok(text.includes("app.decorateRequest('user', null)"), text);
    assert.ok(!text.includes('Bad example') && !text.includes('anti-pattern'), text);
  });

  it('answers "What replaces X?" with the sentence saying what to use instead, not one saying what was once used instead (regression: Express docs)', async () => {
    const section = (sentence: string) =>
      [
        '### app.del()',
        '',
        `Express 5 no longer supports the \`app.del()\` function. If you use this function, an error is thrown. ${sentence}`,
        '',
        'Initially, `del` was used instead of `delete`, because `delete` is a reserved keyword in JavaScript.',
      ].join('\n');
    const other = '### res.sendfile()\n\nThe `res.sendfile()` function has been replaced by a camel-cased version `res.sendFile()` in Express 5.';
    const en = await ask('What replaces app.del() in Express 5?', section('For registering HTTP DELETE routes, use the `app.delete()` function instead.'), other);
    assert.ok(en.includes('`app.delete()` function instead [1]'), en);
    const es = await ask('¿Qué reemplaza a app.del() en Express 5?', section('Para registrar rutas HTTP DELETE, utilice la función `app.delete()` en su lugar.'), other);
    assert.ok(es.includes('`app.delete()` en su lugar [1]'), es);
  });

  it('brings the outline of a list too long to bring whole after the sentence introducing it (regression: Vite docs)', async () => {
    const doc = [
      '## The Why',
      '',
      'This is Vite performing what we call "dependency pre-bundling". This process serves two purposes:',
      '',
      `1. **CommonJS and UMD compatibility:** During development, Vite serves all code as native ESM. ${'Therefore, Vite must convert dependencies that are shipped as CommonJS or UMD into ESM first. '.repeat(6)}`,
      '',
      `2. **Performance:** Vite converts ESM dependencies with many internal modules into a single module. ${'Some packages ship their ES modules builds as many separate files importing one another. '.repeat(6)}`,
    ].join('\n');
    const text = await ask('Why does Vite pre-bundle dependencies with this process?', doc);
    assert.match(text, /This process serves two purposes \[1\]:\n\n1\. \*\*CommonJS and UMD compatibility:\*\* During development, Vite serves all code as native ESM\.\n2\. \*\*Performance:\*\* Vite converts ESM dependencies with many internal modules into a single module\.$/, text);
  });
});

