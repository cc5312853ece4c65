/**
 * How the search routes — the integration's and the widget's — present a search: the response
 * schema, the `analytics` flag, the Server-Timing header and the page of hits.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { FACET_VALUES, MAX_FACETS } from '../../domain/search/facets.js';
import { HEADING_WEIGHT } from '../../domain/search/fusion.js';
import type { SearchResult } from '../../domain/search/service.js';
import { presentPage } from '../paginate.js';
import { Entry, Paginated } from '../schemas.js';

const SearchHit = Type.Object({
  ...Entry.properties,
  score_breakdown: Type.Object({
    similarity: Type.Number(),
    final_score: Type.Number(),
    // With explain=true: where the similarity comes from.
    lexical: Type.Optional(Type.Number({ description: 'explain=true: calibrated BM25 of the best chunk, 0..1' })),
    vector: Type.Optional(Type.Number({ description: 'explain=true: calibrated cosine of the best chunk, 0..1' })),
    bm25: Type.Optional(Type.Number({ description: 'explain=true: raw BM25' })),
    cosine: Type.Optional(Type.Number({ description: 'explain=true: raw cosine' })),
    lexical_weight: Type.Optional(Type.Number({ description: `explain=true: similarity = lexical_weight × lexical + (1 − lexical_weight) × vector + ${HEADING_WEIGHT} × heading, at most 1` })),
    heading: Type.Optional(Type.Number({ description: "explain=true: how well the hit's heading names the query, 0 to 1 (1: the heading is the query)" })),
  }),
  snippet: Type.String({ description: 'Best passage, HTML-escaped, query terms in <mark>' }),
});
export const SearchResponse = Type.Object({
  ...Paginated(SearchHit).properties,
  summarisable: Type.Boolean(),
  facets: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()), {
    description:
      `Only with facets[]=key (at most ${MAX_FACETS} keys of meta or searchable_meta): for each key, its values and how many hits hold each — ` +
      'every hit that passes the query, threshold and meta filters, not only this page. An entry counts once a value, from meta and searchable_meta together; ' +
      'numbers and booleans as strings, each element of an array; objects and null are not counted. ' +
      `At most the ${FACET_VALUES} values with the highest counts (ties by value); a key no hit has gives {}.`,
  })),
  facets_exhaustive: Type.Optional(Type.Boolean({
    description:
      'Only with facets[]: whether the counts are exact. A search ranks a bounded set of candidate chunks (the best 50 by each signal); ' +
      'true when storage can tell that set held every chunk passing the meta filters — vectors compared exactly (collections of up to 5,000 chunks), ' +
      'fewer than 50 found, and no chunk awaiting `lore reindex` for another model — so no entry was left out. ' +
      'false otherwise, even where none was: the counts are then those of the hits ranked, as `meta.total` is.',
  })),
});

/**
 * The `analytics` query parameter of the integration routes (search, summarise): `false` keeps
 * the call out of the organisation's visitor analytics. Only API v1 tokens reach these routes;
 * the widget routes never read it, so a visitor's search is always counted.
 */
export const AnalyticsFlag = Type.Object({
  analytics: Type.Optional(Type.Unsafe<'true' | 'false'>({
    type: 'string',
    enum: ['true', 'false'],
    default: 'true',
    description: 'false: not counted in the organisation’s analytics (activity, queries). The console’s playground sends it, so testing searches are not visitors’ searches.',
  })),
}, { additionalProperties: true });

/** Search parameters documented beside the description's list: how the query's words match. */
export const SearchFlags = {
  typo_tolerance: Type.Optional(Type.Unsafe<'true' | 'false'>({
    type: 'string',
    enum: ['true', 'false'],
    description:
      'A query word found in none of the collections also matches the words one edit from it (four letters or more) or two (eight or more), ' +
      'transpositions counting as one; never words with digits or `_`, nor Chinese, Japanese or Thai. Exact matches rank first. ' +
      'Two words one space apart, or a hyphenated word, also match the word written as one ("shut down": "shutdown"). ' +
      'Default: the integration’s `typo_tolerance` setting (true unless set false); false matches words exactly. ' +
      'Independently, a query not ending in a space ends in the word being typed, which also matches the words it begins.',
  })),
};

/**
 * The stages of a search as a Server-Timing header (`lexical;dur=3.9, vector;dur=5.3, …`):
 * browsers' developer tools and the benchmark read where a search's time went.
 */
export function serverTiming(result: SearchResult): string {
  return Object.entries(result.timings)
    .map(([stage, ms]) => `${stage};dur=${ms.toFixed(2)}`)
    .join(', ');
}

/** A search result as the API shows it: one page of hits, `summarisable`, links and meta; facet counts when asked. */
export function presentSearch(request: FastifyRequest, result: SearchResult, publicUrl: string | undefined) {
  const page = presentPage(request, { items: result.hits, total: result.total, page: result.page, perPage: result.perPage }, publicUrl);
  const facets = result.facets && { facets: result.facets, facets_exhaustive: result.facetsExhaustive === true };
  return { data: page.data, summarisable: result.summarisable, ...facets, links: page.links, meta: page.meta };
}

/** The search parameters as a route's description lists them (the integration's and the widget's). */
export const SEARCH_PARAMETERS =
  'Query parameters: query (required), threshold (0..1, default 0.4), meta[key]=v | meta[key][or][]=v | meta[key][and][]=v, ' +
  'boost[i][field|type|scale|target|strength] (≤ 3), sort[i][field|direction|type] (≤ 3; not with boost), page, per_page (≤ 50). ' +
  'boost and sort also accept a JSON array string. explain=true adds each hit’s signals to score_breakdown. typo_tolerance=false matches words exactly. ' +
  'A query not ending in a space ends in the word being typed: it also matches the words it begins. ' +
  `facets[]=key (≤ ${MAX_FACETS} keys of meta or searchable_meta; one facets=key too) adds facets, each key's values counted over every hit (top ${FACET_VALUES}), ` +
  'and facets_exhaustive, whether those counts are exact or bounded by the candidates a search ranks.';
