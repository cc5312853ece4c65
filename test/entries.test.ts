import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EmbedderError, type Embedder } from '../src/domain/ingestion/port.js';
import { backends, defaultEmbedder, startServer, TIMESTAMP, UUID, type TestServer } from './helpers.js';

const ENTRY_KEYS = [
  'collection_id', 'created_at', 'id', 'meta', 'raw_text', 'searchable_meta', 'source_id', 'source_type', 'source_url', 'title', 'updated_at',
];

/** Wraps the real embedder to count what it is asked to embed, or to fail on demand. */
function instrumented(inner: Embedder) {
  const state = { texts: 0, fail: false };
  const embedder: Embedder = {
    model: inner.model,
    dimensions: inner.dimensions,
    async embed(texts, signal) {
      if (state.fail) throw new EmbedderError('provider down');
      state.texts += texts.length;
      return inner.embed(texts, signal);
    },
  };
  return { embedder, state };
}

for (const backend of backends()) {
  describe(`entries [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let otherToken: string;
    let collection: string;
    let spy: ReturnType<typeof instrumented>;
    const base = () => `/api/v1/collections/${collection}/entries`;
    const count = async (sql: string, params: unknown[] = []) =>
      Number(((await server.container.db.query<{ n: number }>(sql, params))[0]!).n);

    before(async () => {
      spy = instrumented(await defaultEmbedder());
      server = await startServer(backend, { embedder: spy.embedder });
      token = (await server.createOrg('Acme')).token;
      otherToken = (await server.createOrg('Other')).token;
      collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
    });
    after(() => server.close());

    it('creates an entry with every field, chunked and indexed before responding', async () => {
      const body = {
        title: 'Resetting your password',
        raw_text: '# Reset\n\nOpen Settings, then Security, and choose "Reset password".\n\nA link arrives by e-mail within five minutes.',
        meta: { internal_owner: 'team-zeta' },
        searchable_meta: { tags: ['account', 'security'], product: 'Cloud' },
        source_url: 'https://example.com/help/reset',
        source_type: 'help',
        source_id: 'reset-1',
      };
      const res = await server.call('POST', base(), { token, body });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body), ['data']);
      const e = res.body.data;
      assert.deepEqual(Object.keys(e).sort(), ENTRY_KEYS);
      assert.match(e.id, UUID);
      assert.match(e.created_at, TIMESTAMP);
      assert.deepEqual({ ...e, id: 0, created_at: 0, updated_at: 0 }, { ...body, id: 0, collection_id: collection, created_at: 0, updated_at: 0 });

      // Searchable at once: chunks with embeddings and BM25 postings are committed.
      assert.ok((await count('SELECT count(*)::int AS n FROM chunks WHERE entry_id = $1', [e.id])) >= 1);
      const terms = await server.container.db.query<{ term: string }>(
        'SELECT DISTINCT t.term FROM chunk_terms t JOIN chunks c ON c.id = t.chunk_id WHERE c.entry_id = $1',
        [e.id],
      );
      const indexed = new Set(terms.map((t) => t.term));
      // title, searchable_meta values and text are indexed; meta is not.
      for (const word of ['password', 'secur', 'cloud', 'link']) {
        assert.ok([...indexed].some((t) => t.startsWith(word)), `expected a term for "${word}"`);
      }
      assert.ok(![...indexed].some((t) => t.includes('zeta')), 'meta must not be indexed');
      const dims = await server.container.db.query<{ dims: number }>('SELECT vector_dims(v.embedding) AS dims FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.entry_id = $1', [e.id]);
      assert.equal(dims[0]!.dims, 384);
    });

    it('needs only raw_text and returns nulls and empty objects for the rest', async () => {
      const res = await server.call('POST', base(), { token, body: { raw_text: 'Just text.' } });
      assert.equal(res.status, 201);
      const { id, created_at, updated_at, ...rest } = res.body.data;
      assert.deepEqual(rest, {
        collection_id: collection, title: null, raw_text: 'Just text.', meta: {}, searchable_meta: {}, source_url: null, source_type: null, source_id: null,
      });
    });

    it('rejects a create whose source pair is taken', async () => {
      const body = { raw_text: 'one', source_type: 'doc', source_id: 'dup' };
      assert.equal((await server.call('POST', base(), { token, body })).status, 201);
      const again = await server.call('POST', base(), { token, body });
      assert.equal(again.status, 422);
      assert.deepEqual(Object.keys(again.body.errors), ['source_id']);
    });

    it('upserts by (source_type, source_id): 201 new, 200 updated', async () => {
      const first = await server.call('PUT', `${base()}/upsert`, { token, body: { raw_text: 'Version one.', source_type: 'page', source_id: 'p1', title: 'P1' } });
      assert.equal(first.status, 201);
      const second = await server.call('PUT', `${base()}/upsert`, { token, body: { raw_text: 'Version two.', source_type: 'page', source_id: 'p1' } });
      assert.equal(second.status, 200);
      assert.equal(second.body.data.id, first.body.data.id);
      assert.equal(second.body.data.raw_text, 'Version two.');
      assert.equal(second.body.data.title, null);
      assert.equal(second.body.data.created_at, first.body.data.created_at);
      assert.ok(second.body.data.updated_at > first.body.data.updated_at);
      assert.equal(await count('SELECT count(*)::int AS n FROM entries WHERE source_id = $1', ['p1']), 1);
      const texts = await server.container.db.query<{ text: string }>('SELECT text FROM chunks WHERE entry_id = $1', [first.body.data.id]);
      assert.deepEqual(texts.map((t) => t.text), ['Version two.']);

      const missing = await server.call('PUT', `${base()}/upsert`, { token, body: { raw_text: 'x' } });
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body.errors, {
        source_type: ['The source_type field is required.'],
        source_id: ['The source_id field is required.'],
      });
    });

    it('batch-upserts all or nothing', async () => {
      const entries = Array.from({ length: 5 }, (_, i) => ({ raw_text: `Batch text ${i}`, source_type: 'batch', source_id: `b${i}` }));
      const first = await server.call('POST', `${base()}/batch`, { token, body: { entries } });
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, { created: 5, updated: 0 });
      const more = [...entries.slice(0, 2).map((e) => ({ ...e, raw_text: e.raw_text + ' changed' })), { raw_text: 'new', source_type: 'batch', source_id: 'b9' }];
      const second = await server.call('POST', `${base()}/batch`, { token, body: { entries: more } });
      assert.deepEqual(second.body, { created: 1, updated: 2 });

      const before = await count("SELECT count(*)::int AS n FROM entries WHERE source_type = 'batch'");
      const bad = [{ raw_text: 'ok', source_type: 'batch', source_id: 'b20' }, { raw_text: 'ok' }, { raw_text: '', source_type: 'batch', source_id: 'b21' }];
      const rejected = await server.call('POST', `${base()}/batch`, { token, body: { entries: bad } });
      assert.equal(rejected.status, 422);
      assert.deepEqual(rejected.body.errors, {
        'entries.1.source_type': ['The entries.1.source_type field is required.'],
        'entries.1.source_id': ['The entries.1.source_id field is required.'],
        'entries.2.raw_text': ['The entries.2.raw_text field is required.'],
      });
      assert.equal(rejected.body.message, 'The entries.1.source_type field is required. (and 2 more errors)');
      assert.equal(await count("SELECT count(*)::int AS n FROM entries WHERE source_type = 'batch'"), before);
    });

    it('rejects 51 entries and duplicate source pairs in one batch', async () => {
      const many = Array.from({ length: 51 }, (_, i) => ({ raw_text: 't', source_type: 'x', source_id: String(i) }));
      const tooMany = await server.call('POST', `${base()}/batch`, { token, body: { entries: many } });
      assert.equal(tooMany.status, 422);
      assert.deepEqual(tooMany.body.errors, { entries: ['The entries field must not have more than 50 items.'] });
      const dup = [{ raw_text: 'a', source_type: 'x', source_id: 'same' }, { raw_text: 'b', source_type: 'x', source_id: 'other' }, { raw_text: 'c', source_type: 'x', source_id: 'same' }];
      const duplicated = await server.call('POST', `${base()}/batch`, { token, body: { entries: dup } });
      assert.equal(duplicated.status, 422);
      assert.deepEqual(Object.keys(duplicated.body.errors), ['entries.2.source_id']);
      assert.equal(await count("SELECT count(*)::int AS n FROM entries WHERE source_type = 'x'"), 0);
      const empty = await server.call('POST', `${base()}/batch`, { token, body: { entries: [] } });
      assert.equal(empty.status, 422);
    });

    it('updates given fields and re-embeds only changed chunks', async () => {
      const paragraphs = Array.from({ length: 6 }, (_, i) => `Paragraph ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(12)}`);
      const created = (await server.call('POST', base(), { token, body: { title: 'Long', raw_text: paragraphs.join('\n\n') } })).body.data;
      const chunks = await count('SELECT count(*)::int AS n FROM chunks WHERE entry_id = $1', [created.id]);
      assert.ok(chunks >= 3, `expected several chunks, got ${chunks}`);

      const beforeMeta = spy.state.texts;
      const metaOnly = await server.call('PATCH', `${base()}/${created.id}`, { token, body: { meta: { reviewed: true } } });
      assert.equal(metaOnly.status, 200);
      assert.deepEqual(metaOnly.body.data.meta, { reviewed: true });
      assert.equal(metaOnly.body.data.raw_text, created.raw_text);
      assert.equal(spy.state.texts, beforeMeta, 'a meta change must not re-embed');

      const beforeEdit = spy.state.texts;
      const edited = paragraphs.slice(0, -1).concat('A brand new closing paragraph.').join('\n\n');
      const res = await server.call('PATCH', `${base()}/${created.id}`, { token, body: { raw_text: edited } });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.title, 'Long');
      const embedded = spy.state.texts - beforeEdit;
      assert.ok(embedded >= 1 && embedded < chunks, `re-embedded ${embedded} of ${chunks} chunks`);
    });

    it('answers 503 and writes nothing when the embedder fails', async () => {
      const before = await count('SELECT count(*)::int AS n FROM entries');
      spy.state.fail = true;
      try {
        const res = await server.call('POST', base(), { token, body: { raw_text: 'never stored' } });
        assert.equal(res.status, 503);
        assert.deepEqual(Object.keys(res.body), ['message']);
        const batch = await server.call('POST', `${base()}/batch`, { token, body: { entries: [{ raw_text: 'no', source_type: 'f', source_id: '1' }] } });
        assert.equal(batch.status, 503);
      } finally {
        spy.state.fail = false;
      }
      assert.equal(await count('SELECT count(*)::int AS n FROM entries'), before);
    });

    it('deletes by id and by source, keeping BM25 statistics exact', async () => {
      const a = (await server.call('PUT', `${base()}/upsert`, { token, body: { raw_text: 'zebra crossing', source_type: 'del', source_id: 'a/b c' } })).body.data;
      const df = () => count("SELECT coalesce(sum(df), 0)::int AS n FROM collection_terms WHERE collection_id = $1 AND term LIKE 'zebra%'", [collection]);
      assert.equal(await df(), 1);
      const bySource = await server.call('DELETE', `${base()}/by-source/del/${encodeURIComponent('a/b c')}`, { token });
      assert.equal(bySource.status, 204);
      assert.equal(await df(), 0);
      assert.equal(await count('SELECT count(*)::int AS n FROM chunks WHERE entry_id = $1', [a.id]), 0);
      const none = await server.call('DELETE', `${base()}/by-source/del/${encodeURIComponent('a/b c')}`, { token });
      assert.equal(none.status, 404);
      assert.deepEqual(none.body, { message: 'Entry not found.' });

      const b = (await server.call('POST', base(), { token, body: { raw_text: 'to delete' } })).body.data;
      assert.equal((await server.call('DELETE', `${base()}/${b.id}`, { token })).status, 204);
      assert.equal((await server.call('DELETE', `${base()}/${b.id}`, { token })).status, 404);

      const stats = await server.container.db.query<{ chunk_count: number; total_length: number; chunks: number; length: number }>(
        `SELECT s.chunk_count, s.total_length::int AS total_length,
           (SELECT count(*)::int FROM chunks WHERE collection_id = $1) AS chunks,
           (SELECT coalesce(sum(length), 0)::int FROM chunks WHERE collection_id = $1) AS length
         FROM collection_stats s WHERE s.collection_id = $1`,
        [collection],
      );
      assert.equal(stats[0]!.chunk_count, stats[0]!.chunks);
      assert.equal(stats[0]!.total_length, stats[0]!.length);
    });

    it('lists entries with pagination', async () => {
      const res = await server.call('GET', `${base()}?per_page=2`, { token });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.length, 2);
      assert.deepEqual(Object.keys(res.body.data[0]).sort(), ENTRY_KEYS);
      assert.equal(res.body.meta.per_page, 2);
      assert.equal(res.body.meta.total, await count('SELECT count(*)::int AS n FROM entries WHERE collection_id = $1', [collection]));
    });

    it('lists only the entries of one source_type when asked, its links keeping the filter', async () => {
      const fresh = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Mixed' } })).body.data.id;
      const entries = ['web', 'file', 'web', 'web'].map((type, i) => ({ raw_text: `Mixed ${i}`, source_type: type, source_id: `m${i}` }));
      await server.call('POST', `/api/v1/collections/${fresh}/entries/batch`, { token, body: { entries } });
      await server.call('POST', `/api/v1/collections/${fresh}/entries`, { token, body: { raw_text: 'No source' } });
      const page1 = await server.call('GET', `/api/v1/collections/${fresh}/entries?source_type=web&per_page=2`, { token });
      assert.deepEqual([page1.status, page1.body.meta.total, page1.body.meta.last_page], [200, 3, 2]);
      assert.deepEqual(page1.body.data.map((e: { source_id: string }) => e.source_id), ['m0', 'm2']);
      assert.equal(new URL(page1.body.links.next).searchParams.get('source_type'), 'web');
      const page2 = await server.call('GET', new URL(page1.body.links.next).pathname + new URL(page1.body.links.next).search, { token });
      assert.deepEqual(page2.body.data.map((e: { source_id: string }) => e.source_id), ['m3']);
      assert.equal((await server.call('GET', `/api/v1/collections/${fresh}/entries?source_type=none`, { token })).body.meta.total, 0);
      assert.equal((await server.call('GET', `/api/v1/collections/${fresh}/entries`, { token })).body.meta.total, 5, 'no filter: all');
      assert.equal((await server.call('GET', `/api/v1/collections/${fresh}/entries?source_type=`, { token })).status, 422);
    });

    it('lists only the fields asked for (and id), without the texts, and refuses unknown fields with 422', async () => {
      const fresh = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Lean' } })).body.data.id;
      await server.call('POST', `/api/v1/collections/${fresh}/entries/batch`, { token, body: { entries: [{ raw_text: 'A long text', source_type: 'web', source_id: 'a', meta: { etag: '"1"' } }] } });
      const lean = await server.call('GET', `/api/v1/collections/${fresh}/entries?source_type=web&fields=source_id,%20meta,source_id&per_page=1`, { token });
      assert.equal(lean.status, 200, JSON.stringify(lean.body));
      assert.deepEqual(Object.keys(lean.body.data[0]).sort(), ['id', 'meta', 'source_id']);
      assert.deepEqual([lean.body.data[0].source_id, lean.body.data[0].meta], ['a', { etag: '"1"' }]);
      assert.equal(new URL(lean.body.links.last).searchParams.get('fields'), 'source_id, meta,source_id', 'links keep the fields');
      const dated = await server.call('GET', `/api/v1/collections/${fresh}/entries?fields=updated_at`, { token });
      assert.match(dated.body.data[0].updated_at, /^\d{4}-\d\d-\d\dT/);
      const unknown = await server.call('GET', `/api/v1/collections/${fresh}/entries?fields=source_id,password`, { token });
      assert.equal(unknown.status, 422);
      assert.match(unknown.body.errors.fields[0], /unknown field "password"/);
      assert.equal((await server.call('GET', `/api/v1/collections/${fresh}/entries?fields=`, { token })).status, 422);
    });

    it('finds entries by a text in their title, source_id or source_url, % and _ taken literally', async () => {
      const fresh = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Findable' } })).body.data.id;
      const entries = [
        { raw_text: 'x', title: 'Reset your Password', source_type: 'doc', source_id: 'a' },
        { raw_text: 'x', title: 'Billing', source_type: 'doc', source_id: 'password-policy' },
        { raw_text: 'x', title: 'Export', source_type: 'web', source_id: 'c', source_url: 'https://docs.example.com/passwords' },
        { raw_text: 'x', title: '100% uptime', source_type: 'web', source_id: 'd_e' },
        { raw_text: 'x', title: 'Other', source_type: 'web', source_id: 'de' },
      ];
      await server.call('POST', `/api/v1/collections/${fresh}/entries/batch`, { token, body: { entries } });
      const found = async (qs: string) => ((await server.call('GET', `/api/v1/collections/${fresh}/entries?${qs}`, { token })).body.data as { source_id: string }[]).map((e) => e.source_id);
      assert.deepEqual(await found('search=PASSWORD'), ['a', 'password-policy', 'c']);
      assert.deepEqual(await found('search=password&source_type=web&fields=source_id'), ['c']);
      assert.deepEqual(await found('search=d_e'), ['d_e'], '_ is no wildcard');
      assert.deepEqual(await found(`search=${encodeURIComponent('%')}`), ['d_e'], '% is no wildcard');
      assert.equal((await server.call('GET', `/api/v1/collections/${fresh}/entries?search=`, { token })).status, 422);
    });

    it('lists entries in the order they were written, batches included', async () => {
      const fresh = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Ordered' } })).body.data.id;
      const entries = Array.from({ length: 8 }, (_, i) => ({ raw_text: `Ordered ${i}`, source_type: 'o', source_id: `o${i}` }));
      await server.call('POST', `/api/v1/collections/${fresh}/entries/batch`, { token, body: { entries } });
      const page1 = await server.call('GET', `/api/v1/collections/${fresh}/entries?per_page=5`, { token });
      const page2 = await server.call('GET', `/api/v1/collections/${fresh}/entries?per_page=5&page=2`, { token });
      const ids = [...page1.body.data, ...page2.body.data].map((e: { source_id: string }) => e.source_id);
      assert.deepEqual(ids, entries.map((e) => e.source_id));
    });

    it('validates sizes and types with field keys', async () => {
      const res = await server.call('POST', base(), {
        token,
        body: { raw_text: 'x'.repeat(500_001), title: 't'.repeat(1001), meta: 'nope', source_id: 7 },
      });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.errors, {
        raw_text: ['The raw_text field must not be greater than 500000 characters.'],
        title: ['The title field must not be greater than 1000 characters.'],
        meta: ['The meta field must be an object.'],
        source_id: ['The source_id field must be a string.'],
      });
      const bigMeta = await server.call('POST', base(), { token, body: { raw_text: 'ok', meta: { blob: 'x'.repeat(17_000) } } });
      assert.equal(bigMeta.status, 422);
      assert.deepEqual(Object.keys(bigMeta.body.errors), ['meta']);
      const badTags = await server.call('POST', base(), { token, body: { raw_text: 'ok', searchable_meta: { tags: [1, 2] } } });
      assert.equal(badTags.status, 422);
      assert.deepEqual(Object.keys(badTags.body.errors), ['searchable_meta.tags']);
      const blank = await server.call('POST', base(), { token, body: { raw_text: '   \n ' } });
      assert.deepEqual([blank.status, blank.body.errors], [422, { raw_text: ['The raw_text field is required.'] }]);
    });

    it('keeps entries of other organisations invisible and untouchable', async () => {
      const mine = (await server.call('POST', base(), { token, body: { raw_text: 'secret', source_type: 's', source_id: '1' } })).body.data;
      const attempts = [
        await server.call('GET', base(), { token: otherToken }),
        await server.call('POST', base(), { token: otherToken, body: { raw_text: 'intrude' } }),
        await server.call('PUT', `${base()}/upsert`, { token: otherToken, body: { raw_text: 'intrude', source_type: 's', source_id: '1' } }),
        await server.call('POST', `${base()}/batch`, { token: otherToken, body: { entries: [{ raw_text: 'i', source_type: 's', source_id: '1' }] } }),
        await server.call('PATCH', `${base()}/${mine.id}`, { token: otherToken, body: { raw_text: 'intrude' } }),
        await server.call('DELETE', `${base()}/${mine.id}`, { token: otherToken }),
        await server.call('DELETE', `${base()}/by-source/s/1`, { token: otherToken }),
      ];
      for (const res of attempts) {
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { message: 'Collection not found.' });
      }
      const otherCollection = (await server.call('POST', '/api/v1/collections', { token: otherToken, body: { name: 'Theirs' } })).body.data.id;
      const crossEntry = await server.call('PATCH', `/api/v1/collections/${otherCollection}/entries/${mine.id}`, { token: otherToken, body: { title: 'x' } });
      assert.deepEqual([crossEntry.status, crossEntry.body], [404, { message: 'Entry not found.' }]);
      const unchanged = await server.call('GET', `${base()}?per_page=100`, { token });
      assert.equal(unchanged.body.data.find((e: { id: string }) => e.id === mine.id).raw_text, 'secret');
    });
  });
}
