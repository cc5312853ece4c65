import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, constantEmbedder, startServer, type TestServer } from './helpers.js';

const ORIGIN = 'https://docs.example.com';

for (const backend of backends()) {
  describe(`widget feedback names the answer [${backend}]`, () => {
    let server: TestServer;
    let widget: { id: string; path: string };
    const post = (path: string, body: unknown) => server.call('POST', `${widget.path}/${path}`, { body, headers: { origin: ORIGIN } });

    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
      const { token } = await server.createOrg('Acme');
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
      await server.call('POST', `/api/v1/collections/${collection}/entries`, { token, body: { title: 'Reset', raw_text: 'Open Settings, then Security, and choose Reset password.' } });
      const chatbot = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
      const created = (await server.call('POST', '/api/v1/widgets', { token, body: { type: 'chat', name: 'Chat', integration_id: chatbot, websites: ['docs.example.com'] } })).body.data;
      widget = { id: created.id, path: `/api/v1/${created.key.replace('/', '/widgets/')}` };
    });
    after(() => server.close());

    it('stores answer_id (the text_delta message_id) with thumbs_up and thumbs_down, null when absent', async () => {
      const stream = await post('chat', { message: 'How do I reset my password?' });
      const delta = stream.body.split('\n\n').map((b: string) => b.slice(6)).filter((d: string) => d.startsWith('{')).map((d: string) => JSON.parse(d)).find((e: { type: string }) => e.type === 'text_delta');
      const answerId: string = delta.message_id;
      for (const body of [{ name: 'thumbs_up', answer_id: answerId }, { name: 'thumbs_down', answer_id: answerId, session_id: 's1' }, { name: 'open' }, { name: 'close', answer_id: null }]) {
        const res = await post('events', body);
        assert.deepEqual([res.status, res.body], [200, { ok: true }], JSON.stringify(body));
      }
      const rows = await server.container.db.query<{ name: string; answer_id: string | null }>('SELECT name, answer_id FROM widget_events WHERE widget_id = $1 ORDER BY id', [widget.id]);
      assert.deepEqual(rows, [
        { name: 'thumbs_up', answer_id: answerId },
        { name: 'thumbs_down', answer_id: answerId },
        { name: 'open', answer_id: null },
        { name: 'close', answer_id: null },
      ]);
    });

    it('refuses an answer_id that is not a string of 1 to 64 characters with 422', async () => {
      for (const answer_id of ['x'.repeat(65), '', 5]) {
        const res = await post('events', { name: 'thumbs_up', answer_id });
        assert.equal(res.status, 422, JSON.stringify(answer_id));
        assert.deepEqual(Object.keys(res.body.errors), ['answer_id']);
      }
    });
  });
}
