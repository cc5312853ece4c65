import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CitationFilter, type CitedSource } from './citations.js';

const sources = new Map<number, CitedSource>([
  [1, { ref: 1, title: 'Plans', url: 'https://example.com/plans' }],
  [2, { ref: 2, title: 'Billing', url: 'https://example.com/billing' }],
]);

/** Runs `deltas` through a filter; returns the text shown and the refs reported, in order. */
function run(deltas: string[]) {
  const filter = new CitationFilter(sources);
  let text = '';
  const refs: number[] = [];
  for (const step of [...deltas.map((d) => filter.push(d)), filter.flush()]) {
    text += step.text;
    refs.push(...step.cited.map((c) => c.ref));
  }
  return { text, refs, all: filter.cited.map((c) => c.ref) };
}

describe('CitationFilter', () => {
  it('keeps markers of given passages and reports each passage once, at first mention', () => {
    assert.deepEqual(run(['Pro costs 10 € [2]. It includes SSO [1][2].']), {
      text: 'Pro costs 10 € [2]. It includes SSO [1][2].',
      refs: [2, 1],
      all: [2, 1],
    });
  });

  it('drops citations of passages it was not given', () => {
    assert.deepEqual(run(['Refunds take 5 days [7]. Plans differ [1, 9].']).text, 'Refunds take 5 days. Plans differ [1].');
    assert.deepEqual(run(['Nothing here [0] [12; 99]']).refs, []);
  });

  it('decides a marker split across deltas once it is complete', () => {
    const split = run(['It is free [', '1', ', 2', '] for', ' students.']);
    assert.deepEqual(split, { text: 'It is free [1, 2] for students.', refs: [1, 2], all: [1, 2] });
    assert.equal(run(['An array [', '3]']).text, 'An array');
  });

  it('leaves an escaped bracket alone (Markdown `\\[0, 1]`), however the deltas fall', () => {
    const whole = 'A similarity in \\[0, 1] [2].';
    for (let cut = 1; cut < whole.length; cut++) {
      assert.deepEqual(run([whole.slice(0, cut), whole.slice(cut)]), { text: whole, refs: [2], all: [2] }, `cut at ${cut}`);
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
    assert.deepEqual(whole, { text: answer, refs: [1, 2], all: [1, 2] });
    // Every split point, including inside fences and backtick runs.
    for (let i = 1; i < answer.length; i++) assert.deepEqual(run([answer.slice(0, i), answer.slice(i)]), whole, `split at ${i}`);
    assert.equal(run(['```\nx[7]\n```\n', 'after [7].']).text, '```\nx[7]\n```\nafter.');
  });
});
