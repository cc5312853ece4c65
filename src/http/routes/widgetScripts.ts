import { access } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { WIDGET_LOCALES } from '../../shared/widgetSettings.js';

/** `widget/dist/v1/` at the package root: the same relative path from src/http/routes and dist/http/routes. */
export const WIDGET_SCRIPTS_DIR = fileURLToPath(new URL('../../../widget/dist/v1/', import.meta.url));

/** `adapters/instantsearch/dist/` at the package root: the InstantSearch adapter's build output (an ES module). */
export const ADAPTER_DIR = fileURLToPath(new URL('../../../adapters/instantsearch/dist/', import.meta.url));
const ADAPTER = 'lore-instantsearch.js';

const SCRIPTS = ['service.js', 'service-analytics.js'] as const;
/** UI strings of the non-English locales (English is built in), fetched by service.js for the visitor's language. */
const LOCALES = WIDGET_LOCALES.filter((locale) => locale !== 'en');
const TYPES = { js: 'text/javascript; charset=utf-8', json: 'application/json; charset=utf-8' } as const;

/**
 * Serves the browser SDK bundles at /widget/v1/service.js and /widget/v1/service-analytics.js,
 * and the locale string files at /widget/v1/locales/{locale}.json, from `dir` (default: the build output of `node widget/build.mjs`),
 * the InstantSearch adapter at /widget/v1/lore-instantsearch.js (an ES module a page imports
 * from its Lore, as the adapter is not published on npm), and nothing else under
 * /widget/ (the 404 handler answers `{message}`). Public and cross-origin: any page may load
 * them; cached five minutes with an ETag (304 on If-None-Match). Missing build output → 404
 * naming `npm run build`. Registered outside /api/v1, so no credential and no usage quota.
 */
export async function widgetScriptRoutes(app: FastifyInstance, options: { dir?: string; adapterDir?: string } = {}): Promise<void> {
  const dir = options.dir ?? WIDGET_SCRIPTS_DIR;
  const adapterDir = options.adapterDir ?? ADAPTER_DIR;
  // The build writes .br and .gz copies of each script: sent as they are when the browser accepts them.
  await app.register(fastifyStatic, { serve: false, index: false, dotfiles: 'deny', preCompressed: true });

  const files = [...[...SCRIPTS, ...LOCALES.map((locale) => `locales/${locale}.json`)].map((name) => ({ name, from: dir, built: `widget/dist/v1/${name}` })), { name: ADAPTER, from: adapterDir, built: `adapters/instantsearch/dist/${ADAPTER}` }];
  for (const { name, from, built } of files) {
    const type = name.endsWith('.json') ? TYPES.json : TYPES.js;
    // The pre-compressed path names its own (obsolete) JavaScript type: set ours last.
    const onSend = async (_request: unknown, reply: { statusCode: number; header(name: string, value: string): unknown }, payload: unknown) => {
      if (reply.statusCode < 400) reply.header('content-type', type);
      return payload;
    };
    app.get(`/widget/v1/${name}`, { schema: { hide: true }, onSend }, async (_request, reply) => {
      try {
        await access(`${from}/${name}`);
      } catch {
        return reply.status(404).send({ message: `The browser SDK is not built: run \`npm run build\` (missing ${built}).` });
      }
      reply.headers({
        'content-type': type,
        'cache-control': 'public, max-age=300',
        'access-control-allow-origin': '*',
        'cross-origin-resource-policy': 'cross-origin',
        'x-content-type-options': 'nosniff',
      });
      return reply.sendFile(name, from, { cacheControl: false, contentType: false, etag: true, lastModified: true });
    });
  }
}
