import type { FastifyRequest } from 'fastify';
import { PaymentRequiredError } from '../domain/errors.js';
import type { UsageService } from '../domain/access/usage.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served even when the monthly usage quota is exhausted (GET /usage: see why). */
    quotaExempt?: boolean;
  }
}

/**
 * onRequest hook, after authentication: counts the request against the organisation's
 * monthly usage quota and refuses it with 402 once the quota is used up. Answer routes
 * (`config.answerRoute`) are counted but not refused here: `reserveCredit` refuses them,
 * so chat's 402 can carry search hits.
 */
export function usageQuota(usage: UsageService) {
  return async (request: FastifyRequest) => {
    const withinQuota = await usage.countRequest(request.scope, request.usageQuota);
    const { answerRoute, quotaExempt } = request.routeOptions.config;
    if (!withinQuota && !answerRoute && !quotaExempt) {
      throw new PaymentRequiredError('The monthly usage quota of this organisation is exhausted.');
    }
  };
}
