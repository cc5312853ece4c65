/**
 * The one catalogue of errors the domain raises. The HTTP layer maps each class to a
 * status and a body; nothing else is allowed to reach a client (unknown errors → 500).
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
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

/** Laravel's summary: the first message, plus "(and N more errors)". */
export function summarise(errors: Record<string, string[]>): string {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? 'The given data was invalid.';
  const rest = messages.length - 1;
  if (rest <= 0) return first;
  return `${first} (and ${rest} more error${rest === 1 ? '' : 's'})`;
}
