import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, constantEmbedder, startServer, TIMESTAMP, UUID, type Response, type TestServer } from './helpers.js';

const ENTRY_KEYS = [
  'collection_id', 'created_at', 'id', 'meta', 'raw_text', 'searchable_meta', 'source_id', 'source_type', 'source_url', 'title', 'updated_at',
];
const ALL = ['pages.read', 'pages.write', 'search', 'chat', 'summarize'];
const UNKNOWN_SOURCE = '00000000-0000-4000-8000-000000000000';

for (const backend of backends()) {
  describe(`GET /me and pages [${backend}]`, () => {
    let server: TestServer;
    let org: { id: number; token: string };
    let other: { id: number; token: string };
    let docs: string;
    let blog: string;
    let theirs: string;
    /** Organisation API keys of Acme by what they hold, and one of Other. */
    const keys: Record<'write' | 'read' | 'search' | 'blogOnly' | 'revoked' | 'otherOrg', string> = {} as never;
    /** What only Other's data contains; no response to Acme may carry it (and vice versa). */
    const otherMarkers: string[] = [];
    const acmeMarkers: string[] = [];

    const pages = (source: string) => `/api/v1/sources/${source}/pages`;
    const key = async (as: string, permissions: string[], source_ids?: string[]) =>
      (await server.call('POST', '/api/v1/api-keys', { token: as, body: { name: 'k', permissions, source_ids } })).body.key as string;
    /** A call whose response must not leak the other organisation's data. */
    async function call(method: string, url: string, token: string | null, body?: unknown, leaks = otherMarkers): Promise<Response> {
      const res = await server.call(method, url, { token, body });
      const text = JSON.stringify(res.body);
      for (const marker of leaks) assert.ok(!text.includes(marker), `${method} ${url} leaked ${marker}`);
      return res;
    }
    const upsert = (source: string, token: string, body: unknown) => call('POST', pages(source), token, body);

    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
      org = await server.createOrg('Acme');
      other = await server.createOrg('Other Org');
      const collection = async (name: string, token: string) =>
        (await server.call('POST', '/api/v1/collections', { token, body: { name } })).body.data.id as string;
      docs = await collection('Docs', org.token);
      blog = await collection('Blog', org.token);
      theirs = await collection('Their secrets', other.token);
      keys.write = await key(org.token, ['pages.read', 'pages.write']);
      keys.read = await key(org.token, ['pages.read']);
      keys.search = await key(org.token, ['search']);
      keys.blogOnly = await key(org.token, ['pages.read', 'pages.write'], [blog]);
      keys.revoked = await key(org.token, ALL);
      keys.otherOrg = await key(other.token, ALL);
      const listed = await server.call('GET', '/api/v1/api-keys?per_page=100', { token: org.token });
      const revokedId = listed.body.data.at(-1).id;
      assert.equal((await server.call('DELETE', `/api/v1/api-keys/${revokedId}`, { token: org.token })).status, 204);

      const secret = await upsert(theirs, keys.otherOrg, { url: 'https://other.example/secret', title: 'Other secret', raw_text: 'Zanzibar plans of the other org.' });
      assert.equal(secret.status, 201);
      otherMarkers.push(theirs, 'Their secrets', 'Other Org', 'Zanzibar', secret.body.data.id);
      acmeMarkers.push(docs, blog, 'Acme');
    });
    after(() => server.close());

    it('GET /me: a token sees every permission and every source', async () => {
      const res = await call('GET', '/api/v1/me', org.token);
      assert.equal(res.status, 200);
      const { organisation, ...rest } = res.body;
      assert.deepEqual(Object.keys(res.body), ['organisation', 'permissions', 'sources']);
      assert.deepEqual(Object.keys(organisation), ['id', 'public_id', 'name']);
      assert.deepEqual([organisation.id, organisation.name], [org.id, 'Acme']);
      assert.match(organisation.public_id, /^org_[a-z0-9]{12}$/);
      assert.deepEqual(rest, { permissions: ALL, sources: [{ id: docs, name: 'Docs' }, { id: blog, name: 'Blog' }] });
    });

    it('GET /me: a key sees its permissions and only the sources it may access', async () => {
      const limited = await call('GET', '/api/v1/me', keys.blogOnly);
      assert.equal(limited.status, 200);
      assert.deepEqual(limited.body.permissions, ['pages.read', 'pages.write']);
      assert.deepEqual(limited.body.sources, [{ id: blog, name: 'Blog' }]);
      assert.ok(!JSON.stringify(limited.body).includes(docs));
      const search = await call('GET', '/api/v1/me', keys.search);
      assert.deepEqual([search.status, search.body.permissions, search.body.sources.length], [200, ['search'], 2]);
      const theirMe = await call('GET', '/api/v1/me', keys.otherOrg, undefined, acmeMarkers);
      assert.deepEqual(theirMe.body.sources, [{ id: theirs, name: 'Their secrets' }]);
    });

    it('upserts a page by url: 201 new, 200 updated, stored as source_type page', async () => {
      const url = 'https://acme.example/docs/install?lang=en';
      const first = await upsert(docs, keys.write, { url, title: 'Install', raw_text: 'Run the installer.', meta: { lang: 'en' }, searchable_meta: { tags: ['setup'] } });
      assert.equal(first.status, 201);
      assert.deepEqual(Object.keys(first.body), ['data']);
      const page = first.body.data;
      assert.deepEqual(Object.keys(page).sort(), ENTRY_KEYS);
      assert.match(page.id, UUID);
      assert.match(page.created_at, TIMESTAMP);
      assert.deepEqual({ ...page, id: 0, created_at: 0, updated_at: 0 }, {
        id: 0, collection_id: docs, title: 'Install', raw_text: 'Run the installer.', meta: { lang: 'en' }, searchable_meta: { tags: ['setup'] },
        source_url: url, source_type: 'page', source_id: url, created_at: 0, updated_at: 0,
      });

      const second = await upsert(docs, org.token, { url, raw_text: 'Run the new installer.' });
      assert.equal(second.status, 200);
      assert.equal(second.body.data.id, page.id);
      assert.deepEqual([second.body.data.raw_text, second.body.data.title, second.body.data.created_at], ['Run the new installer.', null, page.created_at]);
      const texts = await server.container.db.query<{ text: string }>('SELECT text FROM chunks WHERE entry_id = $1', [page.id]);
      assert.deepEqual(texts.map((t) => t.text), ['Run the new installer.'], 'chunked and indexed before the response');
    });

    it('lists the pages of a source, paginated, with pages.read', async () => {
      for (const n of [1, 2, 3]) await upsert(blog, keys.blogOnly, { url: `https://acme.example/blog/${n}`, raw_text: `Post ${n}` });
      const res = await call('GET', `${pages(blog)}?per_page=2`, keys.read);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.map((p: { source_id: string }) => p.source_id), ['https://acme.example/blog/1', 'https://acme.example/blog/2']);
      assert.deepEqual(res.body.meta, { current_page: 1, last_page: 2, per_page: 2, total: 3 });
      assert.match(res.body.links.next, /page=2/);
      const limited = await call('GET', `${pages(blog)}?page=2&per_page=2`, keys.blogOnly);
      assert.deepEqual(limited.body.data.map((p: { raw_text: string }) => p.raw_text), ['Post 3']);
    });

    it('updates and deletes a page with pages.write', async () => {
      const page = (await upsert(docs, keys.write, { url: 'https://acme.example/a', title: 'A', raw_text: 'Alpha.' })).body.data;
      const taken = (await upsert(docs, keys.write, { url: 'https://acme.example/b', raw_text: 'Beta.' })).body.data;
      const patched = await call('PATCH', `${pages(docs)}/${page.id}`, keys.write, { title: 'A2', meta: { reviewed: true } });
      assert.equal(patched.status, 200);
      assert.deepEqual([patched.body.data.title, patched.body.data.raw_text, patched.body.data.meta], ['A2', 'Alpha.', { reviewed: true }]);

      const moved = await call('PATCH', `${pages(docs)}/${page.id}`, keys.write, { url: 'https://acme.example/a-moved' });
      assert.deepEqual([moved.body.data.source_id, moved.body.data.source_url, moved.body.data.source_type], ['https://acme.example/a-moved', 'https://acme.example/a-moved', 'page']);
      const clash = await call('PATCH', `${pages(docs)}/${page.id}`, keys.write, { url: taken.source_id });
      assert.deepEqual([clash.status, clash.body.errors], [422, { url: ['Another page of this source already has this url.'] }]);

      assert.equal((await call('DELETE', `${pages(docs)}/${taken.id}`, keys.write)).status, 204);
      const again = await call('DELETE', `${pages(docs)}/${taken.id}`, keys.write);
      assert.deepEqual([again.status, again.body], [404, { message: 'Entry not found.' }]);
      assert.equal((await call('PATCH', `${pages(docs)}/not-a-uuid`, keys.write, { title: 'x' })).status, 404);
      // A page of another source of the same organisation is not found through this one.
      assert.equal((await call('DELETE', `${pages(blog)}/${page.id}`, keys.write)).status, 404);
    });

    it('validates url and bodies with field keys', async () => {
      const cases: [unknown, Record<string, string[]>][] = [
        [{ raw_text: 'x' }, { url: ['The url field is required.'] }],
        [{ url: 'ftp://acme.example/file', raw_text: 'x' }, { url: ['The url field must be a valid http or https URL.'] }],
        [{ url: 'acme.example/page', raw_text: 'x' }, { url: ['The url field must be a valid http or https URL.'] }],
        [{ url: 'https://acme.example/a page', raw_text: 'x' }, { url: ['The url field must be a valid http or https URL.'] }],
        [{ url: `https://acme.example/${'x'.repeat(2048)}`, raw_text: 'x' }, { url: ['The url field must not be greater than 2048 characters.'] }],
        [{ url: `https://acme.example/${'é'.repeat(1100)}`, raw_text: 'x' }, { url: ['The url field must not be greater than 2048 bytes.'] }],
        [{ url: 'https://acme.example/ok' }, { raw_text: ['The raw_text field is required.'] }],
        [{ url: 'https://acme.example/ok', raw_text: '  ' }, { raw_text: ['The raw_text field is required.'] }],
        [{ url: 5, raw_text: 'x', title: 't'.repeat(1001), meta: [] }, {
          url: ['The url field must be a string.'],
          title: ['The title field must not be greater than 1000 characters.'],
          meta: ['The meta field must be an object.'],
        }],
      ];
      for (const [body, errors] of cases) {
        const res = await upsert(docs, keys.write, body);
        assert.deepEqual([res.status, res.body.errors], [422, errors], JSON.stringify(body).slice(0, 80));
      }
      const page = (await upsert(docs, keys.write, { url: 'https://acme.example/valid', raw_text: 'x' })).body.data;
      const badPatch = await call('PATCH', `${pages(docs)}/${page.id}`, keys.write, { url: 'mailto:a@b.c' });
      assert.deepEqual([badPatch.status, Object.keys(badPatch.body.errors)], [422, ['url']]);
    });

    it('answers 401 for a missing, invalid or revoked credential on every route', async () => {
      const page = (await upsert(docs, keys.write, { url: 'https://acme.example/auth', raw_text: 'x' })).body.data;
      const routes: [string, string, unknown?][] = [
        ['GET', '/api/v1/me'],
        ['GET', pages(docs)],
        ['POST', pages(docs), { url: 'https://acme.example/x', raw_text: 'x' }],
        ['PATCH', `${pages(docs)}/${page.id}`, { title: 'x' }],
        ['DELETE', `${pages(docs)}/${page.id}`],
      ];
      for (const [method, url, body] of routes) {
        for (const credential of [null, 'lore_key_nope', 'lore_nope', keys.revoked]) {
          const res = await call(method, url, credential, body, [...otherMarkers, ...acmeMarkers]);
          assert.deepEqual([res.status, res.body], [401, { message: 'Unauthenticated.' }], `${method} ${url} as ${credential}`);
        }
      }
    });

    it('answers 403 for a missing permission, a source outside the limit and another organisation', async () => {
      const page = (await upsert(docs, keys.write, { url: 'https://acme.example/forbidden', raw_text: 'x' })).body.data;
      const body = { url: 'https://acme.example/y', raw_text: 'y' };
      const cases: [string, string, string, unknown?][] = [
        // [credential, method, url, body]
        [keys.search, 'GET', pages(docs)],
        [keys.read, 'POST', pages(docs), body],
        [keys.read, 'PATCH', `${pages(docs)}/${page.id}`, { title: 'x' }],
        [keys.read, 'DELETE', `${pages(docs)}/${page.id}`],
        [keys.blogOnly, 'GET', pages(docs)],
        [keys.blogOnly, 'POST', pages(docs), body],
        [keys.blogOnly, 'PATCH', `${pages(docs)}/${page.id}`, { title: 'x' }],
        [keys.blogOnly, 'DELETE', `${pages(docs)}/${page.id}`],
        [keys.otherOrg, 'GET', pages(docs)],
        [keys.otherOrg, 'POST', pages(docs), body],
        [keys.otherOrg, 'PATCH', `${pages(docs)}/${page.id}`, { title: 'x' }],
        [keys.otherOrg, 'DELETE', `${pages(docs)}/${page.id}`],
        [other.token, 'GET', pages(docs)],
        [other.token, 'DELETE', `${pages(docs)}/${page.id}`],
        [org.token, 'GET', pages(theirs)],
        [keys.write, 'POST', pages(theirs), body],
      ];
      for (const [credential, method, url, payload] of cases) {
        const leaks = credential === other.token || credential === keys.otherOrg ? acmeMarkers.concat(page.id) : otherMarkers;
        const res = await call(method, url, credential, payload, leaks);
        assert.equal(res.status, 403, `${method} ${url}`);
        assert.deepEqual(Object.keys(res.body), ['message']);
      }
      const still = await call('GET', `${pages(docs)}?per_page=100`, org.token);
      const found = still.body.data.find((p: { id: string }) => p.id === page.id);
      assert.equal(found.title, null, 'no forbidden write went through');
      const stored = await server.container.db.query<{ n: number }>("SELECT count(*)::int AS n FROM entries WHERE source_id = 'https://acme.example/y'");
      assert.equal(stored[0]!.n, 0);
    });

    it('answers 404 for an unknown source, after checking the permission', async () => {
      for (const source of [UNKNOWN_SOURCE, 'not-a-uuid']) {
        for (const credential of [keys.write, org.token, keys.otherOrg]) {
          const res = await call('GET', pages(source), credential, undefined, [...otherMarkers, ...acmeMarkers]);
          assert.deepEqual([res.status, res.body], [404, { message: 'Source not found.' }]);
        }
      }
      const noPermission = await call('POST', pages(UNKNOWN_SOURCE), keys.read, { url: 'https://a.example/', raw_text: 'x' });
      assert.equal(noPermission.status, 403);
    });

    it('makes an upserted page searchable through an integration', async () => {
      const page = (await upsert(docs, keys.write, { url: 'https://acme.example/quokka', title: 'Quokka care', raw_text: 'Feeding the quokka twice a day keeps it happy.' })).body.data;
      const integration = (await call('POST', '/api/v1/integrations', org.token, { type: 'search_box', name: 'Docs search', collection_ids: [docs] })).body.data.id;
      const res = await call('GET', `/api/v1/integrations/${integration}/search?query=quokka`, org.token);
      assert.equal(res.status, 200);
      assert.equal(res.body.data[0].id, page.id);
      assert.equal(res.body.data[0].source_url, 'https://acme.example/quokka');
    });

    it('counts API key requests against the organisation’s usage', async () => {
      const before = (await call('GET', '/api/v1/usage', org.token)).body.data.requests;
      await call('GET', '/api/v1/me', keys.read);
      const after = (await call('GET', '/api/v1/usage', org.token)).body.data.requests;
      assert.equal(after - before, 2, 'the key request and the second usage request');
    });

    it('documents every route in OpenAPI', async () => {
      const paths = (await server.call('GET', '/api/v1/openapi.json')).body.paths;
      for (const path of ['/api/v1/api-keys', '/api/v1/api-keys/{id}', '/api/v1/me', '/api/v1/sources/{source}/pages', '/api/v1/sources/{source}/pages/{page}']) {
        assert.ok(paths[path], `${path} missing from OpenAPI`);
      }
      assert.ok(paths['/api/v1/sources/{source}/pages'].post.requestBody);
      assert.ok(paths['/api/v1/sources/{source}/pages'].post.responses['403']);
    });
  });
}
