import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Chunk, type ChunkOptions, chunkText, estimateTokens } from './chunk.js';

// --- helpers ---------------------------------------------------------------------------------

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FENCE_LINE = /^\s*(`{3,}|~{3,})/;

/** The longest suffix of `a` that is also a prefix of `b` (the overlap between consecutive chunks). */
function sharedEdge(a: string, b: string): string {
  for (let n = Math.min(a.length, b.length); n > 0; n--) if (a.endsWith(b.slice(0, n))) return b.slice(0, n);
  return '';
}

/**
 * Structural invariants plus coverage: ignoring whitespace, the chunks are consecutive windows
 * of the input (each may start before the previous one ended, i.e. overlap, but must add new
 * content), and together they cover all of it. Fence lines added around parts of a split code
 * block are allowed.
 */
function assertChunks(input: string, chunks: Chunk[], options: ChunkOptions = {}): void {
  const max = options.maxTokens ?? 200;
  const count = options.countTokens ?? estimateTokens;
  const source = input.replace(/\s+/g, '');
  if (source === '') {
    assert.deepEqual(chunks, []);
    return;
  }
  assert.ok(chunks.length > 0, 'non-empty input gives chunks');
  // Positions in `source` where the chunks so far may end (several when the input repeats itself).
  let ends = new Set([0]);
  chunks.forEach((chunk, i) => {
    assert.equal(chunk.index, i);
    assert.ok(chunk.text.trim() !== '', `chunk ${i} is empty`);
    assert.equal(chunk.text, chunk.text.trim(), `chunk ${i} is not trimmed`);
    assert.ok(!chunk.text.includes('\r'), `chunk ${i} has a carriage return`);
    assert.ok(Array.isArray(chunk.headings) && chunk.headings.every((h) => typeof h === 'string'));
    assert.equal(chunk.tokens, count(chunk.text), `chunk ${i}: tokens is the count of its text`);
    assert.ok(chunk.tokens <= max, `chunk ${i} has ${chunk.tokens} tokens > ${max}`);

    const lines = chunk.text.split('\n');
    const variants = [chunk.text];
    const firstIsFence = FENCE_LINE.test(lines[0]!);
    const lastIsFence = lines.length > 1 && FENCE_LINE.test(lines[lines.length - 1]!);
    if (firstIsFence) variants.push(lines.slice(1).join('\n'));
    if (lastIsFence) variants.push(lines.slice(0, -1).join('\n'));
    if (firstIsFence && lastIsFence) variants.push(lines.slice(1, -1).join('\n'));
    const next = new Set<number>();
    for (const variant of variants) {
      const flat = variant.replace(/\s+/g, '');
      if (flat === '') continue;
      for (const end of ends) {
        // Starts where the previous chunk ended, or earlier (overlap), and adds something new.
        for (let at = source.indexOf(flat, Math.max(0, end - flat.length + 1)); at !== -1 && at <= end; at = source.indexOf(flat, at + 1)) {
          next.add(at + flat.length);
        }
      }
    }
    assert.ok(next.size > 0, `chunk ${i} does not continue the input at ${[...ends].join('|')}: ${JSON.stringify(chunk.text.slice(0, 120))}`);
    ends = new Set([...next].sort((a, b) => b - a).slice(0, 64));
  });
  assert.ok(ends.has(source.length), 'chunks cover the whole input');
}

// --- generators ------------------------------------------------------------------------------

const WORDS =
  'the of and to in is that for with search index entry chunk embedding vector query ranking lore install configure server request response customer product help article documentation authentication token organisation collection metadata pipeline throughput latency a an it on by as be are this from antidisestablishmentarianism internationalization microservices kubernetes PostgreSQL API HTTP JSON'.split(
    ' ',
  );

function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)]!;
}

function int(r: () => number, lo: number, hi: number): number {
  return lo + Math.floor(r() * (hi - lo + 1));
}

function sentence(r: () => number, words = int(r, 3, 25)): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(pick(r, WORDS));
  const s = out.join(' ') + pick(r, ['.', '.', '.', '!', '?', ';', ':', ',', ' (see docs).']);
  return s[0]!.toUpperCase() + s.slice(1);
}

function paragraph(r: () => number, sentences = int(r, 1, 10)): string {
  return Array.from({ length: sentences }, () => sentence(r)).join(' ');
}

function han(r: () => number, length: number, punctuate: boolean): string {
  let s = '';
  for (let i = 0; i < length; i++) {
    s += String.fromCharCode(0x4e00 + int(r, 0, 0x4ff));
    if (punctuate && r() < 0.05) s += pick(r, ['。', '！', '？', '，']);
  }
  return s;
}

function thai(r: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(int(r, 0x0e01, 0x0e2e)) + (r() < 0.3 ? String.fromCharCode(pick(r, [0x0e31, 0x0e34, 0x0e35, 0x0e48, 0x0e49])) : '');
  return s;
}

function letters(r: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(97 + int(r, 0, 25));
  return s;
}

function codeBlock(r: () => number, lines: number, closed = true): string {
  const fence = pick(r, ['```', '```ts', '~~~', '````python']);
  const body: string[] = [];
  for (let i = 0; i < lines; i++) {
    body.push(r() < 0.15 ? '' : ' '.repeat(int(r, 0, 8)) + pick(r, ['const x = call(a, b);', 'if (x > 0) {', '}', 'return items.map((i) => i * 2);', '# comment with words', `let s = "${letters(r, int(r, 1, 40))}";`]));
  }
  const close = fence.startsWith('`') ? fence.replace(/[a-z]+$/, '') : '~~~';
  return [fence, ...body, ...(closed ? [close] : [])].join('\n');
}

