/** Longest URL Lore takes from content or a client (an image, the visitor's page). */
const MAX_URL = 2_048;

/** `value` when it is an absolute http(s) URL of at most 2,048 characters; else undefined. */
export function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_URL) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}
