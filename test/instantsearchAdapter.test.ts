// The InstantSearch adapter (adapters/instantsearch): InstantSearch's requests mapped to Lore's
// search API and Lore's answers to Algolia's shape, against a fake fetch that records what
// was asked and answers as Lore does (SPEC.md's response, plus facets).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type instantsearch from 'instantsearch.js';
import { escapeHits } from 'instantsearch.js/es/lib/utils/escape-highlight.js';
import { createLoreSearchClient, LoreSearchError, type AlgoliaHit, type AlgoliaResult, type LoreHit, type LoreSearchResponse } from '../adapters/instantsearch/src/index.js';

/** What instantsearch() takes as `searchClient`. */
type SearchClient = Parameters<typeof instantsearch>[0]['searchClient'];

const AIS = { highlightPreTag: '__ais-highlight__', highlightPostTag: '__/ais-highlight__' };
const URL_ = 'https://lore.example.com';

function loreHit(overrides: Partial<LoreHit> = {}): LoreHit {
  return {
    id: '3f0c1a52-8a5e-4c59-9d0b-6f1c2f6a7b10', collection_id: '0a3e1c52-8a5e-4c59-9d0b-6f1c2f6a7b10',
    title: 'Reset your password', raw_text: 'To reset your password, open Settings.',
    meta: { category: 'Guides' }, searchable_meta: { tags: ['account', 'security'] },
    source_url: 'https://docs.example.com/reset', source_type: 'doc', source_id: 'reset',
    created_at: '2026-01-01T00:00:00.000000Z', updated_at: '2026-01-01T00:00:00.000000Z',
    snippet: 'To <mark>reset</mark> your <mark>password</mark>, open Settings.',
    score_breakdown: { similarity: 0.8, final_score: 0.8 },
    ...overrides,
  };
}

function loreResponse(overrides: Partial<LoreSearchResponse> = {}): LoreSearchResponse {
  const data = overrides.data ?? [loreHit()];
  return { data, meta: { current_page: 1, last_page: 1, per_page: 20, total: data.length }, summarisable: false, ...overrides };
}

interface Call { url: URL; headers: Record<string, string> }

