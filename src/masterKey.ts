import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hashSecret, randomToken } from './domain/access/credentials.js';

export interface MasterKey {
  hash: Uint8Array;
  /** Set only when this start generated the key: print it once, it is not stored. */
  generated?: string;
}

/** Where the data folder keeps the master key's hash (hex), when LORE_MASTER_KEY is not set. */
export function masterKeyFile(dataDir: string): string {
  return path.join(dataDir, 'master-key.sha256');
}

/**
 * The master key's hash as the instance knows it: LORE_MASTER_KEY's, else the one stored in
 * the data folder; undefined when there is neither (nothing is generated).
 */
export function knownMasterKeyHash(configured: string | undefined, dataDir: string): Uint8Array | undefined {
  if (configured) return hashSecret(configured);
  try {
    return Buffer.from(readFileSync(masterKeyFile(dataDir), 'utf8').trim(), 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return undefined;
  }
}

/** Stores `hash` as the data folder's master-key hash (readable by its owner only). */
export function storeMasterKeyHash(dataDir: string, hash: Uint8Array): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(masterKeyFile(dataDir), `${Buffer.from(hash).toString('hex')}\n`, { mode: 0o600 });
}

/**
 * The instance admin credential. LORE_MASTER_KEY wins; otherwise the hash stored in the
 * data folder; otherwise a new key is generated, its hash stored, and the key returned
 * once. Delete `<data>/master-key.sha256` to generate a new one.
 */
export function resolveMasterKey(configured: string | undefined, dataDir: string): MasterKey {
  const known = knownMasterKeyHash(configured, dataDir);
  if (known) return { hash: known };
  const key = `lore_master_${randomToken(32)}`;
  storeMasterKeyHash(dataDir, hashSecret(key));
  return { hash: hashSecret(key), generated: key };
}
