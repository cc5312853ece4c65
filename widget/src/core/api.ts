import { createParser } from 'eventsource-parser';
import { beacon, widgetRoot } from './endpoint.js';

/** A failed call: the HTTP status (0 when the network failed) and the JSON body, if any. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly body: Record<string, unknown> = {}) {
    super(message);
    this.name = 'LoreApiError';
  }
}

/** One Server-Sent Event of a summary or chat stream (`type` plus its fields). */
export interface StreamEvent {
  type: string;
  [field: string]: unknown;
}

type Query = Record<string, string | number | boolean | undefined | null>;

export interface Api {
  /** The widget key, `{organisation}/{widget}`. */
  readonly key: string;
  json<T>(method: string, path: string, options?: { query?: Query; body?: unknown; signal?: AbortSignal }): Promise<T>;
  /**
   * Sends a request whose answer is an SSE stream and calls `onEvent` for each event until
   * `[DONE]`; resolves with the response headers. A non-2xx answer rejects with ApiError
   * (its JSON body kept, e.g. a 402's search hits); an `error` event rejects too.
   */
  stream(method: string, path: string, options: { query?: Query; body?: unknown; signal?: AbortSignal; onEvent: (event: StreamEvent) => void }): Promise<Headers>;
  /** Fire-and-forget POST that survives the page unloading (sendBeacon, else keepalive fetch). */
  beacon(path: string, body: unknown): void;
}

/**
 * The widget API of one Lore instance (`base`, its origin) for one widget `key`. `token` is an
 * optional preview bearer credential. Throws at once when the key is malformed.
 */
export function createApi(base: string, key: string, token?: string): Api {
  const root = widgetRoot(base, key);

  const url = (path: string, query?: Query) => {
    const target = new URL(root + path);
    for (const [name, value] of Object.entries(query ?? {})) if (value != null) target.searchParams.set(name, String(value));
    return target.href;
  };

  const send = async (method: string, path: string, options: { query?: Query; body?: unknown; signal?: AbortSignal }, accept: string) => {
    const headers: Record<string, string> = { accept };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    let response: Response;
    try {
      response = await fetch(url(path, options.query), {
        method,
        headers,
        body: JSON.stringify(options.body), // undefined without a body
        signal: options.signal,
        credentials: 'omit',
      });
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error;
      throw new ApiError(0, 'Lore could not be reached.');
    }
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      throw new ApiError(response.status, typeof body.message === 'string' ? body.message : `Lore answered ${response.status}.`, body);
    }
    return response;
  };

  return {
    key,
    async json<T>(method: string, path: string, options: { query?: Query; body?: unknown; signal?: AbortSignal } = {}) {
      const response = await send(method, path, options, 'application/json');
      return (response.status === 204 ? undefined : await response.json()) as T;
    },
    async stream(method, path, options) {
      const response = await send(method, path, options, 'text/event-stream');
      if (!response.body) throw new ApiError(response.status, 'Lore sent no stream.');
      let failure: ApiError | undefined;
      let done = false;
      const parser = createParser({
        onEvent(message) {
          if (done || failure) return;
          if (message.data === '[DONE]') return void (done = true);
          let event: StreamEvent;
          try {
            event = JSON.parse(message.data) as StreamEvent;
          } catch {
            return;
          }
          if (event.type === 'error') failure = new ApiError(response.status, String(event.message ?? 'The answer could not be completed.'));
          else options.onEvent(event);
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      while (!done && !failure) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        parser.feed(value);
      }
      reader.cancel().catch(() => {});
      if (failure) throw failure;
      return response.headers;
    },
    beacon: (path, body) => beacon(url(path), body, token),
  };
}
