/**
 * Backpressure: ingestion is CPU-bound, so writes that would queue more than LORE_INGEST_QUEUE
 * texts for the embedding model are refused with 503 and Retry-After instead of piling up in
 * memory; every write that was acknowledged is stored, every refused one left nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Embedder } from '../src/domain/ingestion/port.js';
import { startServer, type TestServer } from './helpers.js';

/** A slow model: 100 ms a call, so concurrent writes queue up behind each other. */
const slowEmbedder: Embedder = {
  model: 'slow',
  dimensions: 4,
  embed: async (texts) => {
    await sleep(100);
    return texts.map((_, i) => Float32Array.from([1, i % 7, 0, 1]));
  },
};

describe('ingestion backpressure', () => {
  let server: TestServer;
  let token: string;
  let collection: string;
  before(async () => {
    server = await startServer('pglite', { embedder: slowEmbedder, config: { ingestQueue: 25 } });
    token = (await server.createOrg()).token;
    collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
  });
  after(() => server.close());

  it('refuses writes beyond the queue with 503 and Retry-After, and loses no acknowledged write', async () => {
    const batch = (b: number) => Array.from({ length: 10 }, (_, i) => ({ source_type: 'doc', source_id: `b${b}-${i}`, raw_text: `Batch ${b}, entry ${i}: refunds and invoices.` }));
    const responses = await Promise.all(Array.from({ length: 8 }, (_, b) => server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token, body: { entries: batch(b) } })));
    const accepted = responses.flatMap((r, b) => (r.status === 200 ? [b] : []));
    const refused = responses.filter((r) => r.status === 503);
    assert.equal(accepted.length + refused.length, 8, JSON.stringify(responses.map((r) => r.status)));
    assert.ok(accepted.length >= 2 && refused.length >= 1, `accepted ${accepted.length}, refused ${refused.length}`);
    for (const r of refused) {
      assert.match(r.body.message, /waiting to be embedded/);
      assert.ok(Number(r.headers['retry-after']) >= 1);
    }
    const stored = await server.container.db.query<{ source_id: string }>('SELECT source_id FROM entries WHERE collection_id = $1', [collection]);
    const batches = new Set(stored.map((s) => Number(s.source_id.slice(1, s.source_id.indexOf('-')))));
    assert.deepEqual([...batches].sort(), accepted.sort(), 'exactly the acknowledged batches are stored');
    assert.equal(stored.length, accepted.length * 10);
  });

  it('takes a batch larger than the queue when nothing else waits', async () => {
    const entries = Array.from({ length: 40 }, (_, i) => ({ source_type: 'big', source_id: `e${i}`, raw_text: `Big batch entry ${i}.` }));
    const res = await server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token, body: { entries } });
    assert.equal(res.status, 200);
  });
});
