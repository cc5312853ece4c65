/**
 * What the access log may show of a request: its URL with credentials in the query string
 * replaced by `[redacted]`. A visitor's `hash` (an HMAC that opens their conversations) travels
 * in conversation-route URLs; tokens and keys must not reach logs either. Headers are not
 * logged at all (Fastify's request serializer leaves them out).
 */
import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a credential, lower-cased. */
const SECRET_PARAMS = new Set(['hash', 'token', 'key', 'api_key', 'apikey', 'access_token', 'secret', 'secret_key', 'identity_secret', 'signature', 'password']);

export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const query = url
    .slice(question + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is logged as it came.
      }
      return SECRET_PARAMS.has(decoded.toLowerCase()) && eq >= 0 ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, question)}?${query}`;
}

/** Fastify's default request serializer, with the URL redacted. */
export function requestSerializer(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
