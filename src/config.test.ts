import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';
import { secretMatches } from './domain/access/credentials.js';
import { resolveMasterKey } from './masterKey.js';

describe('loadConfig', () => {
  it('has embedded, offline defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, path.resolve('.lore'));
    assert.equal(config.embeddings.kind, 'local');
    assert.equal(config.logFormat, 'auto');
    assert.ok(Object.isFrozen(config));
  });

  it('takes LORE_LOG_FORMAT auto, json or pretty, and refuses others', () => {
    for (const format of ['auto', 'json', 'pretty'] as const) assert.equal(loadConfig({ LORE_LOG_FORMAT: format }).logFormat, format);
    assert.throws(() => loadConfig({ LORE_LOG_FORMAT: 'JSON' }), /LORE_LOG_FORMAT must be one of auto, json, pretty \(got "JSON"\)/);
  });

  it('reports every problem at once', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LORE_EMBEDDINGS: 'magic', LORE_MASTER_KEY: 'short', LORE_LOG_LEVEL: 'loud', LORE_LOG_FORMAT: 'fancy' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems.length, 6);
        assert.match(error.message, /PORT must be an integer/);
        assert.match(error.message, /DATABASE_URL must use postgres/);
        assert.match(error.message, /LORE_EMBEDDINGS must be/);
        assert.match(error.message, /LORE_MASTER_KEY must be at least 24/);
        assert.match(error.message, /LORE_LOG_LEVEL must be one of/);
        assert.match(error.message, /LORE_LOG_FORMAT must be one of/);
        return true;
      },
    );
  });

  it('accepts a PostgreSQL server and an OpenAI-compatible embedder', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/lore', LORE_EMBEDDINGS: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' });
    assert.equal(config.databaseUrl, 'postgres://u@db:5432/lore');
    assert.deepEqual(config.embeddings, { kind: 'openai', model: 'text-embedding-3-small', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: undefined, dimensions: 1536 });
  });
});

describe('loadConfig: conversation expiry', () => {
  it('expires conversations after 30 days by default; 0 keeps them; other values are refused', () => {
    assert.equal(loadConfig({}).conversationTtlDays, 30);
    assert.equal(loadConfig({ LORE_CONVERSATION_TTL_DAYS: '0' }).conversationTtlDays, 0);
    assert.equal(loadConfig({ LORE_CONVERSATION_TTL_DAYS: '7' }).conversationTtlDays, 7);
    assert.throws(() => loadConfig({ LORE_CONVERSATION_TTL_DAYS: '-1' }), ConfigError);
    assert.throws(() => loadConfig({ LORE_CONVERSATION_TTL_DAYS: 'month' }), ConfigError);
  });
});

describe('loadConfig: demo', () => {
  it('seeds the demo by default; LORE_DEMO=off, false or 0 turns it off; other values are refused', () => {
    assert.equal(loadConfig({}).demo, true);
    for (const on of ['on', 'true', '1', 'ON', '']) assert.equal(loadConfig({ LORE_DEMO: on }).demo, true, on);
    for (const off of ['off', 'false', '0', 'Off']) assert.equal(loadConfig({ LORE_DEMO: off }).demo, false, off);
    assert.throws(() => loadConfig({ LORE_DEMO: 'maybe' }), /LORE_DEMO must be on, off, true, false, 1 or 0/);
  });
});

