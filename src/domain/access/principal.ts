import { ForbiddenError } from '../errors.js';
import type { Scope } from '../model.js';
import { PERMISSIONS, type Permission } from '../../shared/permissions.js';

/**
 * Who is calling, resolved from the bearer credential: an API v1 token (`kind: 'token'`,
 * every permission, every source) or an organisation API key (`kind: 'key'`, its own
 * permissions and optional source limit). It is a Scope, so it can be passed wherever a
 * tenant-scoped call wants one.
 */
export interface Principal extends Scope {
  readonly kind: 'token' | 'key';
  /** The API key's id; null for a token. */
  readonly keyId: string | null;
  readonly permissions: readonly Permission[];
  /** Collection ids the credential is limited to; null = every source of the organisation. */
  readonly sourceIds: readonly string[] | null;
  /**
   * The organisation's monthly usage quota, read in the same statement as the credential, so
   * an admin's change applies to the next request on every process.
   */
  readonly usageQuota: number | null;
}

/** The principal of an API v1 token: full access to its organisation. */
export function tokenPrincipal(token: Scope & { usageQuota: number | null }): Principal {
  return { organisationId: token.organisationId, kind: 'token', keyId: null, permissions: PERMISSIONS, sourceIds: null, usageQuota: token.usageQuota };
}

/** Throws ForbiddenError (403) unless the principal holds `permission`. */
export function requirePermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.includes(permission)) {
    throw new ForbiddenError(`This credential lacks the ${permission} permission.`);
  }
}

/**
 * Throws ForbiddenError (403) when the principal belongs to another organisation than
 * the resource it names. SPEC.md's key table makes this a 403, not a 404: the caller
 * already named the resource (a public organisation id, or a random collection UUID), so
 * saying "not yours" reveals nothing of the other organisation's data.
 */
export function requireOrganisation(principal: Principal, organisationId: number): void {
  if (principal.organisationId !== organisationId) {
    throw new ForbiddenError('This credential belongs to another organisation.');
  }
}

/** Whether the principal's source limit admits every one of `sourceIds`. */
export function coversSources(principal: Principal, sourceIds: readonly string[]): boolean {
  const limit = principal.sourceIds;
  if (limit === null) return true;
  return sourceIds.every((id) => limit.includes(id.toLowerCase()));
}

/** Throws ForbiddenError (403) unless the source limit admits every one of `sourceIds`. */
export function requireSources(principal: Principal, sourceIds: readonly string[]): void {
  if (!coversSources(principal, sourceIds)) throw new ForbiddenError('This credential is not allowed to access this source.');
}
