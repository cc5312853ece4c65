/**
 * Property-based HTTP fuzzing of every route in the OpenAPI document (fast-check, fixed
 * seed): hostile strings (NUL, lone surrogates, 1 MB, right-to-left and zero-width marks),
 * wrong types, deep nesting, prototype keys, bracket-encoded query abuse and bad content
 * types, in bodies, query strings and path parameters. The rule: never a 5xx; every 4xx has
 * the documented `{message}` body (422: with `errors`); and the server is healthy after.
 *
 * LORE_FUZZ_RUNS sets the requests per route (default 60: 3,000 requests a backend, a few seconds),
 * LORE_FUZZ_SEED the seed (to explore beyond what CI runs).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { backends, constantEmbedder, MASTER_KEY, startServer, type TestServer } from './helpers.js';

const RUNS = Number(process.env.LORE_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.LORE_FUZZ_SEED ?? 20261125);
const ORIGIN = 'https://docs.example.com';

/** Strings a careless or hostile client sends. */
const HOSTILE = [
  '', ' ', '\u0000', 'a\u0000b', '\uD800', '\uDC00x', '\u202Eevil\u202C', '\u200B\u200C\u200D\uFEFF', '😀'.repeat(50), 'x'.repeat(1 << 20),
  '../../etc/passwd', "' OR 1=1 --", '<script>alert(1)</script>', '%00', '%', '%zz', '{{7*7}}', '${jndi:x}', '__proto__', 'constructor',
  '-1', '0', '1e309', 'NaN', 'Infinity', '99999999999999999999', '-0', 'true', 'null', '[]', '{}', '1.5', ' 1 ', '0x10',
];
const hostileString = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));
/** Any JSON value, hostile strings included, deeply nested and wide ones. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 20, max: 400 }).map(nested) },
  // Deeper than a body may nest (64), as deep as JSON.stringify can still write in this process.
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 2_000 }).map(nested) },
  // Wide: thousands of keys or items.
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i % 3 === 0 ? { v: i } : i]))) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 50_000 }).map((n) => Array.from({ length: n }, (_, i) => i)) },
  { weight: 1, arbitrary: fc.constantFrom({ __proto__: { polluted: true } }, JSON.parse('{"__proto__": {"polluted": true}}'), { constructor: { prototype: { polluted: true } } }) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 200 }) },
);

/** Percent-encoding of the UTF-8 bytes (a lone surrogate becomes U+FFFD, as on any wire). */
function encode(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((byte) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

function nested(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

interface Operation { method: string; path: string; params: { name: string; in: string }[]; body?: Schema }
interface Schema { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; anyOf?: Schema[]; maxLength?: number }

/** A value the schema might accept, or a hostile one in its place (at any depth). */
function fromSchema(schema: Schema | undefined, fixtures: string[], depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return anyValue;
  const alternatives = schema.anyOf?.filter((s) => s.type !== 'null') ?? [];
  const target = alternatives.length > 0 ? alternatives[0]! : schema;
  const type = Array.isArray(target.type) ? target.type.find((t) => t !== 'null') : target.type;
  let valid: fc.Arbitrary<unknown>;
  if (target.enum) valid = fc.constantFrom(...target.enum);
  else if (type === 'object' && target.properties) {
    const entries = Object.entries(target.properties).map(([k, s]) => [k, fromSchema(s, fixtures, depth + 1)] as const);
    valid = fc.record(Object.fromEntries(entries), { requiredKeys: [] });
  } else if (type === 'array') valid = fc.array(fromSchema(target.items, fixtures, depth + 1), { maxLength: 4 });
  else if (type === 'string') valid = fc.oneof(fc.constantFrom(...fixtures, 'https://docs.example.com/a', 'Reset your password'), fc.string({ maxLength: 30 }));
  else if (type === 'integer' || type === 'number') valid = fc.oneof(fc.integer({ min: -2, max: 200 }), fc.double());
  else if (type === 'boolean') valid = fc.boolean();
  else valid = anyValue;
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: anyValue });
}

/** Query strings: documented names, the search and answer parameters, bracket abuse, noise. */
const QUERY_NAMES = ['page', 'per_page', 'query', 'threshold', 'stream', 'locale', 'type', 'project', 'user', 'hash', 'session_id', 'meta', 'boost', 'sort'];
const queryPart = fc.oneof(
  fc.tuple(fc.constantFrom(...QUERY_NAMES), hostileString).map(([k, v]) => `${k}=${encode(v.slice(0, 2000))}`),
  fc.tuple(fc.constantFrom(...QUERY_NAMES), fc.integer({ min: -5, max: 1000 })).map(([k, v]) => `${k}=${v}`),
  fc.constantFrom(
    'meta[tags][or][]=a&meta[tags][or][]=b', 'meta[a][b][c][d][e][f]=1', 'meta[__proto__][x]=1', 'meta[constructor][prototype][x]=1',
    'boost[0][field]=published_at&boost[0][type]=recency', 'boost[99999]=1', 'boost=[{"field":"x"}]', 'boost=%7B', 'sort[0][field]=x&sort[0][direction]=sideways',
    'sort=not-json', 'per_page[]=1&per_page[]=2', 'page[a]=1', 'query[]=a&query[]=b', `query=${'q'.repeat(5000)}`, 'threshold=-1', 'threshold=2', '%',
    'a=%E0%A4%A', 'x'.repeat(300) + '=1', Array.from({ length: 300 }, (_, i) => `p${i}=1`).join('&'), 'stream=maybe', 'locale=xx-INVALID',
  ),
);
const query = fc.array(queryPart, { maxLength: 4 }).map((parts) => (parts.length > 0 ? `?${parts.join('&')}` : ''));

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', ''];

for (const backend of backends()) {
  describe(`HTTP fuzzing, every route [${backend}]`, () => {
    let server: TestServer;
    let operations: Operation[];
    let fixtures: Record<string, string[]>;
    let token: string;
    let apiKey: string;
    const histogram = new Map<number, number>();

    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
      const org = await server.createOrg('Fuzzed');
      token = org.token;
      // A second organisation: its ids are valid ids that this one must never reach.
      const other = await server.createOrg('Other');
      const as = (t: string) => (method: string, url: string, body?: unknown) => server.call(method, url, { token: t, body });
      const call = as(token);
      const collection = (await call('POST', '/api/v1/collections', { name: 'Docs' })).body.data.id;
      const otherCollection = (await as(other.token)('POST', '/api/v1/collections', { name: 'Theirs' })).body.data.id;
      const entry = (await call('POST', `/api/v1/collections/${collection}/entries`, { title: 'Passwords', raw_text: 'Reset your password from the account page.', source_type: 'doc', source_id: 'pw' })).body.data.id;
      const chatbot = (await call('POST', '/api/v1/integrations', { type: 'chatbot', name: 'Bot', collection_ids: [collection] })).body.data.id;
      const box = (await call('POST', '/api/v1/integrations', { type: 'search_box', name: 'Box', collection_ids: [collection] })).body.data.id;
      const chat = (await call('POST', '/api/v1/widgets', { type: 'chat', name: 'Chat', integration_id: chatbot, websites: ['docs.example.com'] })).body;
      const search = (await call('POST', '/api/v1/widgets', { type: 'search', name: 'Search', integration_id: box, websites: ['docs.example.com'] })).body;
      const key = (await call('POST', '/api/v1/api-keys', { name: 'CMS', permissions: ['pages.read', 'pages.write', 'search', 'chat', 'summarize'], source_ids: [collection] })).body;
      apiKey = key.key;
      const page = (await server.call('POST', `/api/v1/sources/${collection}/pages`, { token: apiKey, body: { url: 'https://docs.example.com/p', title: 'P', raw_text: 'Page text.' } })).body.data.id;
      const [orgPublic, chatWidget] = chat.data.key.split('/');
      const searchWidget = search.data.key.split('/')[1];
      fixtures = {
        // Not this organisation's own id: an admin PATCH of its quota would turn the rest into 402s.
        id: [String(other.id), key.data.id],
        token_id: [other.tokenId],
        collection: [collection, otherCollection],
        source: [collection, otherCollection],
        entry: [entry],
        page: [page],
        integration: [chatbot, box],
        widget: [chat.data.id, search.data.id, chatWidget, searchWidget],
        organisation: [orgPublic],
        sourceType: ['doc'],
        sourceId: ['pw'],
      };
      const doc = (await server.call('GET', '/api/v1/openapi.json')).body;
      operations = [];
      for (const [path, ops] of Object.entries<Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          operations.push({ method: method.toUpperCase(), path, params: op.parameters ?? [], body: op.requestBody?.content['application/json']?.schema });
        }
      }
      // Destructive routes last, so the others keep their fixtures to reach deep.
      const destructive = (o: Operation) => (o.method === 'DELETE' ? 2 : 0) + (o.path.includes('rotate-secret') ? 1 : 0);
      operations.sort((a, b) => destructive(a) - destructive(b));
    });
    after(() => server.close());

    it(`answers ${RUNS} fuzzed requests on every route with no 5xx and the documented error shape`, async () => {
      assert.ok(operations.length >= 45, `only ${operations.length} operations in the OpenAPI document`);
      for (const [index, op] of operations.entries()) {
        const pathValue = (name: string) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(fixtures[name] ?? ['x'])) }, { weight: 1, arbitrary: hostileString.map((s) => s.slice(0, 300)) });
        const pathParams = op.params.filter((p) => p.in === 'path').map((p) => p.name);
        const request = fc.record({
          path: fc.tuple(...pathParams.map(pathValue)).map((values) => values.reduce<string>((url, v, i) => url.replace(`{${pathParams[i]}}`, encode(v)), op.path)),
          query,
          body: fc.oneof(
            { weight: 6, arbitrary: fromSchema(op.body, Object.values(fixtures).flat()).map((b) => ({ payload: JSON.stringify(b) ?? 'null' })) },
            { weight: 1, arbitrary: anyValue.map((b) => ({ payload: JSON.stringify(b) ?? 'null' })) },
            { weight: 1, arbitrary: fc.constantFrom(`${'['.repeat(20000)}${']'.repeat(20000)}`, `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, '{"a":', '[1,2', '\u0000', 'nul', '{"raw_text": "\\u0000"}', '{"__proto__": {"x": 1}, "name": "p"}', '', ' ', '{}'.padEnd(5000, ' ')).map((payload) => ({ payload })) },
            { weight: 1, arbitrary: fc.constant({ payload: undefined }) },
          ),
          contentType: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
          credential: fc.oneof({ weight: 8, arbitrary: fc.constant('right') }, { weight: 1, arbitrary: fc.constantFrom('none', 'wrong', 'key') }),
        });
        await fc.assert(
          fc.asyncProperty(request, async (r) => {
            const admin = op.path.startsWith('/api/v1/admin');
            const widget = op.path.startsWith('/api/v1/{organisation}');
            const headers: Record<string, string> = { accept: 'application/json' };
            if (widget) headers.origin = ORIGIN;
            const credential = { right: widget ? null : admin ? MASTER_KEY : token, none: null, wrong: 'lore_wrong', key: apiKey }[r.credential];
            if (credential) headers.authorization = `Bearer ${credential}`;
            if (r.body.payload !== undefined && r.contentType !== '') headers['content-type'] = r.contentType;
            const response = await server.app.inject({ method: op.method as 'GET', url: r.path + r.query, headers, payload: r.body.payload });
            histogram.set(response.statusCode, (histogram.get(response.statusCode) ?? 0) + 1);
            const where = `${op.method} ${r.path.slice(0, 200)}${r.query.slice(0, 200)} → ${response.statusCode} ${response.body.slice(0, 300)}`;
            assert.ok(response.statusCode < 500, where);
            if (response.statusCode >= 400) {
              const body = response.json() as { message?: unknown; errors?: unknown };
              assert.equal(typeof body.message, 'string', where);
              if (response.statusCode === 422) assert.ok(body.errors && typeof body.errors === 'object', where);
            }
          }),
          { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
        );
      }
      assert.equal((await server.call('GET', '/healthz')).status, 200);
      assert.equal((await server.call('GET', '/readyz')).status, 200);
      assert.equal(({} as { polluted?: boolean }).polluted, undefined, 'Object.prototype polluted');
      const total = [...histogram.values()].reduce((a, b) => a + b, 0);
      process.stdout.write(`# fuzz [${backend}]: ${total} requests, statuses ${JSON.stringify(Object.fromEntries([...histogram].sort((a, b) => a[0] - b[0])))}\n`);
    });
  });
}
