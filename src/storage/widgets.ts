import type { StoredWidget, WidgetRepository, WidgetRow } from '../domain/widgets/port.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

// Never the secret hash nor the identity secret: rows of these columns go to API responses.
const COLUMNS = `w.id, o.public_id AS organisation_public_id, w.type, w.name, w.integration_id::text AS integration_id,
  w.websites, w.config, ${iso('w.created_at')}, ${iso('w.updated_at')}`;
const FROM = 'widgets w JOIN organisations o ON o.id = w.organisation_id';

export function createWidgetRepository(db: Db): WidgetRepository {
  const get = async (organisationId: number, id: string) => {
    const [row] = await db.query<WidgetRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE w.organisation_id = $1 AND w.id = $2`, [organisationId, id]);
    return row ?? null;
  };

  return {
    async create(scope, w) {
      await db.query(
        `INSERT INTO widgets (id, organisation_id, integration_id, type, name, websites, config, secret_hash, identity_secret)
         VALUES ($1, $2, $3, $4, $5, $6::text[], $7::jsonb, $8, $9)`,
        [w.id, scope.organisationId, w.integration_id, w.type, w.name, w.websites, JSON.stringify(w.config), w.secretHash, w.identitySecret],
      );
      return (await get(scope.organisationId, w.id))!;
    },

    async list(scope, { page, perPage }) {
      const [count] = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM widgets WHERE organisation_id = $1', [scope.organisationId]);
      const items = await db.query<WidgetRow>(
        `SELECT ${COLUMNS} FROM ${FROM} WHERE w.organisation_id = $1 ORDER BY w.seq LIMIT $2 OFFSET $3`,
        [scope.organisationId, perPage, (page - 1) * perPage],
      );
      return { items, total: count!.total, page, perPage };
    },

    get: (scope, id) => get(scope.organisationId, id),

    async update(scope, id, f) {
      const rows = await db.query(
        `UPDATE widgets SET name = $3, integration_id = $4, websites = $5::text[], config = $6::jsonb, updated_at = clock_timestamp()
         WHERE organisation_id = $1 AND id = $2 RETURNING id`,
        [scope.organisationId, id, f.name, f.integration_id, f.websites, JSON.stringify(f.config)],
      );
      return rows.length > 0 ? get(scope.organisationId, id) : null;
    },

    async delete(scope, id) {
      const rows = await db.query('DELETE FROM widgets WHERE organisation_id = $1 AND id = $2 RETURNING id', [scope.organisationId, id]);
      return rows.length > 0;
    },

    async setSecret(scope, id, secretHash) {
      const rows = await db.query(
        'UPDATE widgets SET secret_hash = $3, updated_at = clock_timestamp() WHERE organisation_id = $1 AND id = $2 RETURNING id',
        [scope.organisationId, id, secretHash],
      );
      return rows.length > 0;
    },

    async find(organisationPublicId, id) {
      const [row] = await db.query<WidgetRow & { organisation_id: number; secret_hash: Uint8Array; usage_quota: number | null }>(
        `SELECT ${COLUMNS}, w.organisation_id, w.secret_hash, o.usage_quota FROM ${FROM} WHERE o.public_id = $1 AND w.id = $2`,
        [organisationPublicId, id],
      );
      if (!row) return null;
      const { organisation_id, secret_hash, usage_quota, ...widget } = row;
      return { ...widget, organisationId: organisation_id, secretHash: secret_hash, usageQuota: usage_quota } satisfies StoredWidget;
    },

    async recordEvent(scope, widgetId, e) {
      await db.query(
        `INSERT INTO widget_events (organisation_id, widget_id, name, url, rank, source, session_id, answer_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [scope.organisationId, widgetId, e.name, e.url, e.rank, e.source, e.session_id, e.answer_id],
      );
    },

    // Read only to verify a visitor's hash, never into a widget row.
    async identitySecret(scope, widgetId) {
      const [row] = await db.query<{ identity_secret: string }>('SELECT identity_secret FROM widgets WHERE organisation_id = $1 AND id = $2', [
        scope.organisationId,
        widgetId,
      ]);
      return row?.identity_secret ?? null;
    },
  };
}
