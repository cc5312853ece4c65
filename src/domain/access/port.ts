import type { ApiKey, Organisation, Scope, Source } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { Permission } from '../../shared/permissions.js';

/** The access capability's ports: what it needs from storage and providers, which implement them (src/container.ts picks which). */

/** The organisation's collections among `ids` (all of them for null): what a key's sources are checked against. The collection store implements it. */
export interface OwnedCollections {
  sources(scope: Scope, ids: readonly string[] | null): Promise<Source[]>;
}

export interface OrganisationPatch {
  name?: string;
  answer_credits?: number | null;
  usage_quota?: number | null;
}

/** Instance-level store of organisations and their API v1 tokens (admin only). */
export interface OrganisationRepository {
  create(name: string, publicId: string): Promise<Organisation>;
  list(page: PageRequest): Promise<Page<Organisation>>;
  get(id: number): Promise<Organisation | null>;
  update(id: number, patch: OrganisationPatch): Promise<Organisation | null>;
  insertToken(organisationId: number, tokenId: string, hash: Buffer): Promise<void>;
  /** The token's organisation and hash, unless unknown or revoked. */
  /** An unrevoked token's organisation and hash, with the organisation's `usage_quota`. */
  findToken(tokenId: string): Promise<{ organisationId: number; hash: Uint8Array; usageQuota: number | null } | null>;
  /** Marks a token revoked; false when unknown or already revoked. */
  revokeToken(tokenId: string): Promise<boolean>;
}

/** An active API key as authentication needs it. */
export interface StoredApiKey {
  organisationId: number;
  hash: Uint8Array;
  permissions: Permission[];
  sourceIds: string[] | null;
  /** The organisation's `usage_quota`. */
  usageQuota: number | null;
}

export interface ApiKeyRepository {
  create(scope: Scope, key: { id: string; name: string; hash: Buffer; permissions: readonly Permission[]; sourceIds: readonly string[] | null }): Promise<ApiKey>;
  /** Active (not revoked) keys in creation order. */
  list(scope: Scope, page: PageRequest): Promise<Page<ApiKey>>;
  /** Marks a key revoked; false when unknown, of another organisation or already revoked. */
  revoke(scope: Scope, id: string): Promise<boolean>;
  /** Instance-level, for authentication: the key unless unknown or revoked. */
  find(id: string): Promise<StoredApiKey | null>;
}

/** Counts one process adds to an organisation's month (`answers` may be negative: refunds). */
export interface UsageDelta {
  organisationId: number;
  /** Calendar month in UTC, 'YYYY-MM'. */
  period: string;
  requests: number;
  answers: number;
}

/** An organisation's stored request count for a month, with its current quota. */
export interface UsageTotal {
  organisationId: number;
  period: string;
  requests: number;
  usageQuota: number | null;
}

/** An organisation's credits, quota and stored counters for one month. */
export interface UsageMonth {
  answerCredits: number | null;
  usageQuota: number | null;
  requests: number;
  answers: number;
}

export interface UsageRepository {
  /**
   * Takes one answer credit in one atomic statement, so concurrent callers never take more
   * than there are, and only while `requests` (the month's, as the caller counts them) is
   * within the organisation's usage quota as stored now. `credit`: 'taken', 'unlimited'
   * (credits are null; nothing taken) or 'exhausted' (nothing taken: none left, or over
   * quota); `usageQuota`: the quota read in the same statement.
   */
  takeCredit(scope: Scope, requests: number): Promise<{ credit: 'taken' | 'unlimited' | 'exhausted'; usageQuota: number | null }>;
  /** Gives one credit back; nothing happens when the organisation's credits are unlimited. */
  returnCredit(scope: Scope): Promise<void>;
  /** Credits, quota and the stored counters of `period` (zeros when nothing was stored yet). */
  month(scope: Scope, period: string): Promise<UsageMonth>;
  /**
   * Instance-level, for the flusher: adds every delta to its counters in one statement and
   * returns the new totals. Deltas of organisations that no longer exist are dropped.
   */
  add(deltas: readonly UsageDelta[]): Promise<UsageTotal[]>;
  /** Instance-level, for the flusher: the stored totals of these organisations for `period`. */
  totals(period: string, organisationIds: readonly number[]): Promise<UsageTotal[]>;
}
