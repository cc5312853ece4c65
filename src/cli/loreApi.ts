/**
 * What the content sources (`lore import DIR`, `lore crawl URL`) need of a running Lore's
 * public API: a client that waits out 429 and 503, the entries a source already wrote to a
 * collection, batch upserts that name the entries refused, and deletes by source.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { BatchUpsert, SourceReport, StoredEntry } from '../domain/crawl/sources.js';

/** A failure that ends the run (bad arguments, unreachable server, refused credential). */
export class ImportError extends Error {}

export type Api = (method: string, route: string, body?: unknown) => Promise<{ status: number; body: unknown; message: string }>;

/** Waits for 429 / 503 answers, and how many times a request is tried. */
const MAX_WAIT_MS = 60_000;
const ATTEMPTS = 8;

/**
 * Calls the API with the token; waits as told (Retry-After) on 429 and 503 and retries, and
 * retries a dropped connection. An unreachable server or a refused token ends the run.
 */
export function loreClient(server: string, token: string): Api {
  const base = server.replace(/\/+$/, '');
  return async (method, route, body) => {
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(base + route, {
          method,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(10 * 60_000),
        });
      } catch (error) {
        if (attempt === 1) throw new ImportError(unreachableMessage(base, error));
        if (attempt >= ATTEMPTS) throw new ImportError(`lost Lore at ${base} after ${ATTEMPTS} attempts (${networkReason(error)})`);
        await sleep(Math.min(MAX_WAIT_MS, 500 * 2 ** attempt));
        continue;
      }
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      if (response.status === 401) throw new ImportError('the token was refused (401): pass --token or set LORE_TOKEN to an organisation API token');
      if ((response.status === 429 || response.status === 503) && attempt < ATTEMPTS) {
        const seconds = Number(response.headers.get('retry-after'));
        await sleep(Math.min(MAX_WAIT_MS, Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000 * attempt));
        continue;
      }
      const message = (parsed as { message?: unknown } | null)?.message;
      return { status: response.status, body: parsed, message: typeof message === 'string' ? message : text.slice(0, 200) };
    }
  };
}

/**
 * The address of the running Lore a command calls: `flag` (--url), else $LORE_URL, else
 * http://127.0.0.1:$PORT (the port `npm start` listens on), else port 3000; or, when the one
 * named is not an http(s) address, why.
 */
export function serverAddress(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): { url: string } | { problem: string } {
  const [value, from] = flag !== undefined ? [flag, '--url'] : [env.LORE_URL ?? '', 'LORE_URL'];
  if (flag === undefined && value === '') {
    const port = env.PORT || '3000';
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) return { problem: `PORT=${port} is not a port to call: set --url or LORE_URL to the server's address` };
    return { url: `http://127.0.0.1:${Number(port)}` };
  }
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash) return { problem: `${from} must be the server's http(s) address, such as http://127.0.0.1:3000, not "${value}"` };
  return { url: value.replace(/\/+$/, '') };
}

/** Network error codes, in a few words. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

/** Why a request got no answer (fetch's error, its cause, or the first of several): `connection refused`, … */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const inner = cause instanceof AggregateError ? cause.errors[0] : cause;
  const code = (inner as { code?: unknown } | undefined)?.code ?? (cause as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
  // undici refuses the ports browsers block (fetch's "bad port" list: 9, 25, 6000, …).
  if ((inner as Error | undefined)?.message === 'bad port') return 'a port fetch refuses to call';
  return ((inner ?? cause) as Error)?.message || String(cause);
}

/**
 * The one line said when no Lore answers at `base` (the CLI's admin commands and the content
 * sources alike): the address tried, why, and how to name another.
 */
export function unreachableMessage(base: string, error: unknown): string {
  return `cannot reach Lore at ${base} (${networkReason(error)}). Is it running? Set --url or LORE_URL (or PORT) to its address.`;
}

export const collectionRoute = (collection: string) => `/api/v1/collections/${encodeURIComponent(collection)}`;

/** The entries of `sourceType` in the collection, by source id: their `meta` and `source_url`. */
export async function storedEntries(api: Api, collection: string, sourceType: string): Promise<Map<string, StoredEntry>> {
  const stored = new Map<string, StoredEntry>();
  for (let page = 1; ; page++) {
    const response = await api('GET', `${collectionRoute(collection)}/entries?source_type=${encodeURIComponent(sourceType)}&fields=source_type,source_id,source_url,meta&per_page=100&page=${page}`);
    if (response.status === 404) throw new ImportError(`no collection ${collection} for this token`);
    if (response.status !== 200) throw new ImportError(`listing the collection's entries: ${response.status} ${response.message}`);
    const body = response.body as { data: { source_type: string | null; source_id: string | null; source_url: string | null; meta: Record<string, unknown> | null }[]; meta: { last_page: number } };
    for (const entry of body.data) {
      if (entry.source_type === sourceType && entry.source_id !== null) stored.set(entry.source_id, { meta: entry.meta ?? {}, sourceUrl: entry.source_url });
    }
    if (body.data.length === 0 || page >= body.meta.last_page) return stored;
  }
}

/** A batch upsert through the API: a 4xx is about the entries, a 5xx is not. */
export function apiBatchUpsert(api: Api, collection: string): BatchUpsert {
  return async (entries) => {
    const response = await api('POST', `${collectionRoute(collection)}/entries/batch`, { entries });
    return response.status === 200 ? null : { reason: `${response.status} ${response.message}`, split: response.status < 500 };
  };
}

/** Deletes the entry of (`sourceType`, `sourceId`); true when it is gone. */
export async function deleteBySource(api: Api, collection: string, sourceType: string, sourceId: string, report: SourceReport): Promise<boolean> {
  const response = await api('DELETE', `${collectionRoute(collection)}/entries/by-source/${encodeURIComponent(sourceType)}/${encodeURIComponent(sourceId)}`);
  if (response.status === 204 || response.status === 404) {
    report.deleted++;
    return true;
  }
  report.failed.push({ path: sourceId, reason: `delete: ${response.status} ${response.message}` });
  return false;
}

/** A report as the commands print it. */
export function formatReport(headline: string, report: SourceReport): string {
  const lines = [
    `${headline} — ${report.created} new, ${report.updated} changed, ${report.unchanged} unchanged, ${report.deleted} deleted, ${report.skipped.length} skipped, ${report.failed.length} failed.`,
  ];
  for (const { path, reason } of report.failed) lines.push(`  failed   ${path}: ${reason}`);
  for (const { path, reason } of report.skipped) lines.push(`  skipped  ${path}: ${reason}`);
  for (const { path, note } of report.notes) lines.push(`  note     ${path}: ${note}`);
  return lines.join('\n');
}
