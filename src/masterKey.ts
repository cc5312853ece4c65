import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hashSecret, randomToken } from './domain/credentials.js';

export interface MasterKey {
  hash: Uint8Array;
  /** Set only when this start generated the key: print it once, it is not stored. */
  generated?: string;
}

/**
 * The instance admin credential. LORE_MASTER_KEY wins; otherwise the hash stored in the
 * data folder; otherwise a new key is generated, its hash stored, and the key returned
 * once. Delete `<data>/master-key.sha256` to generate a new one.
 */
export function resolveMasterKey(configured: string | undefined, dataDir: string): MasterKey {
  if (configured) return { hash: hashSecret(configured) };
  const file = path.join(dataDir, 'master-key.sha256');
  try {
    return { hash: Buffer.from(readFileSync(file, 'utf8').trim(), 'hex') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = `lore_master_${randomToken(32)}`;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, hashSecret(key).toString('hex') + '\n', { mode: 0o600 });
  return { hash: hashSecret(key), generated: key };
}
