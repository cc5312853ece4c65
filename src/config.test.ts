import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';
import { secretMatches } from './domain/credentials.js';
import { resolveMasterKey } from './masterKey.js';

describe('loadConfig', () => {
  it('has embedded, offline defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, path.resolve('.lore'));
    assert.equal(config.embeddings.kind, 'local');
    assert.ok(Object.isFrozen(config));
  });

  it('reports every problem at once', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LORE_EMBEDDINGS: 'magic', LORE_MASTER_KEY: 'short', LORE_LOG_LEVEL: 'loud' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems.length, 5);
        assert.match(error.message, /PORT must be an integer/);
        assert.match(error.message, /DATABASE_URL must use postgres/);
        assert.match(error.message, /LORE_EMBEDDINGS must be/);
        assert.match(error.message, /LORE_MASTER_KEY must be at least 24/);
        assert.match(error.message, /LORE_LOG_LEVEL must be one of/);
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
