import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Permission } from '../shared/permissions.js';
import type { IntegrationService } from '../domain/search/integrations.js';
import { ForbiddenError } from '../domain/errors.js';
import type { StoredWidget } from '../domain/widgets/port.js';
import type { WidgetService } from '../domain/widgets/service.js';
import { authoriseWidget, originAllowed } from '../domain/widgets/access.js';
import type { WidgetType } from '../shared/widgetSettings.js';
import { bearer, type Authenticators } from './auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The widget named in the path; set by the `widgetAuth` hook. */
    widget: StoredWidget;
    /**
     * How the widget request was authorised (`widgetAuth`): a visitor's page on an allowed
     * origin, the widget's secret, or an organisation API key.
     */
    widgetAccess: 'origin' | 'secret' | 'key';
  }
  interface FastifyContextConfig {
    /** A widget route: the API key permission it needs and the widget types it serves. */
    widgetRoute?: { permission: Permission; types: readonly WidgetType[] };
  }
}

interface WidgetParams {
  organisation: string;
  widget: string;
}

/**
 * Sets the CORS headers when the request's Origin is on the widget's websites list, and
 * only then: other origins get no CORS headers, so browsers refuse to hand them responses.
 */
export function widgetCors(request: FastifyRequest, reply: FastifyReply, widget: Pick<StoredWidget, 'websites'>): boolean {
  reply.header('vary', 'Origin');
  const origin = request.headers.origin ?? null;
  if (!originAllowed(widget, origin)) return false;
  return allowOrigin(reply, origin!);
}

/**
 * CORS for a request authorised by its bearer credential (the SDK's preview `token`) from a
 * page off the websites list: the credential is not ambient (no cookie), so a page that can
 * read the answer is a page that already holds the credential.
 */
function allowOrigin(reply: FastifyReply, origin: string): true {
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', 'X-Conversation-Id');
  return true;
}

/**
 * CORS for a preflight: a listed origin, or any origin announcing an Authorization header
 * (the actual request is then authorised by that credential, or refused).
 */
export function preflightCors(request: FastifyRequest, reply: FastifyReply, widget: Pick<StoredWidget, 'websites'>): boolean {
  if (widgetCors(request, reply, widget)) return true;
  const announced = String(request.headers['access-control-request-headers'] ?? '').toLowerCase().split(',').map((h) => h.trim());
  return request.headers.origin !== undefined && announced.includes('authorization') && allowOrigin(reply, request.headers.origin);
}

/**
 * CORS for a request from an unlisted origin that `authoriseWidget` accepted by its bearer
 * (widget secret or organisation API key): see allowOrigin.
 */
export function bearerCors(request: FastifyRequest, reply: FastifyReply, how: 'origin' | 'secret' | 'key'): void {
  if (how !== 'origin' && request.headers.origin !== undefined) allowOrigin(reply, request.headers.origin);
}

/** Preflight answer headers for an allowed origin. */
export function preflightHeaders(reply: FastifyReply): void {
  reply.header('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
  reply.header('access-control-allow-headers', 'Authorization, Content-Type');
  reply.header('access-control-max-age', '600');
}

/**
 * The origin of the page that made the request: its Origin header, or, for a same-origin GET
 * (which browsers send without Origin; `Sec-Fetch-Site`, which no page can set, tells it), this
 * server's own origin — so a page Lore serves itself, such as the demo, can use the widgets its
 * host is listed for.
 */
export function pageOrigin(request: FastifyRequest): string | null {
  if (request.headers.origin !== undefined) return request.headers.origin;
  return request.headers['sec-fetch-site'] === 'same-origin' ? `${request.protocol}://${request.host}` : null;
}

/** The widget named by `/{organisation}/widgets/{widget}`; NotFoundError when unknown. */
export function loadWidget(widgets: Pick<WidgetService, 'resolve'>, request: FastifyRequest): Promise<StoredWidget> {
  const params = request.params as WidgetParams;
  return widgets.resolve(params.organisation, params.widget);
}

/**
 * onRequest hook for the widget routes: loads the widget (404), sets CORS headers for an
 * allowed origin (before any handler, so streamed replies carry them too), authorises the
 * request (see `authoriseWidget`) and refuses a widget of the wrong type with 403. Sets
 * `request.widget` and `request.scope` (the widget's organisation).
 */
export function widgetAuth(deps: { widgets: Pick<WidgetService, 'resolve'>; apiKeys: Authenticators['apiKeys']; integrations: Pick<IntegrationService, 'get'> }) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.config.widgetRoute!;
    const widget = await loadWidget(deps.widgets, request);
    widgetCors(request, reply, widget);
    const how = await authoriseWidget(deps, widget, { origin: pageOrigin(request), bearer: bearer(request) }, route.permission);
    bearerCors(request, reply, how);
    if (!route.types.includes(widget.type)) {
      throw new ForbiddenError(`A ${widget.type} widget cannot serve this endpoint.`);
    }
    request.widget = widget;
    request.widgetAccess = how;
    request.scope = { organisationId: widget.organisationId };
    request.usageQuota = widget.usageQuota;
  };
}
