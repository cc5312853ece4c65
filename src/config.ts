import { statSync } from 'node:fs';
import { isIP } from 'node:net';
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
  /** Log lines as JSON (`json`), readable (`pretty`), or readable on a terminal and JSON otherwise (`auto`). */
  readonly logFormat: LogFormat;
  /** Largest accepted request body in bytes (413 above it). */
  readonly bodyLimit: number;
  readonly rateLimits: RateLimitConfig;
  /** Redis server that several Lore processes share rate-limit counters through. */
  readonly redisUrl: string | undefined;
  /**
   * Which proxies' X-Forwarded-For to believe for the client IP (Fastify `trustProxy`):
   * false (none), true (any), or the proxies' addresses / CIDR ranges.
   */
  readonly trustProxy: boolean | string[];
  /** Who writes summaries and chat answers. */
  readonly answers: AnswersConfig;
  /** Days after their last message that conversations not kept are deleted; 0: never. */
  readonly conversationTtlDays: number;
  /** Seed the demo organisation from Lore's docs at start and serve the demo page at `/`. */
  readonly demo: boolean;
  /** A token that may read `GET /metrics` besides the master key (a scraper need not hold the admin key). */
  readonly metricsToken: string | undefined;
  /** Texts waiting for the embedding model, at most; writes beyond it get 503 with Retry-After. */
  readonly ingestQueue: number;
  /** Query embeddings kept in memory for repeated queries; 0 turns the cache off. */
  readonly queryCache: number;
  /** Let the server's crawlers fetch private and loopback addresses (an intranet site; tests). */
  readonly crawlPrivateNetworks: boolean;
  /** The server's crawler fleet: its slots and each organisation's share. */
  readonly crawl: CrawlConfig;
}

export interface CrawlConfig {
  /** Crawls this process runs at once; 0: none (a process that only serves the API). */
  readonly concurrency: number;
  /** One organisation's crawls at once, across processes. */
  readonly runsPerOrganisation: number;
  /** Crawlers an organisation may have. */
  readonly crawlersPerOrganisation: number;
  /** How long a crawl keeps its slot while another organisation's waits with fewer. */
  readonly sliceSeconds: number;
}

export type LogFormat = 'auto' | 'json' | 'pretty';

export type AnswersConfig =
  | { readonly kind: 'extractive' }
  | { readonly kind: 'openai' | 'anthropic'; readonly model: string; readonly baseUrl: string; readonly apiKey: string | undefined; readonly timeoutMs: number }
  | {
      readonly kind: 'llama';
      /** An existing GGUF file, absolute. */
      readonly modelPath: string;
      /** Tokens per generation; undefined: as many as fit, at most 8192. */
      readonly contextSize: number | undefined;
      /** CPU threads; undefined: the machine's math cores. */
      readonly threads: number | undefined;
      /** Generations at once; more wait their turn. */
      readonly parallel: number;
    };

