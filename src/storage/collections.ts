import type { Collection, Source } from '../domain/model.js';
import type { CollectionRepository } from '../domain/ingestion/port.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

const COLUMNS = `id, organisation_id, name, ${iso('created_at')}, ${iso('updated_at')}`;

export function createCollectionRepository(db: Db): CollectionRepository {
  return {
    async list(scope, { page, perPage }) {
      const [count] = await db.query<{ total: number }>(
        'SELECT count(*)::int AS total FROM collections WHERE organisation_id = $1',
        [scope.organisationId],
      );
      const items = await db.query<Collection>(
        `SELECT ${COLUMNS} FROM collections WHERE organisation_id = $1
         ORDER BY seq LIMIT $2 OFFSET $3`,
        [scope.organisationId, perPage, (page - 1) * perPage],
      );
      return { items, total: count!.total, page, perPage };
    },

    async create(scope, id, name) {
      return db.transaction(async (tx) => {
        const [row] = await tx.query<Collection>(
          `INSERT INTO collections (id, organisation_id, name) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
          [id, scope.organisationId, name],
        );
        await tx.query('INSERT INTO collection_stats (collection_id) VALUES ($1)', [id]);
        return row!;
      });
    },

    async get(scope, id) {
      const [row] = await db.query<Collection>(
        `SELECT ${COLUMNS} FROM collections WHERE id = $1 AND organisation_id = $2`,
        [id, scope.organisationId],
      );
      return row ?? null;
    },

    async update(scope, id, name) {
      const [row] = await db.query<Collection>(
        `UPDATE collections SET name = $3, updated_at = clock_timestamp()
         WHERE id = $1 AND organisation_id = $2 RETURNING ${COLUMNS}`,
        [id, scope.organisationId, name],
      );
      return row ?? null;
    },

    async delete(scope, id) {
      // Entries, chunks, postings and statistics go with it (ON DELETE CASCADE).
      const rows = await db.query('DELETE FROM collections WHERE id = $1 AND organisation_id = $2 RETURNING id', [
        id,
        scope.organisationId,
      ]);
      return rows.length > 0;
    },

    async sources(scope, ids) {
      if (ids === null) {
        return db.query<Source>('SELECT id, name FROM collections WHERE organisation_id = $1 ORDER BY seq', [scope.organisationId]);
      }
      if (ids.length === 0) return [];
      return db.query<Source>(
        'SELECT id, name FROM collections WHERE organisation_id = $1 AND id = ANY($2::uuid[]) ORDER BY seq',
        [scope.organisationId, ids],
      );
    },

    async organisationOf(id) {
      const [row] = await db.query<{ organisation_id: number }>('SELECT organisation_id FROM collections WHERE id = $1', [id]);
      return row?.organisation_id ?? null;
    },
  };
}
