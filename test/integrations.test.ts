import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, startServer, TIMESTAMP, UUID, type TestServer } from './helpers.js';

const KEYS = ['allowed_domains', 'collection_ids', 'created_at', 'id', 'is_active', 'name', 'project', 'settings', 'type', 'updated_at'];

for (const backend of backends()) {
  describe(`integrations [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let otherToken: string;
    let docs: string;
    let blog: string;
    let foreign: string;

    before(async () => {
      server = await startServer(backend);
      token = (await server.createOrg('Acme')).token;
      otherToken = (await server.createOrg('Other')).token;
      const make = async (t: string, name: string) => (await server.call('POST', '/api/v1/collections', { token: t, body: { name } })).body.data.id;
      docs = await make(token, 'Docs');
      blog = await make(token, 'Blog');
      foreign = await make(otherToken, 'Theirs');
    });
    after(() => server.close());

    it('creates a chatbot with its settings and defaults', async () => {
      const res = await server.call('POST', '/api/v1/integrations', {
        token,
        body: { type: 'chatbot', name: 'Helper', collection_ids: [docs, blog], welcome_message: 'Hi!', persona: 'technical-expert' },
      });
      assert.equal(res.status, 201);
      const i = res.body.data;
      assert.deepEqual(Object.keys(i).sort(), KEYS);
      assert.match(i.id, UUID);
      assert.match(i.created_at, TIMESTAMP);
      assert.deepEqual(
        { ...i, id: 0, created_at: 0, updated_at: 0 },
        {
          id: 0, name: 'Helper', project: null, type: 'chatbot', allowed_domains: null, is_active: true,
          settings: { welcome_message: 'Hi!', instructions: null, persona: 'technical-expert', unknown_answer_message: null, typo_tolerance: true },
          collection_ids: [docs, blog], created_at: 0, updated_at: 0,
        },
      );
    });

    it('fills search_box and custom defaults, and accepts a settings object', async () => {
      const box = await server.call('POST', '/api/v1/integrations', { token, body: { type: 'search_box', name: 'Box', collection_ids: [docs] } });
      assert.deepEqual(box.body.data.settings, { placeholder: 'Search...', results_display: 'results', typo_tolerance: true });
      const nested = await server.call('POST', '/api/v1/integrations', {
        token,
        body: { type: 'search_box', name: 'Box 2', collection_ids: [docs], settings: { results_display: 'summary_results', placeholder: 'Ask…' } },
      });
      assert.deepEqual(nested.body.data.settings, { placeholder: 'Ask…', results_display: 'summary_results', typo_tolerance: true });
      const custom = await server.call('POST', '/api/v1/integrations', { token, body: { type: 'custom', name: 'C', collection_ids: [docs], label: 'Mine', persona: 'sales-assistant' } });
      assert.deepEqual(custom.body.data.settings, { label: 'Mine', typo_tolerance: true });
    });

    it('validates type, enums, required fields and collection ownership', async () => {
      const missing = await server.call('POST', '/api/v1/integrations', { token, body: {} });
      assert.equal(missing.status, 422);
      assert.deepEqual(Object.keys(missing.body.errors).sort(), ['collection_ids', 'name', 'type']);
      const badType = await server.call('POST', '/api/v1/integrations', { token, body: { type: 'robot', name: 'x', collection_ids: [docs] } });
      assert.deepEqual(badType.body.errors, { type: ['The selected type is invalid.'] });
      const badPersona = await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'x', collection_ids: [docs], persona: 'pirate' } });
      assert.equal(badPersona.status, 422);
      assert.deepEqual(Object.keys(badPersona.body.errors), ['persona']);
      const badDisplay = await server.call('POST', '/api/v1/integrations', { token, body: { type: 'search_box', name: 'x', collection_ids: [docs], results_display: 'cards' } });
      assert.deepEqual(Object.keys(badDisplay.body.errors), ['results_display']);
      const notMine = await server.call('POST', '/api/v1/integrations', { token, body: { type: 'custom', name: 'x', collection_ids: [docs, foreign, 'nope'] } });
      assert.equal(notMine.status, 422);
      assert.deepEqual(notMine.body.errors, {
        'collection_ids.1': ['The selected collection_ids.1 is invalid.'],
        'collection_ids.2': ['The selected collection_ids.2 is invalid.'],
      });
      const badDomain = await server.call('POST', '/api/v1/integrations', { token, body: { type: 'custom', name: 'x', collection_ids: [docs], allowed_domains: ['example.com', 'https://x.com/path'] } });
      assert.deepEqual(Object.keys(badDomain.body.errors), ['allowed_domains.1']);
    });

    it('updates fields but never the type, and toggles is_active', async () => {
      const created = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [docs], project: 'web' } })).body.data;
      const changeType = await server.call('PATCH', `/api/v1/integrations/${created.id}`, { token, body: { type: 'custom' } });
      assert.deepEqual([changeType.status, changeType.body.errors], [422, { type: ['The type field cannot be changed.'] }]);
      const off = await server.call('PATCH', `/api/v1/integrations/${created.id}`, {
        token,
        body: { is_active: false, instructions: 'Be brief.', collection_ids: [blog], allowed_domains: ['docs.example.com'] },
      });
      assert.equal(off.status, 200);
      assert.equal(off.body.data.is_active, false);
      assert.equal(off.body.data.settings.instructions, 'Be brief.');
      assert.equal(off.body.data.settings.persona, 'customer-support');
      assert.deepEqual(off.body.data.collection_ids, [blog]);
      assert.deepEqual(off.body.data.allowed_domains, ['docs.example.com']);
      assert.equal(off.body.data.project, 'web');
      const shown = await server.call('GET', `/api/v1/integrations/${created.id}`, { token });
      assert.deepEqual(shown.body, off.body);
      const on = await server.call('PATCH', `/api/v1/integrations/${created.id}`, { token, body: { is_active: true } });
      assert.equal(on.body.data.is_active, true);
    });

    it('lists with type and project filters', async () => {
      await server.call('POST', '/api/v1/integrations', { token, body: { type: 'custom', name: 'P1', collection_ids: [docs], project: 'alpha' } });
      await server.call('POST', '/api/v1/integrations', { token, body: { type: 'search_box', name: 'P2', collection_ids: [docs], project: 'alpha' } });
      const alpha = await server.call('GET', '/api/v1/integrations?project=alpha', { token });
      assert.deepEqual(alpha.body.data.map((i: { name: string }) => i.name), ['P1', 'P2']);
      const boxes = await server.call('GET', '/api/v1/integrations?type=search_box&project=alpha', { token });
      assert.deepEqual(boxes.body.data.map((i: { name: string }) => i.name), ['P2']);
      const all = await server.call('GET', '/api/v1/integrations?per_page=2', { token });
      assert.equal(all.body.data.length, 2);
      assert.ok(all.body.meta.total >= 5);
    });

    it('drops a deleted collection from its integrations', async () => {
      const extra = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Temp' } })).body.data.id;
      const i = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'custom', name: 'T', collection_ids: [docs, extra] } })).body.data;
      await server.call('DELETE', `/api/v1/collections/${extra}`, { token });
      const shown = await server.call('GET', `/api/v1/integrations/${i.id}`, { token });
      assert.deepEqual(shown.body.data.collection_ids, [docs]);
    });

    it('isolates organisations and deletes', async () => {
      const mine = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'custom', name: 'Mine', collection_ids: [docs] } })).body.data;
      for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'x' }], ['DELETE', undefined]] as const) {
        const res = await server.call(method, `/api/v1/integrations/${mine.id}`, { token: otherToken, body });
        assert.deepEqual([res.status, res.body], [404, { message: 'Integration not found.' }]);
      }
      const theirs = await server.call('GET', '/api/v1/integrations?per_page=100', { token: otherToken });
      assert.deepEqual(theirs.body.data, []);
      assert.equal((await server.call('DELETE', `/api/v1/integrations/${mine.id}`, { token })).status, 204);
      assert.equal((await server.call('GET', `/api/v1/integrations/${mine.id}`, { token })).status, 404);
    });
  });
}