/** Requests per minute; 0 turns a limit off. */
export interface RateLimitConfig {
  /** Per credential (bearer token) on the API v1 routes. */
  readonly perCredential: number;
  /** Per client IP on the API v1 routes. */
  readonly perIp: number;
  /** Per credential on answer routes (summarise, chat), on top of `perCredential`. */
  readonly answers: number;
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
const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'pretty'];

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
  const ingestQueue = int('LORE_INGEST_QUEUE', 2000, 1, 1_000_000);
  const queryCache = int('LORE_QUERY_CACHE', 1000, 0, 1_000_000);
  const rateLimits = {
    perCredential: int('LORE_RATE_LIMIT', 600, 0, 1_000_000),
    perIp: int('LORE_RATE_LIMIT_IP', 1200, 0, 1_000_000),
    answers: int('LORE_ANSWER_RATE_LIMIT', 60, 0, 1_000_000),
  };
  const redisUrl = url('LORE_REDIS_URL', ['redis:', 'rediss:']);
  const conversationTtlDays = int('LORE_CONVERSATION_TTL_DAYS', 30, 0, 36_500);
  const crawlPrivateNetworks = parseSwitch(env.LORE_CRAWL_PRIVATE_NETWORKS, false);
  if (crawlPrivateNetworks === null) problems.push(`LORE_CRAWL_PRIVATE_NETWORKS must be on, off, true, false, 1 or 0 (got "${env.LORE_CRAWL_PRIVATE_NETWORKS}")`);
  const crawl: CrawlConfig = {
    concurrency: int('LORE_CRAWL_CONCURRENCY', 2, 0, 64),
    runsPerOrganisation: int('LORE_CRAWL_ORGANISATION_RUNS', 2, 1, 64),
    crawlersPerOrganisation: int('LORE_CRAWL_ORGANISATION_CRAWLERS', 50, 1, 100_000),
    sliceSeconds: int('LORE_CRAWL_SLICE_SECONDS', 300, 10, 86_400),
  };
  const demo = parseSwitch(env.LORE_DEMO, true);
  if (demo === null) problems.push(`LORE_DEMO must be on, off, true, false, 1 or 0 (got "${env.LORE_DEMO}")`);
  const trustProxy = parseTrustProxy(env.LORE_TRUST_PROXY);
  if (trustProxy === null) {
    problems.push('LORE_TRUST_PROXY must be true, false, or comma-separated proxy addresses or CIDR ranges');
  }

  const masterKey = env.LORE_MASTER_KEY || undefined;
  if (masterKey !== undefined && masterKey.length < 24) {
    problems.push('LORE_MASTER_KEY must be at least 24 characters long');
  }

  const metricsToken = env.LORE_METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && metricsToken.length < 24) {
    problems.push('LORE_METRICS_TOKEN must be at least 24 characters long');
  }

  const logLevel = env.LORE_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LORE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const logFormat = (env.LORE_LOG_FORMAT || 'auto') as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) problems.push(`LORE_LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')} (got "${env.LORE_LOG_FORMAT}")`);

  let embeddings: EmbeddingsConfig;
  const kind = env.LORE_EMBEDDINGS || 'local';
  if (kind === 'local') {
    embeddings = {
      kind,
      model: env.LORE_EMBEDDINGS_MODEL || 'onnx-community/all-MiniLM-L6-v2-ONNX',
      modelPath: env.LORE_EMBEDDINGS_MODEL_PATH || undefined,
      dtype: env.LORE_EMBEDDINGS_DTYPE || 'int8',
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
    embeddings = { kind: 'local', model: '', modelPath: undefined, dtype: 'int8' };
  }

  let answers: AnswersConfig = { kind: 'extractive' };
  const llm = env.LORE_LLM || 'extractive';
  if (llm === 'openai' || llm === 'anthropic') {
    const model = env.LORE_LLM_MODEL || '';
    if (!model) problems.push(`LORE_LLM_MODEL is required when LORE_LLM is "${llm}"`);
    const baseUrl =
      url('LORE_LLM_BASE_URL', ['http:', 'https:']) ??
      (llm === 'openai' ? (url('OPENAI_BASE_URL', ['http:', 'https:']) ?? 'https://api.openai.com/v1') : 'https://api.anthropic.com');
    const apiKey = (llm === 'openai' ? env.OPENAI_API_KEY : env.ANTHROPIC_API_KEY) || undefined;
    if (llm === 'anthropic' && !apiKey) problems.push('ANTHROPIC_API_KEY is required when LORE_LLM is "anthropic"');
    answers = { kind: llm, model, baseUrl, apiKey, timeoutMs: int('LORE_LLM_TIMEOUT_MS', 30_000, 1_000, 600_000) };
  } else if (llm === 'llama') {
    const raw = env.LORE_LLM_MODEL_PATH || '';
    const modelPath = path.resolve(raw);
    if (!raw) problems.push('LORE_LLM_MODEL_PATH is required when LORE_LLM is "llama"');
    else if (!isFile(modelPath)) problems.push(`LORE_LLM_MODEL_PATH must name an existing GGUF file (got "${raw}")`);
    const optional = (name: string, min: number, max: number) => (env[name] ? int(name, min, min, max) : undefined);
    answers = {
      kind: llm,
      modelPath,
      contextSize: optional('LORE_LLM_CONTEXT_SIZE', 256, 1_048_576),
      threads: optional('LORE_LLM_THREADS', 1, 1024),
      parallel: int('LORE_LLM_PARALLEL', 1, 1, 64),
    };
  } else if (llm !== 'extractive') {
    problems.push(`LORE_LLM must be "extractive", "openai", "anthropic" or "llama" (got "${llm}")`);
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    port, host, dataDir, databaseUrl, masterKey, publicUrl, embeddings, logLevel, logFormat, bodyLimit,
    rateLimits: Object.freeze(rateLimits), redisUrl, trustProxy: trustProxy ?? false, answers: Object.freeze(answers),
    conversationTtlDays, demo: demo ?? true, metricsToken, ingestQueue, queryCache,
    crawlPrivateNetworks: crawlPrivateNetworks ?? false, crawl: Object.freeze(crawl),
  });
}

/** An on/off setting (`on`, `true`, `1` / `off`, `false`, `0`, any case); `fallback` when unset, null when malformed. */
function parseSwitch(raw: string | undefined, fallback: boolean): boolean | null {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (['on', 'true', '1'].includes(value)) return true;
  if (['off', 'false', '0'].includes(value)) return false;
  return null;
}

/** Whether `file` is a regular file this process can see. */
function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

// proxy-addr's names for common ranges, which Fastify accepts beside addresses and CIDRs.
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** LORE_TRUST_PROXY as Fastify's `trustProxy`; null when malformed. */
function parseTrustProxy(raw: string | undefined): boolean | string[] | null {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  const entries = raw.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    if (PROXY_RANGE_NAMES.includes(entry)) return true;
    const [address = '', bits, ...rest] = entry.split('/');
    const version = isIP(address);
    if (version === 0 || rest.length > 0) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
  });
  return valid ? entries : null;
}
