import { Type } from 'typebox';
import type { App } from '../deps.js';
import { ChatBody, ChatResponse, failures, respondChat, respondSummary, SummaryResponse } from '../presenters/answers.js';
import { AnalyticsFlag } from '../presenters/search.js';

const Params = Type.Object({ integration: Type.String({ maxLength: 64 }) });

export function answerRoutes(app: App): void {
  const { answers } = app.deps;
  const tags = ['answers'];

  app.get('/integrations/:integration/summarise', {
    config: { answerRoute: true },
    schema: {
      tags,
      summary: 'AI summary of what the integration’s content says about a query',
      description:
        'Query parameters: query (required), threshold (0..1, default 0.4), stream (default true: Server-Sent Events), ' +
        'format (markdown | html; html is sanitised, and streamed block by block), locale (answer language). ' +
        'When nothing relevant is found, a `related` event (`related` in JSON) lists the closest pages as links.',
      params: Params,
      querystring: AnalyticsFlag,
      response: { 200: SummaryResponse, ...failures },
    },
  }, (request, reply) => respondSummary(answers, request, reply, request.params.integration, { analytics: request.query.analytics !== 'false' }));

  app.post('/integrations/:integration/chat', {
    config: { answerRoute: true },
    schema: {
      tags,
      summary: 'Chat grounded in the integration’s content (multi-turn)',
      description:
        'Streams Server-Sent Events unless stream is false; the X-Conversation-Id header carries the conversation id. ' +
        'When the documentation does not cover the question, the reply says so and a `related` event (`related` in JSON) lists the closest pages as links.',
      params: Params,
      body: ChatBody,
      response: { 200: ChatResponse, ...failures },
    },
  }, (request, reply) => respondChat(answers, request, reply, request.params.integration, request.body));
}
