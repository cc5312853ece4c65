import type { ConversationRepository, StoredMessage } from '../domain/ports.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

/** Conversations and messages, always reached through the organisation that owns them. */
export function createConversationRepository(db: Db): ConversationRepository {
  return {
    async create(scope, conversation) {
      await db.query('INSERT INTO conversations (id, organisation_id, integration_id, title) VALUES ($1, $2, $3, $4)', [
        conversation.id,
        scope.organisationId,
        conversation.integrationId,
        conversation.title,
      ]);
    },

    async exists(scope, integrationId, id) {
      const rows = await db.query('SELECT 1 FROM conversations WHERE id = $1 AND organisation_id = $2 AND integration_id = $3', [
        id,
        scope.organisationId,
        integrationId,
      ]);
      return rows.length > 0;
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
