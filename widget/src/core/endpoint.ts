// What both scripts need to reach a widget's routes: service.js (through api.ts) and the tiny
// service-analytics.js, which must not pull in the SSE parser. No dependencies.

/** The origin Lore is served from: that of the script element that loaded the SDK. */
export function scriptBase(script: HTMLOrSVGScriptElement | null, fallback = location.origin): string {
  const src = script instanceof HTMLScriptElement ? script.src : '';
  try {
    return src ? new URL(src).origin : fallback;
  } catch {
    return fallback;
  }
}

const KEY = /^[\w-]{1,64}\/[\w-]{1,64}$/;

/**
 * The root URL of the routes of widget `key` (`{organisation}/{widget}`) on Lore at `base`.
 * Throws at once when the key is malformed.
 */
export function widgetRoot(base: string, key: string): string {
  if (typeof key !== 'string' || !KEY.test(key)) throw new Error(`Lore: the widget key must look like "organisation/widget", got ${JSON.stringify(key)}.`);
  const [organisation, widget] = key.split('/') as [string, string];
  return `${base.replace(/\/+$/, '')}/api/v1/${organisation}/widgets/${widget}`;
}

/**
 * A fire-and-forget POST of `body` as JSON that survives the page unloading: sendBeacon as
 * text/plain (a CORS-simple request, which the events route reads as JSON), or a keepalive
 * fetch where sendBeacon refuses — and always with a bearer `token`, which a beacon cannot carry.
 */
export function beacon(url: string, body: unknown, token?: string): void {
  const payload = JSON.stringify(body);
  if (!token && navigator.sendBeacon?.(url, new Blob([payload], { type: 'text/plain;charset=UTF-8' }))) return;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  fetch(url, { method: 'POST', headers, body: payload, keepalive: true, credentials: 'omit' }).catch(() => {});
}
