import type { FastifyError, FastifyInstance } from 'fastify';
import { DomainError, OverloadedError, summarise, ValidationError } from '../domain/errors.js';

interface AjvIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * One error shape for the whole API: `{message}`, plus Laravel-style `errors` on 422.
 * Domain errors carry their status and any `extra` body fields (chat's 402 `data`);
 * validation failures become 422 with field keys like `entries.3.source_id`; anything
 * unexpected is a logged 500 that leaks nothing.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError) {
      if (error instanceof OverloadedError) reply.header('retry-after', String(error.retryAfterSeconds));
      const body = error instanceof ValidationError ? { message: error.message, errors: error.errors } : { message: error.message, ...error.extra };
      return reply.status(error.status).send(body);
    }
    if (error.validation) {
      const errors = laravelErrors(error.validation as AjvIssue[], error.validationContext);
      return reply.status(422).send({ message: summarise(errors), errors });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.status(400).send({ message: `Malformed JSON body: ${error.message}` });
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.status(413).send({ message: 'The request body is too large.' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.status(415).send({ message: 'Unsupported Content-Type; send application/json.' });
    }
    if (error instanceof SyntaxError) {
      return reply.status(400).send({ message: `Malformed JSON body: ${error.message}` });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send({ message: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ message: 'Server Error' });
  });

  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ message: 'Not found.' }));
}

/** Maps Ajv issues to `{field: [messages]}` with dotted field paths. */
export function laravelErrors(issues: readonly AjvIssue[], context: string | undefined): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const segments = issue.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (issue.keyword === 'required') segments.push(String(issue.params.missingProperty));
    const field = segments.join('.') || (context === 'body' ? 'body' : context ?? 'request');
    const message = describe(field, issue);
    if (message === null) continue;
    const list = (errors[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  if (Object.keys(errors).length === 0) errors.body = ['The given data was invalid.'];
  return errors;
}

function describe(field: string, issue: AjvIssue): string | null {
  const p = issue.params;
  if (issue.keyword === 'type' && p.type === 'null') return null;
  switch (issue.keyword) {
    case 'required':
      return `The ${field} field is required.`;
    case 'type':
      return `The ${field} field must be ${article(String(p.type))}.`;
    case 'maxLength':
      return `The ${field} field must not be greater than ${p.limit} characters.`;
    case 'minLength':
      return Number(p.limit) === 1 ? `The ${field} field is required.` : `The ${field} field must be at least ${p.limit} characters.`;
    case 'maxItems':
      return `The ${field} field must not have more than ${p.limit} items.`;
    case 'minItems':
      return `The ${field} field must have at least ${p.limit} item${Number(p.limit) === 1 ? '' : 's'}.`;
    case 'uniqueItems':
      return `The ${field} field has a duplicate value.`;
    case 'maxProperties':
      return `The ${field} field must not have more than ${p.limit} keys.`;
    case 'enum':
      return `The selected ${field} is invalid.`;
    case 'pattern':
      return `The ${field} field format is invalid.`;
    case 'format':
      return `The ${field} field must be a valid ${p.format}.`;
    case 'anyOf':
    case 'oneOf':
      // Nullable unions report each branch; the non-null branch already says what was wrong.
      return null;
    default:
      return `The ${field} field ${issue.message ?? 'is invalid'}.`;
  }
}

function article(type: string): string {
  const names: Record<string, string> = {
    string: 'a string',
    integer: 'an integer',
    number: 'a number',
    boolean: 'true or false',
    object: 'an object',
    array: 'an array',
    null: 'null',
  };
  return type
    .split(',')
    .map((t) => names[t] ?? t)
    .join(' or ');
}
