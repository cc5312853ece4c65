import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** `console/dist/` at the package root: the same relative path from src/http/routes and dist/http/routes. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

/** The console's page: its own script and style sheet, and calls to this origin's API only. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Lore console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/console.css">
<script src="/console/console.js" defer></script>
</head>
<body>
<div id="console"><noscript>The Lore console needs JavaScript.</noscript></div>
</body>
</html>
`;

const ASSETS = { 'console.js': 'text/javascript; charset=utf-8', 'console.css': 'text/css; charset=utf-8' } as const;

/**
 * The console (issue 16) at /console: one page whose script signs in with a credential and
 * calls the public API. The page and its two files are public (they hold nothing of anyone),
 * under a strict CSP, never framed. Missing build output → 404 naming `npm run build`.
 */
export async function consoleRoutes(app: FastifyInstance, options: { dir?: string } = {}): Promise<void> {
  const dir = options.dir ?? CONSOLE_DIR;
  const page = (_request: unknown, reply: FastifyReply) =>
    reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': CONSOLE_CSP,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
      })
      .send(PAGE);
  app.get('/console', { schema: { hide: true } }, page);
  app.get('/console/', { schema: { hide: true } }, page);

  for (const [name, type] of Object.entries(ASSETS)) {
    app.get(`/console/${name}`, { schema: { hide: true } }, async (request, reply) => {
      let body: Buffer;
      try {
        body = await readFile(`${dir}${name}`);
      } catch {
        return reply.status(404).send({ message: `The console is not built: run \`npm run build\` (missing console/dist/${name}).` });
      }
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      reply.headers({ 'content-type': type, 'cache-control': 'no-cache', etag, 'x-content-type-options': 'nosniff' });
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      return reply.send(body);
    });
  }
}
