import { setTimeout as sleep } from 'node:timers/promises';
import { ProviderError } from '../../domain/answers/port.js';

/** HTTP statuses that mean "try again later" (529: Anthropic's overloaded). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504, 529]);

/**
 * A failure worth another attempt as long as nothing has been yielded yet (status 503).
 * `retryAfterMs` is the wait the provider asked for, when it asked.
 */
export class RetryableError extends ProviderError {
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    options?: ErrorOptions,
  ) {
    super(message, 503, options);
    this.name = 'RetryableError';
  }
}

export interface RetryPolicy {
  retries: number;
  /** First backoff delay; doubles on each further failure. */
  baseDelayMs: number;
  /** Upper bound on any wait, including one a provider asks for with Retry-After. */
  maxDelayMs: number;
}

/**
 * Yields what `attempt()` yields. When an attempt throws RetryableError before yielding
 * anything, waits and starts a new attempt, up to `policy.retries` times. Once something
 * was yielded, every error passes through: the consumer has already shown part of the
 * answer, and a second answer would not continue the first. Aborting `signal` during a
 * wait rejects with `signal.reason`.
 */
export async function* withRetries<T>(attempt: () => AsyncIterable<T>, policy: RetryPolicy, signal: AbortSignal): AsyncGenerator<T> {
  for (let failures = 0; ; failures++) {
    let yielded = false;
    try {
      for await (const item of attempt()) {
        yielded = true;
        yield item;
      }
      return;
    } catch (error) {
      if (yielded || !(error instanceof RetryableError) || failures >= policy.retries) throw error;
      await sleep(retryDelay(failures, error.retryAfterMs, policy), undefined, { signal }).catch(() => {
        throw signal.reason;
      });
    }
  }
}

/** The provider's requested wait if any, else exponential backoff with equal jitter; capped. */
function retryDelay(failures: number, retryAfterMs: number | undefined, policy: RetryPolicy): number {
  const backoff = policy.baseDelayMs * 2 ** failures;
  // Jitter spreads out the retries of many requests that failed together.
  const delay = retryAfterMs ?? backoff / 2 + (Math.random() * backoff) / 2;
  return Math.min(delay, policy.maxDelayMs);
}

/**
 * The wait a response asks for, in ms: `retry-after-ms` (OpenAI), else `retry-after` in
 * seconds or as an HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
