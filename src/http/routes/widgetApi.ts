import { createHash, randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import type { App } from '../app.js';
import { ValidationError } from '../../domain/errors.js';
import { presentConfig } from '../../domain/widgetConfig.js';
import { presentPage } from '../paginate.js';
import { parseSearchParams } from '../searchParams.js';
import { errorResponses, Message } from '../schemas.js';
import { loadWidget, preflightHeaders, widgetCors } from '../widgetAuth.js';
import { WidgetConfig } from '../widgetSchemas.js';
import { ChatBody, ChatResponse, failures, respondChat, respondSummary, SummaryResponse } from './answers.js';
import { SearchResponse } from './search.js';

const Params = Type.Object({ organisation: Type.String({ maxLength: 64 }), widget: Type.String({ maxLength: 64 }) });
const SessionId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const MAX_CONTEXT_BYTES = 4_096;
const tags = ['widgets'];

/**
 * The public widget routes: the presentation config (no secrets, cacheable for five minutes)
 * and CORS preflights. Neither needs a credential; the Origin only decides the CORS headers.
 */
export function widgetPublicRoutes(app: App): void {
  const { widgets } = app.deps;

  app.get('/:organisation/widgets/:widget/config', {
    schema: {
      tags,
      summary: 'Presentation config of a widget (public; cacheable, ETag)',
      security: [],
      params: Params,
      response: { 200: WidgetConfig, 304: Type.Null(), 404: Message },
    },
  }, async (request, reply) => {
    const widget = await loadWidget(widgets, request);
    widgetCors(request, reply, widget);
    const config = presentConfig(widget.type, widget.name, widget.config);
    const etag = `"${createHash('sha256').update(JSON.stringify(config)).digest('base64url')}"`;
    reply.header('cache-control', 'public, max-age=300').header('etag', etag);
    const cached = (request.headers['if-none-match'] ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
    if (cached.includes(etag) || cached.includes('*')) return reply.status(304).send(null);
    return config;
  });

  // Preflight for every widget route: 204 with CORS headers for a listed origin, else 403 without.
  app.options('/:organisation/widgets/:widget/:action', {
    schema: { hide: true, params: Type.Object({ ...Params.properties, action: Type.String({ maxLength: 32 }) }) },
  }, async (request, reply) => {
    const widget = await loadWidget(widgets, request);
    if (!widgetCors(request, reply, widget)) return reply.status(403).send({ message: 'This website is not allowed to use this widget.' });
    preflightHeaders(reply);
    return reply.status(204).send(null);
  });
}

/**
 * Search, summarize, chat and events through a widget: the same services as the integration
 * routes, over the widget's integration. Authorisation and the widget type are checked by the
 * scope's `widgetAuth` hook from `config.widgetRoute`.
 */
export function widgetApiRoutes(app: App): void {
  const { search, answers, widgets, config } = app.deps;

  app.get('/:organisation/widgets/:widget/search', {
    config: { widgetRoute: { permission: 'search', types: ['search'] } },
    schema: {
      tags,
      summary: 'Search through a search widget (integration search parameters, plus session_id)',
      params: Params,
      querystring: Type.Object({ session_id: Type.Optional(SessionId) }, { additionalProperties: true }),
      response: { 200: Type.Object({ ...SearchResponse.properties, session_id: Type.String() }), 403: Message, 503: Message, ...errorResponses },
    },
  }, async (request) => {
    const { session_id: sessionId, ...query } = request.query as Record<string, unknown>;
    const result = await search.search(request.scope, request.widget.integration_id, parseSearchParams(query));
    const page = presentPage(request, { items: result.hits, total: result.total, page: result.page, perPage: result.perPage }, config.publicUrl);
    return { ...page, summarisable: result.summarisable, session_id: (sessionId as string | undefined) ?? randomUUID() };
  });

  app.get('/:organisation/widgets/:widget/summarize', {
    config: { answerRoute: true, widgetRoute: { permission: 'summarize', types: ['search'] } },
    schema: {
      tags,
      summary: 'AI summary through a search widget (integration summarise parameters)',
      params: Params,
      querystring: Type.Object({}, { additionalProperties: true }),
      response: { 200: SummaryResponse, ...failures },
    },
  }, (request, reply) => respondSummary(answers, request, reply, request.widget.integration_id));

  app.post('/:organisation/widgets/:widget/chat', {
    config: { answerRoute: true, widgetRoute: { permission: 'chat', types: ['chat'] } },
    schema: {
      tags,
      summary: 'Chat through a chat widget; streams unless stream is false; X-Conversation-Id carries the conversation',
      params: Params,
      body: Type.Object({
        ...ChatBody.properties,
        // Page context from the SDK (URL, title…); validated and bounded, not used by answers yet.
        context: Type.Optional(Type.Union([Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 20 }), Type.Literal(false)])),
      }),
      response: { 200: ChatResponse, ...failures },
    },
  }, (request, reply) => {
    if (request.body.context && Buffer.byteLength(JSON.stringify(request.body.context)) > MAX_CONTEXT_BYTES) {
      throw ValidationError.field('context', `The context field must not be larger than ${MAX_CONTEXT_BYTES} bytes as JSON.`);
    }
    return respondChat(answers, request, reply, request.widget.integration_id, request.body);
  });

  app.post('/:organisation/widgets/:widget/events', {
    config: { widgetRoute: { permission: 'search', types: ['search', 'chat'] } },
    schema: {
      tags,
      summary: 'Record a widget analytics event (e.g. a click on a result)',
      params: Params,
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' }),
        url: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
        rank: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()])),
        source: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
        session_id: Type.Optional(Type.Union([SessionId, Type.Null()])),
      }),
      response: { 200: Type.Object({ ok: Type.Boolean() }), 403: Message, ...errorResponses },
    },
  }, async (request) => {
    const { name, url, rank, source, session_id } = request.body;
    await widgets.recordEvent(request.scope, request.widget.id, { name, url: url ?? null, rank: rank ?? null, source: source ?? null, session_id: session_id ?? null });
    return { ok: true };
  });
}
