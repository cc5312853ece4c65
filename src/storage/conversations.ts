import type { ConversationRepository, ConversationSummary, StoredMessage } from '../domain/answers/port.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

/** Held by the process deleting expired conversations (any constant every Lore process shares). */
export const EXPIRY_LOCK_ID = 7_464_213;

/** Conversations and messages, always reached through the organisation that owns them. */
export function createConversationRepository(db: Db): ConversationRepository {
  return {
    async create(scope, conversation) {
      await db.query(
        'INSERT INTO conversations (id, organisation_id, integration_id, title, widget_id, visitor_id) VALUES ($1, $2, $3, $4, $5, $6)',
        [conversation.id, scope.organisationId, conversation.integrationId, conversation.title, conversation.owner?.widgetId ?? null, conversation.owner?.visitorId ?? null],
      );
    },

    async exists(scope, integrationId, id, owner) {
      const rows = owner
        ? await db.query(
            `SELECT 1 FROM conversations WHERE id = $1 AND organisation_id = $2 AND integration_id = $3
             AND widget_id = $4 AND visitor_id IS NOT DISTINCT FROM $5::text`,
            [id, scope.organisationId, integrationId, owner.widgetId, owner.visitorId],
          )
        : await db.query('SELECT 1 FROM conversations WHERE id = $1 AND organisation_id = $2 AND integration_id = $3', [id, scope.organisationId, integrationId]);
      return rows.length > 0;
    },

    async listOwned(scope, owner, { page, perPage }) {
      const where = 'c.organisation_id = $1 AND c.widget_id = $2 AND c.visitor_id = $3';
      const args = [scope.organisationId, owner.widgetId, owner.visitorId];
      const [count] = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM conversations c WHERE ${where}`, args);
      const items = await db.query<ConversationSummary>(
        `SELECT c.id::text AS id, c.title, c.kept,
           (SELECT count(*)::int FROM conversation_messages m WHERE m.conversation_id = c.id) AS message_count,
           ${iso('c.created_at', 'created_at')}, ${iso('c.updated_at', 'updated_at')}
         FROM conversations c WHERE ${where} ORDER BY c.updated_at DESC, c.id LIMIT $4 OFFSET $5`,
        [...args, perPage, (page - 1) * perPage],
      );
      return { items, total: count!.total, page, perPage };
    },

    async getOwned(scope, owner, id) {
      const [conversation] = await db.query<{ id: string; kept: boolean }>(
        'SELECT id::text AS id, kept FROM conversations WHERE id = $1 AND organisation_id = $2 AND widget_id = $3 AND visitor_id = $4',
        [id, scope.organisationId, owner.widgetId, owner.visitorId],
      );
      if (!conversation) return null;
      const messages = await db.query<StoredMessage>(
        `SELECT id::text AS id, role, content, citations, ${iso('created_at', 'created_at')}
         FROM conversation_messages WHERE conversation_id = $1 ORDER BY seq`,
        [id],
      );
      return { ...conversation, messages };
    },

    async setKept(scope, owner, id, kept) {
      const rows = await db.query(
        'UPDATE conversations SET kept = $5 WHERE id = $1 AND organisation_id = $2 AND widget_id = $3 AND visitor_id = $4 RETURNING id',
        [id, scope.organisationId, owner.widgetId, owner.visitorId, kept],
      );
      return rows.length > 0;
    },

    async deleteOwned(scope, owner, id) {
      const rows = await db.query(
        `DELETE FROM conversations WHERE organisation_id = $1 AND widget_id = $2 AND visitor_id = $3 AND ($4::uuid IS NULL OR id = $4::uuid) RETURNING id`,
        [scope.organisationId, owner.widgetId, owner.visitorId, id],
      );
      return rows.length;
    },

    async deleteExpired(before) {
      // Every process runs the clean-up hourly; one at a time does the work, the others skip.
      return db.transaction(async (tx) => {
        const [lock] = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [EXPIRY_LOCK_ID]);
        if (!lock?.locked) return 0;
        const rows = await tx.query('DELETE FROM conversations WHERE NOT kept AND updated_at < $1 RETURNING id', [before.toISOString()]);
        return rows.length;
      });
    },

    async recentMessages(scope, conversationId, limit) {
      const rows = await db.query<StoredMessage>(
        `SELECT m.id, m.role, m.content, m.citations, ${iso('m.created_at', 'created_at')}
         FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
         WHERE m.conversation_id = $1 AND c.organisation_id = $2
         ORDER BY m.seq DESC LIMIT $3`,
        [conversationId, scope.organisationId, limit],
      );
      return rows.reverse();
    },

    async addMessage(scope, conversationId, message) {
      await db.transaction(async (tx) => {
        const owned = await tx.query(
          'UPDATE conversations SET updated_at = clock_timestamp() WHERE id = $1 AND organisation_id = $2 RETURNING id',
          [conversationId, scope.organisationId],
        );
        if (owned.length === 0) return;
        await tx.query('INSERT INTO conversation_messages (id, conversation_id, role, content, citations) VALUES ($1, $2, $3, $4, $5)', [
          message.id,
          conversationId,
          message.role,
          message.content,
          JSON.stringify(message.citations),
        ]);
      });
    },
  };
}
