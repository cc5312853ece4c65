import path from 'node:path';

/** Validated, frozen runtime configuration. Built once in main.ts from the environment. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** PostgreSQL server URL; when absent, the embedded PGlite database in `dataDir` is used. */
  readonly databaseUrl: string | undefined;
  /** Instance admin credential; when absent, one is generated and its hash kept in `dataDir`. */
  readonly masterKey: string | undefined;
  readonly publicUrl: string | undefined;
  readonly embeddings: EmbeddingsConfig;
  readonly logLevel: string;
  /** Largest accepted request body in bytes (413 above it). */
  readonly bodyLimit: number;
}

export type EmbeddingsConfig =
  | { readonly kind: 'local'; readonly model: string; readonly modelPath: string | undefined; readonly dtype: string }
  | { readonly kind: 'openai'; readonly model: string; readonly baseUrl: string; readonly apiKey: string | undefined; readonly dimensions: number };

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Reads the configuration from environment variables. Every problem is collected and
 * reported together in one ConfigError, so an operator fixes them in one pass.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
      }
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };

  const port = int('PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const dataDir = path.resolve(env.LORE_DATA_DIR || '.lore');
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const publicUrl = url('LORE_PUBLIC_URL', ['http:', 'https:']);
  const bodyLimit = int('LORE_BODY_LIMIT', 10 * 1024 * 1024, 1024, 100 * 1024 * 1024);

  const masterKey = env.LORE_MASTER_KEY || undefined;
  if (masterKey !== undefined && masterKey.length < 24) {
    problems.push('LORE_MASTER_KEY must be at least 24 characters long');
  }

  const logLevel = env.LORE_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LORE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  let embeddings: EmbeddingsConfig;
  const kind = env.LORE_EMBEDDINGS || 'local';
  if (kind === 'local') {
    embeddings = {
      kind,
      model: env.LORE_EMBEDDINGS_MODEL || 'onnx-community/all-MiniLM-L6-v2-ONNX',
      modelPath: env.LORE_EMBEDDINGS_MODEL_PATH || undefined,
      dtype: env.LORE_EMBEDDINGS_DTYPE || 'q4',
    };
  } else if (kind === 'openai') {
    const baseUrl = url('OPENAI_BASE_URL', ['http:', 'https:']) ?? 'https://api.openai.com/v1';
    const model = env.LORE_EMBEDDINGS_MODEL || 'text-embedding-3-small';
    embeddings = {
      kind,
      model,
      baseUrl,
      apiKey: env.OPENAI_API_KEY || undefined,
      dimensions: int('LORE_EMBEDDINGS_DIMENSIONS', 1536, 1, 4096),
    };
  } else {
    problems.push(`LORE_EMBEDDINGS must be "local" or "openai" (got "${kind}")`);
    embeddings = { kind: 'local', model: '', modelPath: undefined, dtype: 'q4' };
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({ port, host, dataDir, databaseUrl, masterKey, publicUrl, embeddings, logLevel, bodyLimit });
}
