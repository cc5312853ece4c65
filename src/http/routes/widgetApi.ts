import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../deps.js';
import { ValidationError } from '../../domain/errors.js';
import { pageRequest } from '../../domain/pagination.js';
import type { VisitorIdentity } from '../../domain/widgets/visitors.js';
import { presentConfig } from '../presenters/widgets.js';
import type { WidgetSettings } from '../../shared/widgetSettings.js';
import { presentPage } from '../paginate.js';
import { parseSearchParams } from '../searchParams.js';
import { Data, errorResponses, Message, NoContent, Paginated, Timestamp } from '../schemas.js';
import { authoriseWidget } from '../../domain/widgets/access.js';
import { bearer } from '../auth.js';
import { bearerCors, loadWidget, pageOrigin, preflightCors, preflightHeaders, widgetCors } from '../widgetAuth.js';
import { WidgetConfig } from '../widgetSchemas.js';
import { ChatBody, ChatResponse, failures, respondChat, respondSummary, SummaryResponse } from '../presenters/answers.js';
import { presentSearch, SEARCH_PARAMETERS, SearchFlags, SearchResponse, serverTiming } from '../presenters/search.js';

const Params = Type.Object({ organisation: Type.String({ maxLength: 64 }), widget: Type.String({ maxLength: 64 }) });
const SessionId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const tags = ['widgets'];
const VisitorId = Type.String({ minLength: 1, maxLength: 255 });
// No pattern: a malformed hash is a wrong hash (403), not a malformed request.
const VisitorHash = Type.String({ maxLength: 128 });
const IdentityQuery = { user: Type.Optional(VisitorId), hash: Type.Optional(VisitorHash) };
const ConversationParams = Type.Object({ ...Params.properties, id: Type.String({ maxLength: 64 }) });
const ConversationSummary = Type.Object({
  id: Type.String(),
  title: Type.String(),
  kept: Type.Boolean(),
  message_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const Transcript = Type.Object({
  id: Type.String(),
  kept: Type.Boolean(),
  messages: Type.Array(Type.Object({
    role: Type.String(),
    content: Type.String(),
    citations: Type.Array(Type.Object({ ref: Type.Integer(), title: Type.String(), url: Type.String(), image: Type.Optional(Type.String()) })),
    created_at: Timestamp,
  })),
});
const conversationRoute = { widgetRoute: { permission: 'chat', types: ['chat'] } } as const;
const conversationResponses = { 403: Message, ...errorResponses };

/**
 * The visitor a conversation route acts for: `user` and `hash` from the JSON body or else the
 * query string. Either missing → 422 on that field; whether the hash is right is the service's
 * to say (403).
 */
function visitorIdentity(request: FastifyRequest): VisitorIdentity {
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
  const query = request.query as { user?: string; hash?: string };
  const pick = (key: 'user' | 'hash') => (key in body ? body[key] : query[key]);
  const [user, hash] = [pick('user'), pick('hash')];
  const errors: Record<string, string[]> = {};
  if (typeof user !== 'string' || user === '' || user.length > 255) errors.user = ['The user field is required (1 to 255 characters).'];
  if (typeof hash !== 'string' || hash === '' || hash.length > 128) errors.hash = ['The hash field is required.'];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { id: user as string, hash: hash as string };
}

/**
 * The widget routes outside the widgetAuth hook: the presentation config (no secrets,
 * cacheable for five minutes; authorised like the other widget routes, by listed Origin or
 * bearer) and CORS preflights (no credential; the Origin decides the CORS headers).
 */
export function widgetPublicRoutes(app: App): void {
  const { widgets } = app.deps;

  app.get('/:organisation/widgets/:widget/config', {
    schema: {
      tags,
      summary: 'Presentation config of a widget (for its websites, or with its secret or an API key; cacheable, ETag)',
      params: Params,
      response: { 200: WidgetConfig, 304: Type.Null(), 401: Message, 403: Message, 404: Message },
    },
  }, async (request, reply) => {
    const widget = await loadWidget(widgets, request);
    // Authorised like every widget route (SPEC.md: "by page origin on the widget's websites
    // list"): a listed page, or a bearer the widget accepts (the SDK's preview token, a
    // server-side fetch with the widget's secret or an API key). An unlisted Origin gets 403,
    // no credential at all 401. `Vary: Origin` (set first, errors included) keeps a shared
    // cache from handing one site's answer to another.
    widgetCors(request, reply, widget);
    const how = await authoriseWidget(app.deps, widget, { origin: pageOrigin(request), bearer: bearer(request) }, widget.type === 'chat' ? 'chat' : 'search');
    bearerCors(request, reply, how);
    const config = presentConfig(widget.type, widget.name, widget.config as WidgetSettings);
    const etag = `"${createHash('sha256').update(JSON.stringify(config)).digest('base64url')}"`;
    // A shared cache may keep what a listed origin was given (keyed by Origin), never what a bearer was.
    reply.header('cache-control', `${how === 'origin' ? 'public' : 'private'}, max-age=300`).header('etag', etag);
    const cached = (request.headers['if-none-match'] ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
    if (cached.includes(etag) || cached.includes('*')) return reply.status(304).send(null);
    return config;
  });

  // Preflight for every widget route: 204 with CORS headers for a listed origin or a request
  // that will carry a bearer credential, else 403 without.
  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    const widget = await loadWidget(widgets, request);
    if (!preflightCors(request, reply, widget)) return reply.status(403).send({ message: 'This website is not allowed to use this widget.' });
    preflightHeaders(reply);
    return reply.status(204).send(null);
  };
  app.options('/:organisation/widgets/:widget/:action', {
    schema: { hide: true, params: Type.Object({ ...Params.properties, action: Type.String({ maxLength: 32 }) }) },
  }, preflight);
  app.options('/:organisation/widgets/:widget/conversations/*', { schema: { hide: true } }, preflight);
}

/**
 * Search, summarize, chat and events through a widget: the same services as the integration
 * routes, over the widget's integration; and a signed visitor's conversations. Authorisation and the widget type are checked by the
 * scope's `widgetAuth` hook from `config.widgetRoute`.
 */
export function widgetApiRoutes(app: App): void {
  const { search, answers, widgets, visitors, config } = app.deps;

  app.get('/:organisation/widgets/:widget/search', {
    config: { widgetRoute: { permission: 'search', types: ['search'] } },
    schema: {
      tags,
      summary: 'Search through a search widget (integration search parameters, plus session_id)',
      description: `${SEARCH_PARAMETERS} Plus session_id. explain=true is honoured only for an organisation API key; a visitor gets no score breakdown.`,
      params: Params,
      querystring: Type.Object({ session_id: Type.Optional(SessionId), ...SearchFlags }, { additionalProperties: true }),
      response: { 200: Type.Object({ ...SearchResponse.properties, session_id: Type.String() }), 403: Message, 503: Message, ...errorResponses },
    },
  }, async (request, reply) => {
    const { session_id: sessionId, ...query } = request.query as Record<string, unknown>;
    const params = parseSearchParams(query);
    // Raw BM25 and cosine scores are for the organisation tuning its search, not its visitors.
    if (request.widgetAccess !== 'key') params.explain = false;
    const result = await search.search(request.scope, request.widget.integration_id, params);
    reply.header('server-timing', serverTiming(result));
    return { ...presentSearch(request, result, config.publicUrl), session_id: (sessionId as string | undefined) ?? randomUUID() };
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
        // A signed-in visitor (SPEC.md "Signed visitor identity"); an id without a hash is anonymous.
        user: Type.Optional(Type.Object({ id: VisitorId, hash: Type.Optional(VisitorHash) })),
      }),
      response: { 200: ChatResponse, ...failures },
    },
  }, async (request, reply) => {
    const { user } = request.body;
    const owner = await visitors.owner(request.scope, request.widget, user?.hash === undefined ? null : { id: user.id, hash: user.hash });
    return respondChat(answers, request, reply, request.widget.integration_id, request.body, owner);
  });

  // Browsers send events with sendBeacon as text/plain (a CORS-simple request, no preflight,
  // delivered while the page unloads): on this route such a body is parsed as JSON.
  app.register(async (scope) => {
    const events = scope.withTypeProvider<TypeBoxTypeProvider>();
    events.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: 16_384 }, events.getDefaultJsonParser('error', 'error'));
    events.post('/:organisation/widgets/:widget/events', {
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
          // Feedback (thumbs_up, thumbs_down) names the chat answer: its text_delta message_id.
          answer_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
        }),
        response: { 200: Type.Object({ ok: Type.Boolean() }), 403: Message, ...errorResponses },
      },
    }, async (request) => {
      const { name, url, rank, source, session_id, answer_id } = request.body;
      await widgets.recordEvent(request.scope, request.widget.id, {
        name,
        url: url ?? null,
        rank: rank ?? null,
        source: source ?? null,
        session_id: session_id ?? null,
        answer_id: answer_id ?? null,
      });
      return { ok: true };
    });
  });

  // A signed visitor's conversations (SPEC.md "Signed visitor identity"): chat widgets only.
  const base = '/:organisation/widgets/:widget/conversations';
  const visitor = (request: FastifyRequest) => visitors.visitor(request.scope, request.widget, visitorIdentity(request));

  app.get(base, {
    config: conversationRoute,
    schema: {
      tags,
      summary: 'A signed visitor’s conversations through this chat widget, most recent first (user, hash, page, per_page)',
      params: Params,
      querystring: Type.Object({ ...IdentityQuery, page: Type.Optional(Type.Unknown()), per_page: Type.Optional(Type.Unknown()) }),
      response: { 200: Paginated(ConversationSummary), ...conversationResponses },
    },
  }, async (request) => {
    const owner = await visitor(request);
    return presentPage(request, await visitors.list(request.scope, owner, pageRequest(request.query.page, request.query.per_page)), config.publicUrl);
  });

  app.get(`${base}/:id`, {
    config: conversationRoute,
    schema: { tags, summary: 'One of a signed visitor’s conversations with its messages', params: ConversationParams, querystring: Type.Object(IdentityQuery), response: { 200: Data(Transcript), ...conversationResponses } },
  }, async (request) => ({ data: await visitors.get(request.scope, await visitor(request), request.params.id) }));

  app.post(`${base}/:id/keep`, {
    config: conversationRoute,
    schema: {
      tags,
      summary: 'Keep a signed visitor’s conversation from expiring (body: kept, default true; false releases it)',
      params: ConversationParams,
      querystring: Type.Object(IdentityQuery),
      response: { 200: Data(Transcript), ...conversationResponses },
    },
  }, async (request) => {
    const owner = await visitor(request);
    const kept = ((request.body ?? {}) as { kept?: unknown }).kept ?? true;
    if (typeof kept !== 'boolean') throw ValidationError.field('kept', 'The kept field must be true or false.');
    return { data: await visitors.keep(request.scope, owner, request.params.id, kept) };
  });

  app.delete(`${base}/:id`, {
    config: conversationRoute,
    schema: { tags, summary: 'Delete one of a signed visitor’s conversations', params: ConversationParams, querystring: Type.Object(IdentityQuery), response: { 204: NoContent, ...conversationResponses } },
  }, async (request, reply) => {
    await visitors.delete(request.scope, await visitor(request), request.params.id);
    return reply.status(204).send(null);
  });

  app.delete(base, {
    config: conversationRoute,
    schema: { tags, summary: 'Delete all of a signed visitor’s conversations through this widget', params: Params, querystring: Type.Object(IdentityQuery), response: { 204: NoContent, ...conversationResponses } },
  }, async (request, reply) => {
    await visitors.delete(request.scope, await visitor(request), null);
    return reply.status(204).send(null);
  });
}
