import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import addFormats from 'ajv-formats';
import qs from 'qs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { credentialAuth } from './auth.js';
import { registerErrorHandling } from './errors.js';
import { registerHostileInputChecks } from './hostile.js';
import { requestSerializer } from './logRedaction.js';
import { usageQuota } from './quota.js';
import { registerRateLimits } from './rateLimit.js';
import { adminRoutes } from './routes/admin.js';
import { answerRoutes } from './routes/answers.js';
import { apiKeyRoutes } from './routes/apiKeys.js';
import { collectionRoutes } from './routes/collections.js';
import { demoRoutes } from './routes/demo.js';
import { entryRoutes } from './routes/entries.js';
import { crawlerRoutes } from './routes/crawlers.js';
import { healthRoutes } from './routes/health.js';
import { integrationRoutes } from './routes/integrations.js';
import { mcpRoutes } from './routes/mcp.js';
import { pageRoutes } from './routes/pages.js';
import { searchRoutes } from './routes/search.js';
import { usageRoutes } from './routes/usage.js';
import { analyticsRoutes } from './routes/analytics.js';
import { consoleRoutes } from './routes/console.js';
import { widgetApiRoutes, widgetPublicRoutes } from './routes/widgetApi.js';
import { widgetRoutes } from './routes/widgets.js';
import { widgetScriptRoutes } from './routes/widgetScripts.js';
import { widgetAuth } from './widgetAuth.js';
import type { App, AppDeps } from './deps.js';

export type { App, AppDeps } from './deps.js';

/** Lore's version, from its package.json (two folders up from src/http and from dist/http alike). */
export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * The policy /docs (Swagger UI) is served with: its own scripts and styles only (no inline
 * script, no eval), calls to this origin only ("Try it out"), images from here or data: URLs
 * (its logo), no plugins, no framing by other sites. The one inline `<style>` Swagger UI's
 * bundle (@fastify/swagger-ui 6.1.3) adds is allowed by its hash; another version's would be
 * refused, which the browser test of /docs reports as a CSP violation.
 */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

/** A request id a caller may choose: letters, digits and `._:-`, at most 128. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Builds the Fastify app without listening, so tests can `inject` or listen themselves.
 * Routes: /healthz, /readyz, /docs, /widget/v1/*.js (the browser SDK), the demo (/, /demo.js,
 * /demo.css, /demo/docs/*), /mcp (the MCP server for AI assistants), /api/v1/openapi.json,
 * /api/v1/admin/*, /api/v1/*, and the widget routes /api/v1/{organisation}/widgets/{widget}/*
 * (own scope: widget authentication).
 */
export async function buildApp(deps: AppDeps, options: { logger?: boolean | object } = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger ? { ...(options.logger === true ? {} : options.logger), serializers: { req: requestSerializer as never } } : false,
    bodyLimit: deps.config.bodyLimit,
    trustProxy: deps.config.trustProxy,
    // A caller's X-Request-Id is kept when it is a plain token (it is logged and echoed back);
    // otherwise, and when absent, the request gets a UUID.
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Bracket notation (meta[tag][or][]=a, boost[0][field]=…) as PHP/qs parse it, bounded.
    routerOptions: {
      querystringParser: (query: string) => qs.parse(query, { depth: 4, arrayLimit: 50, parameterLimit: 200 }),
    },
    ajv: {
      // All errors at once (every string and array in the schemas is bounded), no type
      // coercion of JSON bodies: `"raw_text": 5` is a 422, not the string "5".
      customOptions: { allErrors: true, coerceTypes: false, removeAdditional: true },
      plugins: [addFormats.default as never],
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('deps', deps);

  // Clients send Content-Type: application/json on body-less requests (DELETE) too.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    parseJson(request, body as string, done);
  });

  registerErrorHandling(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    deps.metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  registerHostileInputChecks(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Lore API',
        version: VERSION,
        description:
          'Knowledge search, summaries and chat.\n\n' +
          'AI assistants connect to `/mcp`, an MCP server (Streamable HTTP, stateless): POST with `Authorization: Bearer` and an API token ' +
          'or an organisation API key. Its tools `search`, `answer` and `get_entry` read only the collections and do only what the credential may.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP });

  await app.register(healthRoutes);
  await app.register(widgetScriptRoutes);
  await app.register(demoRoutes);
  await app.register(consoleRoutes);
  await app.register(mcpRoutes, { version: VERSION });
  await app.register(
    async (api) => {
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      await api.register(adminRoutes, { prefix: '/admin' });
      await api.register(async (v1) => {
        // Rate limits first, so floods are refused before any authentication work.
        await registerRateLimits(v1, deps.config);
        v1.addHook('onRequest', credentialAuth(deps));
        v1.addHook('onRequest', usageQuota(deps.usage));
        collectionRoutes(v1);
        entryRoutes(v1);
        crawlerRoutes(v1);
        integrationRoutes(v1);
        searchRoutes(v1);
        answerRoutes(v1);
        usageRoutes(v1);
        analyticsRoutes(v1);
        apiKeyRoutes(v1);
        pageRoutes(v1);
        widgetRoutes(v1);
      });
      // Widget routes answer browsers and servers with widget credentials, not API tokens.
      await api.register(async (widgets) => {
        await registerRateLimits(widgets, deps.config);
        widgetPublicRoutes(widgets);
        await widgets.register(async (authed) => {
          authed.addHook('onRequest', widgetAuth(deps));
          authed.addHook('onRequest', usageQuota(deps.usage));
          widgetApiRoutes(authed);
        });
      });
    },
    { prefix: '/api/v1' },
  );
  return app;
}
