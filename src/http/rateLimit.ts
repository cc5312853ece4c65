import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { App } from './deps.js';
import { hashSecret } from '../domain/access/credentials.js';
import { bearer } from './auth.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Marks an answer route (summarise, chat): the stricter per-credential
     * LORE_ANSWER_RATE_LIMIT applies on top of the general limits, and an exhausted usage
     * quota is left to the route (its 402 may carry data) instead of the quota hook.
     */
    answerRoute?: boolean;
    /**
     * The route learns only from its body whether it answers (POST /mcp's answer tool): it
     * counts each answer against the answer limit itself, with `request.countAnswer`.
     */
    answersInBody?: boolean;
  }
  interface FastifyRequest {
    /**
     * On `answersInBody` routes, when an answer limit applies: counts one answer of the
     * request's credential and resolves the seconds to wait when over the limit, else 0.
     */
    countAnswer?: () => Promise<number>;
  }
}

const WINDOW_SECONDS = 60;
// How long a start waits for Redis before serving with per-process counters.
const REDIS_CONNECT_MS = 1_000;

/**
 * Rate limits for every route of `scope`, counted per minute: per client IP
 * (`request.ip`, which honours X-Forwarded-For only under LORE_TRUST_PROXY), per credential
 * (a SHA-256 of the bearer token, never the token) and, on routes with
 * `config: { answerRoute: true }`, per credential again with the answer limit. Over a limit
 * → 429 `{message}` with `Retry-After` in seconds. The hook runs before authentication
 * (add it first), so floods stay cheap and failed logins count against the IP.
 *
 * Counters live in process memory, or in Redis when `redisUrl` is set — needed when
 * several processes serve one database. If Redis is unreachable, each process falls back
 * to its own in-memory counters (rate-limiter-flexible's insurance limiter) rather than
 * failing requests; the Redis client closes with the app.
 */
export async function registerRateLimits(scope: App, config: Pick<Config, 'rateLimits' | 'redisUrl'>): Promise<void> {
  const { perIp, perCredential, answers } = config.rateLimits;
  if (perIp === 0 && perCredential === 0 && answers === 0) return;
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, scope.log) : undefined;
  if (redis) scope.addHook('onClose', async () => redis.disconnect());

  const limiter = (name: string, points: number): RateLimiterAbstract | null => {
    if (points === 0) return null;
    const options = { keyPrefix: `lore:rl:${name}`, points, duration: WINDOW_SECONDS };
    if (!redis) return new RateLimiterMemory(options);
    return new RateLimiterRedis({
      ...options,
      storeClient: redis,
      rejectIfRedisNotReady: true,
      // A key over its limit is refused from memory until its window ends, sparing Redis.
      inMemoryBlockOnConsumed: points,
      insuranceLimiter: new RateLimiterMemory(options),
    });
  };
  const ip = limiter('ip', perIp);
  const credential = limiter('credential', perCredential);
  const answer = limiter('answer', answers);

  scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearer(request);
    const tokenKey = token === null ? null : hashSecret(token).toString('base64url');
    const checks: Promise<RateLimiterRes>[] = [];
    if (ip) checks.push(ip.consume(request.ip));
    if (tokenKey !== null && credential) checks.push(credential.consume(tokenKey));
    if (tokenKey !== null && answer && request.routeOptions.config.answerRoute) checks.push(answer.consume(tokenKey));
    if (tokenKey !== null && answer && request.routeOptions.config.answersInBody) {
      request.countAnswer = () => answer.consume(tokenKey).then(() => 0, (refused: unknown) => {
        if (!(refused instanceof RateLimiterRes)) throw refused;
        return Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
      });
    }

    let waitMs = -1;
    for (const result of await Promise.allSettled(checks)) {
      if (result.status === 'fulfilled') continue;
      // Store failures never get here (the insurance limiter answers); anything else is a bug.
      if (!(result.reason instanceof RateLimiterRes)) throw result.reason;
      waitMs = Math.max(waitMs, result.reason.msBeforeNext);
    }
    if (waitMs < 0) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return reply
      .status(429)
      .header('retry-after', String(seconds))
      .send({ message: `Too many requests. Retry after ${seconds} second${seconds === 1 ? '' : 's'}.` });
  });
}

/**
 * A Redis client for shared counters. Commands fail fast while disconnected (no offline
 * queue, short timeout), which hands them to the in-memory fallback; the client keeps
 * reconnecting in the background. Losing and regaining Redis is logged once each.
 */
async function connectRedis(url: string, log: FastifyBaseLogger): Promise<Redis> {
  const client = new Redis(url, { enableOfflineQueue: false, commandTimeout: 500, maxRetriesPerRequest: 1 });
  let down = false;
  client.on('error', (error: Error) => {
    if (!down) log.warn({ err: error }, 'Redis is unreachable: rate limits are counted per process until it is back');
    down = true;
  });
  client.on('ready', () => {
    if (down) log.info('Redis is reachable again: rate limits are shared');
    down = false;
  });
  // Start with shared counters when Redis answers at once; serve anyway when it does not.
  await new Promise<void>((resolve) => {
    const settle = () => {
      clearTimeout(timer);
      client.off('ready', settle).off('error', settle);
      resolve();
    };
    const timer = setTimeout(settle, REDIS_CONNECT_MS);
    client.once('ready', settle).once('error', settle);
  });
  return client;
}
