import type { JsonObject } from '../domain/model.js';
import type { InstanceSettingsRepository } from '../domain/widgets/port.js';
import type { Db } from './db.js';

/** Instance settings in the `instance_settings` table (one jsonb value per key). */
export function createInstanceSettingsRepository(db: Db): InstanceSettingsRepository {
  return {
    async get(key) {
      const [row] = await db.query<{ value: JsonObject }>('SELECT value FROM instance_settings WHERE key = $1', [key]);
      return row?.value ?? null;
    },
    async set(key, value) {
      await db.query(
        `INSERT INTO instance_settings (key, value) VALUES ($1, $2::jsonb)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = clock_timestamp()`,
        [key, JSON.stringify(value)],
      );
    },
  };
}
