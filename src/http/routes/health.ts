import { Type } from 'typebox';
import type { App } from '../app.js';

const Status = Type.Object({ status: Type.String() });

/** Liveness and readiness for load balancers: 200 once migrated and models are loaded. */
export async function healthRoutes(app: App): Promise<void> {
  for (const path of ['/healthz', '/readyz']) {
    app.get(path, { schema: { hide: true, response: { 200: Status, 503: Status } } }, async (_request, reply) =>
      app.deps.ready() ? { status: 'ok' } : reply.status(503).send({ status: 'starting' }),
    );
  }
}
