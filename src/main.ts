import { ConfigError, loadConfig } from './config.js';
import { createContainer } from './container.js';
import { buildApp } from './http/app.js';
import { resolveMasterKey } from './masterKey.js';

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
  const container = await createContainer(config, { masterKeyHash: masterKey.hash });
  const app = await buildApp(container.deps, { logger: { level: config.logLevel } });

  const shutdown = async () => {
    await app.close();
    await container.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  const address = await app.listen({ port: config.port, host: config.host });
  if (masterKey.generated) {
    process.stdout.write(
      `\nGenerated the admin master key (shown once; only its hash is stored in ${config.dataDir}):\n\n` +
        `  LORE_MASTER_KEY=${masterKey.generated}\n\n`,
    );
  }
  process.stdout.write(
    `Lore is listening on ${address} (${container.db.backend}${config.databaseUrl ? '' : ` in ${config.dataDir}`}, embeddings ${container.embedder.model})\n`,
  );
}
