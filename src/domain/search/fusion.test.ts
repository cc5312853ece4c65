import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../ingestion/text/tokenize.js';
import { fuse, HEADING_WEIGHT, scoring } from './fusion.js';
import type { Calibration, ChunkScore, TermMatch } from './port.js';

const calibration: Calibration = { cosineRange: () => ({ cosFloor: 0, cosCeil: 1 }), lexicalWeight: () => 0.5, evidence: () => ({ floor: 0, slope: 0 }) };
const matchesOf = (query: string): TermMatch[] => analyze(query, 'en').terms.map((term, slot) => ({ term, slot, idf: 2, weight: 1 }));
const chunk = (chunkId: number, heading: string | null, bm25: number, cosine: number): ChunkScore => ({ chunkId, entryId: `e${chunkId}`, bm25, cosine, headings: heading === null ? null : [heading] });

describe('fusion: headings', () => {
  const matches = matchesOf('vite cli');

  it('puts a chunk under a heading that is the query first, even where both signals saturate', () => {
    const found = scoring([chunk(1, 'Getting Started', 9, 0.9), chunk(2, 'Vite CLI', 4.5, 0.9), chunk(3, 'Using the Vite CLI in scripts', 4.5, 0.9)], [], 2, matches, 'en', calibration, true, '');
    const ranked = fuse(found, 'hybrid', 0);
    assert.deepEqual(ranked.map((r) => r.entryId), ['e2', 'e3', 'e1']);
    assert.ok(ranked.every((r) => r.similarity <= 1));
    assert.equal(found.headings.get('Vite CLI'), 1);
    const partly = found.headings.get('Using the Vite CLI in scripts')!;
    assert.ok(partly > 0 && partly < 1);
    assert.equal(found.headings.has('Getting Started'), false);
  });

  it('adds at most HEADING_WEIGHT, and nothing to vector-only ranking', () => {
    const found = scoring([chunk(1, 'Vite CLI', 0, 0.3), chunk(2, null, 0, 0.35)], [], 2, matches, 'en', calibration, true, '');
    const [first] = fuse(found, 'hybrid', 0);
    assert.equal(first!.entryId, 'e1');
    assert.ok(Math.abs(first!.similarity - (0.5 * 0.3 + HEADING_WEIGHT)) < 1e-9);
    assert.deepEqual(fuse(found, 'vector', 0).map((r) => r.entryId), ['e2', 'e1']);
  });

  it('names the query better with its words in its order: "Generating Preload Directives" before "Preload Directives Generation"', () => {
    const query = matchesOf('Generating Preload Directives');
    const found = scoring([chunk(1, 'Preload Directives Generation', 4, 0.8), chunk(2, 'Generating Preload Directives', 4, 0.8)], [], 3, query, 'en', calibration, true, '');
    assert.equal(found.headings.get('Generating Preload Directives'), 1);
    assert.ok(found.headings.get('Preload Directives Generation')! < 1);
    assert.deepEqual(fuse(found, 'hybrid', 0).map((r) => r.entryId), ['e2', 'e1']);
  });

  it('leaves chunks without headings as they were', () => {
    const found = scoring([chunk(1, null, 2, 0.5), chunk(2, null, 4, 0.5)], [], 2, matches, 'en', calibration, true, '');
    assert.equal(found.headings.size, 0);
    assert.deepEqual(fuse(found, 'hybrid', 0).map((r) => [r.entryId, r.similarity]), [['e2', 0.75], ['e1', 0.5]]);
  });
});

describe('fusion: headings off (an answer\'s passages)', () => {
  it('gives headings nothing', () => {
    const found = scoring([chunk(1, null, 4, 0.5), chunk(2, 'Vite CLI', 2, 0.5)], [], 2, matchesOf('vite cli'), 'en', calibration, false, '');
    assert.equal(found.headings.size, 0);
    assert.deepEqual(fuse(found, 'hybrid', 0).map((r) => r.entryId), ['e1', 'e2']);
  });
});