function randomDocument(r: () => number): string {
  const blocks: string[] = [];
  const n = int(r, 0, 14);
  for (let i = 0; i < n; i++) {
    const kind = r();
    if (kind < 0.25) blocks.push(paragraph(r));
    else if (kind < 0.33) blocks.push(paragraph(r, int(r, 15, 40)));
    else if (kind < 0.43) blocks.push(`${'#'.repeat(int(r, 1, 6))} ${sentence(r, int(r, 1, 6)).replace(/[.!?;:,]$/, '')}`);
    else if (kind < 0.47) blocks.push(`${sentence(r, int(r, 1, 5))}\n${pick(r, ['====', '----', '==', '--'])}`);
    else if (kind < 0.55) blocks.push(Array.from({ length: int(r, 1, 8) }, (_, j) => `${pick(r, ['-', '*', '+', `${j + 1}.`])} ${sentence(r)}${r() < 0.3 ? `\n  ${sentence(r)}` : ''}`).join('\n'));
    else if (kind < 0.63) blocks.push(codeBlock(r, int(r, 1, 60)));
    else if (kind < 0.7) blocks.push(han(r, int(r, 5, 1500), r() < 0.7));
    else if (kind < 0.75) blocks.push(thai(r, int(r, 5, 1500)));
    else if (kind < 0.79) blocks.push(letters(r, int(r, 30, 3000)));
    else if (kind < 0.83) blocks.push('Привет мир, это тестовый абзац на русском языке. '.repeat(int(r, 1, 30)));
    else if (kind < 0.86) blocks.push('한국어 텍스트입니다. 서울은 대한민국의 수도입니다. '.repeat(int(r, 1, 20)));
    else if (kind < 0.89) blocks.push('Emoji 😀🎉 and symbols → © ™ ½ '.repeat(int(r, 1, 20)));
    else if (kind < 0.92) blocks.push(' \t ');
    else if (kind < 0.95) blocks.push(`https://example.com/${letters(r, int(r, 10, 400))}?q=${letters(r, 20)}&x=1`);
    else blocks.push(`${paragraph(r, 2)}   `);
  }
  if (r() < 0.1) blocks.push(codeBlock(r, int(r, 1, 80), false)); // unclosed fence at the end
  let doc = '';
  blocks.forEach((b, i) => {
    doc += (i === 0 ? pick(r, ['', '\n', '\n\n\n']) : pick(r, ['\n', '\n\n', '\n\n', '\n\n\n\n\n', '\n \n\t\n'])) + b;
  });
  doc += pick(r, ['', '\n', '\n\n\n  ']);
  return r() < 0.3 ? doc.replace(/\n/g, '\r\n') : doc;
}

// --- tests -----------------------------------------------------------------------------------

