import type { Permission } from '../shared/permissions.js';
import type { ApiKey } from '../domain/model.js';
import type { ApiKeyRepository } from '../domain/access/port.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

// uuid[] comes back as text[] so both drivers return plain string arrays.
const COLUMNS = `id, name, permissions, source_ids::text[] AS source_ids, ${iso('created_at')}`;

export function createApiKeyRepository(db: Db): ApiKeyRepository {
  return {
    async create(scope, key) {
      const [row] = await db.query<ApiKey>(
        `INSERT INTO api_keys (id, organisation_id, name, key_hash, permissions, source_ids)
         VALUES ($1, $2, $3, $4, $5::text[], $6::uuid[]) RETURNING ${COLUMNS}`,
        [key.id, scope.organisationId, key.name, key.hash, key.permissions, key.sourceIds],
      );
      return row!;
    },

    async list(scope, { page, perPage }) {
      const [count] = await db.query<{ total: number }>(
        'SELECT count(*)::int AS total FROM api_keys WHERE organisation_id = $1 AND revoked_at IS NULL',
        [scope.organisationId],
      );
      const items = await db.query<ApiKey>(
        `SELECT ${COLUMNS} FROM api_keys WHERE organisation_id = $1 AND revoked_at IS NULL
         ORDER BY seq LIMIT $2 OFFSET $3`,
        [scope.organisationId, perPage, (page - 1) * perPage],
      );
      return { items, total: count!.total, page, perPage };
    },

    async revoke(scope, id) {
      const rows = await db.query(
        `UPDATE api_keys SET revoked_at = clock_timestamp()
         WHERE id = $1 AND organisation_id = $2 AND revoked_at IS NULL RETURNING id`,
        [id, scope.organisationId],
      );
      return rows.length > 0;
    },

    async find(id) {
      const [row] = await db.query<{
        organisation_id: number;
        key_hash: Uint8Array;
        permissions: Permission[];
        source_ids: string[] | null;
        usage_quota: number | null;
      }>(
        `SELECT k.organisation_id, k.key_hash, k.permissions, k.source_ids::text[] AS source_ids, o.usage_quota
         FROM api_keys k JOIN organisations o ON o.id = k.organisation_id
         WHERE k.id = $1 AND k.revoked_at IS NULL`,
        [id],
      );
      return row
        ? {
            organisationId: row.organisation_id,
            hash: row.key_hash,
            permissions: row.permissions,
            sourceIds: row.source_ids,
            usageQuota: row.usage_quota,
          }
        : null;
    },
  };
}
