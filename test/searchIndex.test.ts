import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Embedder } from '../src/domain/ingestion/port.js';
import { analyze } from '../src/domain/ingestion/text/tokenize.js';
import { tfNormSql } from '../src/storage/bm25.js';
import { createSearchRepository, POSTINGS_PER_TERM } from '../src/storage/search.js';
import { backends, startServer, type TestServer } from './helpers.js';
import { indexProblems } from './indexProblems.js';

/**
 * A deterministic embedder of pseudo-random unit vectors (from a hash of the whole text): no
 * model to load, and no vector is near a query's, so what search finds, it finds lexically.
 */
const randomEmbedder: Embedder = {
  model: 'hash-random-32',
  dimensions: 32,
  embed: async (texts) =>
    texts.map((text) => {
      const bytes = createHash('sha512').update(text).digest();
      const v = Float32Array.from(bytes.subarray(0, 32), (x) => x - 127.5);
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    }),
};


const WORDS = ['billing', 'invoice', 'password', 'security', 'export', 'report', 'team', 'plan', 'limit', 'token', 'webhook', 'search'];
/** Entry i: a few sentences drawn from WORDS, in English, with one in German and one in Chinese among them. */
function entry(i: number, version = 1) {
  const pick = (k: number) => WORDS[(i * 7 + k * 3 + version) % WORDS.length]!;
  const sentences = Array.from({ length: 1 + (i % 4) }, (_, k) => `The ${pick(k)} settings control the ${pick(k + 1)} of each ${pick(k + 2)}.`);
  const text = i % 10 === 3 ? 'Die Rechnung wird jeden Monat per E-Mail verschickt.' : i % 10 === 7 ? '每个月的发票会通过电子邮件发送给账户所有者。' : sentences.join(' ');
  return { source_type: 'doc', source_id: `d${i}`, title: `Doc ${i} v${version}`, raw_text: text };
}

