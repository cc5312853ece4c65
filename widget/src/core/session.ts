const STORAGE_KEY = 'lore:session';

/**
 * The analytics session of this tab: created once and kept in sessionStorage, which is per
 * tab and survives reloads. Falls back to one id per page where storage is blocked.
 */
export function tabSession(): string {
  try {
    const stored = sessionStorage.getItem(STORAGE_KEY);
    if (stored && /^[\w-]{1,64}$/.test(stored)) return stored;
    const id = newId();
    sessionStorage.setItem(STORAGE_KEY, id);
    return id;
  } catch {
    return (fallback ??= newId());
  }
}

let fallback: string | undefined;

function newId(): string {
  return typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}
