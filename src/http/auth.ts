import type { FastifyReply, FastifyRequest } from 'fastify';
import { secretMatches } from '../domain/credentials.js';
import { UnauthenticatedError } from '../domain/errors.js';
import type { Scope } from '../domain/model.js';
import type { OrganisationService } from '../domain/organisations.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The organisation an API v1 token acts for; set by the `requireToken` hook. */
    scope: Scope;
  }
}

/** The credential of `Authorization: Bearer <credential>`, or null. */
export function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** onRequest hook: a valid API v1 token sets `request.scope`; anything else is 401. */
export function tokenAuth(organisations: OrganisationService) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const credential = bearer(request);
    if (!credential) throw new UnauthenticatedError();
    request.scope = await organisations.authenticate(credential);
  };
}

/** onRequest hook for admin routes: the instance master key, compared in constant time. */
export function masterAuth(masterKeyHash: Uint8Array) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const credential = bearer(request);
    if (!credential || !secretMatches(credential, masterKeyHash)) throw new UnauthenticatedError();
  };
}
