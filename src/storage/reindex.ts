/**
 * What `lore reindex` reads across every organisation (domain/ingestion/reindex.ts): the chunks by the
 * model that embedded them, and the entries whose chunks another model embedded.
 */
import type { ReindexSource, StaleEntry } from '../domain/ingestion/reindex.js';
import type { EntryFields } from '../domain/model.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

const FIRST_UUID = '00000000-0000-0000-0000-000000000000';

export function createReindexSource(db: Db): ReindexSource {
  return {
    models() {
      return db.query<{ model: string; dims: number; chunks: number }>(
        'SELECT model, dims, count(*)::int AS chunks FROM chunks GROUP BY model, dims ORDER BY count(*) DESC, model, dims',
      );
    },

    async stale(model, all, after, limit) {
      // Entries in id order from the cursor (their primary key), each probed through chunks'
      // (entry_id, ordinal) index: a batch costs its own entries, not a scan of every chunk.
      const rows = await db.query<EntryFields & { id: string; organisation_id: number; collection_id: string; updated_at: string; chunks: number }>(
        `SELECT e.id, e.organisation_id, e.collection_id, e.title, e.raw_text, e.meta, e.searchable_meta, e.source_url,
           e.source_type, e.source_id, ${iso('e.updated_at', 'updated_at')},
           (SELECT count(*) FROM chunks c WHERE c.entry_id = e.id)::int AS chunks
         FROM entries e
         WHERE e.id > $3::uuid AND EXISTS (SELECT 1 FROM chunks c WHERE c.entry_id = e.id AND ($2::boolean OR c.model <> $1))
         ORDER BY e.id LIMIT $4`,
        [model, all, after ?? FIRST_UUID, limit],
      );
      return rows.map(
        ({ id, organisation_id: organisationId, collection_id: collectionId, updated_at: updatedAt, chunks, ...fields }): StaleEntry => ({
          scope: { organisationId: Number(organisationId) },
          collectionId,
          id,
          updatedAt,
          chunks,
          fields,
        }),
      );
    },
  };
}

/**
 * Chunks of models other than `model`, by model: two ranges of the chunks_model index
 * (migration 020), empty unless another model embedded some (what a server says at start).
 */
export function otherModels(db: Db, model: string): Promise<{ model: string; chunks: number }[]> {
  return db.query<{ model: string; chunks: number }>(
    'SELECT model, count(*)::int AS chunks FROM chunks WHERE model < $1 OR model > $1 GROUP BY model ORDER BY 2 DESC, 1',
    [model],
  );
}
