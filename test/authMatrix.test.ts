import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signVisitor } from '../src/domain/widgets/visitors.js';
import { backends, constantEmbedder, startServer, type Response, type TestServer } from './helpers.js';

/**
 * Authorisation matrix (issue 5, deliverable 7; SPEC.md "Authentication", "Widget authentication"):
 * every widget route and every pages route × every kind of credential → the expected status,
 * and no response body ever carries the other organisation's identifiers, names or texts.
 */

/** The credentials of the matrix, one column each. */
const CREDS = ['origin', 'otherOrigin', 'none', 'secret', 'otherSecret', 'secretB', 'keyWith', 'keyWithout', 'keyLimited', 'keyB', 'revoked'] as const;
type Cred = (typeof CREDS)[number];

/**
 * The expected statuses, as data, in the order of CREDS:
 *   origin       the widget's own website (https://docs.a.example) as Origin, no bearer
 *   otherOrigin  an Origin not on the websites list, no bearer
 *   none         no Origin, no bearer
 *   secret       the widget's own secret key as bearer
 *   otherSecret  the secret of A's other widget (same organisation)
 *   secretB      the secret of B's widget of the same type
 *   keyWith      an API key of A holding the route's permission (all sources)
 *   keyWithout   an API key of A lacking it
 *   keyLimited   an API key of A with every permission, limited to A's other collection
 *   keyB         B's API key with every permission
 *   revoked      a revoked API key of A (had every permission)
 */
const WIDGET_MATRIX: Record<string, readonly number[]> = {
  //                              origin oOrig none secret oSec  secB  kWith kW/o  kLim  keyB  revoked
  // config: "authorised by page origin on the widget's websites list" (SPEC), or a bearer, like the rest.
  'GET config (chat)':            [200,  403,  401,  200,  401,  401,  200,  403,  403,  403,  401],
  'GET search':                   [200,  403,  401,  200,  401,  401,  200,  403,  403,  403,  401],
  'GET summarize':                [200,  403,  401,  200,  401,  401,  200,  403,  403,  403,  401],
  'POST chat':                    [200,  403,  401,  200,  401,  401,  200,  403,  403,  403,  401],
  'POST events (search)':         [200,  403,  401,  200,  401,  401,  200,  403,  403,  403,  401],
  'POST events (chat)':           [200,  403,  401,  200,  401,  401,  200,  403,  403,  403,  401],
  // Wrong widget type: authorisation runs first, so refused credentials keep their 401/403; an
  // accepted one meets the type check → 403.
  'GET search (chat widget)':     [403,  403,  401,  403,  401,  401,  403,  403,  403,  403,  401],
  'GET conversations':            [200,  403,  401,  200,  401,  401,  200,  403,  403,  403,  401],
  'GET conversations/:id':        [200,  403,  401,  200,  401,  401,  200,  403,  403,  403,  401],
  'POST conversations/:id/keep':  [200,  403,  401,  200,  401,  401,  200,  403,  403,  403,  401],
  'DELETE conversations/:id':     [204,  403,  401,  204,  401,  401,  204,  403,  403,  403,  401],
  'DELETE conversations':         [204,  403,  401,  204,  401,  401,  204,  403,  403,  403,  401],
};

/**
 * Pages routes (API keys or an API v1 token only). Origin and widget secrets are no credential
 * here: an Origin alone is "no credential" (401), and a widget secret is an unknown bearer (401).
 */
const PAGES_MATRIX: Record<string, readonly number[]> = {
  //                              origin oOrig none secret oSec  secB  kWith kW/o  kLim  keyB  revoked
  // GET /me needs no permission: every valid key gets 200 (keyB sees B, checked for A's data).
  'GET /me':                      [401,  401,  401,  401,  401,  401,  200,  200,  200,  200,  401],
  'GET pages':                    [401,  401,  401,  401,  401,  401,  200,  403,  403,  403,  401],
  'POST pages (upsert)':          [401,  401,  401,  401,  401,  401,  200,  403,  403,  403,  401],
  'PATCH pages/:page':            [401,  401,  401,  401,  401,  401,  200,  403,  403,  403,  401],
  'DELETE pages/:page':           [401,  401,  401,  401,  401,  401,  204,  403,  403,  403,  401],
};

const ALL = ['pages.read', 'pages.write', 'search', 'chat', 'summarize'];
const ORIGIN_A = 'https://docs.a.example';
const ORIGIN_B = 'https://docs.b.example';
const OTHER_ORIGIN = 'https://evil.example';

interface Widget { key: string; id: string; secret: string; identitySecret: string }
interface Org {
  id: number;
  token: string;
  publicId: string;
  docs: string;
  other: string;
  chatbot: string;
  box: string;
  chat: Widget;
  search: Widget;
  keys: Record<string, string>;
  markers: string[];
}