describe('chunkText', () => {
  it('returns no chunks for empty or whitespace-only text', () => {
    assert.deepEqual(chunkText(''), []);
    assert.deepEqual(chunkText('   \n\t\r\n  \n'), []);
  });

  it('keeps short text as one trimmed chunk', () => {
    const chunks = chunkText('  Lore is a knowledge search service.\nIt runs anywhere.  \n');
    assert.deepEqual(chunks, [
      {
        index: 0,
        text: 'Lore is a knowledge search service.\nIt runs anywhere.',
        headings: [],
        tokens: estimateTokens('Lore is a knowledge search service.\nIt runs anywhere.'),
      },
    ]);
  });

  it('records a heading in the trail as its reader sees it: a component in it is no word of it', () => {
    const chunks = chunkText(['# Options', 'Intro.', '## `optimizeDeps.include` <NonInheritBadge />', 'Forces pre-bundling.', 'Setext <Badge text="beta" />', '---', 'Beta text.'].join('\n\n').replace('\n\n---', '\n---'));
    assert.deepEqual(chunks.map((c) => c.headings), [['Options'], ['Options', '`optimizeDeps.include`'], ['Options', 'Setext']]);
    assert.ok(chunks[1]!.text.startsWith('## `optimizeDeps.include` <NonInheritBadge />'), 'the text is as written');
  });

  it('starts a chunk at each heading and records the heading trail', () => {
    const doc = [
      '# Install',
      'Intro text.',
      '## On Linux',
      'Linux text.',
      '### Debian',
      'Debian text.',
      '## On Mac',
      'Mac text.',
      '# Usage',
      'Usage text.',
    ].join('\n\n');
    const chunks = chunkText(doc);
    assert.deepEqual(
      chunks.map((c) => c.headings),
      [['Install'], ['Install', 'On Linux'], ['Install', 'On Linux', 'Debian'], ['Install', 'On Mac'], ['Usage']],
    );
    assert.deepEqual(
      chunks.map((c) => c.text),
      ['# Install\n\nIntro text.', '## On Linux\n\nLinux text.', '### Debian\n\nDebian text.', '## On Mac\n\nMac text.', '# Usage\n\nUsage text.'],
    );
    assertChunks(doc, chunks);
  });

  it('understands setext headings, closing hashes and text before the first heading', () => {
    const doc = 'Preamble.\n\nGuide\n=====\n\nBody text.\n\nDetails\n-------\nMore text.\n\n## Notes ##\n\nLast.';
    const chunks = chunkText(doc);
    assert.deepEqual(
      chunks.map((c) => [c.headings, c.text]),
      [
        [[], 'Preamble.'],
        [['Guide'], 'Guide\n=====\n\nBody text.'],
        [['Guide', 'Details'], 'Details\n-------\nMore text.'],
        [['Guide', 'Notes'], '## Notes ##\n\nLast.'],
      ],
    );
  });

  it('keeps consecutive headings together with the content that follows', () => {
    const chunks = chunkText('# Install\n\n## On Linux\n\nRun the installer.');
    assert.equal(chunks.length, 1);
    assert.deepEqual(chunks[0]!.headings, ['Install', 'On Linux']);
    assert.equal(chunks[0]!.text, '# Install\n\n## On Linux\n\nRun the installer.');
  });

  it('does not treat hashtags, hash-only lines or indented hashes inside fences as headings', () => {
    const doc = '#hashtag is not a heading\n\n#\n\n```\n# comment in code\n```';
    const chunks = chunkText(doc);
    assert.equal(chunks.length, 1);
    assert.deepEqual(chunks[0]!.headings, []);
  });

  it('packs whole paragraphs greedily', () => {
    const r = rng(1);
    const paragraphs = Array.from({ length: 12 }, () => paragraph(r, 2));
    const doc = paragraphs.join('\n\n');
    const options = { maxTokens: 120, overlapTokens: 0 };
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    assert.ok(chunks.length > 1 && chunks.length < paragraphs.length, `${chunks.length} chunks`);
    // Every chunk is a run of whole paragraphs, and the next paragraph would not have fitted.
    let next = 0;
    for (const chunk of chunks) {
      const parts = chunk.text.split('\n\n');
      assert.deepEqual(parts, paragraphs.slice(next, next + parts.length));
      next += parts.length;
      if (next < paragraphs.length) assert.ok(estimateTokens(`${chunk.text}\n\n${paragraphs[next]}`) > 120);
    }
    assert.equal(next, paragraphs.length);
  });

  it('splits a long paragraph at sentence boundaries with overlap', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i + 1} talks about search quality and ranking.`);
    const doc = sentences.join(' ');
    const options = { maxTokens: 60, overlapTokens: 15 };
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    assert.ok(chunks.length > 5);
    for (const chunk of chunks) {
      assert.match(chunk.text, /^Sentence number \d+ .*ranking\.$/s, 'chunks hold whole sentences');
    }
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1]!.text.split(/(?<=\.) /);
      const current = chunks[i]!.text.split(/(?<=\.) /);
      assert.equal(current[0], previous[previous.length - 1], `chunk ${i} starts with the previous chunk's last sentence`);
      assert.ok(estimateTokens(current[0]!) <= 15);
    }
  });

  it('never repeats more than half a chunk', () => {
    const doc = Array.from({ length: 60 }, (_, i) => `Short sentence ${i}.`).join(' ');
    const options = { maxTokens: 50, overlapTokens: 1000 };
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    for (let i = 1; i < chunks.length; i++) {
      const overlap = sharedEdge(chunks[i - 1]!.text, chunks[i]!.text);
      assert.ok(overlap !== '', 'consecutive chunks of a section overlap');
      assert.ok(estimateTokens(overlap) <= 25, `overlap of ${estimateTokens(overlap)} tokens`);
    }
  });

  it('carries overlap into the next chunk when a whole paragraph moves there', () => {
    const first = 'Alpha one is first. Alpha two is second. Alpha three closes the paragraph.';
    const second = Array.from({ length: 3 }, (_, i) => `Beta ${i} continues the same section.`).join(' ');
    const doc = `${first}\n\n${second}`;
    const options = { maxTokens: estimateTokens(second) + 12, overlapTokens: 10 };
    assert.ok(estimateTokens(doc) > options.maxTokens, 'the paragraphs do not fit together');
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    assert.deepEqual(
      chunks.map((c) => c.text),
      [first, `Alpha three closes the paragraph.\n\n${second}`],
    );
  });

  it('uses no overlap across a heading boundary', () => {
    const body = Array.from({ length: 30 }, (_, i) => `Section A sentence ${i} explains things.`).join(' ');
    const doc = `# A\n\n${body}\n\n# B\n\nSection B text.`;
    const options = { maxTokens: 50, overlapTokens: 20 };
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    const b = chunks.filter((c) => c.headings[0] === 'B');
    assert.deepEqual(
      b.map((c) => c.text),
      ['# B\n\nSection B text.'],
    );
    assert.ok(chunks.filter((c) => c.headings[0] === 'A').length > 2);
    // Inside section A, chunks do overlap.
    assert.ok(sharedEdge(chunks[0]!.text, chunks[1]!.text) !== '');
  });

  it('keeps a fenced code block whole when it fits', () => {
    const intro = 'Install the command line tool and run the server with the following commands, then open the dashboard in a browser to check that everything works as expected.';
    const code = '```bash\nnpm install -g lore\n\n\n    lore serve --port 8080   \n\tlore status\n```';
    const doc = `${intro}\n\n${code}\n\nDone.`;
    const options = { maxTokens: 50, overlapTokens: 0 };
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    assert.ok(chunks.length >= 2);
    assert.ok(chunks.some((c) => c.text.includes(code)), 'code block kept verbatim in one chunk');
    assert.ok(!chunks.some((c) => c.text.includes('```') && !c.text.includes(code)), 'code block not split');
  });

  it('splits an oversized code block by lines and re-fences each part', () => {
    const lines = Array.from({ length: 80 }, (_, i) => `  const value${i} = compute(${i}, "item ${i}");`);
    const doc = `Intro.\n\n\`\`\`ts\n${lines.join('\n')}\n\`\`\`\n\nOutro.`;
    const options = { maxTokens: 80 };
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    const parts = chunks.filter((c) => c.text.includes('const value'));
    assert.ok(parts.length > 3);
    const seen: string[] = [];
    for (const part of parts) {
      const partLines = part.text.split('\n');
      const open = partLines.indexOf('```ts');
      const close = partLines.indexOf('```');
      assert.ok(open >= 0 && close > open, 'each part opens and closes the fence');
      seen.push(...partLines.slice(open + 1, close));
    }
    assert.deepEqual(seen, lines, 'lines are kept verbatim (indentation included), in order, once each');
  });

  it('splits long Chinese text within the bound, with and without punctuation', () => {
    const r = rng(7);
    for (const punctuate of [true, false]) {
      const doc = han(r, 3000, punctuate);
      const options = { maxTokens: 100, overlapTokens: 20 };
      const chunks = chunkText(doc, options);
      assertChunks(doc, chunks, options);
      assert.ok(chunks.length >= 30, `${chunks.length} chunks`);
    }
    const sentences = Array.from({ length: 60 }, (_, i) => `这是第${i}个句子，用来测试中文分句。`).join('');
    const chunks = chunkText(sentences, { maxTokens: 50, overlapTokens: 10 });
    assertChunks(sentences, chunks, { maxTokens: 50 });
    for (const chunk of chunks) assert.ok(chunk.text.endsWith('。'), 'splits at sentence ends (。)');
  });

  it('splits long Thai text (no spaces) within the bound', () => {
    const r = rng(11);
    const doc = thai(r, 5000);
    const options = { maxTokens: 64, overlapTokens: 16 };
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    assert.ok(chunks.length > 10);
    const real = 'ทีมรับของแพนเธอร์สถอดใจที่คะแนน 308 ได้อันดับที่หกของลีก ในขณะที่เป็นผู้นำในเอ็นเอฟแอลด้วยการอินเตอร์เซป 24 ครั้ง '.repeat(30);
    assertChunks(real, chunkText(real, options), options);
  });

  it('cuts a word longer than a chunk by characters', () => {
    const r = rng(3);
    const word = letters(r, 6000);
    const doc = `Before the blob. ${word} After the blob.`;
    const options = { maxTokens: 50, overlapTokens: 10 };
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    assert.ok(chunks.length > 10);
    const emoji = '😀'.repeat(500);
    const emojiChunks = chunkText(emoji, options);
    assertChunks(emoji, emojiChunks, options);
    assert.ok(emojiChunks.every((c) => !/[\ud800-\udbff]$/.test(c.text)), 'no split surrogate pairs');
  });

  it('emits a character that alone exceeds a tiny bound as its own chunk', () => {
    const chunks = chunkText('한국어 텍스트', { maxTokens: 2 });
    assert.deepEqual(
      chunks.map((c) => c.text),
      ['한', '국', '어', '텍', '스', '트'],
    );
    for (const chunk of chunks) assert.equal(chunk.tokens, estimateTokens(chunk.text));
  });

  it('treats CRLF like LF', () => {
    const r = rng(5);
    const lf = `# Title\n\n${paragraph(r, 20)}\n\n- one\n- two\n\n\`\`\`\ncode\n\n  more\n\`\`\`\n\nEnd.`;
    const crlf = lf.replace(/\n/g, '\r\n');
    const options = { maxTokens: 80 };
    assert.deepEqual(chunkText(crlf, options), chunkText(lf, options));
    assertChunks(crlf, chunkText(crlf, options), options);
  });

  it('collapses runs of blank lines', () => {
    const chunks = chunkText('First paragraph.\n\n\n\n\n   \n\t\nSecond paragraph.\n\n\n\n- item\n\n\n\n\nLast.');
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0]!.text, 'First paragraph.\n\nSecond paragraph.\n\n- item\n\nLast.');
  });

  it('honours a custom token counter', () => {
    const words = (t: string) => t.split(/\s+/).filter(Boolean).length;
    const doc = Array.from({ length: 50 }, (_, i) => `Sentence ${i} has exactly six words.`).join(' ');
    const options = { maxTokens: 20, overlapTokens: 6, countTokens: words };
    const chunks = chunkText(doc, options);
    assertChunks(doc, chunks, options);
    for (const chunk of chunks) assert.equal(chunk.tokens, words(chunk.text));
  });

  it('rejects invalid options', () => {
    assert.throws(() => chunkText('x', { maxTokens: 0 }), RangeError);
    assert.throws(() => chunkText('x', { maxTokens: Number.NaN }), RangeError);
    assert.throws(() => chunkText('x', { overlapTokens: -1 }), RangeError);
  });

  it('is deterministic', () => {
    const r = rng(99);
    const doc = randomDocument(r) + randomDocument(r);
    assert.deepEqual(chunkText(doc, { maxTokens: 70 }), chunkText(doc, { maxTokens: 70 }));
  });

  it('fuzz: bound, coverage and no empty chunks on random documents', () => {
    const r = rng(20240601);
    for (let i = 0; i < 250; i++) {
      const doc = randomDocument(r);
      const options = { maxTokens: int(r, 8, 300), overlapTokens: int(r, 0, 80) };
      let chunks: Chunk[];
      try {
        chunks = chunkText(doc, options);
        assertChunks(doc, chunks, options);
        if (!/```|~~~/.test(doc)) {
          for (const chunk of chunks) assert.ok(!/\n\s*\n\s*\n/.test(chunk.text), 'no runs of blank lines outside code');
        }
      } catch (error) {
        throw new Error(`case ${i} (${JSON.stringify(options)}) failed: ${(error as Error).message}\n${JSON.stringify(doc).slice(0, 2000)}`);
      }
    }
  });

  it('fuzz: custom counters, including ones that are not additive', () => {
    const r = rng(77);
    const counters: ((t: string) => number)[] = [
      (t) => t.length,
      (t) => Math.ceil(t.length / 4) + 2, // like a tokenizer adding [CLS]/[SEP]
      (t) => t.split(/\s+/).filter(Boolean).length,
      (t) => (t.length > 40 ? Math.ceil(t.length / 3) : Math.ceil(t.length / 6)), // whole costs more than its parts
    ];
    for (let i = 0; i < 120; i++) {
      const doc = randomDocument(r);
      const options = { maxTokens: int(r, 12, 250), overlapTokens: int(r, 0, 60), countTokens: counters[i % counters.length]! };
      try {
        assertChunks(doc, chunkText(doc, options), options);
      } catch (error) {
        throw new Error(`case ${i} (${JSON.stringify({ ...options, countTokens: i % counters.length })}) failed: ${(error as Error).message}`);
      }
    }
  });
});

describe('estimateTokens', () => {
  it('counts nothing for empty or whitespace text', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens(' \n\t '), 0);
  });

  it('counts punctuation and CJK ideographs one token each', () => {
    assert.equal(estimateTokens('!?.,;'), 5);
    assert.equal(estimateTokens('中文测试'), 4);
    assert.equal(estimateTokens('中文，测试。'), 6);
  });

  it('costs long and rare words more than short common ones', () => {
    assert.ok(estimateTokens('antidisestablishmentarianism') > estimateTokens('the'));
    assert.ok(estimateTokens('x'.repeat(400)) >= 100);
  });

  // Real counts from the all-MiniLM-L6-v2 tokenizer (without [CLS]/[SEP]).
  const fixtures: [string, number][] = [
    ['The cat sat on the mat.', 7],
    [
      'Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development and result in functional disabilities.',
      25,
    ],
    ['## Install on Linux\n\n1. Download the `.deb` package from https://example.com/downloads/lore_1.2.3_amd64.deb\n2. Run `sudo dpkg -i lore_1.2.3_amd64.deb`\n3. Start the service: `systemctl start lore`', 80],
    ['Die Installation unter Linux ist einfach. Laden Sie das Paket herunter und führen Sie das Installationsprogramm aus.', 32],
    ['Привет, как дела? Здравствуйте', 27],
    ['日本語のテキストです。カタカナとひらがなを含みます。東京は日本の首都です。', 37],
    ['한국어 텍스트입니다. 서울은 대한민국의 수도입니다.', 56],
  ];
  for (const [text, real] of fixtures) {
    it(`rarely underestimates: ${JSON.stringify(text.slice(0, 30))}`, () => {
      const estimate = estimateTokens(text);
      assert.ok(estimate >= Math.floor(real * 0.9), `estimate ${estimate} < real ${real}`);
      assert.ok(estimate <= Math.ceil(real * 1.6), `estimate ${estimate} far above real ${real}`);
    });
  }
});