describe('loadConfig: rate limits', () => {
  it('limits per credential, IP and answer by default, in memory, trusting no proxy', () => {
    const config = loadConfig({});
    assert.deepEqual(config.rateLimits, { perCredential: 600, perIp: 1200, answers: 60 });
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.trustProxy, false);
  });

  it('takes limits (0 turns one off), a Redis server and trusted proxies', () => {
    const config = loadConfig({
      LORE_RATE_LIMIT: '0',
      LORE_RATE_LIMIT_IP: '5000',
      LORE_ANSWER_RATE_LIMIT: '10',
      LORE_REDIS_URL: 'redis://cache:6379/2',
      LORE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,loopback,::1',
    });
    assert.deepEqual(config.rateLimits, { perCredential: 0, perIp: 5000, answers: 10 });
    assert.equal(config.redisUrl, 'redis://cache:6379/2');
    assert.deepEqual(config.trustProxy, ['10.0.0.0/8', '127.0.0.1', 'loopback', '::1']);
    assert.equal(loadConfig({ LORE_TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ LORE_REDIS_URL: 'rediss://u:p@cache:6380' }).redisUrl, 'rediss://u:p@cache:6380');
  });

  it('runs 2 crawls a process by default, 2 of an organisation, 50 crawlers an organisation, 5-minute turns; takes others and refuses bad ones', () => {
    assert.deepEqual({ ...loadConfig({}).crawl }, { concurrency: 2, runsPerOrganisation: 2, crawlersPerOrganisation: 50, sliceSeconds: 300 });
    const set = loadConfig({ LORE_CRAWL_CONCURRENCY: '0', LORE_CRAWL_ORGANISATION_RUNS: '4', LORE_CRAWL_ORGANISATION_CRAWLERS: '500', LORE_CRAWL_SLICE_SECONDS: '60' }).crawl;
    assert.deepEqual({ ...set }, { concurrency: 0, runsPerOrganisation: 4, crawlersPerOrganisation: 500, sliceSeconds: 60 });
    assert.throws(
      () => loadConfig({ LORE_CRAWL_CONCURRENCY: '-1', LORE_CRAWL_ORGANISATION_RUNS: '0', LORE_CRAWL_ORGANISATION_CRAWLERS: 'many', LORE_CRAWL_SLICE_SECONDS: '5' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'LORE_CRAWL_CONCURRENCY must be an integer between 0 and 64 (got "-1")',
          'LORE_CRAWL_ORGANISATION_RUNS must be an integer between 1 and 64 (got "0")',
          'LORE_CRAWL_ORGANISATION_CRAWLERS must be an integer between 1 and 100000 (got "many")',
          'LORE_CRAWL_SLICE_SECONDS must be an integer between 10 and 86400 (got "5")',
        ]);
        return true;
      },
    );
  });

  it('reports every bad limit at once', () => {
    assert.throws(
      () =>
        loadConfig({
          LORE_RATE_LIMIT: '-1',
          LORE_RATE_LIMIT_IP: 'lots',
          LORE_ANSWER_RATE_LIMIT: '1.5',
          LORE_REDIS_URL: 'http://cache:6379',
          LORE_TRUST_PROXY: '10.0.0.0/33',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'LORE_RATE_LIMIT must be an integer between 0 and 1000000 (got "-1")',
          'LORE_RATE_LIMIT_IP must be an integer between 0 and 1000000 (got "lots")',
          'LORE_ANSWER_RATE_LIMIT must be an integer between 0 and 1000000 (got "1.5")',
          'LORE_REDIS_URL must use redis: or rediss: (got "http:")',
          'LORE_TRUST_PROXY must be true, false, or comma-separated proxy addresses or CIDR ranges',
        ]);
        return true;
      },
    );
    for (const value of ['yes', '2', 'proxy.example.com', '10.0.0.1/8/1']) {
      assert.throws(() => loadConfig({ LORE_TRUST_PROXY: value }), /LORE_TRUST_PROXY/, value);
    }
  });
});

describe('loadConfig: local llama.cpp answers', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lore-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes an existing GGUF file, resolved, with optional context size, threads and parallel generations', () => {
    const model = path.join(dir, 'model.gguf');
    writeFileSync(model, 'GGUF');
    assert.deepEqual(loadConfig({ LORE_LLM: 'llama', LORE_LLM_MODEL_PATH: path.relative(process.cwd(), model) }).answers, {
      kind: 'llama',
      modelPath: model,
      contextSize: undefined,
      threads: undefined,
      parallel: 1,
    });
    const tuned = loadConfig({ LORE_LLM: 'llama', LORE_LLM_MODEL_PATH: model, LORE_LLM_CONTEXT_SIZE: '4096', LORE_LLM_THREADS: '4', LORE_LLM_PARALLEL: '2' });
    assert.deepEqual(tuned.answers, { kind: 'llama', modelPath: model, contextSize: 4096, threads: 4, parallel: 2 });
  });

  it('reports a missing model path, a path that is not a file and bad numbers together', () => {
    assert.throws(
      () => loadConfig({ LORE_LLM: 'llama', LORE_LLM_CONTEXT_SIZE: '100', LORE_LLM_THREADS: 'many', LORE_LLM_PARALLEL: '0' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [
          'LORE_LLM_MODEL_PATH is required when LORE_LLM is "llama"',
          'LORE_LLM_CONTEXT_SIZE must be an integer between 256 and 1048576 (got "100")',
          'LORE_LLM_THREADS must be an integer between 1 and 1024 (got "many")',
          'LORE_LLM_PARALLEL must be an integer between 1 and 64 (got "0")',
        ]);
        return true;
      },
    );
    for (const missing of [path.join(dir, 'absent.gguf'), dir]) {
      assert.throws(() => loadConfig({ LORE_LLM: 'llama', LORE_LLM_MODEL_PATH: missing }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.problems, [`LORE_LLM_MODEL_PATH must name an existing GGUF file (got "${missing}")`]);
        return true;
      });
    }
    assert.throws(() => loadConfig({ LORE_LLM: 'llamafile' }), /LORE_LLM must be "extractive", "openai", "anthropic" or "llama"/);
  });
});

describe('resolveMasterKey', () => {
  it('generates a key once, stores only its hash, and reuses the hash', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lore-key-'));
    const first = resolveMasterKey(undefined, dir);
    assert.match(first.generated!, /^lore_master_[A-Za-z0-9_-]{43}$/);
    const stored = readFileSync(path.join(dir, 'master-key.sha256'), 'utf8');
    assert.ok(!stored.includes(first.generated!));
    const second = resolveMasterKey(undefined, dir);
    assert.equal(second.generated, undefined);
    assert.ok(secretMatches(first.generated!, second.hash));
  });

  it('prefers LORE_MASTER_KEY', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lore-key-'));
    const key = resolveMasterKey('a-configured-master-key-123456', dir);
    assert.equal(key.generated, undefined);
    assert.ok(secretMatches('a-configured-master-key-123456', key.hash));
  });
});
