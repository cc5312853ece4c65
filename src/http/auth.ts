import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenPrincipal, type Principal } from '../domain/access/principal.js';
import { isApiKey, type ApiKeyService } from '../domain/access/apiKeys.js';
import { secretMatches } from '../domain/access/credentials.js';
import { ForbiddenError, UnauthenticatedError } from '../domain/errors.js';
import type { Scope } from '../domain/model.js';
import type { OrganisationService } from '../domain/access/organisations.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The organisation the credential acts for; set by the `credentialAuth` hook. */
    scope: Scope;
    /** The credential's kind, permissions and source limit; set by the `credentialAuth` hook. */
    principal: Principal;
    /**
     * The organisation's monthly usage quota as read with the credential (by `credentialAuth`
     * or `widgetAuth`): fresher than what the usage service last read.
     */
    usageQuota: number | null;
  }
  interface FastifyContextConfig {
    /**
     * Organisation API keys may call this route (GET /me, the pages routes); on every other
     * route a valid key gets 403. API v1 tokens may call every route. The widget routes are
     * outside this hook's scope: `widgetAuth` authorises keys there.
     */
    apiKeys?: boolean;
  }
}

/** The services that resolve a bearer credential. */
export interface Authenticators {
  organisations: Pick<OrganisationService, 'authenticate'>;
  apiKeys: Pick<ApiKeyService, 'authenticate'>;
}

/** The credential of `Authorization: Bearer <credential>`, or null. */
export function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * Resolves an API v1 token or an organisation API key (told apart by their prefixes) to its
 * principal; UnauthenticatedError (401) when it is neither, or unknown or revoked.
 */
export async function authenticate(services: Authenticators, credential: string): Promise<Principal> {
  if (isApiKey(credential)) return services.apiKeys.authenticate(credential);
  return tokenPrincipal(await services.organisations.authenticate(credential));
}

/**
 * onRequest hook for /api/v1: a valid credential sets `request.principal` and
 * `request.scope`; none or an invalid one is 401; an API key on a route without
 * `config: { apiKeys: true }` is 403. Routes then check permissions and sources
 * themselves (see domain/access/principal.ts).
 */
export function credentialAuth(services: Authenticators) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const credential = bearer(request);
    if (!credential) throw new UnauthenticatedError();
    const principal = await authenticate(services, credential);
    if (principal.kind === 'key' && !request.routeOptions.config.apiKeys) {
      throw new ForbiddenError('Organisation API keys may only call GET /me, the pages routes and the widget routes.');
    }
    request.principal = principal;
    request.scope = { organisationId: principal.organisationId };
    request.usageQuota = principal.usageQuota;
  };
}

/**
 * onRequest hook for admin routes: the instance master key (or, for /metrics, also the
 * metrics token), compared in constant time.
 */
export function masterAuth(...acceptedHashes: Uint8Array[]) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const credential = bearer(request);
    if (!credential || !acceptedHashes.some((hash) => secretMatches(credential, hash))) throw new UnauthenticatedError();
  };
}
