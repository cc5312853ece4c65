import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signVisitor } from '../src/domain/widgets/visitors.js';
import { backends, constantEmbedder, startServer, TIMESTAMP, type TestServer } from './helpers.js';

const ORIGIN = 'https://docs.example.com';
const DAY_MS = 86_400_000;

interface TestWidget {
  key: string;
  id: string;
  identitySecret: string;
}

for (const backend of backends()) {
  describe(`visitor conversations [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let chat: TestWidget;
    let otherChat: TestWidget;
    let search: TestWidget;

    const manage = (method: string, url: string, body?: unknown) => server.call(method, `/api/v1${url}`, { token, body });
    const createWidget = async (body: Record<string, unknown>): Promise<TestWidget> => {
      const res = await manage('POST', '/widgets', body);
      return { key: res.body.data.key, id: res.body.data.id, identitySecret: res.body.identity_secret };
    };
    const widgetCall = (method: string, widget: TestWidget, path: string, body?: unknown) =>
      server.call(method, `/api/v1/${widget.key.replace('/', '/widgets/')}/${path}`, { token: null, body, headers: { origin: ORIGIN } });
    const user = (widget: TestWidget, id: string) => ({ id, hash: signVisitor(id, widget.identitySecret) });
    const query = (widget: TestWidget, id: string) => `user=${encodeURIComponent(id)}&hash=${signVisitor(id, widget.identitySecret)}`;
    const chatAs = async (widget: TestWidget, visitor: { id: string; hash?: string } | undefined, message = 'How do I reset my password?', conversationId?: string) =>
      widgetCall('POST', widget, 'chat', { message, stream: false, user: visitor, conversation_id: conversationId });
    const stored = async (id: string) =>
      (await server.container.db.query<{ widget_id: string | null; visitor_id: string | null }>('SELECT widget_id, visitor_id FROM conversations WHERE id = $1', [id]))[0];

    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
      token = (await server.createOrg('Acme')).token;
      const docs = (await manage('POST', '/collections', { name: 'Docs' })).body.data.id;
      const entries = [{ source_type: 'doc', source_id: 'reset', title: 'Reset your password', raw_text: 'Open Settings, then Security, and choose Reset password.', source_url: 'https://example.com/reset' }];
      await manage('POST', `/collections/${docs}/entries/batch`, { entries });
      const chatbot = (await manage('POST', '/integrations', { type: 'chatbot', name: 'Bot', collection_ids: [docs] })).body.data.id;
      const box = (await manage('POST', '/integrations', { type: 'search_box', name: 'Box', collection_ids: [docs] })).body.data.id;
      chat = await createWidget({ type: 'chat', name: 'Helper', integration_id: chatbot, websites: ['docs.example.com'] });
      otherChat = await createWidget({ type: 'chat', name: 'Other helper', integration_id: chatbot, websites: ['docs.example.com'] });
      search = await createWidget({ type: 'search', name: 'Search', integration_id: box, websites: ['docs.example.com'] });
    });
    after(() => server.close());

    it('stores a signed visitor’s chat as theirs, anonymous chats without a visitor, and continues only their own', async () => {
      const signed = await chatAs(chat, user(chat, 'alice'));
      assert.equal(signed.status, 200);
      const id = signed.body.conversation_id;
      assert.deepEqual({ ...(await stored(id)) }, { widget_id: chat.id, visitor_id: 'alice' });
      assert.equal((await chatAs(chat, user(chat, 'alice'), 'and then?', id)).status, 200);

      const anonymous = await chatAs(chat, undefined);
      assert.deepEqual({ ...(await stored(anonymous.body.conversation_id)) }, { widget_id: chat.id, visitor_id: null });
      // An id without a hash is an anonymous visitor (no history).
      const unsigned = await chatAs(chat, { id: 'alice' });
      assert.equal(unsigned.status, 200);
      assert.deepEqual({ ...(await stored(unsigned.body.conversation_id)) }, { widget_id: chat.id, visitor_id: null });

      // Someone else's conversation cannot be continued: another visitor, anonymously, or through another widget.
      assert.equal((await chatAs(chat, user(chat, 'bob'), 'more', id)).status, 404);
      assert.equal((await chatAs(chat, undefined, 'more', id)).status, 404);
      assert.equal((await chatAs(otherChat, user(otherChat, 'alice'), 'more', id)).status, 404);
    });

    it('refuses a wrong hash with 403 on chat and every conversation route, never as anonymous', async () => {
      const wrong = [
        { id: 'alice', hash: signVisitor('alice', otherChat.identitySecret) },
        { id: 'alice', hash: 'zz' },
        { id: 'alice', hash: '0'.repeat(64) },
        { id: 'alice', hash: signVisitor('alice', chat.identitySecret).slice(0, 62) },
      ];
      for (const visitor of wrong) {
        const res = await chatAs(chat, visitor);
        assert.equal(res.status, 403, visitor.hash);
        assert.equal(typeof res.body.message, 'string');
      }
      const bad = `user=alice&hash=${signVisitor('bob', chat.identitySecret)}`;
      const someId = '00000000-0000-4000-8000-000000000000';
      for (const [method, path] of [
        ['GET', `conversations?${bad}`],
        ['GET', `conversations/${someId}?${bad}`],
        ['POST', `conversations/${someId}/keep?${bad}`],
        ['DELETE', `conversations/${someId}?${bad}`],
        ['DELETE', `conversations?${bad}`],
      ] as const) {
        assert.equal((await widgetCall(method, chat, path)).status, 403, `${method} ${path}`);
      }
      assert.equal((await widgetCall('DELETE', chat, 'conversations', { user: 'alice', hash: 'nope' })).status, 403);
    });

    it('lists, reads, keeps, releases and deletes a visitor’s conversations', async () => {
      const visitor = 'carol@example.com';
      const first = (await chatAs(chat, user(chat, visitor), 'How do I reset my password?')).body.conversation_id;
      const second = (await chatAs(chat, user(chat, visitor), 'Where is Security?')).body.conversation_id;
      await chatAs(chat, user(chat, 'dave'));
      await chatAs(otherChat, user(otherChat, visitor));

      const list = await widgetCall('GET', chat, `conversations?${query(chat, visitor)}&per_page=1`);
      assert.equal(list.status, 200);
      assert.equal(list.body.meta.total, 2);
      assert.equal(list.body.data.length, 1);
      const [newest] = list.body.data;
      assert.deepEqual(Object.keys(newest).sort(), ['created_at', 'id', 'kept', 'message_count', 'title', 'updated_at']);
      assert.equal(newest.id, second);
      assert.equal(newest.title, 'Where is Security?');
      assert.equal(newest.kept, false);
      assert.equal(newest.message_count, 2);
      assert.match(newest.updated_at, TIMESTAMP);
      const page2 = await widgetCall('GET', chat, `conversations?page=2&per_page=1&${query(chat, visitor)}`);
      assert.equal(page2.body.data[0].id, first);

      const one = await widgetCall('GET', chat, `conversations/${first}?${query(chat, visitor)}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.data.id, first);
      assert.equal(one.body.data.kept, false);
      assert.deepEqual(one.body.data.messages.map((m: { role: string }) => m.role), ['user', 'assistant']);
      assert.equal(one.body.data.messages[0].content, 'How do I reset my password?');
      assert.ok(Array.isArray(one.body.data.messages[1].citations));
      assert.match(one.body.data.messages[0].created_at, TIMESTAMP);

      // Another visitor, another widget, or a malformed id: 404.
      assert.equal((await widgetCall('GET', chat, `conversations/${first}?${query(chat, 'dave')}`)).status, 404);
      assert.equal((await widgetCall('GET', otherChat, `conversations/${first}?${query(otherChat, visitor)}`)).status, 404);
      assert.equal((await widgetCall('GET', chat, `conversations/not-a-uuid?${query(chat, visitor)}`)).status, 404);
      assert.equal((await widgetCall('GET', otherChat, `conversations?${query(otherChat, visitor)}`)).body.meta.total, 1);

      // The identity may come in the body too.
      const kept = await widgetCall('POST', chat, `conversations/${first}/keep`, { user: visitor, hash: signVisitor(visitor, chat.identitySecret) });
      assert.equal(kept.status, 200);
      assert.equal(kept.body.data.kept, true);
      const released = await widgetCall('POST', chat, `conversations/${first}/keep?${query(chat, visitor)}`, { kept: false });
      assert.equal(released.body.data.kept, false);
      assert.equal((await widgetCall('POST', chat, `conversations/${first}/keep?${query(chat, visitor)}`, { kept: 'yes' })).status, 422);
      assert.equal((await widgetCall('POST', chat, `conversations/${first}/keep?${query(chat, 'dave')}`)).status, 404);

      assert.equal((await widgetCall('DELETE', chat, `conversations/${first}?${query(chat, 'dave')}`)).status, 404);
      assert.equal((await widgetCall('DELETE', chat, `conversations/${first}?${query(chat, visitor)}`)).status, 204);
      assert.equal((await widgetCall('GET', chat, `conversations/${first}?${query(chat, visitor)}`)).status, 404);
      assert.equal((await widgetCall('DELETE', chat, `conversations/${first}?${query(chat, visitor)}`)).status, 404);

      assert.equal((await widgetCall('DELETE', chat, 'conversations', { user: visitor, hash: signVisitor(visitor, chat.identitySecret) })).status, 204);
      assert.equal((await widgetCall('GET', chat, `conversations?${query(chat, visitor)}`)).body.meta.total, 0);
      // Only this widget's and this visitor's went.
      assert.equal((await widgetCall('GET', otherChat, `conversations?${query(otherChat, visitor)}`)).body.meta.total, 1);
      assert.equal((await widgetCall('GET', chat, `conversations?${query(chat, 'dave')}`)).body.meta.total, 1);
    });

    it('needs a visitor identity, the widget credential and a chat widget', async () => {
      const missing = await widgetCall('GET', chat, 'conversations');
      assert.equal(missing.status, 422);
      assert.deepEqual(Object.keys(missing.body.errors).sort(), ['hash', 'user']);
      const noHash = await widgetCall('GET', chat, 'conversations?user=alice');
      assert.equal(noHash.status, 422);
      assert.deepEqual(Object.keys(noHash.body.errors), ['hash']);
      const anonymousCaller = await server.call('GET', `/api/v1/${chat.key.replace('/', '/widgets/')}/conversations?${query(chat, 'alice')}`, { token: null });
      assert.equal(anonymousCaller.status, 401);
      assert.equal((await widgetCall('GET', search, `conversations?${query(search, 'alice')}`)).status, 403);
      assert.equal((await widgetCall('DELETE', search, `conversations?${query(search, 'alice')}`)).status, 403);
      const preflight = await widgetCall('OPTIONS', chat, 'conversations/00000000-0000-4000-8000-000000000000/keep');
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], ORIGIN);
    });

    it('expires conversations not kept once idle for the TTL; kept and recent ones stay', async () => {
      const visitor = 'erin';
      const old = (await chatAs(chat, user(chat, visitor))).body.conversation_id;
      const oldKept = (await chatAs(chat, user(chat, visitor))).body.conversation_id;
      const oldAnonymous = (await chatAs(chat, undefined)).body.conversation_id;
      const recent = (await chatAs(chat, user(chat, visitor))).body.conversation_id;
      assert.equal((await widgetCall('POST', chat, `conversations/${oldKept}/keep?${query(chat, visitor)}`)).status, 200);
      const now = new Date();
      const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();
      await server.container.db.query('UPDATE conversations SET updated_at = $2 WHERE id = ANY($1::uuid[])', [[old, oldKept, oldAnonymous], daysAgo(31)]);
      await server.container.db.query('UPDATE conversations SET updated_at = $2 WHERE id = $1', [recent, daysAgo(29)]);

      assert.equal(await server.container.deps.visitors.expire(now), 2);
      const left = new Set((await server.container.db.query<{ id: string }>('SELECT id::text AS id FROM conversations')).map((r) => r.id));
      assert.deepEqual([old, oldKept, oldAnonymous, recent].map((id) => left.has(id)), [false, true, false, true]);
    });
  });
}
