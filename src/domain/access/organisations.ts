import { issueApiToken, parseApiToken, randomId, secretMatches } from './credentials.js';
import { NotFoundError, UnauthenticatedError } from '../errors.js';
import type { Organisation, Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { OrganisationPatch, OrganisationRepository } from './port.js';

export interface OrganisationService {
  /** Creates an organisation and its first API v1 token (returned once, stored hashed). */
  create(name: string): Promise<{ organisation: Organisation; token: string; tokenId: string }>;
  list(page: PageRequest): Promise<Page<Organisation>>;
  /** Throws NotFoundError when the organisation does not exist. */
  update(id: number, patch: OrganisationPatch): Promise<Organisation>;
  /** Issues another API v1 token for an existing organisation. */
  createToken(organisationId: number): Promise<{ token: string; tokenId: string }>;
  /** Throws NotFoundError when the token is unknown or already revoked. */
  revokeToken(tokenId: string): Promise<void>;
  /**
   * Resolves a bearer token to its organisation and the organisation's usage quota; throws
   * UnauthenticatedError otherwise.
   */
  authenticate(bearer: string): Promise<Scope & { usageQuota: number | null }>;
}

export function createOrganisationService(deps: { organisations: OrganisationRepository }): OrganisationService {
  const { organisations } = deps;

  async function createToken(organisationId: number) {
    const issued = issueApiToken();
    await organisations.insertToken(organisationId, issued.id, issued.hash);
    return { token: issued.token, tokenId: issued.id };
  }

  return {
    async create(name) {
      const organisation = await organisations.create(name, `org_${randomId(12)}`);
      return { organisation, ...(await createToken(organisation.id)) };
    },

    list: (page) => organisations.list(page),

    async update(id, patch) {
      const organisation = await organisations.update(id, patch);
      if (!organisation) throw new NotFoundError('Organisation');
      return organisation;
    },

    async createToken(organisationId) {
      if (!(await organisations.get(organisationId))) throw new NotFoundError('Organisation');
      return createToken(organisationId);
    },

    async revokeToken(tokenId) {
      if (!(await organisations.revokeToken(tokenId))) throw new NotFoundError('Token');
    },

    async authenticate(bearer) {
      const parsed = parseApiToken(bearer);
      if (!parsed) throw new UnauthenticatedError();
      const stored = await organisations.findToken(parsed.id);
      if (!stored || !secretMatches(bearer, stored.hash)) throw new UnauthenticatedError();
      return { organisationId: stored.organisationId, usageQuota: stored.usageQuota };
    },
  };
}
