import type { Organisation } from '../domain/model.js';
import type { OrganisationPatch, OrganisationRepository } from '../domain/access/port.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

const COLUMNS = `id, public_id, name, answer_credits, usage_quota, ${iso('created_at')}, ${iso('updated_at')}`;

export function createOrganisationRepository(db: Db): OrganisationRepository {
  return {
    async create(name, publicId) {
      const [row] = await db.query<Organisation>(
        `INSERT INTO organisations (name, public_id) VALUES ($1, $2) RETURNING ${COLUMNS}`,
        [name, publicId],
      );
      return row!;
    },

    async list({ page, perPage }) {
      const [count] = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM organisations');
      const items = await db.query<Organisation>(
        `SELECT ${COLUMNS} FROM organisations ORDER BY id LIMIT $1 OFFSET $2`,
        [perPage, (page - 1) * perPage],
      );
      return { items, total: count!.total, page, perPage };
    },

    async get(id) {
      const [row] = await db.query<Organisation>(`SELECT ${COLUMNS} FROM organisations WHERE id = $1`, [id]);
      return row ?? null;
    },

    async update(id, patch: OrganisationPatch) {
      const sets: string[] = [];
      const params: unknown[] = [id];
      for (const key of ['name', 'answer_credits', 'usage_quota'] as const) {
        if (patch[key] === undefined) continue;
        params.push(patch[key]);
        sets.push(`${key} = $${params.length}`);
      }
      const [row] = await db.query<Organisation>(
        `UPDATE organisations SET ${[...sets, 'updated_at = clock_timestamp()'].join(', ')}
         WHERE id = $1 RETURNING ${COLUMNS}`,
        params,
      );
      return row ?? null;
    },

    async insertToken(organisationId, tokenId, hash) {
      await db.query('INSERT INTO api_tokens (id, organisation_id, token_hash) VALUES ($1, $2, $3)', [
        tokenId,
        organisationId,
        hash,
      ]);
    },

    async findToken(tokenId) {
      const [row] = await db.query<{ organisation_id: number; token_hash: Uint8Array; usage_quota: number | null }>(
        `SELECT t.organisation_id, t.token_hash, o.usage_quota
         FROM api_tokens t JOIN organisations o ON o.id = t.organisation_id
         WHERE t.id = $1 AND t.revoked_at IS NULL`,
        [tokenId],
        { prepare: true },
      );
      return row ? { organisationId: row.organisation_id, hash: row.token_hash, usageQuota: row.usage_quota } : null;
    },

    async revokeToken(tokenId) {
      const rows = await db.query(
        'UPDATE api_tokens SET revoked_at = clock_timestamp() WHERE id = $1 AND revoked_at IS NULL RETURNING id',
        [tokenId],
      );
      return rows.length > 0;
    },
  };
}
