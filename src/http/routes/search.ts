import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../app.js';
import { ValidationError } from '../../domain/errors.js';
import type { SearchResult } from '../../domain/search.js';
import { presentPage } from '../paginate.js';
import { parseSearchParams } from '../searchParams.js';
import { Entry, errorResponses, Message, Paginated } from '../schemas.js';

const Params = Type.Object({ integration: Type.String({ maxLength: 64 }) });

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
    lexical_weight: Type.Optional(Type.Number({ description: 'explain=true: similarity = lexical_weight × lexical + (1 − lexical_weight) × vector' })),
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

export function searchRoutes(app: App): void {
  const { search, config } = app.deps;
  const tags = ['search'];

  app.get('/integrations/:integration/search', {
    schema: {
      tags,
      summary: 'Hybrid semantic search across the integration’s collections',
      description:
        'Query parameters: query (required), threshold (0..1, default 0.4), meta[key]=v | meta[key][or][]=v | meta[key][and][]=v, ' +
        'boost[i][field|type|scale|target|strength] (≤ 3), sort[i][field|direction|type] (≤ 3; not with boost), page, per_page (≤ 50). ' +
        'boost and sort also accept a JSON array string. explain=true adds each hit’s signals to score_breakdown.',
      params: Params,
      querystring: AnalyticsFlag,
      response: { 200: SearchResponse, 403: Message, 503: Message, ...errorResponses },
    },
  }, async (request, reply) => {
    const params = parseSearchParams(request.query as Record<string, unknown>);
    const result = await search.search(request.scope, request.params.integration, params, { analytics: request.query.analytics !== 'false' });
    reply.header('server-timing', serverTiming(result));
    return presentSearch(request, result, config.publicUrl);
  });

  app.post('/integrations/:integration/events', {
    schema: {
      tags,
      summary: 'Record a click or feedback event',
      params: Params,
      body: Type.Object({
        event_type: Type.Unsafe<'click' | 'thumbs_up' | 'thumbs_down'>({ type: 'string', enum: ['click', 'thumbs_up', 'thumbs_down'] }),
        meta: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 50 })),
      }),
      response: { 200: Type.Object({ ok: Type.Boolean() }), 403: Message, ...errorResponses },
    },
  }, async (request) => {
    const meta = request.body.meta ?? {};
    if (Buffer.byteLength(JSON.stringify(meta)) > 8_192) {
      throw ValidationError.field('meta', 'The meta field must not be larger than 8192 bytes as JSON.');
    }
    await search.recordEvent(request.scope, request.params.integration, request.body.event_type, meta);
    return { ok: true };
  });
}
