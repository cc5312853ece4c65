import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { segmentsOf, sentenceSegmenter, wordSegmenter } from './segments.js';

const words = new Intl.Segmenter('en', { granularity: 'word' });
const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });
const whole = (segmenter: Intl.Segmenter, text: string) => Array.from(segmenter.segment(text), (s) => ({ segment: s.segment, index: s.index, isWordLike: s.isWordLike ?? false }));

describe('segments of long text', () => {
  const prose = Array.from({ length: 400 }, (_, i) => `Sentence ${i} says "what it means." It ends (with a bracket) here! Does it? Yes: fine.`).join(' ');

  it('gives the same words and sentences as one pass of ICU over prose, cut in slices', () => {
    assert.ok(prose.length > 20_000);
    assert.deepEqual([...segmentsOf(words, prose)], whole(words, prose));
    assert.deepEqual([...segmentsOf(sentences, prose)], whole(sentences, prose));
  });

  it('covers any text exactly once, in order, even without spaces or with surrogate pairs at a cut', () => {
    for (const text of ['', 'x', 'word '.repeat(5_000), '象'.repeat(4_999) + '😀'.repeat(700), 'a'.repeat(1_999) + '😀' + 'b'.repeat(3_000)]) {
      const parts = [...segmentsOf(words, text, 2_000)];
      assert.equal(parts.map((p) => p.segment).join(''), text);
      let at = 0;
      for (const p of parts) {
        assert.equal(p.index, at);
        at += p.segment.length;
      }
      assert.ok(!parts.some((p) => /^[\udc00-\udfff]|[\ud800-\udbff]$/.test(p.segment)), 'no surrogate pair cut in two');
    }
  });
});

describe('the segmenter cache', () => {
  it("hands out one word and one sentence segmenter, in the locale every caller used before (undefined and 'und' alike)", () => {
    assert.equal(wordSegmenter(), wordSegmenter());
    assert.equal(sentenceSegmenter(), sentenceSegmenter());
    assert.equal(wordSegmenter().resolvedOptions().granularity, 'word');
    assert.equal(sentenceSegmenter().resolvedOptions().granularity, 'sentence');
    assert.equal(wordSegmenter().resolvedOptions().locale, new Intl.Segmenter('und').resolvedOptions().locale);
    assert.equal(sentenceSegmenter().resolvedOptions().locale, new Intl.Segmenter().resolvedOptions().locale);
  });
});
