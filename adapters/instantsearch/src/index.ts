// Lore as an InstantSearch search client: `createLoreSearchClient(options)` answers
// InstantSearch's multi-queries with Lore's search API, one request a distinct query, sent
// concurrently (Lore has no multi-search endpoint).
import { markWords, render, tagsOf, termsOf } from './highlight.js';
import { toLoreQuery, type LoreQuery, type Warn } from './request.js';
import { emptyResult, toAlgoliaResult } from './response.js';
import type { AlgoliaParams, AlgoliaRequest, AlgoliaResult, FacetHit, FacetValuesResult, LoreSearchResponse } from './types.js';

export type { AlgoliaHit, AlgoliaParams, AlgoliaRequest, AlgoliaResult, FacetValuesResult, LoreHit, LoreSearchResponse } from './types.js';

interface Common {
  /** Lore's base URL, e.g. https://lore.example.com. */
  url: string;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

/**
 * Through a search widget: `GET /api/v1/{organisation}/widgets/{widget}/search`, authorised
 * by the page's origin being on the widget's websites list. `widgetKey` (the widget's secret
 * or an organisation API key) is sent as a bearer instead, for server-side rendering or a
 * preview: never put a secret in a public page.
 */
export interface WidgetOptions extends Common {
  /** The organisation's public id; leave it out when `widget` is the console's "organisation/widget" key. */
  organisation?: string;
  widget: string;
  widgetKey?: string;
}

/** Through an integration, server-side: `GET /api/v1/integrations/{integration}/search` with an API token. */
export interface IntegrationOptions extends Common {
  integration: string;
  apiKey: string;
}

export type LoreSearchClientOptions = WidgetOptions | IntegrationOptions;

/** The search client InstantSearch takes as `searchClient`. */
export interface LoreSearchClient {
  search(requests: readonly AlgoliaRequest[] | { requests: readonly AlgoliaRequest[] }): Promise<{ results: Array<AlgoliaResult | FacetValuesResult> }>;
  searchForFacetValues(requests: readonly AlgoliaRequest[]): Promise<FacetValuesResult[]>;
}

/** A non-2xx answer from Lore: `message` is Lore's, `status` the HTTP status. */
export class LoreSearchError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
    this.name = 'LoreSearchError';
  }
}

interface Target {
  route: 'widget' | 'integration';
  endpoint: string;
  bearer: string | undefined;
  fetch: typeof fetch;
}

const WIDGET_KEYS = ['url', 'fetch', 'organisation', 'widget', 'widgetKey'];
const INTEGRATION_KEYS = ['url', 'fetch', 'integration', 'apiKey'];

/**
 * Checks the options and says what is wrong with them. Throws a TypeError naming the first
 * problem: no Lore URL, both or neither of a widget and an integration, a missing API token,
 * an option that belongs to the other route or is unknown.
 */
