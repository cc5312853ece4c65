import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry } from '../model.js';
import { citedSource, pageAction } from './offers.js';

const entry = (meta: Entry['meta'], searchable_meta: Entry['searchable_meta'] = {}): Entry => ({
  id: 'e1',
  collection_id: 'c1',
  title: 'Pricing',
  raw_text: '',
  meta,
  searchable_meta,
  source_url: 'https://example.com/pricing',
  source_type: null,
  source_id: null,
  created_at: '',
  updated_at: '',
});

describe('page actions', () => {
  it('takes type, label and payload; the entry id wins over a payload id', () => {
    assert.deepEqual(pageAction(entry({ action: { id: 'x', type: 'a.b:c-d_e', label: 'Go', n: 1 } })), { id: 'e1', type: 'a.b:c-d_e', label: 'Go', n: 1 });
  });

  it('accepts the limits exactly: 64-character type, 100-character label, 2 KB of JSON', () => {
    const action = { type: 't'.repeat(64), label: 'l'.repeat(100), pad: '' };
    action.pad = 'p'.repeat(2_048 - Buffer.byteLength(JSON.stringify(action)));
    assert.ok(pageAction(entry({ action })));
    assert.equal(pageAction(entry({ action: { ...action, pad: `${action.pad}é` } })), null);
    assert.equal(pageAction(entry({ action: { ...action, type: 't'.repeat(65) } })), null);
    assert.equal(pageAction(entry({ action: { ...action, label: 'l'.repeat(101) } })), null);
  });

  it('ignores anything that is not an action object', () => {
    for (const action of [undefined, null, 'open', ['open'], { type: 'open' }, { label: 'Go' }, { type: '', label: 'Go' }, { type: 'open', label: '' }, { type: 'open', label: 5 }]) {
      assert.equal(pageAction(entry({ action })), null, JSON.stringify(action));
    }
  });
});

describe('citation images', () => {
  it('prefers meta.image, then searchable_meta.image; only http(s) URLs up to 2,048 characters', () => {
    const base = { ref: 1, title: 'Pricing', url: 'https://example.com/pricing' };
    assert.deepEqual(citedSource(entry({ image: 'https://a.example/1.png' }, { image: 'https://b.example/2.png' }), 1), { ...base, image: 'https://a.example/1.png' });
    assert.deepEqual(citedSource(entry({ image: 'data:image/png;base64,AA' }, { image: 'http://b.example/2.png' }), 1), { ...base, image: 'http://b.example/2.png' });
    assert.deepEqual(citedSource(entry({ image: `https://a.example/${'a'.repeat(2_031)}` }), 1), base);
    assert.deepEqual(citedSource(entry({ image: 'not a url' }), 1), base);
  });
});
