import { ConfigError, loadConfig } from './config.js';
import { createContainer } from './container.js';
import { buildApp } from './http/app.js';
import { logStream } from './http/logFormat.js';
import { seedLoreDemo } from './loreDocs.js';
import { resolveMasterKey } from './masterKey.js';
import { DataDirLockedError } from './storage/dataDirLock.js';
import { otherModels } from './storage/reindex.js';

/** How long a stop waits for requests and answer streams in flight. */
const SHUTDOWN_TIMEOUT_MS = 25_000;

/** Reads the configuration, builds the container and serves until SIGINT/SIGTERM. */
export async function serve(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const masterKey = resolveMasterKey(config.masterKey, config.dataDir);
  const container = await createContainer(config, { masterKeyHash: masterKey.hash }).catch((error: unknown) => {
    if (!(error instanceof DataDirLockedError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
  // Before listening, so /healthz answers only once the demo page works. The demo is not worth
  // refusing to serve for: a failure is reported and `/` then leads to the API reference.
  const demo = config.demo
    ? await seedLoreDemo(container.demo, config).catch((error: unknown) => {
        process.emitWarning(`The demo could not be seeded: ${String(error)}`);
        return null;
      })
    : null;
  const app = await buildApp(container.deps, { logger: { level: config.logLevel, stream: logStream(config.logFormat) } });

  // SIGTERM / SIGINT: stop accepting, let requests and answer streams in flight finish, flush
  // usage counters, close the database, exit 0. A second signal, or SHUTDOWN_TIMEOUT_MS, exits
  // at once with 1 (the database stays consistent: an unfinished write is rolled back).
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting without waiting for requests in flight.\n`);
      process.exit(1);
    }
    stopping = true;
    setTimeout(() => {
      process.stderr.write(`Requests still in flight after ${SHUTDOWN_TIMEOUT_MS / 1000} s: exiting.\n`);
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    // A keep-alive connection that turns idle after its last response would hold close() open
    // until it times out: close idle ones as they appear.
    const idle = setInterval(() => app.server.closeIdleConnections(), 100);
    await app.close();
    clearInterval(idle);
    await container.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const address = await app.listen({ port: config.port, host: config.host });
  if (masterKey.generated) {
    process.stdout.write(
      `\nGenerated the admin master key (shown once; only its hash is stored in ${config.dataDir}):\n\n` +
        `  export LORE_MASTER_KEY=${masterKey.generated}\n\n`,
    );
  }
  process.stdout.write(
    `Lore is listening on ${address} (${container.db.backend}${config.databaseUrl ? '' : ` in ${config.dataDir}`}, embeddings ${container.embedder.model})\n`,
  );
  if (demo !== null) process.stdout.write(`Demo: ${new URL('/', config.publicUrl ?? address).href} (search and chat over Lore's docs; LORE_DEMO=off turns it off)\n`);
  // Chunks another model embedded are compared with this model's query vectors (or, of another
  // dimension, not at all) until they are embedded again: say so, after listening.
  void otherModels(container.db, container.embedder.model).then(
    (others) => {
      if (others.length === 0) return;
      const list = others.map((o) => `${o.chunks.toLocaleString('en')} by ${o.model}`).join(', ');
      process.stdout.write(`Chunks embedded by another model than ${container.embedder.model}: ${list}. Run lore reindex to embed them with this one.\n`);
    },
    () => {}, // advisory only (and the database may be closing already)
  );
}
