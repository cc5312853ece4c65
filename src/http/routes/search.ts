import { Type } from 'typebox';
import type { App } from '../deps.js';
import { ValidationError } from '../../domain/errors.js';
import { parseSearchParams } from '../searchParams.js';
import { errorResponses, Message } from '../schemas.js';
import { AnalyticsFlag, presentSearch, SEARCH_PARAMETERS, SearchFlags, SearchResponse, serverTiming } from '../presenters/search.js';

const Params = Type.Object({ integration: Type.String({ maxLength: 64 }) });

export function searchRoutes(app: App): void {
  const { search, analytics, config } = app.deps;
  const tags = ['search'];

  app.get('/integrations/:integration/search', {
    schema: {
      tags,
      summary: 'Hybrid semantic search across the integration’s collections',
      description: SEARCH_PARAMETERS,
      params: Params,
      querystring: Type.Object({ ...SearchFlags, ...AnalyticsFlag.properties }, { additionalProperties: true }),
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
    await analytics.recordEvent(request.scope, request.params.integration, request.body.event_type, meta);
    return { ok: true };
  });
}
