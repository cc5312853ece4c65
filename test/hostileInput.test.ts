/**
 * Input a hostile or careless client sends, found by an outside fuzzing probe: each answered
 * 500 before. NUL characters cannot be stored by PostgreSQL (text or jsonb), and a malformed
 * Host header broke the pagination links.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, MASTER_KEY, startServer, type TestServer } from './helpers.js';

for (const backend of backends()) {
  describe(`hostile input (${backend})`, () => {
    let server: TestServer;
    let token: string;
    let collection: string;
    let integration: string;
    before(async () => {
      server = await startServer(backend);
      token = (await server.createOrg()).token;
      collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'docs' } })).body.data.id;
      integration = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'bot', collection_ids: [collection] } })).body.data.id;
    });
    after(() => server.close());

    it('refuses a NUL character anywhere in a JSON body with 422 naming the field, and stores nothing', async () => {
      const cases: { url: string; method: string; body: unknown; field: string; as?: string }[] = [
        { method: 'POST', url: '/api/v1/collections', body: { name: 'a\u0000b' }, field: 'name' },
        { method: 'POST', url: '/api/v1/admin/organisations', body: { name: '\u0000' }, field: 'name', as: MASTER_KEY },
        { method: 'POST', url: `/api/v1/collections/${collection}/entries`, body: { raw_text: 'text with a \u0000 in it' }, field: 'raw_text' },
        { method: 'POST', url: `/api/v1/collections/${collection}/entries`, body: { raw_text: 'ok', meta: { tags: ['x', 'y\u0000'] } }, field: 'meta.tags.1' },
        { method: 'POST', url: `/api/v1/collections/${collection}/entries`, body: { raw_text: 'ok', meta: { 'k\u0000': 1 } }, field: 'meta' },
        { method: 'POST', url: `/api/v1/collections/${collection}/entries/batch`, body: { entries: [{ raw_text: 'fine' }, { raw_text: 'bad\u0000' }] }, field: 'entries.1.raw_text' },
        { method: 'POST', url: `/api/v1/integrations/${integration}/chat`, body: { message: 'hi\u0000', stream: false }, field: 'message' },
      ];
      for (const c of cases) {
        const res = await server.call(c.method, c.url, { token: c.as ?? token, body: c.body });
        assert.equal(res.status, 422, `${c.url} ${JSON.stringify(c.body)} → ${res.status} ${JSON.stringify(res.body)}`);
        assert.equal(typeof res.body.message, 'string');
        assert.deepEqual(Object.keys(res.body.errors), [c.field], JSON.stringify(res.body));
        assert.match(res.body.errors[c.field][0], /NUL/);
      }
      const entries = await server.call('GET', `/api/v1/collections/${collection}/entries`, { token });
      assert.equal(entries.body.meta.total, 0);
    });

    it('refuses a body nested deeper than 64 levels with 422 naming the field (three levels down at most), before anything reads it recursively (it was a 500)', async () => {
      // As JSON text: JSON.stringify itself cannot write a value this deep.
      const nested = (depth: number): string => {
        const open: string[] = [];
        for (let i = 0; i < depth; i++) open.push(i % 2 === 0 ? '[' : '{"a":');
        return open.join('') + '"deep"' + open.reverse().map((o) => (o === '[' ? ']' : '}')).join('');
      };
      const cases: { url: string; payload: string; field: string }[] = [
        { url: `/api/v1/integrations/${integration}/events`, payload: `{"event_type":"click","meta":{"deep":${nested(5_000)}}}`, field: 'meta.deep.0' },
        { url: `/api/v1/collections/${collection}/entries`, payload: `{"raw_text":"ok","meta":${nested(100)}}`, field: 'meta.0.a' },
        { url: `/api/v1/collections/${collection}/entries`, payload: `{"raw_text":"ok","searchable_meta":{"tags":${nested(20_000)}}}`, field: 'searchable_meta.tags.0' },
        { url: `/api/v1/collections/${collection}/entries/batch`, payload: `{"entries":[{"raw_text":"fine"},{"raw_text":"ok","meta":{"x":${nested(70)}}}]}`, field: 'entries.1.meta' },
        { url: '/api/v1/collections', payload: nested(10_000), field: '0.a.0' },
      ];
      const before = (await server.call('GET', `/api/v1/collections/${collection}/entries`, { token })).body.meta.total;
      for (const c of cases) {
        const res = await server.call('POST', c.url, { token, payload: c.payload });
        assert.equal(res.status, 422, `${c.url} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        assert.deepEqual(Object.keys(res.body.errors), [c.field], JSON.stringify(res.body));
        assert.match(res.body.errors[c.field][0], /nested more than 64 levels/);
      }
      assert.equal((await server.call('GET', `/api/v1/collections/${collection}/entries`, { token })).body.meta.total, before, 'nothing stored');
      // Nested as deep as allowed, or as wide as the body limit lets it be: stored, or refused for its size, never a 500.
      const deepest = await server.call('POST', `/api/v1/collections/${collection}/entries`, { token, payload: `{"raw_text":"deep but allowed","meta":{"x":${nested(61)}}}` });
      assert.equal(deepest.status, 201, JSON.stringify(deepest.body).slice(0, 300));
      const wide = await server.call('POST', `/api/v1/integrations/${integration}/events`, { token, body: { event_type: 'click', meta: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])) } });
      assert.equal(wide.status, 422, 'an event’s meta is at most 50 keys');
    });

    it('refuses a NUL character in a query string with 422', async () => {
      for (const url of [`/api/v1/integrations/${integration}/search?query=a%00b`, `/api/v1/integrations/${integration}/summarise?query=%00&stream=false`, '/api/v1/collections?page=1%00', `/api/v1/collections/${collection}/entries/by-source/web/a%00b`]) {
        const res = await server.call('GET', url, { token });
        assert.equal(res.status, 422, `${url} → ${res.status} ${JSON.stringify(res.body)}`);
        assert.equal(typeof res.body.message, 'string');
      }
    });

    it('stores other awkward characters as sent: lone surrogates, zero-width and right-to-left marks', async () => {
      const name = 'a\uD800b\u200B\u202Ec';
      const res = await server.call('POST', '/api/v1/collections', { token, body: { name } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      // A lone surrogate cannot be written as UTF-8: it arrives as U+FFFD.
      assert.equal(res.body.data.name, 'a\uFFFDb\u200B\u202Ec');
    });

    it('stores a lone surrogate in an entry as U+FFFD: its text goes to PostgreSQL inside JSON, which refused it (regression: fuzzing)', async () => {
      const res = await server.call('POST', `/api/v1/collections/${collection}/entries`, { token, body: { raw_text: 'broken \ud800 text', meta: { 'k\udc00': ['\ud83d'] } } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.data.raw_text, 'broken \uFFFD text');
      assert.deepEqual(res.body.data.meta, { 'k\uFFFD': ['\uFFFD'] });
      const patched = await server.call('PATCH', `/api/v1/collections/${collection}/entries/${res.body.data.id}`, { token, body: { raw_text: '\ud800' } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const removed = await server.call('DELETE', `/api/v1/collections/${collection}/entries/${res.body.data.id}`, { token });
      assert.equal(removed.status, 204);
    });

    it('answers a malformed Host header with 400, and builds pagination links from a good one', async () => {
      for (const host of ['evil.com"><script>', 'a b', 'host:99999999', 'exa mple.com:80']) {
        const res = await server.call('GET', '/api/v1/collections', { token, headers: { host } });
        assert.equal(res.status, 400, `${host} → ${res.status}`);
        assert.deepEqual(res.body, { message: 'Malformed Host header.' });
      }
      for (const host of ['docs.example.com', 'docs.example.com:8080', '[::1]:3000', '127.0.0.1', 'lore_app:3000']) {
        const res = await server.call('GET', '/api/v1/collections', { token, headers: { host } });
        assert.equal(res.status, 200, `${host} → ${res.status}`);
        assert.equal(new URL(res.body.links.first).host, host.replace(/:(?:80)$/, ''));
      }
    });
  });
}
