import type { Integration } from '../domain/model.js';
import type { IntegrationRepository } from '../domain/search/port.js';
import type { Db, Queryable } from './db.js';
import { iso } from './sql.js';

const COLUMNS = `i.id, i.name, i.project, i.type, i.allowed_domains, i.is_active, i.settings,
  coalesce((SELECT array_agg(ic.collection_id::text ORDER BY ic.position) FROM integration_collections ic
            WHERE ic.integration_id = i.id), '{}') AS collection_ids,
  ${iso('i.created_at')}, ${iso('i.updated_at')}`;

export function createIntegrationRepository(db: Db): IntegrationRepository {
  const get = async (q: Queryable, organisationId: number, id: string) => {
    const [row] = await q.query<Integration>(`SELECT ${COLUMNS} FROM integrations i WHERE i.id = $1 AND i.organisation_id = $2`, [
      id,
      organisationId,
    ], { prepare: true });
    return row ?? null;
  };

  const link = async (tx: Queryable, id: string, collectionIds: readonly string[]) => {
    await tx.query('DELETE FROM integration_collections WHERE integration_id = $1', [id]);
    await tx.query(
      `INSERT INTO integration_collections (integration_id, collection_id, position)
       SELECT $1, c, p::int - 1 FROM unnest($2::uuid[]) WITH ORDINALITY AS x(c, p)`,
      [id, collectionIds],
    );
  };

  return {
    async list(scope, { page, perPage }, filters) {
      const where = ['i.organisation_id = $1'];
      const params: unknown[] = [scope.organisationId];
      if (filters.type !== undefined) where.push(`i.type = $${params.push(filters.type)}`);
      if (filters.project !== undefined) where.push(`i.project = $${params.push(filters.project)}`);
      const [count] = await db.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM integrations i WHERE ${where.join(' AND ')}`,
        params,
      );
      const items = await db.query<Integration>(
        `SELECT ${COLUMNS} FROM integrations i WHERE ${where.join(' AND ')}
         ORDER BY i.seq LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, perPage, (page - 1) * perPage],
      );
      return { items, total: count!.total, page, perPage };
    },

    get: (scope, id) => get(db, scope.organisationId, id),

    create(scope, id, r) {
      return db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO integrations (id, organisation_id, name, project, type, allowed_domains, is_active, settings)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [id, scope.organisationId, r.name, r.project, r.type, r.allowed_domains, r.is_active, r.settings],
        );
        await link(tx, id, r.collection_ids);
        return (await get(tx, scope.organisationId, id))!;
      });
    },

    update(scope, id, r) {
      return db.transaction(async (tx) => {
        const rows = await tx.query(
          `UPDATE integrations SET name = $3, project = $4, allowed_domains = $5, is_active = $6, settings = $7,
             updated_at = clock_timestamp()
           WHERE id = $1 AND organisation_id = $2 RETURNING id`,
          [id, scope.organisationId, r.name, r.project, r.allowed_domains, r.is_active, r.settings],
        );
        if (rows.length === 0) return null;
        await link(tx, id, r.collection_ids);
        return get(tx, scope.organisationId, id);
      });
    },

    async delete(scope, id) {
      const rows = await db.query('DELETE FROM integrations WHERE id = $1 AND organisation_id = $2 RETURNING id', [
        id,
        scope.organisationId,
      ]);
      return rows.length > 0;
    },

    async ownedCollections(scope, ids) {
      if (ids.length === 0) return new Set();
      const rows = await db.query<{ id: string }>(
        'SELECT id::text AS id FROM collections WHERE organisation_id = $1 AND id = ANY($2::uuid[])',
        [scope.organisationId, ids],
      );
      return new Set(rows.map((r) => r.id));
    },
  };
}
