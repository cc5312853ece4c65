/**
 * What `lore reindex` reads across every organisation (domain/reindex.ts): the chunks by the
 * model that embedded them, and the entries whose chunks another model embedded.
 */
import type { ReindexSource, StaleEntry } from '../domain/reindex.js';
import type { JsonObject } from '../domain/model.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

const FIRST_UUID = '00000000-0000-0000-0000-000000000000';

export function createReindexSource(db: Db): ReindexSource {
  return {
    async models() {
      const rows = await db.query<{ model: string; dims: number; chunks: number }>(
        'SELECT model, dims, count(*)::int AS chunks FROM chunks GROUP BY model, dims ORDER BY count(*) DESC, model, dims',
      );
      return rows;
    },

    async stale(model, all, after, limit) {
      // Entries in id order from the cursor (their primary key), each probed through chunks'
      // (entry_id, ordinal) index: a batch costs its own entries, not a scan of every chunk.
      const rows = await db.query<{
        id: string;
        organisation_id: number;
        collection_id: string;
        title: string | null;
        raw_text: string;
        meta: JsonObject;
        searchable_meta: JsonObject;
        source_url: string | null;
        source_type: string | null;
        source_id: string | null;
        updated_at: string;
        chunks: number;
      }>(
        `SELECT e.id, e.organisation_id, e.collection_id, e.title, e.raw_text, e.meta, e.searchable_meta, e.source_url,
           e.source_type, e.source_id, ${iso('e.updated_at', 'updated_at')},
           (SELECT count(*) FROM chunks c WHERE c.entry_id = e.id)::int AS chunks
         FROM entries e
         WHERE e.id > $3::uuid AND EXISTS (SELECT 1 FROM chunks c WHERE c.entry_id = e.id AND ($2::boolean OR c.model <> $1))
         ORDER BY e.id LIMIT $4`,
        [model, all, after ?? FIRST_UUID, limit],
      );
      return rows.map(
        (r): StaleEntry => ({
          scope: { organisationId: Number(r.organisation_id) },
          collectionId: r.collection_id,
          id: r.id,
          updatedAt: r.updated_at,
          chunks: r.chunks,
          fields: {
            title: r.title,
            raw_text: r.raw_text,
            meta: r.meta,
            searchable_meta: r.searchable_meta,
            source_url: r.source_url,
            source_type: r.source_type,
            source_id: r.source_id,
          },
        }),
      );
    },
  };
}
