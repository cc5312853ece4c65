import { Type } from 'typebox';
import type { App } from '../deps.js';
import { Data, errorResponses } from '../schemas.js';

const Usage = Type.Object({
  answer_credits: Type.Union([Type.Integer(), Type.Null()], { description: 'remaining answer credits; null = unlimited' }),
  usage_quota: Type.Union([Type.Integer(), Type.Null()], { description: 'monthly API request quota; null = none' }),
  period: Type.String({ description: "calendar month in UTC, 'YYYY-MM'" }),
  requests: Type.Integer({ description: 'API v1 requests this month, this one included' }),
  answers: Type.Integer({ description: 'summaries and chat answers this month' }),
});

/** The organisation's answer credits, quota and this month's use. Served even over quota. */
export function usageRoutes(app: App): void {
  const { usage } = app.deps;
  app.get('/usage', {
    config: { quotaExempt: true },
    schema: { tags: ['usage'], summary: "The organisation's answer credits and this month's usage", response: { 200: Data(Usage), ...errorResponses } },
  }, async (request) => ({ data: await usage.report(request.scope) }));
}
