import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProviderError, type AnswerChunk, type AnswerRequest } from '../../domain/answers/port.js';
import { parseRetryAfter, RETRYABLE_STATUSES, RetryableError, withRetries } from './retry.js';

/** Transport settings shared by the HTTP answer providers. */
export interface ProviderHttpOptions {
  /** Longest wait for the response and its first body bytes, ms; default 30 000. */
  timeoutMs?: number;
  /** Longest silence between body chunks once the body started, ms; default 30 000. */
  idleTimeoutMs?: number;
  /** Further attempts after a retryable failure before anything was yielded; default 2. */
  retries?: number;
  /** First backoff delay, ms; default 500, doubling with jitter. */
  retryBaseMs?: number;
  /** Cap on any wait between attempts, Retry-After included, ms; default 10 000. */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
}

/** One provider call: a JSON POST answered with Server-Sent Events. */
export interface SseCall {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** Redacted from the provider's error text kept as `cause` (the API key). */
  secret?: string;
}

/**
 * Turns the events of one attempt into answer chunks. Throws ProviderError for error
 * events and malformed data, RetryableError for transient ones.
 */
export type SseDecoder = (events: AsyncIterable<EventSourceMessage>) => AsyncIterable<AnswerChunk>;

// A bound on one buffered event, so a broken server cannot grow memory without limit.
const MAX_EVENT_CHARS = 1 << 20;

/** The request's generation settings with Lore's defaults filled in. */
export function generation(request: AnswerRequest): { maxTokens: number; temperature: number } {
  return { maxTokens: request.maxTokens ?? 1024, temperature: request.temperature ?? 0.2 };
}

/**
 * Streams `call` through `decode` with timeouts and retries (see ProviderHttpOptions and
 * withRetries). Aborting `signal` cancels the request and the body read, and rejects with
 * `signal.reason`; so does a consumer that stops iterating early (without the rejection).
 */
export function streamSse(call: SseCall, decode: SseDecoder, options: ProviderHttpOptions, signal: AbortSignal): AsyncIterable<AnswerChunk> {
  const policy = { retries: options.retries ?? 2, baseDelayMs: options.retryBaseMs ?? 500, maxDelayMs: options.maxRetryDelayMs ?? 10_000 };
  return withRetries(() => attempt(call, decode, options, signal), policy, signal);
}

async function* attempt(call: SseCall, decode: SseDecoder, options: ProviderHttpOptions, signal: AbortSignal): AsyncGenerator<AnswerChunk> {
  signal.throwIfAborted();
  // One controller per attempt: the caller's abort, both timeouts and an early exit all
  // end here, and aborting the fetch signal also destroys the response body's socket.
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', forwardAbort, { once: true });
  const watchdog = new Watchdog(controller);
  watchdog.start(options.timeoutMs ?? 30_000, 'The answer provider did not respond in time.');
  try {
    const response = await (options.fetch ?? fetch)(call.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...call.headers },
      body: JSON.stringify(call.body),
      signal: controller.signal,
    });
    if (!response.ok) throw await statusError(response, call.secret);
    if (!response.body) throw new ProviderError('The answer provider sent an empty response.', 502);
    yield* decode(readEvents(response.body, watchdog, options.idleTimeoutMs ?? 30_000));
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (controller.signal.reason instanceof ProviderError) throw controller.signal.reason;
    if (error instanceof ProviderError) throw error;
    // fetch and body reads reject with TypeError on refused, reset or dropped connections.
    throw new RetryableError('The connection to the answer provider failed.', undefined, { cause: error });
  } finally {
    watchdog.stop();
    signal.removeEventListener('abort', forwardAbort);
    controller.abort();
  }
}

/** Aborts an attempt with a 503 ProviderError when a wait on the provider runs too long. */
class Watchdog {
  #timer: NodeJS.Timeout | undefined;
  constructor(private readonly controller: AbortController) {}

  start(ms: number, message: string): void {
    this.stop();
    this.#timer = setTimeout(() => this.controller.abort(new ProviderError(message, 503)), ms);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

/**
 * The SSE events of `body`. The first read still runs under the first-byte timeout; each
 * later read gets `idleMs`. Only time spent waiting on the provider counts, not time the
 * consumer spends on a yielded event.
 */
async function* readEvents(body: ReadableStream<Uint8Array>, watchdog: Watchdog, idleMs: number): AsyncGenerator<EventSourceMessage> {
  const events: EventSourceMessage[] = [];
  let overflow = false;
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onEvent: (event) => events.push(event),
    onError: (error) => {
      // Unknown fields and bad `retry` values are ignored, as an EventSource would.
      if (error.type === 'max-buffer-size-exceeded') overflow = true;
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  for (let first = true; ; first = false) {
    if (!first) watchdog.start(idleMs, 'The answer provider stopped responding.');
    const { done, value } = await reader.read();
    watchdog.stop();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (overflow) throw new ProviderError('The answer provider sent an oversized event.', 502);
    yield* events.splice(0);
  }
  parser.feed(decoder.decode());
  yield* events.splice(0);
}

async function statusError(response: Response, secret: string | undefined): Promise<ProviderError> {
  const text = await response.text().catch(() => '');
  const cause = new Error(`HTTP ${response.status}: ${redact(providerMessage(text), secret)}`);
  if (response.status === 429) {
    return new RetryableError('The answer provider is rate limiting requests.', parseRetryAfter(response.headers), { cause });
  }
  if (RETRYABLE_STATUSES.has(response.status)) {
    return new RetryableError(`The answer provider is unavailable (HTTP ${response.status}).`, parseRetryAfter(response.headers), { cause });
  }
  return new ProviderError(`The answer provider refused the request (HTTP ${response.status}).`, 502, { cause });
}

/** `error.message` of the JSON error bodies OpenAI, Anthropic and most servers send; else the text. */
function providerMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: keep the start of the raw text.
  }
  return text.slice(0, 500);
}

function redact(text: string, secret: string | undefined): string {
  return secret ? text.replaceAll(secret, '[redacted]') : text;
}

/** The JSON object in an event's data; ProviderError 502 when it is not one. */
export function parseData(event: EventSourceMessage): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch (error) {
    throw new ProviderError('The answer provider sent malformed data.', 502, { cause: error });
  }
  if (typeof data !== 'object' || data === null) throw new ProviderError('The answer provider sent malformed data.', 502);
  return data as Record<string, unknown>;
}

/** A token count as a non-negative integer; 0 when missing or not a number. */
export function tokens(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** An error reported inside a stream: retryable when transient, else 502. */
export function streamError(message: unknown, transient: boolean): ProviderError {
  const cause = new Error(typeof message === 'string' ? message : 'unknown stream error');
  if (transient) return new RetryableError('The answer provider failed while answering.', undefined, { cause });
  return new ProviderError('The answer provider failed while answering.', 502, { cause });
}

/** The stream ended before the provider said it was complete. */
export function endedEarly(): ProviderError {
  return new ProviderError('The answer stream ended unexpectedly.', 502);
}
