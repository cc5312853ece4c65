/**
 * Request checks that come before any route: input PostgreSQL cannot store, bodies nested
 * deeper than any route reads, and a Host header no URL can be built from. All used to
 * reach a 500.
 */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../domain/errors.js';

/** Most fields reported at once; a body full of NULs needs no longer list. */
const MAX_REPORTED = 20;

/**
 * The deepest a body may nest (the body itself is level 0): a batch of entries whose `meta`
 * holds a list of objects is 7 levels deep. Deeper free-form JSON (`meta` nested 5,000 levels)
 * overflowed the stack of whatever read it recursively — `JSON.stringify`, the database's
 * JSON encoding — into a 500; it is refused here, before any route reads it.
 */
export const MAX_BODY_DEPTH = 64;
/** A too-deep value is reported at its field this many levels down at most (`entries.3.meta`). */
const REPORTED_DEPTH = 3;

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
  app.addHook('onRequest', async (request) => refuseNul([...new Set([...inspectInput(request.params).nul, ...inspectInput(request.query).nul])]));
  app.addHook('preValidation', async (request) => {
    const { nul, deep } = inspectInput(request.body, MAX_BODY_DEPTH);
    if (deep !== null) throw ValidationError.field(deep, `The ${deep} field must not be nested more than ${MAX_BODY_DEPTH} levels deep.`);
    refuseNul(nul);
  });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const fixSurrogates = (text: string) => text.replace(LONE_SURROGATE, '\uFFFD');

interface Node {
  value: unknown;
  parent: Node | null;
  key: string;
  /** The input itself is 0. */
  depth: number;
}

/**
 * One pass over a parsed body, query or path: lone surrogates in strings and keys are
 * replaced by U+FFFD in place, and the dotted paths (`entries.3.raw_text`) of the strings
 * holding NUL are returned, in order, at most MAX_REPORTED; a key holding NUL is reported as
 * its object's path (`body` at the top). An object or array `maxDepth` levels down or deeper
 * ends the pass: `deep` is then its field, at most REPORTED_DEPTH levels down (`entries.3.meta`).
 * Iterative: a deeply nested body must not overflow the stack; a path is only spelled out for
 * what is reported.
 */
export function inspectInput(input: unknown, maxDepth = Infinity): { nul: string[]; deep: string | null } {
  const found = new Set<string>();
  const pathOf = (node: Node, levels = Infinity) => {
    const keys: string[] = [];
    for (let n: Node | null = node; n?.parent; n = n.parent) keys.push(n.key.replaceAll('\u0000', ''));
    return keys.reverse().slice(0, levels).reduce((path, key) => (path ? `${path}.${key}` : key), '') || 'body';
  };
  const report = (node: Node) => {
    if (found.size < MAX_REPORTED) found.add(pathOf(node));
  };
  const stack: Node[] = [{ value: input, parent: null, key: '', depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const value = node.value;
    if (typeof value === 'string' && value.includes('\u0000')) report(node);
    if (value === null || typeof value !== 'object') continue;
    if (node.depth >= maxDepth) return { nul: [...found], deep: pathOf(node, REPORTED_DEPTH) };
    const children: Node[] = [];
    if (Array.isArray(value)) {
      value.forEach((child, i) => {
        if (typeof child === 'string') value[i] = fixSurrogates(child);
        children.push({ value: value[i], parent: node, key: String(i), depth: node.depth + 1 });
      });
    } else {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const child = record[key];
        const fixedKey = fixSurrogates(key);
        if (fixedKey !== key) {
          delete record[key];
          record[fixedKey] = child;
        }
        if (typeof child === 'string') record[fixedKey] = fixSurrogates(child);
      }
      const entries = Object.entries(record);
      if (entries.some(([key]) => key.includes('\u0000'))) report(node);
      for (const [key, child] of entries) children.push({ value: child, parent: node, key, depth: node.depth + 1 });
    }
    // Reversed, so the first field is visited (and reported) first.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { nul: [...found], deep: null };
}

function refuseNul(fields: string[]): void {
  if (fields.length === 0) return;
  throw new ValidationError(Object.fromEntries(fields.slice(0, MAX_REPORTED).map((f) => [f, [`The ${f} field must not contain NUL characters (U+0000).`]])));
}
