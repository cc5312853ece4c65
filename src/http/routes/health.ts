import { Type } from 'typebox';
import { hashSecret } from '../../domain/access/credentials.js';
import { masterAuth } from '../auth.js';
import type { App } from '../deps.js';

const Status = Type.Object({ status: Type.String() });
const Readiness = Type.Object({ status: Type.String(), database: Type.Optional(Type.String()), embedder: Type.Optional(Type.String()) });

/**
 * Liveness (`/healthz`: 200 once migrated and models are loaded), readiness (`/readyz`: and
 * the database answers and the embedding model embeds, now; else 503 naming what is down),
 * and `/metrics` for Prometheus (the master key or LORE_METRICS_TOKEN as a bearer token).
 */
export async function healthRoutes(app: App): Promise<void> {
  app.get('/healthz', { schema: { hide: true, response: { 200: Status, 503: Status } } }, async (_request, reply) =>
    app.deps.ready() ? { status: 'ok' } : reply.status(503).send({ status: 'starting' }),
  );
  app.get('/readyz', { schema: { hide: true, response: { 200: Readiness, 503: Readiness } } }, async (_request, reply) => {
    if (!app.deps.ready()) return reply.status(503).send({ status: 'starting' });
    const { database, embedder } = await app.deps.readiness();
    if (database && embedder) return { status: 'ok' };
    return reply.status(503).send({ status: 'unavailable', database: database ? 'ok' : 'down', embedder: embedder ? 'ok' : 'down' });
  });

  const { masterKeyHash, config } = app.deps;
  const scrapers = masterAuth(masterKeyHash, ...(config.metricsToken ? [hashSecret(config.metricsToken)] : []));
  app.get('/metrics', { schema: { hide: true }, onRequest: scrapers }, async (_request, reply) => {
    const { registry } = app.deps.metrics;
    return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(await registry.metrics());
  });
}
