import assert from 'node:assert/strict';
import { createHash, randomInt } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../src/config.js';
import type { App } from '../src/http/app.js';
import { registerRateLimits } from '../src/http/rateLimit.js';
import { backends, constantEmbedder, MASTER_KEY, startServer, type TestServer } from './helpers.js';

const limits = (rateLimits: Partial<Config['rateLimits']>, rest: Partial<Config> = {}): Partial<Config> => ({
  rateLimits: { perCredential: 0, perIp: 0, answers: 0, ...rateLimits },
  ...rest,
});

/** A request from `ip`, with `token` as bearer when given; the real app through inject. */
async function get(server: TestServer | App, url: string, options: { ip?: string; token?: string; headers?: Record<string, string> } = {}) {
  const app = 'app' in server ? server.app : server;
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await app.inject({ method: 'GET', url, headers, remoteAddress: options.ip ?? '127.0.0.1' });
  return { status: res.statusCode, body: res.json(), retryAfter: res.headers['retry-after'] };
}

function assertLimited(res: { status: number; body: unknown; retryAfter: unknown }) {
  assert.equal(res.status, 429);
  assert.match(String(res.retryAfter), /^[1-9][0-9]?$/, 'Retry-After is whole seconds within the minute window');
  assert.ok(Number(res.retryAfter) <= 60);
  assert.deepEqual(Object.keys(res.body as object), ['message']);
  assert.match((res.body as { message: string }).message, /^Too many requests\. Retry after \d+ seconds?\.$/);
}

const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

for (const backend of backends()) {
  describe(`rate limits [${backend}]`, () => {
    it('limits each credential; other tokens, admin routes and health are not affected', async () => {
      const server = await startServer(backend, { embedder: constantEmbedder, config: limits({ perCredential: 3 }) });
      try {
        const a = await server.createOrg('A');
        const b = await server.createOrg('B');
        for (let i = 0; i < 3; i++) assert.equal((await get(server, '/api/v1/collections', { token: a.token })).status, 200);
        assertLimited(await get(server, '/api/v1/collections', { token: a.token }));
        assert.equal((await get(server, '/api/v1/collections', { token: b.token })).status, 200, 'another token has its own count');
        for (let i = 0; i < 5; i++) {
          assert.equal((await get(server, '/api/v1/admin/organisations', { token: MASTER_KEY })).status, 200);
          assert.equal((await get(server, '/healthz')).status, 200);
        }
      } finally {
        await server.close();
      }
    });

    it('limits each client IP, and 401s count against it', async () => {
      const server = await startServer(backend, { embedder: constantEmbedder, config: limits({ perIp: 3 }) });
      try {
        const { token } = await server.createOrg();
        assert.equal((await get(server, '/api/v1/collections', { ip: '10.0.0.1' })).status, 401);
        assert.equal((await get(server, '/api/v1/collections', { ip: '10.0.0.1', token: 'lore_bad_guess' })).status, 401);
        assert.equal((await get(server, '/api/v1/collections', { ip: '10.0.0.1', token })).status, 200);
        assertLimited(await get(server, '/api/v1/collections', { ip: '10.0.0.1', token }));
        assert.equal((await get(server, '/api/v1/collections', { ip: '10.0.0.2', token })).status, 200, 'another IP has its own count');
        // Without LORE_TRUST_PROXY a client cannot pick its own IP.
        const spoofed = await get(server, '/api/v1/collections', { ip: '10.0.0.1', token, headers: { 'x-forwarded-for': '192.0.2.9' } });
        assert.equal(spoofed.status, 429);
      } finally {
        await server.close();
      }
    });

    it('honours X-Forwarded-For from a trusted proxy', async () => {
      const server = await startServer(backend, { embedder: constantEmbedder, config: limits({ perIp: 1 }, { trustProxy: ['10.9.0.0/16'] }) });
      try {
        const { token } = await server.createOrg();
        const viaProxy = (client: string) => get(server, '/api/v1/collections', { ip: '10.9.0.5', token, headers: { 'x-forwarded-for': client } });
        assert.equal((await viaProxy('192.0.2.1')).status, 200);
        assert.equal((await viaProxy('192.0.2.2')).status, 200, 'each client behind the proxy is counted on its own');
        assertLimited(await viaProxy('192.0.2.1'));
      } finally {
        await server.close();
      }
    });
  });
}

describe('answer-route rate limit', () => {
  let app: App;
  before(async () => {
    app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    await app.register(async (scope) => {
      await registerRateLimits(scope, { rateLimits: { perCredential: 0, perIp: 0, answers: 2 }, redisUrl: undefined });
      scope.get('/answer', { config: { answerRoute: true } }, async () => ({ ok: true }));
      scope.get('/search', async () => ({ ok: true }));
    });
  });
  after(() => app.close());

  it('applies only to routes marked answerRoute, per credential', async () => {
    for (let i = 0; i < 2; i++) assert.equal((await get(app, '/answer', { token: 'token-x' })).status, 200);
    assertLimited(await get(app, '/answer', { token: 'token-x' }));
    for (let i = 0; i < 5; i++) assert.equal((await get(app, '/search', { token: 'token-x' })).status, 200);
    assert.equal((await get(app, '/answer', { token: 'token-y' })).status, 200);
  });
});

const REDIS_URL = 'redis://127.0.0.1:6379';
const redisUp = await new Promise<boolean>((resolve) => {
  const socket = net.connect(6379, '127.0.0.1');
  const settle = (up: boolean) => {
    socket.destroy();
    resolve(up);
  };
  socket.once('connect', () => settle(true)).once('error', () => settle(false));
  socket.setTimeout(500, () => settle(false));
});

describe('rate limits shared through Redis', { skip: redisUp ? false : 'Redis at 127.0.0.1:6379 is not reachable' }, () => {
  it('two app instances share the counters, which never hold a raw token', async () => {
    const config = limits({ perIp: 3, perCredential: 100 }, { redisUrl: REDIS_URL });
    const one = await startServer('pglite', { embedder: constantEmbedder, config });
    const two = await startServer('pglite', { embedder: constantEmbedder, config });
    const redis = new Redis(REDIS_URL);
    try {
      const ip = randomIp();
      const { token } = await one.createOrg();
      assert.equal((await get(one, '/api/v1/collections', { ip, token })).status, 200);
      assert.equal((await get(one, '/api/v1/collections', { ip })).status, 401);
      assert.equal((await get(two, '/api/v1/collections', { ip })).status, 401);
      assertLimited(await get(two, '/api/v1/collections', { ip }));
      assertLimited(await get(one, '/api/v1/collections', { ip, token }));

      assert.ok(Number(await redis.get(`lore:rl:ip:${ip}`)) >= 3, 'both processes counted in Redis');
      const tokenKey = createHash('sha256').update(token).digest('base64url');
      assert.ok(Number(await redis.get(`lore:rl:credential:${tokenKey}`)) >= 1, 'the credential is counted by its hash');
      assert.deepEqual(await redis.keys(`*${token}*`), []);
    } finally {
      redis.disconnect();
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('rate limits when Redis is down', () => {
  it('fall back to per-process counters instead of failing requests', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const server = await startServer('pglite', { embedder: constantEmbedder, config: limits({ perIp: 2 }, { redisUrl: `redis://127.0.0.1:${port}` }) });
    try {
      const { token } = await server.createOrg();
      assert.equal((await get(server, '/api/v1/collections', { token })).status, 200);
      assert.equal((await get(server, '/api/v1/collections', { token })).status, 200);
      assertLimited(await get(server, '/api/v1/collections', { token }));
    } finally {
      await server.close();
    }
  });
});
