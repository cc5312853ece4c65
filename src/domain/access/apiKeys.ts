import type { Principal } from './principal.js';
import type { Permission } from '../../shared/permissions.js';
import { issueApiKey, parseApiKey, secretMatches } from './credentials.js';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ApiKey, Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { ApiKeyRepository, OwnedCollections } from './port.js';

/** An API key as the API accepts it (the schema already bounds and de-duplicates permissions). */
export interface ApiKeyInput {
  name: string;
  permissions: readonly Permission[];
  /** Collection ids of the organisation; null or absent = every source. */
  source_ids?: readonly string[] | null;
}

export interface ApiKeyService {
  /**
   * Creates a key for the organisation; `key` is the whole credential, returned only here
   * (only its SHA-256 is stored). 422 when a source id is not a collection of the organisation.
   */
  create(scope: Scope, input: ApiKeyInput): Promise<{ apiKey: ApiKey; key: string }>;
  /** Active keys, never their secrets. */
  list(scope: Scope, page: PageRequest): Promise<Page<ApiKey>>;
  /** Revokes at once; NotFoundError when unknown, foreign or already revoked. */
  revoke(scope: Scope, id: string): Promise<void>;
  /**
   * Resolves a bearer `lore_key_<id>_<secret>` to its principal, comparing the hash in
   * constant time; UnauthenticatedError (401) when malformed, unknown or revoked.
   */
  authenticate(bearer: string): Promise<Principal>;
}

/** Whether a bearer credential has the shape of an organisation API key. */
export function isApiKey(bearer: string): boolean {
  return bearer.startsWith('lore_key_');
}

export function createApiKeyService(deps: { apiKeys: ApiKeyRepository; collections: OwnedCollections }): ApiKeyService {
  const { apiKeys, collections } = deps;

  /** Lower-cased and de-duplicated; every id must be a collection of this organisation. */
  async function checkSources(scope: Scope, ids: readonly string[]): Promise<string[]> {
    const normalised = ids.map((id) => id.toLowerCase());
    const owned = new Set((await collections.sources(scope, normalised.filter(isUuid))).map((s) => s.id));
    const errors: Record<string, string[]> = {};
    normalised.forEach((id, i) => {
      if (!owned.has(id)) errors[`source_ids.${i}`] = [`The selected source_ids.${i} is invalid.`];
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return [...new Set(normalised)];
  }

  return {
    async create(scope, input) {
      const sourceIds = input.source_ids == null ? null : await checkSources(scope, input.source_ids);
      const issued = issueApiKey();
      const apiKey = await apiKeys.create(scope, {
        id: issued.id,
        name: input.name,
        hash: issued.hash,
        permissions: input.permissions,
        sourceIds,
      });
      return { apiKey, key: issued.token };
    },

    list: (scope, page) => apiKeys.list(scope, page),

    async revoke(scope, id) {
      if (!(await apiKeys.revoke(scope, id))) throw new NotFoundError('API key');
    },

    async authenticate(bearer) {
      const parsed = parseApiKey(bearer);
      if (!parsed) throw new UnauthenticatedError();
      const stored = await apiKeys.find(parsed.id);
      if (!stored || !secretMatches(bearer, stored.hash)) throw new UnauthenticatedError();
      return {
        organisationId: stored.organisationId,
        kind: 'key',
        keyId: parsed.id,
        permissions: stored.permissions,
        sourceIds: stored.sourceIds,
        usageQuota: stored.usageQuota,
      };
    },
  };
}
