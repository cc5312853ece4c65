/**
 * The console's only way to Lore: the public REST API with the signed-in credential, same
 * origin. Errors become plain sentences from the API's own `message` (and a 422's fields).
 */

const TOKEN_KEY = 'lore-console-token';

export type Role = 'organisation' | 'master';

export interface Session {
  token: string;
  role: Role;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The session kept for this tab (sessionStorage: gone when the tab closes). */
export function savedSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(TOKEN_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(TOKEN_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(TOKEN_KEY);
}

function explain(status: number, body: unknown): string {
  const b = body as { message?: string; errors?: Record<string, string[]> } | null;
  if (b?.errors) return Object.values(b.errors).flat().join(' ');
  if (b?.message) return b.message;
  if (status === 401) return 'This credential is not accepted. Sign in again.';
  if (status === 403) return 'This credential may not do that.';
  if (status >= 500) return 'Lore could not answer just now. Try again in a moment.';
  return `The request failed (${status}).`;
}

async function send(token: string, method: string, path: string, body?: unknown): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('Lore cannot be reached. Check that the server is running.', 0);
  }
  if (!response.ok) {
    const payload = await response.json().catch(() => null);
    throw new ApiError(explain(response.status, payload), response.status);
  }
  return response;
}

/** A JSON call; resolves null for 204. */
export async function call<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await send(token, method, path, body);
  return (response.status === 204 ? null : await response.json()) as T;
}

/** Downloads a CSV route as a file (the credential is a header, so a plain link cannot). */
export async function download(token: string, path: string): Promise<void> {
  const response = await send(token, 'GET', path);
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'lore.csv';
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const ORGANISATION_TOKENS_KEY = 'lore-console-organisation-tokens';

/** The tokens this tab was issued for organisations' consoles, by organisation id. */
function keptTokens(): Record<string, string> {
  try {
    return JSON.parse(sessionStorage.getItem(ORGANISATION_TOKENS_KEY) ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

/**
 * A token for organisation `id`'s console, for the master key's "Open its console": the one this
 * tab was issued before while it still works for that organisation (GET /me; a revoked token is
 * 401), else a new one issued with `masterKey` once `confirmIssue` agrees (null when it does
 * not), kept in this tab's session storage (gone when the tab closes) for the next time.
 */
export async function organisationToken(masterKey: string, id: number, confirmIssue: () => boolean): Promise<string | null> {
  const kept = keptTokens()[id];
  if (kept) {
    try {
      if ((await call<{ organisation: { id: number } }>(kept, 'GET', '/me')).organisation.id === id) return kept;
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 403)) throw error;
    }
  }
  if (!confirmIssue()) return null;
  const { token } = await call<{ token: string }>(masterKey, 'POST', `/admin/organisations/${id}/tokens`);
  sessionStorage.setItem(ORGANISATION_TOKENS_KEY, JSON.stringify({ ...keptTokens(), [id]: token }));
  return token;
}

/** Which kind of credential `token` is: an organisation's API token, the master key, or neither (null). */
export async function identify(token: string): Promise<Role | null> {
  for (const [role, path] of [['organisation', '/usage'], ['master', '/admin/organisations?per_page=1']] as const) {
    try {
      await call(token, 'GET', path);
      return role;
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 403)) throw error;
    }
  }
  return null;
}
