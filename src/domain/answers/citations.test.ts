import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CitationFilter, type CitedSource } from './citations.js';

const sources = new Map<number, CitedSource>([
  [1, { ref: 1, title: 'Plans', url: 'https://example.com/plans' }],
  [2, { ref: 2, title: 'Billing', url: 'https://example.com/billing' }],
  [3, { ref: 3, title: 'Refunds', url: 'https://example.com/refunds' }],
  [4, { ref: 4, title: 'Invoices', url: 'https://example.com/invoices' }],
]);

/**
 * Runs `deltas` through a filter; returns the text shown, the titles reported (in order, as
 * each was first cited), and the writer's numbers of the cited passages.
 */
function run(deltas: string[]) {
  const filter = new CitationFilter(sources);
  let text = '';
  const titles: string[] = [];
  for (const step of [...deltas.map((d) => filter.push(d)), filter.flush()]) {
    text += step.text;
    for (const c of step.cited) {
      assert.equal(c.ref, titles.length + 1, 'numbered 1, 2, … as first cited');
      titles.push(c.title);
    }
  }
  assert.deepEqual(filter.cited.map((c) => c.title), titles);
  return { text, titles, passages: [...filter.citedPassages] };
}

/** Every way of cutting `text` in two, and in pieces of 1 to 4 characters. */
function splits(text: string): string[][] {
  const out: string[][] = [];
  for (let i = 1; i < text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  for (let size = 1; size <= 4; size++) out.push(text.match(new RegExp(`[^]{1,${size}}`, 'g'))!);
  return out;
}

describe('CitationFilter', () => {
  it('keeps markers of given passages and reports each passage once, at first mention', () => {
    assert.deepEqual(run(['Pro costs 10 € [2]. It includes SSO [2][1].']), {
      text: 'Pro costs 10 € [1]. It includes SSO [1][2].',
      titles: ['Billing', 'Plans'],
      passages: [2, 1],
    });
  });

  it('drops citations of passages it was not given', () => {
    assert.deepEqual(run(['Refunds take 5 days [7]. Plans differ [1, 9].']).text, 'Refunds take 5 days. Plans differ [1].');
    assert.deepEqual(run(['Nothing here [0] [12; 99]']).titles, []);
  });

  it('decides a marker split across deltas once it is complete', () => {
    const split = run(['It is free [', '1', ', 2', '] for', ' students.']);
    assert.deepEqual(split, { text: 'It is free [1, 2] for students.', titles: ['Plans', 'Billing'], passages: [1, 2] });
    assert.equal(run(['An array [', '7]']).text, 'An array');
  });

  it('leaves an escaped bracket alone (Markdown `\\[0, 1]`), however the deltas fall', () => {
    const whole = 'A similarity in \\[0, 1] [2].';
    for (let cut = 1; cut < whole.length; cut++) {
      assert.deepEqual(run([whole.slice(0, cut), whole.slice(cut)]), { text: 'A similarity in \\[0, 1] [1].', titles: ['Billing'], passages: [2] }, `cut at ${cut}`);
    }
    assert.equal(run(['A similarity in [0, 1] [2].']).text, 'A similarity in [1] [2].');
  });

  it('leaves brackets that are not markers alone', () => {
    assert.equal(run(['Use [brackets] and a[i]; [see docs]']).text, 'Use [brackets] and a[i]; [see docs]');
    assert.equal(run(['Ends with [']).text, 'Ends with [');
  });

  it('leaves code alone: markers inside fenced blocks and inline spans are text, however the deltas fall', () => {
    const answer = 'Read the first item [1]:\n\n```js\nconst first = items[1]; // [2]\n```\n\nOr `items[0]` and `a[2]` [2].';
    const whole = run([answer]);
    assert.deepEqual(whole, { text: answer, titles: ['Plans', 'Billing'], passages: [1, 2] });
    // Every split point, including inside fences and backtick runs.
    for (const deltas of splits(answer)) assert.deepEqual(run(deltas), whole, JSON.stringify(deltas));
    assert.equal(run(['```\nx[7]\n```\n', 'after [7].']).text, '```\nx[7]\n```\nafter.');
    assert.equal(run(['Escaped \\`ticks [3] and `code [4]`.']).text, 'Escaped \\`ticks [1] and `code [4]`.');
  });

  it('numbers sources by first citation, whatever numbers the writer used, however the deltas fall', () => {
    const answer = 'Refunds take 5 days [3]. Invoices follow [4; 3]. Plans differ [1][3], see [3, 1].';
    const expected = {
      text: 'Refunds take 5 days [1]. Invoices follow [1, 2]. Plans differ [3][1], see [1, 3].',
      titles: ['Refunds', 'Invoices', 'Plans'],
      passages: [3, 4, 1],
    };
    for (const deltas of [[answer], ...splits(answer)]) assert.deepEqual(run(deltas), expected, JSON.stringify(deltas));
    // A marker of two digits split across deltas is one marker.
    const many = new CitationFilter(new Map(Array.from({ length: 12 }, (_, i) => [i + 1, { ref: i + 1, title: `S${i + 1}`, url: '' }])));
    const text = [many.push('Twelve [1'), many.push('2], then five [5]'), many.flush()].map((s) => s.text).join('');
    assert.equal(text, 'Twelve [1], then five [2]');
    assert.deepEqual(many.cited.map((c) => [c.ref, c.title]), [[1, 'S12'], [2, 'S5']]);
  });

  it('closes an inline code span left open at the end of the text or of its paragraph, before its citations', () => {
    for (const deltas of [['Run (`bench --seconds [2]'], ...splits('Run (`bench --seconds [2].')]) {
      const { text } = run(deltas);
      assert.match(text, /^Run \(`bench --seconds` \[1\]\.?$/, JSON.stringify(deltas));
    }
    assert.deepEqual(run(['Use `npm test [1]\n\nThen `lore [2] start` [2].']), {
      text: 'Use `npm test` [1]\n\nThen `lore [2] start` [2].',
      titles: ['Plans', 'Billing'],
      passages: [1, 2],
    });
    assert.equal(run(['A lone ` tick [1].']).text, 'A lone ` tick` [1].');
    assert.equal(run(['Ends in ` [1]']).text, 'Ends in \\` [1]');
  });

  it('closes a fenced block left open at the end, a citation on its last line moved after it', () => {
    for (const deltas of splits('Run:\n\n```sh\nnpm test [2]')) {
      assert.deepEqual(run(deltas), { text: 'Run:\n\n```sh\nnpm test\n```\n\n[1]', titles: ['Billing'], passages: [2] }, JSON.stringify(deltas));
    }
    assert.equal(run(['Run [1]:\n\n~~~~\nnpm test\n']).text, 'Run [1]:\n\n~~~~\nnpm test\n~~~~');
    assert.equal(run(['Run [1]:\n\n```\nnpm test']).text, 'Run [1]:\n\n```\nnpm test\n```');
  });

  it('holds an unclosed inline span back only so far: a long one is a literal backtick', () => {
    const filter = new CitationFilter(sources);
    const shown = filter.push(`A \`${'x '.repeat(600)}`).text;
    assert.match(shown, /^A \\`x x/);
  });
});
