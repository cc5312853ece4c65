/**
 * The one catalogue of errors the domain raises. The HTTP layer maps each class to a
 * status and a body; nothing else is allowed to reach a client (unknown errors → 500).
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
  /** Fields the response body carries beside `message` (e.g. chat's 402 `data`). */
  readonly extra: Readonly<Record<string, unknown>> = {};
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** 401: credential missing, malformed, unknown or revoked. */
export class UnauthenticatedError extends DomainError {
  readonly status = 401;
  constructor(message = 'Unauthenticated.') {
    super(message);
  }
}

/**
 * 402: answer credits or the monthly usage quota are exhausted. `extra` is merged into the
 * body: chat's 402 carries plain search hits as `{data}` (SPEC "Errors").
 */
export class PaymentRequiredError extends DomainError {
  readonly status = 402;
  constructor(
    message = 'The answer credits or the monthly usage quota of this organisation are exhausted.',
    override readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

/** 403: the credential is valid but may not do this. */
export class ForbiddenError extends DomainError {
  readonly status = 403;
  constructor(message = 'This action is unauthorized.') {
    super(message);
  }
}

/** 404: unknown resource, or one that belongs to another organisation (never revealed). */
export class NotFoundError extends DomainError {
  readonly status = 404;
  constructor(what = 'Resource') {
    super(`${what} not found.`);
  }
}

/** 422: input that passed the schema but breaks a rule; `errors` uses Laravel-style field keys. */
export class ValidationError extends DomainError {
  readonly status = 422;
  constructor(readonly errors: Record<string, string[]>) {
    super(summarise(errors));
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** 503: a dependency (embedding provider, database) is unavailable; nothing was written. */
export class UnavailableError extends DomainError {
  readonly status = 503;
}

/** 503 with Retry-After (seconds): too much work is queued; nothing was written. */
export class OverloadedError extends DomainError {
  readonly status = 503;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * 502 / 503: the answer provider failed before anything was streamed (503 unavailable,
 * overloaded or timed out; 502 it refused the request or answered malformed).
 */
export class UpstreamError extends DomainError {
  constructor(
    message: string,
    readonly status: 502 | 503,
  ) {
    super(message);
  }
}

/** Laravel's summary: the first message, plus "(and N more errors)". */
export function summarise(errors: Record<string, string[]>): string {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? 'The given data was invalid.';
  const rest = messages.length - 1;
  if (rest <= 0) return first;
  return `${first} (and ${rest} more error${rest === 1 ? '' : 's'})`;
}