/** A fetch that records each call and answers with `answer(url)` (a body, or [status, body]). */
function fakeFetch(answer: (url: URL) => unknown = () => loreResponse()) {
  const calls: Call[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    calls.push({ url, headers: { ...(init?.headers as Record<string, string>) } });
    const a = answer(url);
    const [status, body] = Array.isArray(a) ? a : [200, a];
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const widgetClient = (fetch: typeof globalThis.fetch, extra: Record<string, unknown> = {}) =>
  createLoreSearchClient({ url: URL_, organisation: 'acme', widget: 'w1', fetch, ...extra });

const search = async (client: ReturnType<typeof createLoreSearchClient>, params: Record<string, unknown>, indexName = 'docs') =>
  (await client.search([{ indexName, params }])).results[0] as AlgoliaResult;

describe('InstantSearch adapter', () => {
  let warnings: string[];
  beforeEach(() => {
    warnings = [];
    mock.method(console, 'warn', (message: string) => void warnings.push(message));
  });
  afterEach(() => mock.restoreAll());

  it('is a searchClient as instantsearch.js types one', () => {
    const client: SearchClient = widgetClient(fakeFetch().fetch);
    assert.equal(typeof client.search, 'function');
  });

  describe('options', () => {
    const { fetch } = fakeFetch();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['no url', { organisation: 'acme', widget: 'w1' }, /"url" must be a non-empty string/],
      ['a relative url', { url: '/lore', organisation: 'acme', widget: 'w1' }, /"url" must be Lore's absolute http\(s\) URL, got "\/lore"/],
      ['neither route', { url: URL_ }, /pass \{ organisation, widget \} \(a search widget\) or \{ integration, apiKey \}/],
      ['both routes', { url: URL_, organisation: 'acme', widget: 'w1', integration: 'i1', apiKey: 'k' }, /either \{ organisation, widget \} or \{ integration, apiKey \}, not both/],
      ['an integration without a token', { url: URL_, integration: 'i1' }, /an integration needs "apiKey"/],
      ['a widget without its organisation', { url: URL_, widget: 'w1' }, /"organisation" must be a non-empty string/],
      ['an API token on the widget route', { url: URL_, organisation: 'acme', widget: 'w1', apiKey: 'k' }, /unknown option "apiKey" for a widget/],
      ['a misspelt option', { url: URL_, integration: 'i1', apiKey: 'k', apikey: 'k' }, /unknown option "apikey" for an integration/],
    ];
    for (const [name, options, message] of cases) {
      it(`rejects ${name} with a clear error`, () => {
        assert.throws(() => createLoreSearchClient({ fetch, ...options } as any), (e: Error) => e instanceof TypeError && message.test(e.message));
      });
    }
  });

  it("answers InstantSearch's first, empty query with an empty page, asking Lore nothing", async () => {
    const fake = fakeFetch();
    const client = widgetClient(fake.fetch);
    const result = await search(client, { query: '', hitsPerPage: 6, page: 0, facets: ['category'], ...AIS });
    assert.equal(fake.calls.length, 0);
    assert.deepEqual(
      { hits: result.hits, nbHits: result.nbHits, nbPages: result.nbPages, page: result.page, hitsPerPage: result.hitsPerPage, facets: result.facets, index: result.index },
      { hits: [], nbHits: 0, nbPages: 0, page: 0, hitsPerPage: 6, facets: {}, index: 'docs' },
    );
    await search(client, { query: '   ' });
    assert.equal(fake.calls.length, 0, 'a query of spaces is empty too');
  });

  it('maps query, page, hitsPerPage, facets and facetFilters to the widget route', async () => {
    const fake = fakeFetch();
    await search(widgetClient(fake.fetch), {
      query: 'reset pass', page: 2, hitsPerPage: 10, facets: ['category', 'tags'], typoTolerance: false,
      facetFilters: [['category:Guides', 'category:FAQ'], 'tags:account', 'tags:security', 'lang:en', ['level:\\-1']],
      ...AIS,
    });
    assert.equal(fake.calls.length, 1);
    const { url, headers } = fake.calls[0]!;
    assert.equal(`${url.origin}${url.pathname}`, `${URL_}/api/v1/acme/widgets/w1/search`);
    assert.deepEqual([...url.searchParams], [
      ['query', 'reset pass'],
      ['meta[tags][and][]', 'account'], ['meta[tags][and][]', 'security'],
      ['meta[lang]', 'en'],
      ['meta[level]', '-1'],
      ['meta[category][or][]', 'Guides'], ['meta[category][or][]', 'FAQ'],
      ['facets[]', 'category'], ['facets[]', 'tags'],
      ['typo_tolerance', 'false'],
      ['page', '3'], ['per_page', '10'],
    ]);
    assert.equal(headers.authorization, undefined, 'a page is authorised by its origin');
    assert.deepEqual(warnings, []);
  });

  it('keeps the query as typed: a trailing space says the last word is finished', async () => {
    const fake = fakeFetch();
    await search(widgetClient(fake.fetch), { query: 'reset ' });
    assert.equal(fake.calls[0]!.url.searchParams.get('query'), 'reset ');
  });

  it('sends the widget key or the API token as a bearer; analytics=false only on the integration route', async () => {
    const fake = fakeFetch();
    await search(widgetClient(fake.fetch, { widgetKey: 'secret-1' }), { query: 'x', analytics: false });
    await search(createLoreSearchClient({ url: `${URL_}/lore/`, integration: 'int-1', apiKey: 'tok-1', fetch: fake.fetch }), { query: 'x', analytics: false });
    await search(createLoreSearchClient({ url: URL_, widget: 'acme/w2', fetch: fake.fetch }), { query: 'x' });
    const [widget, integration, byKey] = fake.calls;
    assert.equal(widget!.headers.authorization, 'Bearer secret-1');
    assert.equal(widget!.url.searchParams.get('analytics'), null);
    assert.equal(integration!.url.pathname, '/lore/api/v1/integrations/int-1/search');
    assert.equal(integration!.headers.authorization, 'Bearer tok-1');
    assert.equal(integration!.url.searchParams.get('analytics'), 'false');
    assert.equal(byKey!.url.pathname, '/api/v1/acme/widgets/w2/search', 'the console\'s "organisation/widget" key');
  });

  it("answers in Algolia's shape: hits, counts, pages and facets", async () => {
    const fake = fakeFetch(() => loreResponse({
      data: [loreHit()],
      meta: { current_page: 2, last_page: 4, per_page: 5, total: 17 },
      facets: { category: { Guides: 9, FAQ: 5, Reference: 3 } },
      facets_exhaustive: true,
    }));
    const result = await search(widgetClient(fake.fetch), { query: 'reset', page: 1, hitsPerPage: 5, facets: ['category'], maxValuesPerFacet: 2, ...AIS });
    const { hits, ...rest } = result;
    assert.deepEqual(rest, {
      nbHits: 17, page: 1, nbPages: 4, hitsPerPage: 5, processingTimeMS: rest.processingTimeMS, query: 'reset',
      params: rest.params, index: 'docs',
      facets: { category: { Guides: 9, FAQ: 5 } },
      exhaustiveFacetsCount: true, exhaustiveNbHits: true, exhaustive: { facetsCount: true, nbHits: true },
    });
    assert.match(rest.params, /^query=reset&page=1&hitsPerPage=5&facets=%5B%22category%22%5D/);
    const hit = hits[0]!;
    assert.deepEqual(
      { objectID: hit.objectID, title: hit.title, url: hit.url, category: hit.category, tags: hit.tags, meta: hit.meta, source_id: hit.source_id },
      { objectID: loreHit().id, title: 'Reset your password', url: 'https://docs.example.com/reset', category: 'Guides', tags: ['account', 'security'], meta: { category: 'Guides' }, source_id: 'reset' },
    );
    assert.deepEqual(hit._highlightResult!.title, {
      value: '__ais-highlight__Reset__/ais-highlight__ your __ais-highlight__password__/ais-highlight__',
      matchLevel: 'full', matchedWords: ['reset', 'password'], fullyHighlighted: false,
    });
    assert.deepEqual(hit._snippetResult!.raw_text, {
      value: 'To __ais-highlight__reset__/ais-highlight__ your __ais-highlight__password__/ais-highlight__, open Settings.', matchLevel: 'full',
    });
  });

  it("lets Lore's own fields win over a meta key of the same name", async () => {
    const fake = fakeFetch(() => loreResponse({ data: [loreHit({ meta: { title: 'Meta title', url: 'x' } })] }));
    const hit = (await search(widgetClient(fake.fetch), { query: 'reset' })).hits[0]!;
    assert.equal(hit.title, 'Reset your password');
    assert.equal(hit.url, 'https://docs.example.com/reset');
    assert.deepEqual(hit.meta, { title: 'Meta title', url: 'x' });
  });

  describe('highlighting is safe', () => {
    // Lore escapes its snippet's text (&#60; …) and marks words with <mark>; a title is plain text.
    const hostile = () => loreResponse({
      data: [loreHit({
        title: '<img src=x onerror=alert(1)> reset & "go"',
        snippet: '&#60;script&#62;alert(1)&#60;/script&#62; <mark>reset</mark> &#38;amp; &#39;q&#39;',
      })],
    });

    it("InstantSearch's placeholder tags: plain text out, which InstantSearch escapes", async () => {
      const hits = (await search(widgetClient(fakeFetch(hostile).fetch), { query: 'reset', ...AIS })).hits;
      assert.equal((hits[0]!._snippetResult!.raw_text as { value: string }).value, "<script>alert(1)</script> __ais-highlight__reset__/ais-highlight__ &amp; 'q'");
      // What the hits widget then renders (escapeHTML, its default): only <mark> is markup.
      const escaped = escapeHits(hits as any) as AlgoliaHit[];
      assert.equal((escaped[0]!._highlightResult!.title as { value: string }).value, '&lt;img src=x onerror=alert(1)&gt; <mark>reset</mark> &amp; &quot;go&quot;');
      assert.equal((escaped[0]!._snippetResult!.raw_text as { value: string }).value, '&lt;script&gt;alert(1)&lt;/script&gt; <mark>reset</mark> &amp;amp; &#39;q&#39;');
    });

    it('other tags (Algolia\'s default <em>, or escapeHTML: false): the text is escaped here', async () => {
      const hits = (await search(widgetClient(fakeFetch(hostile).fetch), { query: 'reset' })).hits;
      assert.equal((hits[0]!._highlightResult!.title as { value: string }).value, '&#60;img src=x onerror=alert(1)&#62; <em>reset</em> &#38; &#34;go&#34;');
      assert.equal((hits[0]!._snippetResult!.raw_text as { value: string }).value, '&#60;script&#62;alert(1)&#60;/script&#62; <em>reset</em> &#38;amp; &#39;q&#39;');
    });
  });

  it('marks the word being typed as a prefix, and words Lore matched by stem', async () => {
    const fake = fakeFetch(() => loreResponse({ data: [loreHit({ title: 'Invoices and passwords', snippet: 'Download <mark>invoices</mark>' })] }));
    const hit = (await search(widgetClient(fake.fetch), { query: 'invoice pass', ...AIS })).hits[0]!;
    assert.equal((hit._highlightResult!.title as { value: string }).value, '__ais-highlight__Invoices__/ais-highlight__ and __ais-highlight__pass__/ais-highlight__words');
  });

  it('honours attributesToHighlight, attributesToSnippet (with a word count) and attributesToRetrieve', async () => {
    const fake = fakeFetch(() => loreResponse({ data: [loreHit({ snippet: 'one two three four five six <mark>reset</mark> seven eight nine ten' })] }));
    const hit = (await search(widgetClient(fake.fetch), {
      query: 'reset', attributesToHighlight: ['category'], attributesToSnippet: ['raw_text:4', 'title:1'], snippetEllipsisText: '…',
      attributesToRetrieve: ['title'], highlightPreTag: '<b>', highlightPostTag: '</b>',
    })).hits[0]!;
    assert.deepEqual(Object.keys(hit).sort(), ['_highlightResult', '_snippetResult', 'objectID', 'title']);
    assert.deepEqual(Object.keys(hit._highlightResult!), ['category']);
    assert.equal((hit._snippetResult!.raw_text as { value: string }).value, '…six <b>reset</b> seven eight…');
    assert.equal((hit._snippetResult!.title as { value: string }).value, '<b>Reset</b>…');

    const all = (await search(widgetClient(fake.fetch), { query: 'reset', attributesToHighlight: ['*'], attributesToSnippet: ['*'] })).hits[0]!;
    assert.deepEqual(Object.keys(all._highlightResult!), ['title', 'category', 'tags'], 'the title and the meta values; raw_text only when named');
    assert.deepEqual(Object.keys(all._snippetResult!), ['raw_text', 'title', 'category', 'tags']);
  });

  it('asks Lore once for identical queries, and sends distinct ones concurrently', async () => {
    let inFlight = 0;
    let most = 0;
    const calls: string[] = [];
    const fetch = (async (input: string) => {
      calls.push(input);
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight--;
      return new Response(JSON.stringify(loreResponse()), { status: 200 });
    }) as unknown as typeof globalThis.fetch;
    const client = widgetClient(fetch);
    const { results } = await client.search([
      { indexName: 'docs', params: { query: 'reset', ...AIS } },
      { indexName: 'docs', params: { query: 'reset', ...AIS } },
      // Differs only in how hits are shaped: the same Lore query.
      { indexName: 'docs', params: { query: 'reset', highlightPreTag: '<em>', highlightPostTag: '</em>' } },
      { indexName: 'docs', params: { query: 'reset', facets: 'category', hitsPerPage: 0, page: 0, analytics: false, clickAnalytics: false } },
      // algoliasearch v5's flat shape.
      { indexName: 'faq', query: 'invoice' },
    ]);
    assert.equal(results.length, 5);
    assert.equal(calls.length, 3);
    assert.equal(most, 3, 'all at once');
    const facetsOnly = results[3] as AlgoliaResult;
    assert.deepEqual([facetsOnly.hits, facetsOnly.hitsPerPage, facetsOnly.nbPages], [[], 0, 0]);
    assert.match(calls[1]!, /facets%5B%5D=category&page=1&per_page=1$/, 'hitsPerPage 0 asks Lore for one hit (its minimum) and shows none');
    assert.equal((results[4] as AlgoliaResult).index, 'faq');
  });

  it('reports each unsupported parameter once on console.warn, and never sends it', async () => {
    const fake = fakeFetch();
    const client = widgetClient(fake.fetch);
    const params = { query: 'reset', filters: 'category:Guides', facets: ['*'], facetFilters: ['category:-FAQ', ['category:Guides', 'lang:en']], hitsPerPage: 80, clickAnalytics: true, userToken: 'u1' };
    await search(client, params);
    await search(client, { ...params, facetFilters: ['-lang:en'] });
    assert.deepEqual(warnings, [
      'Lore InstantSearch adapter: the "filters" parameter is not supported by Lore and is ignored.',
      'Lore InstantSearch adapter: hitsPerPage is at most 50 with Lore; 50 are shown.',
      'Lore InstantSearch adapter: facets: ["*"] is not supported by Lore: name the meta keys to count.',
      'Lore InstantSearch adapter: the facet filter "category:-FAQ" is not supported by Lore (a negation, or a key with brackets), and is ignored.',
      'Lore InstantSearch adapter: an OR of facet filters on different keys (category, lang) is not supported by Lore, and is ignored.',
    ]);
    assert.deepEqual([...fake.calls[1]!.url.searchParams], [['query', 'reset'], ['page', '1'], ['per_page', '50']]);
  });

  it("rejects with Lore's message when Lore answers with an error", async () => {
    const fake = fakeFetch(() => [422, { message: 'The query field must not be greater than 1000 characters.', errors: { query: ['…'] } }]);
    await assert.rejects(search(widgetClient(fake.fetch), { query: 'x'.repeat(1001) }), (e: Error) =>
      e instanceof LoreSearchError && e.status === 422 && e.message === 'The query field must not be greater than 1000 characters.');
    const html = fakeFetch(() => [502, null]);
    await assert.rejects(search(widgetClient(html.fetch), { query: 'x' }), /Lore answered the search with HTTP 502/);
  });

  it('calls fetch as a function, not as a method of the options (a browser\'s fetch throws "Illegal invocation")', async () => {
    const receivers: unknown[] = [];
    const fetch = function (this: unknown) {
      receivers.push(this);
      return Promise.resolve(new Response(JSON.stringify(loreResponse()), { status: 200 }));
    } as unknown as typeof globalThis.fetch;
    await search(widgetClient(fetch), { query: 'reset' });
    assert.deepEqual(receivers, [undefined]);
  });

  it("keeps the widget route's analytics session Lore made on the first search", async () => {
    const fake = fakeFetch(() => ({ ...loreResponse(), session_id: 'sess-1' }));
    const client = widgetClient(fake.fetch);
    await search(client, { query: 'a' });
    await search(client, { query: 'ab' });
    assert.deepEqual(fake.calls.map((c) => c.url.searchParams.get('session_id')), [null, 'sess-1']);
  });

  it('searches facet values among the current query\'s hits', async () => {
    const fake = fakeFetch(() => loreResponse({ facets: { category: { 'Getting started': 4, Guides: 7, Reference: 2 } }, facets_exhaustive: true }));
    const client = widgetClient(fake.fetch);
    const [result] = await client.searchForFacetValues([{ indexName: 'docs', params: { query: 'reset', facetName: 'category', facetQuery: 'g', maxFacetHits: 5, facetFilters: ['lang:en'], ...AIS } }]);
    assert.deepEqual(result!.facetHits, [
      { value: 'Guides', highlighted: '__ais-highlight__G__/ais-highlight__uides', count: 7 },
      { value: 'Getting started', highlighted: '__ais-highlight__G__/ais-highlight__etting started', count: 4 },
    ]);
    assert.equal(result!.exhaustiveFacetsCount, true);
    assert.deepEqual([...fake.calls[0]!.url.searchParams], [['query', 'reset'], ['meta[lang]', 'en'], ['facets[]', 'category'], ['page', '1'], ['per_page', '1']]);
    const [none] = await client.searchForFacetValues([{ indexName: 'docs', params: { query: '', facetName: 'category', facetQuery: 'g' } }]);
    assert.deepEqual(none!.facetHits, [], 'no query, no hits to count values over');
  });
});