function targetOf(options: LoreSearchClientOptions): Target {
  const fail = (message: string): never => {
    throw new TypeError(`createLoreSearchClient: ${message}`);
  };
  if (!options || typeof options !== 'object') fail('pass an options object: { url, organisation, widget } or { url, integration, apiKey }.');
  const o = options as unknown as Record<string, unknown>;
  const text = (name: string) => {
    const value = o[name];
    if (typeof value !== 'string' || value.trim() === '') fail(`"${name}" must be a non-empty string.`);
    return (value as string).trim();
  };
  const url = text('url');
  let base: URL | undefined;
  try {
    base = new URL(url);
  } catch {
    // Reported just below, with the value given.
  }
  if (!base || !/^https?:$/.test(base.protocol)) fail(`"url" must be Lore's absolute http(s) URL, got ${JSON.stringify(o.url)}.`);
  const root = `${base!.origin}${base!.pathname.replace(/\/+$/, '')}/api/v1`;
  const fetchFn = o.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== 'function') fail('no fetch here: pass one as the "fetch" option.');
  const path = (s: string) => encodeURIComponent(s);

  const isIntegration = o.integration !== undefined;
  if (isIntegration && (o.organisation !== undefined || o.widget !== undefined)) fail('pass either { organisation, widget } or { integration, apiKey }, not both.');
  if (!isIntegration && o.widget === undefined) fail('pass { organisation, widget } (a search widget) or { integration, apiKey } (an integration with an API token).');
  const allowed = isIntegration ? INTEGRATION_KEYS : WIDGET_KEYS;
  const stray = Object.keys(o).find((k) => !allowed.includes(k) && o[k] !== undefined);
  if (stray) fail(`unknown option "${stray}" for ${isIntegration ? 'an integration (url, integration, apiKey, fetch)' : 'a widget (url, organisation, widget, widgetKey, fetch)'}.`);

  if (isIntegration) {
    if (o.apiKey === undefined) fail('an integration needs "apiKey", an API token of the organisation.');
    return { route: 'integration', endpoint: `${root}/integrations/${path(text('integration'))}/search`, bearer: text('apiKey'), fetch: fetchFn as typeof fetch };
  }
  // The widget's key as the console shows it ("organisation/widget") is taken as well.
  const key = o.organisation === undefined ? /^([^/]+)\/([^/]+)$/.exec(text('widget')) : null;
  const organisation = key ? key[1]! : text('organisation');
  const widget = key ? key[2]! : text('widget');
  const bearer = o.widgetKey === undefined ? undefined : text('widgetKey');
  return { route: 'widget', endpoint: `${root}/${path(organisation)}/widgets/${path(widget)}/search`, bearer, fetch: fetchFn as typeof fetch };
}

/**
 * An InstantSearch `searchClient` backed by Lore's search. Throws a TypeError at once when
 * the options are wrong. Each `search` call sends one Lore request per distinct query (two
 * InstantSearch queries that ask Lore the same thing share one), all at once, and rejects
 * with a LoreSearchError carrying Lore's message when Lore answers with an error. What Lore
 * cannot do (negated filters, `facets: ['*']`, unknown parameters) is reported once per kind
 * on console.warn and left out of the request.
 */
