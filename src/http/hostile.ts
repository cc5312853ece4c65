/**
 * Request checks that come before any route: input PostgreSQL cannot store, and a Host
 * header no URL can be built from. Both used to reach a 500.
 */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../domain/errors.js';

/** Most fields reported at once; a body full of NULs needs no longer list. */
const MAX_REPORTED = 20;

/**
 * A hostname (letters, digits, `-`, `.`, `_` as in container names), an IPv4 address or a
 * bracketed IPv6 address, with an optional port.
 */
const HOST = /^(?:[A-Za-z0-9_.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;

/**
 * NUL (U+0000) in any string or object key of the body, the query or the path → 422 naming
 * each field: PostgreSQL refuses it in `text` and `jsonb`, and stripping it silently would
 * change what the client sent. Other characters, zero-width and bidirectional marks among
 * them, are stored as sent, except a lone UTF-16 surrogate (`"\ud800"` in JSON), which
 * cannot be written as UTF-8: it becomes U+FFFD here, as it would on the way to the database
 * in a plain parameter (inside JSON sent to PostgreSQL it was refused: a 500).
 * A malformed Host header → 400 (links in responses are built from it).
 */
export function registerHostileInputChecks(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const host = request.host;
    const match = host === '' ? null : HOST.exec(host);
    if (host !== '' && (!match || (match[1] !== undefined && Number(match[1]) > 65535))) {
      return reply.status(400).send({ message: 'Malformed Host header.' });
    }
  });
  // The path and query before any other hook (authentication reads path parameters), the
  // body once it is parsed.
  app.addHook('onRequest', async (request) => refuseNul([...nulFields(request.params, ''), ...nulFields(request.query, '')]));
  app.addHook('preValidation', async (request) => {
    replaceLoneSurrogates(request.body);
    refuseNul(nulFields(request.body, ''));
  });
}

/**
 * Dotted paths (`entries.3.raw_text`) of the strings holding NUL in `value`, an object key
 * holding one reported as its object's path (`body` at the top). Iterative: a deeply nested
 * body must not overflow the stack.
 */
export function nulFields(value: unknown, root: string): string[] {
  const out: string[] = [];
  const stack: { value: unknown; path: string }[] = [{ value, path: root }];
  while (stack.length > 0 && out.length < MAX_REPORTED) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) out.push(path || 'body');
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      if (!Array.isArray(v) && entries.some(([k]) => k.includes('\u0000'))) out.push(path || 'body');
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        stack.push({ value: child, path: path ? `${path}.${k.replaceAll('\u0000', '')}` : k.replaceAll('\u0000', '') });
      }
    }
  }
  return [...new Set(out)];
}

function refuseNul(fields: string[]): void {
  if (fields.length === 0) return;
  const listed = [...new Set(fields)].slice(0, MAX_REPORTED);
  throw new ValidationError(Object.fromEntries(listed.map((f) => [f, [`The ${f} field must not contain NUL characters (U+0000).`]])));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces lone surrogates in every string and key of a parsed JSON body, in place (iteratively: bodies may nest deeply). */
export function replaceLoneSurrogates(body: unknown): void {
  const fix = (text: string) => text.replace(LONE_SURROGATE, '\uFFFD');
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (typeof value[i] === 'string') value[i] = fix(value[i] as string);
        else if (value[i] !== null && typeof value[i] === 'object') stack.push(value[i]);
      }
    } else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const child = record[key];
        const fixedKey = fix(key);
        if (fixedKey !== key) {
          delete record[key];
          record[fixedKey] = child;
        }
        if (typeof child === 'string') record[fixedKey] = fix(child);
        else if (child !== null && typeof child === 'object') stack.push(child);
      }
    }
  }
}
