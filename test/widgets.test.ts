import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, constantEmbedder, MASTER_KEY, startServer, TIMESTAMP, type TestServer } from './helpers.js';

const ORIGIN = 'https://docs.example.com';

for (const backend of backends()) {
  describe(`widgets [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let otherToken: string;
    let orgPublic: string;
    let docs: string;
    let blog: string;
    let chatbot: string;
    let box: string;
    let foreignBox: string;
    let searchWidget: { key: string; id: string; secret: string };
    let chatWidget: { key: string; id: string; secret: string };

    const manage = (method: string, url: string, body?: unknown, as = token) => server.call(method, `/api/v1${url}`, { token: as, body });
    const post = async (path: string, body: unknown, as = token) => (await manage('POST', path, body, as)).body.data.id as string;
    const createWidget = (body: Record<string, unknown>, as = token) => manage('POST', '/widgets', body, as);
    const apiKey = async (permissions: string[], sourceIds: string[] | null = null, as = token) =>
      (await manage('POST', '/api-keys', { name: 'k', permissions, source_ids: sourceIds }, as)).body.key as string;
    const widgetCall = (method: string, key: string, path: string, opts: { origin?: string; bearer?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
      server.call(method, `/api/v1/${key.replace('/', '/widgets/')}/${path}`, {
        token: opts.bearer ?? null,
        body: opts.body,
        headers: { ...(opts.origin ? { origin: opts.origin } : {}), ...opts.headers },
      });

    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
      const org = await server.createOrg('Acme');
      token = org.token;
      otherToken = (await server.createOrg('Other')).token;
      orgPublic = (await server.container.db.query<{ public_id: string }>('SELECT public_id FROM organisations WHERE id = $1', [org.id]))[0]!.public_id;
      docs = await post('/collections', { name: 'Docs' });
      blog = await post('/collections', { name: 'Blog' });
      const entries = [
        { source_type: 'doc', source_id: 'reset', title: 'Reset your password', raw_text: 'Open Settings, then Security, and choose Reset password.', source_url: 'https://example.com/reset' },
      ];
      await manage('POST', `/collections/${docs}/entries/batch`, { entries });
      chatbot = await post('/integrations', { type: 'chatbot', name: 'Bot', collection_ids: [docs] });
      box = await post('/integrations', { type: 'search_box', name: 'Box', collection_ids: [docs] });
      const foreignCollection = await post('/collections', { name: 'Secret other' }, otherToken);
      foreignBox = await post('/integrations', { type: 'search_box', name: 'Foreign', collection_ids: [foreignCollection] }, otherToken);
      const s = await createWidget({ type: 'search', name: 'Docs search', integration_id: box, websites: ['docs.example.com', 'localhost:8080'] });
      const c = await createWidget({ type: 'chat', name: 'Helper', integration_id: chatbot, websites: ['docs.example.com'], config: { prompts: ['How do I reset?'] } });
      searchWidget = { key: s.body.data.key, id: s.body.data.id, secret: s.body.secret_key };
      chatWidget = { key: c.body.data.key, id: c.body.data.id, secret: c.body.secret_key };
    });
    after(() => server.close());

    it('rate-limits widget routes per client IP', async () => {
      const limited = await startServer(backend, { embedder: constantEmbedder, config: { rateLimits: { perIp: 2, perCredential: 0, answers: 0 } } });
      try {
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await limited.call('GET', `/api/v1/org_none/widgets/wgt_none/config`)).status);
        assert.deepEqual(statuses, [404, 404, 429]);
      } finally {
        await limited.close();
      }
    });

    describe('management', () => {
      it('creates a widget with defaults; secrets are shown once and stored safely', async () => {
        const res = await createWidget({ type: 'chat', name: 'Bot', integration_id: chatbot, websites: ['WWW.Example.com', '127.0.0.1'] });
        assert.equal(res.status, 201);
        assert.deepEqual(Object.keys(res.body).sort(), ['data', 'identity_secret', 'secret_key']);
        const { data, secret_key, identity_secret } = res.body;
        assert.match(data.id, /^wgt_[a-z0-9]{16}$/);
        assert.equal(data.key, `${orgPublic}/${data.id}`);
        assert.deepEqual(data.websites, ['www.example.com', '127.0.0.1']);
        assert.match(data.created_at, TIMESTAMP);
        assert.equal(data.config.type, 'chatbot');
        assert.equal(data.config.variant, 'bubble');
        assert.equal(data.config.branding, true);

        const [row] = await server.container.db.query<{ row: string }>('SELECT w::text AS row FROM widgets w WHERE id = $1', [data.id]);
        assert.ok(!row!.row.includes(secret_key.slice(9)), 'the secret key is stored only hashed');
        for (const res2 of [await manage('GET', `/widgets/${data.id}`), await manage('GET', '/widgets?per_page=100')]) {
          assert.equal(res2.status, 200);
          const text = JSON.stringify(res2.body);
          assert.ok(!text.includes(secret_key) && !text.includes(identity_secret) && !text.includes('lore_wsk_') && !text.includes('lore_wis_'));
        }
      });

      it('lists, updates and deletes, only within the organisation', async () => {
        const list = await manage('GET', '/widgets?per_page=1');
        assert.deepEqual(Object.keys(list.body).sort(), ['data', 'links', 'meta']);
        assert.equal(list.body.data.length, 1);
        const theirs = await manage('GET', '/widgets', undefined, otherToken);
        assert.equal(theirs.body.data.length, 0);
        assert.equal((await manage('GET', `/widgets/${searchWidget.id}`, undefined, otherToken)).status, 404);

        const created = await createWidget({ type: 'search', name: 'Tmp', integration_id: box });
        const id = created.body.data.id;
        const patched = await manage('PATCH', `/widgets/${id}`, { name: 'Renamed', config: { variant: 'inline', accent_light: '#abc', default_language: 'zh-Hant', branding: false } });
        assert.equal(patched.status, 200);
        assert.equal(patched.body.data.name, 'Renamed');
        assert.equal(patched.body.data.config.variant, 'inline');
        assert.equal(patched.body.data.config.accent_light, '#abc');
        assert.equal(patched.body.data.config.default_language, 'zh-Hant');
        const again = await manage('PATCH', `/widgets/${id}`, { config: { theme: 'dark' } });
        assert.equal(again.body.data.config.variant, 'inline', 'config fields are merged over the stored ones');
        assert.equal(patched.body.data.config.branding, true, 'clients cannot turn branding off');
        assert.equal((await manage('PATCH', `/widgets/${id}`, { name: 'x' }, otherToken)).status, 404);
        assert.equal((await manage('DELETE', `/widgets/${id}`)).status, 204);
        assert.equal((await manage('GET', `/widgets/${id}`)).status, 404);
      });

      it('refuses invalid input with 422 and field keys', async () => {
        const bad = await createWidget({
          type: 'search', name: 'Bad', integration_id: box,
          websites: ['ok.example.com', 'https://example.com', 'example.com/path', '*.example.com', 'a b.com'],
          config: { accent_light: 'red', prompts: Array(7).fill('x'), avatar: 'javascript:alert(1)', debounce: -1, default_language: 'xx' },
        });
        assert.equal(bad.status, 422);
        for (const key of ['websites.1', 'websites.2', 'websites.3', 'websites.4', 'config.accent_light', 'config.prompts', 'config.avatar', 'config.debounce', 'config.default_language']) {
          assert.ok(bad.body.errors[key], `${key} in ${JSON.stringify(bad.body.errors)}`);
        }
        assert.ok(!bad.body.errors['websites.0']);
        const long = await createWidget({ type: 'chat', name: 'Bad', integration_id: chatbot, config: { prompts: ['x'.repeat(101)] } });
        assert.ok(long.body.errors['config.prompts.0']);
        const port = await createWidget({ type: 'chat', name: 'Bad', integration_id: chatbot, websites: ['localhost:70000'] });
        assert.ok(port.body.errors['websites.0']);
        const tooMany = await createWidget({ type: 'chat', name: 'Bad', integration_id: chatbot, websites: Array.from({ length: 51 }, (_, i) => `h${i}.com`) });
        assert.ok(tooMany.body.errors.websites);
        const variant = await createWidget({ type: 'chat', name: 'Bad', integration_id: chatbot, config: { variant: 'modal' } });
        assert.ok(variant.body.errors['config.variant']);
        const mismatch = await createWidget({ type: 'chat', name: 'Bad', integration_id: box });
        assert.ok(mismatch.body.errors.integration_id);
        const searchOnChatbot = await createWidget({ type: 'search', name: 'Bad', integration_id: chatbot });
        assert.ok(searchOnChatbot.body.errors.integration_id);
        const foreign = await createWidget({ type: 'search', name: 'Bad', integration_id: foreignBox });
        assert.equal(foreign.status, 422);
        assert.ok(foreign.body.errors.integration_id);
        assert.equal((await createWidget({ type: 'other', name: 'Bad', integration_id: box })).status, 422);
      });

      it('is refused to organisation API keys', async () => {
        const key = await apiKey(['search', 'chat', 'summarize']);
        assert.equal((await manage('GET', '/widgets', undefined, key)).status, 403);
      });

      it('rotates the secret key: the old one stops working at once', async () => {
        const created = await createWidget({ type: 'search', name: 'Rot', integration_id: box });
        const old = created.body.secret_key;
        assert.equal((await widgetCall('GET', created.body.data.key, 'search?query=reset', { bearer: old })).status, 200);
        const rotated = await manage('POST', `/widgets/${created.body.data.id}/rotate-secret`);
        assert.equal(rotated.status, 200);
        assert.notEqual(rotated.body.secret_key, old);
        assert.equal((await widgetCall('GET', created.body.data.key, 'search?query=reset', { bearer: old })).status, 401);
        assert.equal((await widgetCall('GET', created.body.data.key, 'search?query=reset', { bearer: rotated.body.secret_key })).status, 200);
      });
    });

    describe('config', () => {
      it('serves the presentation config to its websites, cacheable with an ETag, varying by Origin', async () => {
        const res = await widgetCall('GET', chatWidget.key, 'config', { origin: ORIGIN });
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, {
          type: 'chatbot', name: 'Helper', variant: 'bubble', accent_light: '#2563eb', accent_dark: '#60a5fa', theme: 'auto',
          branding: true, summary: false, speech_input: false, placeholder: 'Ask a question…', greeting: 'Hi! How can I help you?',
          prompts: ['How do I reset?'], avatar: null, debounce: 1000, default_language: 'en',
        });
        assert.equal(res.headers['cache-control'], 'public, max-age=300');
        assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
        assert.equal(res.headers.vary, 'Origin');
        const etag = String(res.headers.etag);
        assert.equal((await widgetCall('GET', chatWidget.key, 'config', { origin: ORIGIN, headers: { 'if-none-match': etag } })).status, 304);
        const search = await widgetCall('GET', searchWidget.key, 'config', { origin: ORIGIN });
        assert.equal(search.body.type, 'search');
        assert.equal(search.body.variant, 'modal');
        assert.equal(search.headers['access-control-allow-origin'], ORIGIN);
      });

      it('refuses a page off the websites list with 403 and a request without Origin or credential with 401; a bearer the widget accepts reads it privately', async () => {
        const stranger = await widgetCall('GET', chatWidget.key, 'config', { origin: 'https://evil.example' });
        assert.deepEqual([stranger.status, stranger.body], [403, { message: 'This website is not allowed to use this widget.' }]);
        assert.equal(stranger.headers.vary, 'Origin', 'a shared cache cannot hand this answer to another site');
        assert.equal(stranger.headers['access-control-allow-origin'], undefined);
        const cached = await widgetCall('GET', chatWidget.key, 'config', { origin: 'https://evil.example', headers: { 'if-none-match': '*' } });
        assert.equal(cached.status, 403, 'no 304 for an unlisted page either');
        const anonymous = await widgetCall('GET', chatWidget.key, 'config');
        assert.deepEqual([anonymous.status, Object.keys(anonymous.body)], [401, ['message']]);
        // Server-side (no Origin) with the widget's secret or an API key with the permission.
        for (const bearer of [chatWidget.secret, await apiKey(['chat'])]) {
          const server = await widgetCall('GET', chatWidget.key, 'config', { bearer });
          assert.equal(server.status, 200);
          assert.equal(server.body.type, 'chatbot');
          assert.equal(server.headers['cache-control'], 'private, max-age=300');
        }
        assert.equal((await widgetCall('GET', chatWidget.key, 'config', { bearer: searchWidget.secret })).status, 401, "another widget's secret");
        // A page Lore serves itself (same-origin GET: no Origin header) is its host's page.
        const sameOrigin = await widgetCall('GET', chatWidget.key, 'config', { headers: { 'sec-fetch-site': 'same-origin', host: new URL(ORIGIN).host } });
        assert.equal(sameOrigin.status, 200);
      });

      it('is 404 for an unknown organisation or widget', async () => {
        assert.equal((await server.call('GET', `/api/v1/nope/widgets/${chatWidget.id}/config`)).status, 404);
        assert.equal((await server.call('GET', `/api/v1/${orgPublic}/widgets/wgt_unknown/config`)).status, 404);
      });
    });

    describe('widget routes', () => {
      it('search is allowed by origin, by secret and by an API key; adds session_id', async () => {
        const byOrigin = await widgetCall('GET', searchWidget.key, 'search?query=reset+password', { origin: ORIGIN });
        assert.equal(byOrigin.status, 200);
        assert.ok(byOrigin.body.data.length > 0);
        assert.match(byOrigin.body.session_id, /^[0-9a-f-]{36}$/);
        assert.equal(byOrigin.headers['access-control-allow-origin'], ORIGIN);
        assert.equal(byOrigin.headers.vary, 'Origin');
        const byPort = await widgetCall('GET', searchWidget.key, 'search?query=reset&session_id=abc_1', { origin: 'http://localhost:8080' });
        assert.equal(byPort.status, 200);
        assert.equal(byPort.body.session_id, 'abc_1');
        const bySecret = await widgetCall('GET', searchWidget.key, 'search?query=reset', { bearer: searchWidget.secret });
        assert.equal(bySecret.status, 200);
        assert.equal(bySecret.headers['access-control-allow-origin'], undefined);
        const byKey = await widgetCall('GET', searchWidget.key, 'search?query=reset', { bearer: await apiKey(['search'], [docs]) });
        assert.equal(byKey.status, 200);
        assert.equal((await widgetCall('GET', searchWidget.key, `search?query=reset&session_id=${'x'.repeat(65)}`, { origin: ORIGIN })).status, 422);
      });

      it('gives the score breakdown (explain=true) to an organisation API key only, never to a visitor', async () => {
        const path = 'search?query=reset+password&threshold=0&explain=true';
        const parts = (res: { body: { data: { score_breakdown: Record<string, number> }[] } }) => Object.keys(res.body.data[0]!.score_breakdown).sort();
        for (const res of [await widgetCall('GET', searchWidget.key, path, { origin: ORIGIN }), await widgetCall('GET', searchWidget.key, path, { bearer: searchWidget.secret })]) {
          assert.equal(res.status, 200);
          assert.deepEqual(parts(res), ['final_score', 'similarity']);
        }
        const byKey = await widgetCall('GET', searchWidget.key, path, { bearer: await apiKey(['search'], [docs]) });
        assert.equal(byKey.status, 200);
        assert.ok(['bm25', 'cosine', 'lexical', 'vector'].every((k) => parts(byKey).includes(k)), JSON.stringify(byKey.body.data[0].score_breakdown));
      });

      it('refuses requests without a valid credential', async () => {
        const path = 'search?query=reset';
        assert.equal((await widgetCall('GET', searchWidget.key, path)).status, 401);
        const other = await widgetCall('GET', searchWidget.key, path, { origin: 'https://www.docs.example.com' });
        assert.equal(other.status, 403);
        assert.equal(other.headers['access-control-allow-origin'], undefined);
        assert.equal((await widgetCall('GET', searchWidget.key, path, { origin: 'https://docs.example.com:8443' })).status, 403);
        assert.equal((await widgetCall('GET', searchWidget.key, path, { bearer: 'garbage' })).status, 401);
        assert.equal((await widgetCall('GET', searchWidget.key, path, { bearer: chatWidget.secret })).status, 401, 'another widget’s secret');
        assert.equal((await widgetCall('GET', searchWidget.key, path, { bearer: token })).status, 401, 'an API v1 token is no widget credential');
        assert.equal((await widgetCall('GET', searchWidget.key, path, { bearer: await apiKey(['chat', 'summarize']) })).status, 403);
        assert.equal((await widgetCall('GET', searchWidget.key, path, { bearer: await apiKey(['search'], [blog]) })).status, 403);
        assert.equal((await widgetCall('GET', searchWidget.key, path, { bearer: await apiKey(['search'], null, otherToken) })).status, 403);
        const revoked = await manage('POST', '/api-keys', { name: 'r', permissions: ['search'] });
        await manage('DELETE', `/api-keys/${revoked.body.data.id}`);
        assert.equal((await widgetCall('GET', searchWidget.key, path, { bearer: revoked.body.key })).status, 401);
      });

      it('refuses the wrong widget type with 403', async () => {
        const chatOnSearch = await widgetCall('POST', searchWidget.key, 'chat', { origin: ORIGIN, body: { message: 'hi' } });
        assert.equal(chatOnSearch.status, 403);
        assert.ok(chatOnSearch.body.message);
        assert.equal((await widgetCall('GET', chatWidget.key, 'search?query=reset', { origin: ORIGIN })).status, 403);
        assert.equal((await widgetCall('GET', chatWidget.key, 'summarize?query=reset', { origin: ORIGIN })).status, 403);
      });

      it('summarize works by origin and by an API key with the summarize permission only', async () => {
        const res = await widgetCall('GET', searchWidget.key, 'summarize?query=reset+password&stream=false', { origin: ORIGIN });
        assert.equal(res.status, 200);
        assert.equal(typeof res.body.summary, 'string');
        assert.equal((await widgetCall('GET', searchWidget.key, 'summarize?query=reset&stream=false', { bearer: await apiKey(['summarize']) })).status, 200);
        assert.equal((await widgetCall('GET', searchWidget.key, 'summarize?query=reset&stream=false', { bearer: await apiKey(['search']) })).status, 403);
      });

      it('chat streams with X-Conversation-Id and CORS headers; validates context', async () => {
        const res = await widgetCall('POST', chatWidget.key, 'chat', { origin: ORIGIN, body: { message: 'How do I reset my password?', context: { url: 'https://docs.example.com/a' } } });
        assert.equal(res.status, 200);
        assert.match(String(res.headers['content-type']), /^text\/event-stream/);
        assert.ok(res.headers['x-conversation-id']);
        assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
        assert.match(String(res.headers['access-control-expose-headers']), /X-Conversation-Id/);
        assert.ok(String(res.body).trim().endsWith('data: [DONE]'));
        const bySecret = await widgetCall('POST', chatWidget.key, 'chat', { bearer: chatWidget.secret, body: { message: 'reset?', stream: false, context: false } });
        assert.equal(bySecret.status, 200);
        assert.equal(typeof bySecret.body.message, 'string');
        assert.equal((await widgetCall('POST', chatWidget.key, 'chat', { bearer: await apiKey(['chat'], [docs]), body: { message: 'hi', stream: false } })).status, 200);
        assert.equal((await widgetCall('POST', chatWidget.key, 'chat', { bearer: await apiKey(['search']), body: { message: 'hi', stream: false } })).status, 403);
        const big = await widgetCall('POST', chatWidget.key, 'chat', { origin: ORIGIN, body: { message: 'hi', context: { a: 'x'.repeat(5000) } } });
        assert.equal(big.status, 422);
        assert.equal((await widgetCall('POST', chatWidget.key, 'chat', { origin: ORIGIN, body: { message: 'hi', context: 'yes' } })).status, 422);
      });

      it('stores events from both widget types, validated', async () => {
        const event = { name: 'click', url: 'https://example.com/reset', rank: 1, source: 'result', session_id: 'abc' };
        const res = await widgetCall('POST', searchWidget.key, 'events', { origin: ORIGIN, body: event });
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { ok: true });
        assert.equal((await widgetCall('POST', chatWidget.key, 'events', { bearer: chatWidget.secret, body: { name: 'open' } })).status, 200);
        const rows = await server.container.db.query<{ name: string; url: string; rank: number }>('SELECT name, url, rank FROM widget_events WHERE widget_id = $1', [searchWidget.id]);
        assert.deepEqual(rows.map((r) => ({ ...r })), [{ name: 'click', url: event.url, rank: 1 }]);
        const bad = await widgetCall('POST', searchWidget.key, 'events', { origin: ORIGIN, body: { name: '', rank: -1, url: 'x'.repeat(3000) } });
        assert.equal(bad.status, 422);
        for (const key of ['name', 'rank', 'url']) assert.ok(bad.body.errors[key], key);
      });

      it('takes events sent with sendBeacon as text/plain JSON; other routes do not', async () => {
        const beacon = { name: 'click', url: 'https://example.com/beacon', rank: 2, source: 'summary', session_id: 'tab1' };
        const headers = { origin: ORIGIN, 'content-type': 'text/plain;charset=UTF-8' };
        const res = await server.call('POST', `/api/v1/${searchWidget.key.replace('/', '/widgets/')}/events`, { payload: JSON.stringify(beacon), headers });
        assert.equal(res.status, 200);
        const rows = await server.container.db.query<{ url: string }>('SELECT url FROM widget_events WHERE session_id = $1', ['tab1']);
        assert.deepEqual(rows.map((r) => r.url), [beacon.url]);
        const broken = await server.call('POST', `/api/v1/${searchWidget.key.replace('/', '/widgets/')}/events`, { payload: '{"name":', headers });
        assert.equal(broken.status, 400);
        const chat = await server.call('POST', `/api/v1/${chatWidget.key.replace('/', '/widgets/')}/chat`, { payload: JSON.stringify({ message: 'hi' }), headers });
        assert.equal(chat.status, 422);   // Fastify reads text/plain as a string: not a JSON object
      });

      it('answers CORS to an unlisted page only for requests its bearer authorises (the SDK preview token)', async () => {
        const page = 'https://preview.example';
        const pre = await widgetCall('OPTIONS', chatWidget.key, 'chat', { origin: page, headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });
        assert.equal(pre.status, 204);
        assert.equal(pre.headers['access-control-allow-origin'], page);
        const chat = await widgetCall('POST', chatWidget.key, 'chat', { origin: page, bearer: chatWidget.secret, body: { message: 'reset?', stream: false } });
        assert.equal(chat.status, 200);
        assert.equal(chat.headers['access-control-allow-origin'], page);
        const config = await widgetCall('GET', chatWidget.key, 'config', { origin: page, bearer: chatWidget.secret });
        assert.equal(config.headers['access-control-allow-origin'], page);
        // Without a credential, or with a wrong one: no CORS for that page.
        const none = await widgetCall('POST', chatWidget.key, 'chat', { origin: page, body: { message: 'reset?', stream: false } });
        assert.equal(none.status, 403);
        assert.equal(none.headers['access-control-allow-origin'], undefined);
        const wrong = await widgetCall('GET', chatWidget.key, 'config', { origin: page, bearer: searchWidget.secret });
        assert.equal(wrong.status, 401);
        assert.equal(wrong.headers['access-control-allow-origin'], undefined);
        const plain = await widgetCall('OPTIONS', chatWidget.key, 'chat', { origin: page, headers: { 'access-control-request-method': 'POST' } });
        assert.equal(plain.status, 403);
      });

      it('answers CORS preflights for listed origins only', async () => {
        const ok = await widgetCall('OPTIONS', chatWidget.key, 'chat', { origin: ORIGIN, headers: { 'access-control-request-method': 'POST' } });
        assert.equal(ok.status, 204);
        assert.equal(ok.headers['access-control-allow-origin'], ORIGIN);
        assert.match(String(ok.headers['access-control-allow-headers']), /Authorization/);
        assert.match(String(ok.headers['access-control-allow-methods']), /POST/);
        const no = await widgetCall('OPTIONS', chatWidget.key, 'chat', { origin: 'https://evil.example' });
        assert.equal(no.status, 403);
        assert.equal(no.headers['access-control-allow-origin'], undefined);
      });

      it('documents the widget routes in the OpenAPI description', async () => {
        const res = await server.call('GET', '/api/v1/openapi.json');
        assert.equal(res.status, 200);
        for (const path of ['/api/v1/widgets', '/api/v1/{organisation}/widgets/{widget}/chat', '/api/v1/{organisation}/widgets/{widget}/config']) {
          assert.ok(res.body.paths[path], path);
        }
      });

      it('counts widget requests against the organisation’s usage quota', async () => {
        const org = await server.createOrg('Quota');
        // Before any request: the quota is read once per month. Three management calls, one search.
        await server.call('PATCH', `/api/v1/admin/organisations/${org.id}`, { token: MASTER_KEY, body: { usage_quota: 4 } });
        const col = await post('/collections', { name: 'Q' }, org.token);
        const integration = await post('/integrations', { type: 'search_box', name: 'Q', collection_ids: [col] }, org.token);
        const widget = (await createWidget({ type: 'search', name: 'Q', integration_id: integration, websites: ['q.example.com'] }, org.token)).body.data;
        const origin = 'https://q.example.com';
        assert.equal((await widgetCall('GET', widget.key, 'search?query=a', { origin })).status, 200);
        assert.equal((await widgetCall('GET', widget.key, 'search?query=a', { origin })).status, 402);
      });

      it('never returns another organisation’s data', async () => {
        const res = await widgetCall('GET', searchWidget.key, 'search?query=secret+other&per_page=50', { origin: ORIGIN });
        assert.ok(!JSON.stringify(res.body).includes('Secret other'));
        assert.ok(!JSON.stringify(res.body).includes(foreignBox));
      });
    });
  });
}
