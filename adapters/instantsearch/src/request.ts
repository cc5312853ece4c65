// Algolia search parameters → Lore's search query string. What Lore cannot do is reported
// through `warn` (once per kind, by the client), never dropped in silence.
import type { AlgoliaParams } from './types.js';

/** Reports a problem once per `kind` (the client keeps a Set of kinds reported). */
export type Warn = (kind: string, message: string) => void;

/** Lore's limits (SPEC.md): per_page at most 50, facet counts for at most 5 keys. */
export const MAX_PER_PAGE = 50;
export const MAX_FACETS = 5;

/** Parameters read by the adapter (in this file or when shaping the response). */
const HANDLED = new Set([
  'query', 'page', 'hitsPerPage', 'facets', 'facetFilters', 'maxValuesPerFacet', 'typoTolerance',
  'highlightPreTag', 'highlightPostTag', 'attributesToHighlight', 'attributesToSnippet',
  'attributesToRetrieve', 'snippetEllipsisText', 'facetName', 'facetQuery', 'maxFacetHits',
  'analytics',
]);

/**
 * Parameters ignored without a word, as they change nothing a visitor sees: `clickAnalytics`
 * asks Algolia for a queryID for click events (none is returned, so none are sent);
 * `userToken` names the visitor to Algolia's analytics (Lore keeps its own session).
 */
const HARMLESS = new Set(['clickAnalytics', 'userToken']);

export interface LoreQuery {
  /** Lore's query string without `page`/`per_page`, or null when there is nothing to search (empty query). */
  search: URLSearchParams | null;
  /** 0-based, as InstantSearch counts. */
  page: number;
  /** What the request asked for (0: facet counts only), at most 50. */
  hitsPerPage: number;
  facets: string[];
}

/**
 * The Lore search for `params`. `route` is which Lore route it goes to: only the integration
 * route reads `analytics=false`. An empty query (InstantSearch's first search, before anything
 * is typed) gives `search: null`: Lore requires a query, and the answer is an empty page.
 */
export function toLoreQuery(params: AlgoliaParams, route: 'widget' | 'integration', warn: Warn): LoreQuery {
  for (const [name, value] of Object.entries(params)) {
    if (HANDLED.has(name) || HARMLESS.has(name) || isEmpty(value)) continue;
    warn(name, `the "${name}" parameter is not supported by Lore and is ignored.`);
  }
  const hitsPerPage = integer(params.hitsPerPage, 20);
  if (hitsPerPage > MAX_PER_PAGE) warn('hitsPerPage', `hitsPerPage is at most ${MAX_PER_PAGE} with Lore; ${MAX_PER_PAGE} are shown.`);
  const facets = facetList(params.facets, warn);
  const query = typeof params.query === 'string' ? params.query : '';
  const page = Math.max(0, integer(params.page, 0));
  const base = { page, hitsPerPage: Math.min(Math.max(0, hitsPerPage), MAX_PER_PAGE), facets };
  if (query.trim() === '') return { ...base, search: null };

  // Sent as typed: a query not ending in a space ends in the word being typed, which Lore
  // also matches as a prefix.
  const search = new URLSearchParams({ query });
  for (const [key, value] of metaFilters(params.facetFilters, warn)) search.append(key, value);
  for (const key of facets) search.append('facets[]', key);
  const typos = params.typoTolerance;
  if (typos === true || typos === 'true') search.set('typo_tolerance', 'true');
  else if (typos === false || typos === 'false') search.set('typo_tolerance', 'false');
  else if (typos !== undefined) warn('typoTolerance', `typoTolerance "${String(typos)}" is not supported by Lore (only true or false); Lore's default is used.`);
  if (params.analytics === false && route === 'integration') search.set('analytics', 'false');
  return { ...base, search };
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

function integer(value: unknown, fallback: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

function facetList(value: AlgoliaParams['facets'], warn: Warn): string[] {
  const keys = [...new Set(typeof value === 'string' ? [value] : value ?? [])];
  if (keys.includes('*')) warn('facets:*', 'facets: ["*"] is not supported by Lore: name the meta keys to count.');
  const named = keys.filter((k) => k !== '*' && k !== '');
  if (named.length > MAX_FACETS) warn('facets:max', `Lore counts at most ${MAX_FACETS} facets a search; only ${named.slice(0, MAX_FACETS).join(', ')} are counted.`);
  return named.slice(0, MAX_FACETS);
}

/** A facet filter "key:value" read; negations ("-key:v", "key:-v") and keys Lore's query string cannot carry ("a[b]") are null. */
function filterOf(filter: string): { key: string; value: string } | null {
  const colon = filter.indexOf(':');
  if (colon <= 0) return null;
  const key = filter.slice(0, colon);
  let value = filter.slice(colon + 1);
  if (key.startsWith('-') || value.startsWith('-') || /[[\]]/.test(key)) return null;
  // InstantSearch escapes a value's leading "-" (it would read as a negation) as "\-".
  if (value.startsWith('\\-')) value = value.slice(1);
  return { key, value };
}

/**
 * facetFilters (outer array: AND; inner array: OR) as Lore's meta filters: one value on a
 * key → `meta[key]=v`; several ANDed → `meta[key][and][]`; one OR group on a key →
 * `meta[key][or][]`. Lore takes one form per key and ANDs different keys, so an OR group
 * across keys, negations, and a key filtered in two forms are reported, not sent.
 */
export function metaFilters(value: AlgoliaParams['facetFilters'], warn: Warn): [string, string][] {
  const groups = typeof value === 'string' ? [value] : value ?? [];
  const and = new Map<string, string[]>();
  const or = new Map<string, string[]>();
  for (const group of groups) {
    const filters = (typeof group === 'string' ? [group] : [...group]).map((f) => ({ raw: f, parsed: filterOf(f) }));
    const bad = filters.find((f) => f.parsed === null);
    if (bad) {
      warn('facetFilters:unsupported', `the facet filter "${bad.raw}" is not supported by Lore (a negation, or a key with brackets), and is ignored.`);
      continue;
    }
    const parsed = filters.map((f) => f.parsed!);
    const keys = new Set(parsed.map((f) => f.key));
    if (keys.size > 1) {
      warn('facetFilters:or-across-keys', `an OR of facet filters on different keys (${[...keys].join(', ')}) is not supported by Lore, and is ignored.`);
      continue;
    }
    const key = parsed[0]?.key;
    if (key === undefined) continue;
    const values = [...new Set(parsed.map((f) => f.value))];
    if (typeof group === 'string' || values.length === 1) and.set(key, [...new Set([...(and.get(key) ?? []), ...values])]);
    else if (or.has(key)) warn('facetFilters:or-twice', `two OR groups of facet filters on "${key}" are not supported by Lore; the second is ignored.`);
    else or.set(key, values);
  }
  const out: [string, string][] = [];
  for (const [key, values] of and) {
    if (or.has(key)) {
      warn('facetFilters:and-or', `facet filters on "${key}" both ANDed and ORed are not supported by Lore; the OR group is ignored.`);
      or.delete(key);
    }
    if (values.length === 1) out.push([`meta[${key}]`, values[0]!]);
    else for (const v of values) out.push([`meta[${key}][and][]`, v]);
  }
  for (const [key, values] of or) for (const v of values) out.push([`meta[${key}][or][]`, v]);
  return out;
}
