import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a credential; the only form in which credentials are stored. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time comparison of a presented secret with a stored SHA-256 hash. */
export function secretMatches(presented: string, storedHash: Uint8Array): boolean {
  const digest = hashSecret(presented);
  return storedHash.length === digest.length && timingSafeEqual(digest, storedHash);
}

/** URL-safe random string with `bytes` bytes of entropy. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Lower-case alphanumeric id, e.g. for public organisation and token ids. */
export function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  // 256 % 36 leaves a slight bias; acceptable for identifiers (secrets use randomToken).
  for (const byte of bytes) out += ALPHANUMERIC[byte % ALPHANUMERIC.length];
  return out;
}

export interface IssuedToken {
  /** Public part; safe to log and to use in revocation URLs. */
  id: string;
  /** The whole bearer credential, shown to the caller once. */
  token: string;
  hash: Buffer;
}

/** A new API v1 bearer token `lore_<id>_<secret>`. */
export function issueApiToken(): IssuedToken {
  const id = randomId(12);
  const token = `lore_${id}_${randomToken(32)}`;
  return { id, token, hash: hashSecret(token) };
}

/** Splits `lore_<id>_<secret>`; null when the shape is wrong. */
export function parseApiToken(token: string): { id: string } | null {
  const match = /^lore_([a-z0-9]{12})_[A-Za-z0-9_-]{43}$/.exec(token);
  return match ? { id: match[1]! } : null;
}

/**
 * A new organisation API key `lore_key_<id>_<secret>`. The `key_` infix keeps it apart
 * from API v1 tokens (`parseApiToken` never accepts one), so a bearer's kind is known
 * before any lookup.
 */
export function issueApiKey(): IssuedToken {
  const id = randomId(12);
  const token = `lore_key_${id}_${randomToken(32)}`;
  return { id, token, hash: hashSecret(token) };
}

/** Splits `lore_key_<id>_<secret>`; null when the shape is wrong. */
export function parseApiKey(key: string): { id: string } | null {
  const match = /^lore_key_([a-z0-9]{12})_[A-Za-z0-9_-]{43}$/.exec(key);
  return match ? { id: match[1]! } : null;
}