export function createLoreSearchClient(options: LoreSearchClientOptions): LoreSearchClient {
  const target = targetOf(options);
  const reported = new Set<string>();
  const warn: Warn = (kind, message) => {
    if (reported.has(kind)) return;
    reported.add(kind);
    console.warn(`Lore InstantSearch adapter: ${message}`);
  };
  // The widget route's analytics session: Lore makes one on the first search, the rest reuse it.
  let session: string | undefined;

  const send = async (query: LoreQuery & { search: URLSearchParams }): Promise<{ body: LoreSearchResponse; ms: number }> => {
    const params = new URLSearchParams(query.search);
    params.set('page', String(query.page + 1));
    params.set('per_page', String(Math.max(1, query.hitsPerPage)));
    if (session && target.route === 'widget') params.set('session_id', session);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (target.bearer) headers.authorization = `Bearer ${target.bearer}`;
    const started = Date.now();
    // Called as a plain function: a browser's fetch called as a method of another object
    // throws "Illegal invocation".
    const fetchFn = target.fetch;
    const res = await fetchFn(`${target.endpoint}?${params}`, { headers, credentials: 'omit' });
    const body = (await res.json().catch(() => null)) as (LoreSearchResponse & { message?: unknown }) | null;
    if (!res.ok || !body || !Array.isArray(body.data)) {
      const message = typeof body?.message === 'string' ? body.message : `Lore answered the search with HTTP ${res.status}.`;
      throw new LoreSearchError(message, res.status);
    }
    if (typeof body.session_id === 'string') session ??= body.session_id;
    return { body, ms: Date.now() - started };
  };

  /** One Lore request per distinct Lore query within a call (keyed by its query string). */
  const batch = () => {
    const sent = new Map<string, Promise<{ body: LoreSearchResponse; ms: number }>>();
    return (query: LoreQuery & { search: URLSearchParams }) => {
      const key = `${query.search}&page=${query.page}&per_page=${Math.max(1, query.hitsPerPage)}`;
      let answer = sent.get(key);
      if (!answer) sent.set(key, (answer = send(query)));
      return answer;
    };
  };

  const facetValues = async (request: Normalised, fetchOnce: ReturnType<typeof batch>): Promise<FacetValuesResult> => {
    const { params } = request;
    const facet = request.facet ?? params.facetName;
    if (typeof facet !== 'string' || facet === '') throw new TypeError('searchForFacetValues: no facetName in the request.');
    // Counts come with a search: the values are those of the current query's hits.
    const query = toLoreQuery({ ...params, facets: [facet], hitsPerPage: 0, page: 0 }, target.route, warn);
    if (!query.search) return { facetHits: [], exhaustiveFacetsCount: true, processingTimeMS: 0 };
    const { body, ms } = await fetchOnce(query as LoreQuery & { search: URLSearchParams });
    const wanted = termsOf(typeof params.facetQuery === 'string' ? params.facetQuery : '', []);
    const tags = tagsOf(params.highlightPreTag, params.highlightPostTag);
    const hits: FacetHit[] = [];
    for (const [value, count] of Object.entries(body.facets?.[facet] ?? {})) {
      const parts = markWords(value, wanted);
      const found = new Set(parts.filter((p) => p.marked).map((p) => p.text.toLowerCase()));
      const all = [...wanted.words].every((w) => found.has(w) || (w === wanted.prefix && [...found].some((f) => f.startsWith(w))));
      if (all) hits.push({ value, highlighted: render(parts, tags), count });
    }
    hits.sort((a, b) => b.count - a.count);
    const max = typeof params.maxFacetHits === 'number' && params.maxFacetHits > 0 ? params.maxFacetHits : 10;
    return { facetHits: hits.slice(0, max), exhaustiveFacetsCount: body.facets_exhaustive ?? false, processingTimeMS: ms };
  };

  return {
    async search(requests) {
      const list = normalise(requests);
      const fetchOnce = batch();
      const results = await Promise.all(list.map(async (request): Promise<AlgoliaResult | FacetValuesResult> => {
        if (request.type === 'facet') return facetValues(request, fetchOnce);
        const query = toLoreQuery(request.params, target.route, warn);
        if (!query.search) return emptyResult(request.indexName, request.params, query);
        const { body, ms } = await fetchOnce(query as LoreQuery & { search: URLSearchParams });
        return toAlgoliaResult(request.indexName, request.params, query, body, ms);
      }));
      return { results };
    },
    async searchForFacetValues(requests) {
      const fetchOnce = batch();
      return Promise.all(normalise(requests).map((request) => facetValues(request, fetchOnce)));
    },
  };
}

interface Normalised {
  indexName: string;
  type: 'default' | 'facet';
  facet: string | undefined;
  params: AlgoliaParams;
}

/** InstantSearch's requests (algoliasearch v4 `{indexName, params}` or v5 flat) as one shape. */
function normalise(requests: readonly AlgoliaRequest[] | { requests: readonly AlgoliaRequest[] }): Normalised[] {
  const list = Array.isArray(requests) ? requests : (requests as { requests: readonly AlgoliaRequest[] }).requests;
  if (!Array.isArray(list)) throw new TypeError('search: expected an array of requests.');
  return list.map((r: AlgoliaRequest) => {
    const { indexName, type, facet, params, ...flat } = r as { indexName: string; type?: 'default' | 'facet'; facet?: string; params?: AlgoliaParams } & AlgoliaParams;
    return { indexName: indexName ?? '', type: type === 'facet' ? 'facet' : 'default', facet, params: params ?? flat };
  });
}