for (const backend of backends()) {
  describe(`search index consistency [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    const db = () => server.container.db;
    const call = (method: string, url: string, body?: unknown) => server.call(method, url, { token, body });
    const consistent = async (when: string) => assert.deepEqual(await indexProblems(db()), [], `after ${when}`);
    const rowsOf = async (collection: string) => {
      const [row] = await db().query<{ chunks: number; vectors: number; postings: number; terms: number; languages: number; stats: number }>(
        `SELECT (SELECT count(*)::int FROM chunks WHERE collection_id = $1) AS chunks,
           (SELECT count(*)::int FROM chunk_vectors WHERE collection_id = $1) AS vectors,
           (SELECT count(*)::int FROM chunk_terms WHERE collection_id = $1) AS postings,
           (SELECT count(*)::int FROM collection_terms WHERE collection_id = $1) AS terms,
           (SELECT count(*)::int FROM collection_languages WHERE collection_id = $1) AS languages,
           (SELECT count(*)::int FROM collection_stats WHERE collection_id = $1) AS stats`,
        [collection],
      );
      return row!;
    };

    before(async () => {
      server = await startServer(backend, { embedder: randomEmbedder });
      token = (await server.createOrg('Acme')).token;
    });
    after(() => server.close());

    it('keeps vectors, postings and statistics consistent through create, update, delete by id and by source, and collection deletion', async () => {
      const [a, b] = await Promise.all(['A', 'B'].map(async (name) => (await call('POST', '/api/v1/collections', { name })).body.data.id as string));
      const batch = (collection: string, entries: unknown[]) => call('POST', `/api/v1/collections/${collection}/entries/batch`, { entries });
      assert.equal((await batch(a!, Array.from({ length: 40 }, (_, i) => entry(i)))).status, 200);
      assert.equal((await batch(b!, Array.from({ length: 12 }, (_, i) => entry(i)))).status, 200);
      await consistent('batch creates');

      // Upserts that change some texts (re-embedded) and keep others (vectors reused).
      assert.equal((await batch(a!, Array.from({ length: 20 }, (_, i) => entry(i, i % 2 === 0 ? 2 : 1)))).status, 200);
      await consistent('batch upserts');
      const listed = (await call('GET', `/api/v1/collections/${a}/entries?per_page=100`)).body.data as { id: string; source_id: string }[];
      const byId = new Map(listed.map((e) => [e.source_id, e.id]));
      const patched = await call('PATCH', `/api/v1/collections/${a}/entries/${byId.get('d5')}`, { raw_text: 'A completely new text about webhook retries and backoff.' });
      assert.equal(patched.status, 200);
      await consistent('a patch');

      assert.equal((await call('DELETE', `/api/v1/collections/${a}/entries/${byId.get('d6')}`)).status, 204);
      assert.equal((await call('DELETE', `/api/v1/collections/${a}/entries/by-source/doc/d7`)).status, 204);
      await consistent('deletes by id and by source');

      const before = await rowsOf(b!);
      assert.equal((await call('DELETE', `/api/v1/collections/${a}`)).status, 204);
      await consistent('a collection deletion');
      assert.deepEqual(await rowsOf(a!), { chunks: 0, vectors: 0, postings: 0, terms: 0, languages: 0, stats: 0 });
      assert.deepEqual(await rowsOf(b!), before, 'the other collection is untouched');
      assert.ok(before.vectors > 0 && before.postings > 0 && before.languages === 3);
    });

    it('lets 8 concurrent writers upsert and delete in one collection without a 5xx, keeping the index consistent', async () => {
      const org = await server.createOrg('Busy');
      const asOrg = (method: string, url: string, body?: unknown) => server.call(method, url, { token: org.token, body });
      const collection = (await asOrg('POST', '/api/v1/collections', { name: 'Busy' })).body.data.id as string;
      const statuses = new Map<number, number>();
      // Each writer rewrites entries the others rewrite too (shared source ids, shared words),
      // in a different order, so their statistics rows are taken in different orders. On
      // PostgreSQL this deadlocked about 1 write in 120 before writers queued on the collection.
      // (PGlite runs one transaction at a time: a smaller run checks consistency there.)
      await Promise.all(
        Array.from({ length: 8 }, async (_, writer) => {
          for (let round = 0; round < (backend === 'postgres' ? 40 : 8); round++) {
            const ids = Array.from({ length: 10 }, (_, k) => (writer * 3 + round * 5 + k * 7) % 30);
            const res = round % 4 === 3
              ? await asOrg('DELETE', `/api/v1/collections/${collection}/entries/by-source/doc/d${ids[0]}`)
              : await asOrg('POST', `/api/v1/collections/${collection}/entries/batch`, { entries: ids.map((i) => entry(i, writer + round)) });
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          }
        }),
      );
      assert.deepEqual([...statuses.keys()].filter((s) => s >= 500), [], `statuses: ${JSON.stringify([...statuses])}`);
      await consistent('concurrent writers');
    });

    it(`reads a common term's best postings first (more than ${POSTINGS_PER_TERM} chunks hold it) and scores candidates exactly`, async () => {
      const org = await server.createOrg('Common');
      const asOrg = (method: string, url: string, body?: unknown) => server.call(method, url, { token: org.token, body });
      const collection = (await asOrg('POST', '/api/v1/collections', { name: 'Common' })).body.data.id as string;
      const filler = Array.from({ length: POSTINGS_PER_TERM + 150 }, (_, i) => ({
        source_type: 'f', source_id: `f${i}`, raw_text: `Widget number ${i} is listed here with ${WORDS[i % WORDS.length]} notes and several other words around it.`,
      }));
      for (let i = 0; i < filler.length; i += 50) assert.equal((await asOrg('POST', `/api/v1/collections/${collection}/entries/batch`, { entries: filler.slice(i, i + 50) })).status, 200);
      // Written last, so its postings are the newest: only their impact can put them first.
      const best = { source_type: 'f', source_id: 'best', raw_text: 'Widget widget widget.' };
      assert.equal((await asOrg('POST', `/api/v1/collections/${collection}/entries/batch`, { entries: [best] })).status, 200);
      await consistent('a large batch load');

      const repository = createSearchRepository(db());
      const [embedding] = await randomEmbedder.embed(['query']);
      const lexical = async (terms: string[]) => {
        const scope = { organisationId: org.id };
        const { chunks } = await repository.candidates(scope, [collection], { terms, embedding: Promise.resolve(embedding!), dims: 32, filters: [], limit: 10 });
        return chunks.filter((c) => c.bm25 > 0).sort((x, y) => y.bm25 - x.bm25);
      };
      // BM25 of every chunk from every posting, for comparison.
      const exhaustive = async (terms: string[]) =>
        new Map(
          (await db().query<{ chunk_id: number; bm25: number }>(
            `WITH s AS (SELECT chunk_count::float8 AS n, total_length::float8 / chunk_count AS avgdl FROM collection_stats WHERE collection_id = $1),
               w AS (SELECT term, ln(1 + (s.n - df + 0.5) / (df + 0.5)) AS idf FROM collection_terms, s WHERE collection_id = $1 AND term = ANY($2::text[]))
             SELECT t.chunk_id, sum(w.idf * ${tfNormSql('t.tf', 't.length', 's.avgdl')}) AS bm25
             FROM chunk_terms t JOIN w ON w.term = t.term CROSS JOIN s WHERE t.collection_id = $1 GROUP BY t.chunk_id`,
            [collection, terms],
          )).map((r) => [Number(r.chunk_id), Number(r.bm25)]),
        );

      for (const query of ['widget', 'widget number 1042', 'widget notes billing']) {
        const terms = analyze(query, 'en').terms;
        const [found, exact] = await Promise.all([lexical(terms), exhaustive(terms)]);
        const exactTop = [...exact.entries()].sort((x, y) => y[1] - x[1]).slice(0, 10);
        for (const chunk of found) assert.ok(Math.abs(chunk.bm25 - exact.get(chunk.chunkId)!) < 1e-9, `${query}: exact score of chunk ${chunk.chunkId}`);
        assert.ok(Math.abs(found[0]!.bm25 - exactTop[0]![1]) < 1e-9, `${query}: the best chunk is found`);
      }
      const top = await lexical(['widget']);
      const [bestChunk] = await db().query<{ id: number }>(`SELECT c.id FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE e.source_id = 'best'`);
      assert.equal(top[0]!.chunkId, Number(bestChunk!.id));
    });
  });
}
