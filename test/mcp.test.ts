/**
 * Lore's MCP server as assistants use it: the SDK's own Client over Streamable HTTP against a
 * listening Lore (tools listed, search, answer, get_entry; keys' permissions and sources;
 * another organisation's ids; credentials refused; credits and quota exhausted), and
 * `lore mcp` driven over stdio by the same Client.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { backends, constantEmbedder, MASTER_KEY, startServer, UUID, type TestServer } from './helpers.js';
import { runLoreCli } from './processes.js';

const DOCS = [
  { id: 'reset', title: 'Reset your password', url: 'https://example.com/reset', text: 'Open Settings, then Security, and choose Reset password. A reset link arrives by e-mail within five minutes.', meta: { product: 'app' } },
  { id: 'pro', title: 'The Pro plan', url: 'https://example.com/pro', text: 'The Pro plan includes single sign-on, audit logs and priority support for teams.', meta: { product: 'billing' } },
  { id: 'starter', title: 'Starter plan pricing', url: 'https://example.com/starter', text: 'The Starter plan costs 9 euros per month for one user.', meta: { product: 'billing' } },
  { id: 'embed', title: 'Embedding widgets', url: 'https://example.com/embed', text: 'Embed the widget with one script tag, then call mount("#search") when 1 < 2 & 3 > 2.', meta: {} },
];
const LONG_TEXT = `Glossary of terms. ${'Every term of the product is explained here in plain words. '.repeat(1_000)}`;

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };
const textOf = (result: ToolResult) => result.content.map((c) => c.text).join('\n');

for (const backend of backends()) {
  describe(`MCP server [${backend}]`, () => {
    let server: TestServer;
    let base: string;
    let org: { id: number; token: string };
    let other: { id: number; token: string };
    let docs: string;
    let blog: string;
    let foreignEntry: string;
    const clients: Client[] = [];

    const connect = async (token: string) => {
      const client = new Client({ name: 'mcp-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    };
    const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
    const manage = (method: string, path: string, body?: unknown, token = org.token) => server.call(method, `/api/v1${path}`, { token, body });
    const apiKey = async (permissions: string[], sourceIds: string[] | null = null) =>
      (await manage('POST', '/api-keys', { name: 'assistant', permissions, source_ids: sourceIds })).body.key as string;
    const setLimits = async (id: number, body: { answer_credits?: number | null; usage_quota?: number | null }) =>
      assert.equal((await server.call('PATCH', `/api/v1/admin/organisations/${id}`, { token: MASTER_KEY, body })).status, 200);
    /** An entry's id by its source id, through search (what an assistant would do). */
    const idOf = async (sourceId: string, collection: string, token = org.token) => {
      const list = await manage('GET', `/collections/${collection}/entries?per_page=100`, undefined, token);
      return (list.body.data as { id: string; source_id: string }[]).find((e) => e.source_id === sourceId)!.id;
    };
    const initialize = (headers: Record<string, string>) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });

    before(async () => {
      server = await startServer(backend);
      org = await server.createOrg('Acme');
      other = await server.createOrg('Other');
      docs = (await manage('POST', '/collections', { name: 'Docs' })).body.data.id;
      blog = (await manage('POST', '/collections', { name: 'Blog' })).body.data.id;
      const entries = DOCS.map((d) => ({ source_type: 'doc', source_id: d.id, title: d.title, raw_text: d.text, source_url: d.url, meta: d.meta }));
      entries.push({ source_type: 'doc', source_id: 'glossary', title: 'Glossary', raw_text: LONG_TEXT, source_url: 'https://example.com/glossary', meta: {} });
      assert.equal((await manage('POST', `/collections/${docs}/entries/batch`, { entries })).status, 200);
      const post = { source_type: 'post', source_id: 'launch', title: 'Launch of the aurora release', raw_text: 'The aurora release brings dark mode and faster sync.', source_url: 'https://example.com/blog/aurora' };
      assert.equal((await manage('POST', `/collections/${blog}/entries/batch`, { entries: [post] })).status, 200);
      const foreign = (await manage('POST', '/collections', { name: 'Secret' }, other.token)).body.data.id;
      const secret = { source_type: 'doc', source_id: 'secret', title: 'Reset the vault password', raw_text: 'The vault password of Other is reset by the night shift.', source_url: 'https://other.example/vault' };
      assert.equal((await manage('POST', `/collections/${foreign}/entries/batch`, { entries: [secret] }, other.token)).status, 200);
      foreignEntry = await idOf('secret', foreign, other.token);
      base = await server.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
    });

    it('lists search, answer and get_entry, described for a model, with bounded inputs', async () => {
      const client = await connect(org.token);
      assert.equal(client.getServerVersion()?.name, 'lore');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['answer', 'get_entry', 'search']);
      for (const tool of tools) assert.ok((tool.description ?? '').length > 100, `${tool.name} says what it returns and when to use it`);
      const search = tools.find((t) => t.name === 'search')!;
      assert.deepEqual(search.inputSchema.required, ['query']);
      const properties = search.inputSchema.properties as Record<string, any>;
      assert.equal(properties.query.maxLength, 1000);
      assert.deepEqual([properties.per_page.minimum, properties.per_page.maximum, properties.per_page.default], [1, 20, 5]);
      const tooLong = await call(client, 'search', { query: 'x'.repeat(1001) });
      assert.equal(tooLong.isError, true);
      assert.match(textOf(tooLong), /query/);
    });

    it('searches: titles, URLs, plain-text snippets and ids, as text and as structured content', async () => {
      const client = await connect(org.token);
      const result = await call(client, 'search', { query: 'reset password' });
      assert.notEqual(result.isError, true, textOf(result));
      const text = textOf(result);
      const resetId = await idOf('reset', docs);
      assert.match(text, /^1\. Reset your password — https:\/\/example\.com\/reset\n {3}.*\*\*Reset\*\* \*\*password\*\*/m);
      assert.match(text, new RegExp(`id: ${resetId}`));
      assert.doesNotMatch(text, /<\/?mark>/);
      const [first] = result.structuredContent.hits;
      assert.deepEqual({ ...first, snippet: undefined, similarity: undefined }, { id: resetId, collection_id: docs, title: 'Reset your password', url: 'https://example.com/reset', snippet: undefined, similarity: undefined });
      assert.match(first.snippet, /\*\*password\*\*/);
      assert.ok(result.structuredContent.total >= 1);

      const markup = textOf(await call(client, 'search', { query: 'embed widget script tag' }));
      assert.match(markup, /mount\("#search"\) when 1 < 2 & 3 > 2\./, 'entities unescaped: plain text');

      const billing = await call(client, 'search', { query: 'plan', meta: { product: 'billing' } });
      assert.deepEqual(billing.structuredContent.hits.map((h: any) => h.title).sort(), ['Starter plan pricing', 'The Pro plan']);
      const either = await call(client, 'search', { query: 'plan password', meta: { product: ['app', 'nothing'] }, per_page: 1 });
      assert.deepEqual(either.structuredContent.hits.map((h: any) => h.title), ['Reset your password']);

      const none = await call(client, 'search', { query: 'xylophone quantum zebra' });
      assert.notEqual(none.isError, true);
      assert.equal(textOf(none), 'Nothing in the documentation matches "xylophone quantum zebra".');
      assert.deepEqual(none.structuredContent, { total: 0, hits: [] });
    });

    it('answers with numbered references, taking one answer credit', async () => {
      await setLimits(org.id, { answer_credits: 5 });
      try {
        const client = await connect(org.token);
        const result = await call(client, 'answer', { question: 'How do I reset my password?' });
        assert.notEqual(result.isError, true, textOf(result));
        assert.match(textOf(result), /Reset password[^]*\[1\][^]*\n\nReferences:\n\[1\] Reset your password — https:\/\/example\.com\/reset$/);
        assert.equal(result.structuredContent.covered, true);
        assert.deepEqual(result.structuredContent.references[0], { ref: 1, title: 'Reset your password', url: 'https://example.com/reset' });
        const usage = (await manage('GET', '/usage')).body.data;
        assert.deepEqual([usage.answer_credits, usage.answers], [4, 1]);

        const uncovered = await call(client, 'answer', { question: 'What is the airspeed velocity of an unladen swallow?' });
        assert.notEqual(uncovered.isError, true);
        assert.match(textOf(uncovered), /^The documentation does not cover this question\./);
        assert.equal(uncovered.structuredContent.covered, false);
        assert.equal((await manage('GET', '/usage')).body.data.answer_credits, 4, 'nothing answered, nothing taken');
      } finally {
        await setLimits(org.id, { answer_credits: null });
      }
    });

    it('answers a question the documentation does not cover with the closest pages that are not evidence, as chat offers them', async () => {
      // Turkish, which the bundled model knows badly: the article is absent, its neighbours close by cosine (test/evidence.test.ts).
      const turkish: { paragraphs: { id: string; text: string }[]; unrelated: string[] } = JSON.parse(readFileSync(new URL('./fixtures/xquad-tr-evidence.json', import.meta.url), 'utf8'));
      const collection = (await manage('POST', '/collections', { name: 'Türkçe' })).body.data.id;
      const urls = turkish.paragraphs.map((p) => `https://xquad.example/tr/${p.id}`);
      const entries = turkish.paragraphs.map((p, i) => ({ source_type: 'xquad', source_id: p.id, title: p.id, raw_text: p.text, source_url: urls[i] }));
      assert.equal((await manage('POST', `/collections/${collection}/entries/batch`, { entries })).status, 200);
      const client = await connect(org.token);
      const result = await call(client, 'answer', { question: turkish.unrelated[0]!, collections: [collection] });
      assert.equal(result.structuredContent.covered, false, textOf(result));
      const [said, list] = textOf(result).split('\n\nClosest results:\n');
      assert.equal(said, 'The documentation does not cover this question.');
      const listed = (list ?? '').split('\n').map((line) => / — (\S+) \(id: /.exec(line)?.[1]);
      assert.ok(listed.length > 0 && listed.every((url) => url !== undefined && urls.includes(url)), textOf(result));
    });

    it('says credits are exhausted as a tool error (402), and an exhausted quota likewise', async () => {
      const client = await connect(org.token);
      await setLimits(org.id, { answer_credits: 0 });
      try {
        const refused = await call(client, 'answer', { question: 'How do I reset my password?' });
        assert.equal(refused.isError, true, textOf(refused));
        assert.match(textOf(refused), /answer credits or usage quota are exhausted/);
      } finally {
        await setLimits(org.id, { answer_credits: null });
      }

      // This month's requests so far, GET /usage itself included: one more call is within the quota.
      const requests = (await manage('GET', '/usage')).body.data.requests as number;
      await setLimits(org.id, { usage_quota: requests + 1 });
      try {
        const within = await call(client, 'search', { query: 'reset password' });
        assert.notEqual(within.isError, true, textOf(within));
        const over = await call(client, 'search', { query: 'reset password' });
        assert.equal(over.isError, true, textOf(over));
        assert.match(textOf(over), /monthly usage quota of this organisation is exhausted/);
      } finally {
        await setLimits(org.id, { usage_quota: null });
      }
    });

    it('reads an entry in full, cut at 50,000 characters and saying so', async () => {
      const client = await connect(org.token);
      const resetId = (await call(client, 'search', { query: 'reset password' })).structuredContent.hits[0].id;
      const entry = await call(client, 'get_entry', { id: resetId });
      assert.notEqual(entry.isError, true, textOf(entry));
      assert.equal(textOf(entry), `# Reset your password\nURL: https://example.com/reset\nid: ${resetId} (collection ${docs})\nmeta: {"product":"app"}\n\n${DOCS[0]!.text}`);

      const long = textOf(await call(client, 'get_entry', { id: await idOf('glossary', docs) }));
      assert.ok(long.includes(LONG_TEXT.slice(0, 50_000)));
      assert.ok(!long.includes(LONG_TEXT.slice(0, 50_001)));
      assert.match(long, new RegExp(`\\[Cut at 50,000 of ${LONG_TEXT.length.toLocaleString('en')} characters\\.\\]$`));
    });

    it("never shows another organisation's entries or collections: not found", async () => {
      const client = await connect(org.token);
      for (const id of [foreignEntry, '00000000-0000-4000-8000-000000000000', 'not-an-id', "' OR 1=1 --"]) {
        const result = await call(client, 'get_entry', { id });
        assert.equal(result.isError, true, id);
        assert.equal(textOf(result), 'Entry not found.');
      }
      const foreignCollection = (await manage('GET', '/collections', undefined, other.token)).body.data[0].id;
      const search = await call(client, 'search', { query: 'vault password', collections: [foreignCollection] });
      assert.equal(search.isError, true);
      assert.equal(textOf(search), 'Collection not found.');
      const everything = await call(client, 'search', { query: 'vault password night shift' });
      assert.ok(everything.structuredContent.hits.every((h: any) => [docs, blog].includes(h.collection_id)));
      assert.doesNotMatch(textOf(everything), /other\.example|Reset the vault/);
    });

    it('refuses a tool the key lacks the permission for, naming it, and lets it call the others', async () => {
      const client = await connect(await apiKey(['summarize']));
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['answer', 'get_entry', 'search'], 'listed all the same');
      const search = await call(client, 'search', { query: 'reset password' });
      assert.equal(search.isError, true);
      assert.equal(textOf(search), 'This credential lacks the search permission.');
      const entry = await call(client, 'get_entry', { id: await idOf('reset', docs) });
      assert.equal(textOf(entry), 'This credential lacks the search or pages.read permission.');
      const answer = await call(client, 'answer', { question: 'How do I reset my password?' });
      assert.notEqual(answer.isError, true, textOf(answer));
      assert.match(textOf(answer), /References:\n\[1\] Reset your password/);

      const reader = await connect(await apiKey(['pages.read']));
      assert.notEqual((await call(reader, 'get_entry', { id: await idOf('reset', docs) })).isError, true, 'pages.read may read an entry');
      assert.equal(textOf(await call(reader, 'answer', { question: 'How do I reset my password?' })), 'This credential lacks the summarize permission.');
    });

    it("keeps a key limited to one source out of the others' entries", async () => {
      const client = await connect(await apiKey(['search'], [blog]));
      const own = await call(client, 'search', { query: 'aurora release dark mode' });
      assert.deepEqual(own.structuredContent.hits.map((h: any) => h.title), ['Launch of the aurora release']);
      const elsewhere = await call(client, 'search', { query: 'reset password' });
      assert.ok(elsewhere.structuredContent.hits.every((h: any) => h.collection_id === blog), textOf(elsewhere));
      assert.equal(textOf(await call(client, 'get_entry', { id: await idOf('reset', docs) })), 'Entry not found.');
      assert.equal(textOf(await call(client, 'search', { query: 'reset password', collections: [docs] })), 'Collection not found.');
      const narrowed = await call(client, 'search', { query: 'aurora', collections: [blog.toUpperCase()] });
      assert.equal(narrowed.structuredContent.hits.length, 1);
    });

    it('answers 401 with WWW-Authenticate without a credential, or with a widget secret', async () => {
      const box = (await manage('POST', '/integrations', { type: 'search_box', name: 'Box', collection_ids: [docs] })).body.data.id;
      const widget = await manage('POST', '/widgets', { type: 'search', name: 'Docs search', integration_id: box, websites: ['docs.example.com'] });
      assert.equal(widget.status, 201);
      for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${widget.body.secret_key}` }, { authorization: `Bearer ${widget.body.data.key}` }, { authorization: 'Bearer nope' }, { authorization: `Basic ${org.token}` }]) {
        const res = await initialize(headers);
        assert.equal(res.status, 401, JSON.stringify(headers));
        assert.equal(res.headers.get('www-authenticate'), 'Bearer');
        assert.deepEqual(await res.json(), { message: 'Unauthenticated.' });
      }
      await assert.rejects(connect('nope'), (error: { code?: number }) => error.code === 401);
      assert.equal((await initialize({ authorization: `Bearer ${org.token}` })).status, 200);
      const get = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${org.token}`, accept: 'text/event-stream' } });
      assert.equal(get.status, 405);
    });

    it('is named in the OpenAPI description, its routes not listed as REST operations', async () => {
      const doc = (await server.call('GET', '/api/v1/openapi.json')).body;
      assert.match(doc.info.description, /`\/mcp`, an MCP server .*Authorization: Bearer/);
      assert.ok(!Object.keys(doc.paths).some((p) => p.includes('mcp')));
    });

    it('refuses hostile input with a 4xx or a tool error, never a 500', async () => {
      const post = (payload: string) =>
        fetch(`${base}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
          body: payload,
        });
      const toolCall = (args: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":${args}}}`;
      assert.equal((await post(toolCall('{"query":"a\\u0000b"}'))).status, 422, 'NUL is refused before any tool');
      assert.equal((await post(toolCall(`{"query":"x","meta":${'['.repeat(80)}${']'.repeat(80)}}`))).status, 422, 'nesting is bounded');
      assert.equal((await post('{"jsonrpc":')).status, 400);
      assert.equal((await post('')).status, 400);
      for (const args of ['"text"', '{"query":5}', '{"query":"x","meta":{"a":{"b":1}}}', '{"query":"x","per_page":1000000}', `{"query":"x","meta":{${Array.from({ length: 21 }, (_, i) => `"k${i}":"v"`).join(',')}}}`]) {
        const res = await post(toolCall(args));
        assert.equal(res.status, 200, args);
        const body = await res.json();
        assert.ok(body.error || body.result.isError, `${args}: ${JSON.stringify(body)}`);
      }
    });

    it('refuses batches: one message per request', async () => {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]),
      });
      assert.equal(res.status, 400);
      assert.match((await res.json()).error.message, /one JSON-RPC message per request/);
    });

    it('serves the same tools over stdio with lore mcp, and says in one line when the token is refused', async () => {
      const env = { PATH: process.env.PATH ?? '', LORE_TOKEN: '' };
      const client = new Client({ name: 'desktop', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'src/cli.ts', 'mcp', '--url', base, '--token', org.token], env, stderr: 'pipe' }));
      try {
        assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['answer', 'get_entry', 'search']);
        const result = (await client.callTool({ name: 'search', arguments: { query: 'reset password' } })) as ToolResult;
        assert.match(textOf(result), /^1\. Reset your password — https:\/\/example\.com\/reset/m);
        assert.match(result.structuredContent.hits[0].id, UUID);
      } finally {
        await client.close();
      }
      const refused = await runLoreCli(['mcp', '--url', base, '--token', 'nope'], env);
      assert.deepEqual([refused.code, refused.stdout], [1, '']);
      assert.equal(refused.stderr, 'lore: the token was refused (401): pass --token or set LORE_TOKEN to an organisation API token or API key\n');

      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const unreachable = await runLoreCli(['mcp', '--url', `http://127.0.0.1:${port}`, '--token', org.token], env);
      assert.deepEqual([unreachable.code, unreachable.stdout], [1, '']);
      assert.equal(unreachable.stderr, `lore: cannot reach Lore at http://127.0.0.1:${port} (connection refused). Is it running? Set --url or LORE_URL (or PORT) to its address.\n`);
    });
  });
}

describe('MCP rate limits', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer('pglite', { embedder: constantEmbedder, config: { rateLimits: { perCredential: 0, perIp: 3, answers: 1 } } });
  });
  after(() => server.close());

  it('counts /mcp against the API rate limits, and each answer against the answer limit', async () => {
    const { token } = await server.createOrg();
    const call = (name: string, args: object) =>
      server.call('POST', '/mcp', {
        token,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      });
    const first = await call('answer', { question: 'What does the plan include?' });
    assert.notEqual(first.body.result.isError, true, JSON.stringify(first.body));
    const second = await call('answer', { question: 'What does the plan include?' });
    assert.equal(second.body.result.isError, true);
    assert.match(second.body.result.content[0].text, /^Too many answers for this credential\. Retry after \d+ seconds?\.$/);
    assert.equal((await call('search', { query: 'plan' })).status, 200, 'the answer limit is only for answers');
    const flood = await server.call('POST', '/mcp', { token: 'nope', body: {} });
    assert.equal(flood.status, 429, 'the fourth request from this IP in a minute');
    assert.match(String(flood.headers['retry-after']), /^\d+$/);
  });
});
