/**
 * How the search routes — the integration's and the widget's — present a search: the response
 * schema, the `analytics` flag, the Server-Timing header and the page of hits.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
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
export const SearchResponse = Type.Object({ ...Paginated(SearchHit).properties, summarisable: Type.Boolean() });

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

/** A search result as the API shows it: one page of hits, `summarisable`, links and meta. */
export function presentSearch(request: FastifyRequest, result: SearchResult, publicUrl: string | undefined) {
  const page = presentPage(request, { items: result.hits, total: result.total, page: result.page, perPage: result.perPage }, publicUrl);
  return { data: page.data, summarisable: result.summarisable, links: page.links, meta: page.meta };
}