for (const backend of backends()) {
  describe(`authorisation matrix [${backend}]`, () => {
    let server: TestServer;
    let a: Org;
    let b: Org;
    let pageId: string;

    const manage = async (method: string, url: string, token: string, body?: unknown) => {
      const res = await server.call(method, `/api/v1${url}`, { token, body });
      assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    };
    const apiKey = async (org: { token: string }, permissions: string[], source_ids: string[] | null = null) =>
      (await manage('POST', '/api-keys', org.token, { name: `k ${permissions.join(',')}`, permissions, source_ids })).body.key as string;

    async function buildOrg(name: string, letter: 'a' | 'b', text: string): Promise<Org> {
      const created = await server.createOrg(name);
      const token = created.token;
      const publicId = (await server.container.db.query<{ public_id: string }>('SELECT public_id FROM organisations WHERE id = $1', [created.id]))[0]!.public_id;
      const docs = (await manage('POST', '/collections', token, { name: `${name} docs` })).body.data.id as string;
      const other = (await manage('POST', '/collections', token, { name: `${name} archive` })).body.data.id as string;
      const entries = [{ source_type: 'doc', source_id: `${letter}-reset`, title: `${name} reset`, raw_text: `${text} reset password settings.`, source_url: `https://docs.${letter}.example/reset` }];
      await manage('POST', `/collections/${docs}/entries/batch`, token, { entries });
      const chatbot = (await manage('POST', '/integrations', token, { type: 'chatbot', name: `${name} bot`, collection_ids: [docs] })).body.data.id as string;
      const box = (await manage('POST', '/integrations', token, { type: 'search_box', name: `${name} box`, collection_ids: [docs] })).body.data.id as string;
      const widget = async (type: string, integration_id: string): Promise<Widget> => {
        const res = await manage('POST', '/widgets', token, { type, name: `${name} ${type} widget`, integration_id, websites: [`docs.${letter}.example`] });
        return { key: res.body.data.key, id: res.body.data.id, secret: res.body.secret_key, identitySecret: res.body.identity_secret };
      };
      const chat = await widget('chat', chatbot);
      const search = await widget('search', box);
      const markers = [name, publicId, docs, other, chatbot, box, chat.id, search.id, text, `${name} docs`, `${name} archive`];
      return { id: created.id, token, publicId, docs, other, chatbot, box, chat, search, keys: {}, markers };
    }

    /** Asserts the status, and that no marker of `foreign` appears anywhere in the response. */
    function check(res: Response, expected: number, label: string, foreign: Org): void {
      assert.equal(res.status, expected, `${label}: got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      const text = JSON.stringify(res.body) + JSON.stringify(res.headers);
      for (const marker of foreign.markers) assert.ok(!text.includes(marker), `${label} leaked ${marker}`);
    }

    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
      a = await buildOrg('Acme Alpha', 'a', 'Aardvark');
      b = await buildOrg('Beta Bravo', 'b', 'Zanzibar');
      for (const p of ALL) a.keys[p] = await apiKey(a, [p]);
      a.keys.all = await apiKey(a, ALL);
      a.keys.limited = await apiKey(a, ALL, [a.other]);
      const revoked = await manage('POST', '/api-keys', a.token, { name: 'revoked', permissions: ALL, source_ids: null });
      a.keys.revoked = revoked.body.key;
      await manage('DELETE', `/api-keys/${revoked.body.data.id}`, a.token);
      b.keys.all = await apiKey(b, ALL);
      // Sanity: the revoked key is the one refused, the others still work.
      assert.equal((await server.call('GET', '/api/v1/me', { token: a.keys.revoked })).status, 401);
      assert.equal((await server.call('GET', '/api/v1/me', { token: a.keys.all })).status, 200);
      // A page in each organisation (B's carries B's text, so a leak would show).
      pageId = (await manage('POST', `/sources/${a.docs}/pages`, a.keys.all, { url: 'https://docs.a.example/page', title: 'Acme page', raw_text: 'Aardvark page.' })).body.data.id;
      const bPage = await manage('POST', `/sources/${b.docs}/pages`, b.keys.all, { url: 'https://docs.b.example/page', title: 'Beta page', raw_text: 'Zanzibar page.' });
      b.markers.push(bPage.body.data.id);
    });
    after(() => server.close());

    /** Headers and bearer for a credential column against widget `w` of org A (route needs `permission`). */
    function credential(cred: Cred, w: Widget, otherW: Widget, bW: Widget, permission: string, without: string) {
      switch (cred) {
        case 'origin': return { headers: { origin: ORIGIN_A } };
        case 'otherOrigin': return { headers: { origin: OTHER_ORIGIN } };
        case 'none': return {};
        case 'secret': return { token: w.secret };
        case 'otherSecret': return { token: otherW.secret };
        case 'secretB': return { token: bW.secret };
        case 'keyWith': return { token: a.keys[permission]! };
        case 'keyWithout': return { token: a.keys[without]! };
        case 'keyLimited': return { token: a.keys.limited! };
        case 'keyB': return { token: b.keys.all! };
        case 'revoked': return { token: a.keys.revoked! };
      }
    }

    const widgetPath = (w: Widget, path: string) => `/api/v1/${w.key.replace('/', '/widgets/')}/${path}`;
    const visitorQuery = (w: Widget, user: string) => `user=${encodeURIComponent(user)}&hash=${signVisitor(user, w.identitySecret)}`;
    /** A fresh conversation of `user` through A's chat widget. */
    const conversation = async (user: string) => {
      const res = await server.call('POST', widgetPath(a.chat, 'chat'), {
        headers: { origin: ORIGIN_A }, body: { message: 'How do I reset my password?', stream: false, user: { id: user, hash: signVisitor(user, a.chat.identitySecret) } },
      });
      assert.equal(res.status, 200);
      return res.body.conversation_id as string;
    };

    it('widget routes × credentials', async () => {
      const aliceConversation = await conversation('alice');
      type Row = { method: string; widget: Widget; otherW: Widget; bW: Widget; permission: string; without: string; path: string | (() => Promise<string>); body?: unknown };
      const chatW = () => ({ widget: a.chat, otherW: a.search, bW: b.chat });
      const searchW = () => ({ widget: a.search, otherW: a.chat, bW: b.search });
      const rows: Record<string, Row> = {
        'GET config (chat)': { method: 'GET', ...chatW(), permission: 'chat', without: 'search', path: 'config' },
        'GET search': { method: 'GET', ...searchW(), permission: 'search', without: 'chat', path: 'search?query=reset' },
        'GET summarize': { method: 'GET', ...searchW(), permission: 'summarize', without: 'search', path: 'summarize?query=reset&stream=false' },
        'POST chat': { method: 'POST', ...chatW(), permission: 'chat', without: 'search', path: 'chat', body: { message: 'reset?', stream: false } },
        'POST events (search)': { method: 'POST', ...searchW(), permission: 'search', without: 'chat', path: 'events', body: { name: 'open' } },
        'POST events (chat)': { method: 'POST', ...chatW(), permission: 'search', without: 'chat', path: 'events', body: { name: 'open' } },
        'GET search (chat widget)': { method: 'GET', ...chatW(), permission: 'search', without: 'chat', path: 'search?query=reset' },
        'GET conversations': { method: 'GET', ...chatW(), permission: 'chat', without: 'search', path: `conversations?${visitorQuery(a.chat, 'alice')}` },
        'GET conversations/:id': { method: 'GET', ...chatW(), permission: 'chat', without: 'search', path: `conversations/${aliceConversation}?${visitorQuery(a.chat, 'alice')}` },
        'POST conversations/:id/keep': { method: 'POST', ...chatW(), permission: 'chat', without: 'search', path: `conversations/${aliceConversation}/keep?${visitorQuery(a.chat, 'alice')}`, body: { kept: true } },
        // A fresh conversation per cell, so an allowed cell deletes its own and a refused one would find it.
        'DELETE conversations/:id': { method: 'DELETE', ...chatW(), permission: 'chat', without: 'search', path: async () => `conversations/${await conversation('carol')}?${visitorQuery(a.chat, 'carol')}` },
        'DELETE conversations': { method: 'DELETE', ...chatW(), permission: 'chat', without: 'search', path: `conversations?${visitorQuery(a.chat, 'carol')}` },
      };
      assert.deepEqual(Object.keys(rows).sort(), Object.keys(WIDGET_MATRIX).sort(), 'every row has its expectations');
      const failures: string[] = [];
      for (const [label, row] of Object.entries(rows)) {
        for (const [i, cred] of CREDS.entries()) {
          const expected = WIDGET_MATRIX[label]![i]!;
          const path = typeof row.path === 'function' ? await row.path() : row.path;
          const res = await server.call(row.method, widgetPath(row.widget, path), { ...credential(cred, row.widget, row.otherW, row.bW, row.permission, row.without), body: row.body });
          try {
            check(res, expected, `${label} × ${cred}`, b);
            // The leak check means something: an allowed search does return A's own text.
            if (label === 'GET search' && cred === 'origin') assert.ok(JSON.stringify(res.body).includes('Aardvark'), 'A’s search finds A’s entry');
          } catch (error) {
            failures.push((error as Error).message);
          }
        }
      }
      assert.deepEqual(failures, []);
    });

    it('pages routes × credentials', async () => {
      const freshPage = async () =>
        (await manage('POST', `/sources/${a.docs}/pages`, a.keys.all!, { url: `https://docs.a.example/tmp-${Math.random()}`, title: 'Tmp', raw_text: 'Aardvark tmp.' })).body.data.id as string;
      type Row = { method: string; permission: string; without: string; path: string | (() => Promise<string>); body?: unknown };
      const rows: Record<string, Row> = {
        // /me needs no permission: "keyWith" is the pages.read key, "keyWithout" the search key.
        'GET /me': { method: 'GET', permission: 'pages.read', without: 'search', path: '/me' },
        'GET pages': { method: 'GET', permission: 'pages.read', without: 'search', path: `/sources/${a.docs}/pages` },
        // The page exists already, so an allowed upsert replaces it: 200.
        'POST pages (upsert)': { method: 'POST', permission: 'pages.write', without: 'pages.read', path: `/sources/${a.docs}/pages`, body: { url: 'https://docs.a.example/page', title: 'Acme page', raw_text: 'Aardvark page again.' } },
        'PATCH pages/:page': { method: 'PATCH', permission: 'pages.write', without: 'pages.read', path: `/sources/${a.docs}/pages/${pageId}`, body: { title: 'Acme page renamed' } },
        'DELETE pages/:page': { method: 'DELETE', permission: 'pages.write', without: 'pages.read', path: async () => `/sources/${a.docs}/pages/${await freshPage()}` },
      };
      assert.deepEqual(Object.keys(rows).sort(), Object.keys(PAGES_MATRIX).sort(), 'every row has its expectations');
      const failures: string[] = [];
      for (const [label, row] of Object.entries(rows)) {
        for (const [i, cred] of CREDS.entries()) {
          const expected = PAGES_MATRIX[label]![i]!;
          const path = typeof row.path === 'function' ? await row.path() : row.path;
          const res = await server.call(row.method, `/api/v1${path}`, { ...credential(cred, a.chat, a.search, b.chat, row.permission, row.without), body: row.body });
          // GET /me with B's key answers about B: there it is A's data that must not appear.
          const foreign = label === 'GET /me' && cred === 'keyB' ? a : b;
          try {
            check(res, expected, `${label} × ${cred}`, foreign);
          } catch (error) {
            failures.push((error as Error).message);
          }
        }
      }
      assert.deepEqual(failures, []);
    });

    it('B-targeted cells never carry A’s data', async () => {
      const cells: Array<[string, string, string, { token?: string; headers?: Record<string, string> }, number, unknown?]> = [
        ['B config', 'GET', widgetPath(b.chat, 'config'), { headers: { origin: ORIGIN_B } }, 200],
        ['B search × B origin', 'GET', widgetPath(b.search, 'search?query=reset'), { headers: { origin: ORIGIN_B } }, 200],
        ['B search × A origin', 'GET', widgetPath(b.search, 'search?query=reset'), { headers: { origin: ORIGIN_A } }, 403],
        ['B search × A secret', 'GET', widgetPath(b.search, 'search?query=reset'), { token: a.search.secret }, 401],
        ['B search × A key', 'GET', widgetPath(b.search, 'search?query=reset'), { token: a.keys.all }, 403],
        ['B chat × B secret', 'POST', widgetPath(b.chat, 'chat'), { token: b.chat.secret }, 200, { message: 'reset?', stream: false }],
        ['B chat × A key', 'POST', widgetPath(b.chat, 'chat'), { token: a.keys.chat }, 403, { message: 'reset?', stream: false }],
        ['B pages × B key', 'GET', `/api/v1/sources/${b.docs}/pages`, { token: b.keys.all }, 200],
        ['B pages × A key', 'GET', `/api/v1/sources/${b.docs}/pages`, { token: a.keys.all }, 403],
        ['B pages upsert × A key', 'POST', `/api/v1/sources/${b.docs}/pages`, { token: a.keys.all }, 403, { url: 'https://docs.b.example/x', title: 'x', raw_text: 'x' }],
      ];
      const failures: string[] = [];
      for (const [label, method, url, opts, expected, body] of cells) {
        const res = await server.call(method, url, { ...opts, body });
        try {
          check(res, expected, label, a);
          if (label === 'B search × B origin') assert.ok(JSON.stringify(res.body).includes('Zanzibar'), 'B’s search finds B’s entry');
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
      assert.deepEqual(failures, []);
    });
  });
}
