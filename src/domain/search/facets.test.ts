import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../model.js';
import { countFacets, FACET_VALUES, facetValues } from './facets.js';

const entry = (meta: JsonObject, searchable_meta: JsonObject = {}) => ({ meta, searchable_meta });

describe('facets', () => {
  it('counts each value once an entry, over meta and searchable_meta together', () => {
    const entries = [
      entry({ section: 'guides' }, { section: 'guides', tags: ['a', 'b', 'a'] }),
      entry({ section: 'api' }, { tags: ['b'] }),
      entry({}, { section: 'api', tags: 'a' }),
      entry({ other: 'x' }),
    ];
    assert.deepEqual(countFacets(entries, ['section', 'tags']), {
      section: { api: 2, guides: 1 },
      tags: { a: 2, b: 2 },
    });
  });

  it('reads numbers and booleans as their strings, skips objects, null and nested arrays', () => {
    const values = facetValues(entry({ v: [2024, true, 1.5, null, { a: 1 }, ['nested'], 'x'] }, { v: false }), 'v');
    assert.deepEqual([...values], ['2024', 'true', '1.5', 'x', 'false']);
    assert.deepEqual([...facetValues(entry({ v: { a: 'b' } }, { v: null }), 'v')], []);
    // '1' and 1 are the same value once read: the entry counts once.
    assert.deepEqual(countFacets([entry({ n: 1 }, { n: '1' })], ['n']), { n: { 1: 1 } });
  });

  it('gives a key no entry holds an empty object, and reads only own keys', () => {
    assert.deepEqual(countFacets([entry({ a: 'x' })], ['missing', 'constructor', 'toString']), { missing: {}, constructor: {}, toString: {} });
    const proto = countFacets([entry(JSON.parse('{"__proto__": "p"}'))], ['__proto__']);
    assert.deepEqual(Object.keys(proto), ['__proto__']);
    assert.deepEqual(Object.entries(proto.__proto__!), [['p', 1]]);
  });

  it(`keeps the ${FACET_VALUES} highest counts, ties by value`, () => {
    const many = Array.from({ length: 150 }, (_, i) => `v${String(i).padStart(3, '0')}`);
    const entries = [entry({ tag: many }), entry({ tag: ['v149', 'v148'] }), entry({ tag: ['v149'] })];
    const counts = countFacets(entries, ['tag']).tag!;
    assert.equal(Object.keys(counts).length, FACET_VALUES);
    assert.equal(counts.v149, 3);
    assert.equal(counts.v148, 2);
    // The rest count 1: the first 98 by value are kept, the later ones cut.
    assert.equal(counts.v000, 1);
    assert.equal(counts.v097, 1);
    assert.equal(counts.v098, undefined);
    assert.equal(counts.v147, undefined);
  });

  it('counts nothing without entries', () => {
    assert.deepEqual(countFacets([], ['a']), { a: {} });
  });
});
