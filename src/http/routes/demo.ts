import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { NotFoundError } from '../../domain/errors.js';
import type { App } from '../deps.js';
import { DEMO_CSS, DEMO_JS } from '../demo/assets.js';
import { DEMO_CSP, demoDocPage, demoHomePage } from '../demo/page.js';
import { DOC_PATH, docPath } from '../../loreDocs.js';
import { documentToHtml } from '../markdown.js';

/** A page of the demo: strict CSP, never cached (the keys live in it). */
function sendPage(reply: FastifyReply, html: string) {
  return reply
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': DEMO_CSP,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
    })
    .send(html);
}

/** A static asset, cacheable five minutes with an ETag. */
function asset(app: App, path: string, type: string, body: string) {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  app.get(path, { schema: { hide: true } }, async (request, reply) => {
    reply.headers({ 'content-type': type, 'cache-control': 'public, max-age=300', etag, 'x-content-type-options': 'nosniff' });
    if (request.headers['if-none-match'] === etag) return reply.status(304).send();
    return body;
  });
}

/**
 * The demo (docs/ARCHITECTURE.md): `/` shows both widgets over Lore's own docs, `/demo.js`
 * and `/demo.css` are its external script and style sheet, `/demo/docs/` renders README.md and
 * `/demo/docs/{name}` docs/{name}.md (what the demo's search results and citations link to;
 * `/demo/docs/{name}.md`, as earlier versions linked them, redirects there). With LORE_DEMO off,
 * or before the demo is seeded or after an admin removed it, `/` redirects to the API reference
 * at `/docs` and the other demo routes are 404.
 */
export async function demoRoutes(app: App): Promise<void> {
  const { config, demo, loreDocs } = app.deps;

  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    const keys = config.demo ? await demo.keys() : null;
    return keys === null ? reply.redirect('/docs') : sendPage(reply, demoHomePage(keys));
  });
  if (!config.demo) return;

  asset(app, '/demo.js', 'text/javascript; charset=utf-8', DEMO_JS);
  asset(app, '/demo.css', 'text/css; charset=utf-8', DEMO_CSS);

  /** The document of `names` at `path` under DOC_PATH: its name and whether `path` is where it is published. */
  function documentAt(names: readonly string[], path: string): { name: string; canonical: boolean } | null {
    for (const name of names) {
      if (docPath(name) === `${DOC_PATH}${path}`) return { name, canonical: true };
      if (name === path) return { name, canonical: false };
    }
    return null;
  }
  async function document(path: string, reply: FastifyReply) {
    const keys = await demo.keys();
    const names = keys === null ? [] : await loreDocs.names();
    const found = documentAt(names, path);
    const markdown = found === null ? null : await loreDocs.read(found.name);
    if (keys === null || found === null || markdown === null) throw new NotFoundError('Document');
    if (!found.canonical) return reply.redirect(docPath(found.name), 301);
    return sendPage(reply, demoDocPage(keys, found.name, documentToHtml(markdown), names));
  }
  app.get(DOC_PATH, { schema: { hide: true } }, (_request, reply) => document('', reply));
  app.get(`${DOC_PATH}:name`, {
    schema: { hide: true, params: Type.Object({ name: Type.String({ maxLength: 100 }) }) },
  }, (request, reply) => document(request.params.name, reply));
}
