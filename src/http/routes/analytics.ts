import type { FastifyReply } from 'fastify';
import { stringify } from 'csv-stringify/sync';
import { Type, type TSchema } from 'typebox';
import type { AnalyticsWindow } from '../../domain/analytics/port.js';
import type { WindowParams } from '../../domain/analytics/service.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { pageRequest } from '../../domain/pagination.js';
import type { App } from '../deps.js';
import { presentPage } from '../paginate.js';
import { errorResponses, Message, Nullable, Paginated, Timestamp } from '../schemas.js';

const WindowQuery = {
  integration_id: Type.Optional(Type.String({ maxLength: 64, description: 'one integration; all of the organisation’s when absent' })),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'YYYY-MM-DD (UTC day) or an ISO 8601 time; default: 29 days before `to`' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'YYYY-MM-DD (that whole UTC day included) or an ISO 8601 time; default: now' })),
};
const Format = Type.Optional(Type.Unsafe<'json' | 'csv'>({ type: 'string', enum: ['json', 'csv'], description: '`csv` sends the rows as a CSV file' }));
const Limit = Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'rows, 1–1000 (default 20)' }));

const WindowMeta = Type.Object({
  integration_id: Nullable(Type.String()),
  from: Type.String({ description: 'start of the window, included (ISO 8601 UTC)' }),
  to: Type.String({ description: 'end of the window, excluded (ISO 8601 UTC)' }),
});

const ActivityPoint = Type.Object({
  period: Type.String({ description: 'start of the bucket (UTC)' }),
  searches: Type.Integer(),
  no_results: Type.Integer({ description: 'searches that found nothing' }),
  clicks: Type.Integer({ description: 'result clicks (widgets and the events API)' }),
  chat_answers: Type.Integer(),
  summaries: Type.Integer({ description: 'summaries asked for (search modals, the summarise API)' }),
});
const QueryStat = Type.Object({
  query: Type.String({ description: 'lower-cased, trimmed' }),
  searches: Type.Integer(),
  avg_results: Type.Number(),
  avg_top_score: Nullable(Type.Number()),
  last_searched_at: Timestamp,
});
const Clicks = Type.Object({
  searches: Type.Integer(),
  clicks: Type.Integer(),
  click_through_rate: Nullable(Type.Number({ description: 'clicks per search; null without searches' })),
  positions: Type.Array(Type.Object({ rank: Nullable(Type.Integer()), clicks: Type.Integer() }), { description: 'clicks by the position of the result (as the client reported it)' }),
});
const AnswerFeedback = Type.Object({
  answer_id: Type.String(),
  thumbs_up: Type.Integer(),
  thumbs_down: Type.Integer(),
  last_feedback_at: Timestamp,
  conversation_id: Nullable(Type.String()),
  answer: Nullable(Type.String({ description: 'the chat answer; null when the id names none (a summary)' })),
  question: Nullable(Type.String()),
});
const Feedback = Type.Object({ thumbs_up: Type.Integer(), thumbs_down: Type.Integer(), answers: Type.Array(AnswerFeedback) });
const Unanswered = Type.Object({
  kind: Type.Union([Type.Literal('chat'), Type.Literal('summary')]),
  answer_id: Type.String(),
  conversation_id: Nullable(Type.String({ description: 'null for a summary' })),
  question: Nullable(Type.String()),
  answer: Nullable(Type.String({ description: 'the chat answer; null for a summary (none was written)' })),
  created_at: Timestamp,
});
const ConversationItem = Type.Object({
  id: Type.String(),
  integration_id: Type.String(),
  widget_id: Nullable(Type.String()),
  visitor_id: Nullable(Type.String({ description: 'as the signed-in visitor identity gave it' })),
  title: Type.String(),
  message_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const Transcript = Type.Object({
  id: Type.String(),
  integration_id: Type.String(),
  widget_id: Nullable(Type.String()),
  visitor_id: Nullable(Type.String()),
  title: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  messages: Type.Array(Type.Object({
    id: Type.String(),
    role: Type.String(),
    content: Type.String(),
    citations: Type.Array(Type.Unknown()),
    created_at: Timestamp,
    thumbs_up: Type.Integer(),
    thumbs_down: Type.Integer(),
  })),
});

/** JSON `{data, meta}`, or with `format=csv` the same rows as CSV. */
const Rows = (data: TSchema, meta: TSchema = WindowMeta) => ({
  description: 'JSON, or CSV with `format=csv`',
  content: {
    'application/json': { schema: Type.Object({ data, meta }) },
    'text/csv': { schema: Type.String() },
  },
});
const responses = { ...errorResponses, 403: Message };

function windowParams(query: { integration_id?: string; from?: string; to?: string }): WindowParams {
  return { ...(query.integration_id !== undefined && { integrationId: query.integration_id }), ...(query.from !== undefined && { from: query.from }), ...(query.to !== undefined && { to: query.to }) };
}

function limitOf(value: string | undefined): number {
  if (value === undefined) return 20;
  const limit = Number(value);
  if (limit < 1 || limit > 1000) throw ValidationError.field('limit', 'The limit field must be between 1 and 1000.');
  return limit;
}

const metaOf = (w: AnalyticsWindow) => ({ integration_id: w.integrationId, from: w.from.toISOString(), to: w.to.toISOString() });

/** A line break inside a cell followed by what a spreadsheet reads as a formula's start (`=`, `+`, `-`, `@`, tab, CR). */
const BREAK_BEFORE_FORMULA = /(\r\n|\r|\n)(?=[=+\-@\t\r])/g;

/**
 * Rows as a CSV download (a header line, RFC 4180 quoting). A cell a spreadsheet would read
 * as a formula (`=`, `+`, `-`, `@` first: visitors type the queries) is prefixed with `'`.
 * A cell holding a line break (CR or LF alone too, which csv-stringify leaves unquoted: a
 * spreadsheet or a line-based reader starts a row there) is quoted, and a formula starting
 * after the break is defused as well, for readers that split lines anyway.
 */
function sendCsv(reply: FastifyReply, name: string, w: AnalyticsWindow, rows: readonly Record<string, unknown>[], columns: readonly string[]) {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const cell = (value: unknown) => {
    if (value === null || value === undefined) return '';
    const text = typeof value === 'object' ? JSON.stringify(value) : value;
    return typeof text === 'string' ? text.replace(BREAK_BEFORE_FORMULA, "$1'") : text;
  };
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="lore-${name}-${day(w.from)}-${day(new Date(w.to.getTime() - 1))}.csv"`)
    .send(stringify(cells, { header: true, columns: [...columns], escape_formulas: true, quoted_match: /[\r\n]/, record_delimiter: 'windows' }));
}

/**
 * Analytics of what visitors did (`/analytics/…`): searches over time, top queries and those
 * that found nothing or nothing good, clicks and their positions, feedback on answers, chat
 * answers that had nothing relevant, and conversations with their transcripts. Organisation
 * tokens only; one organisation's logs, optionally one integration's, in a window of at most
 * a year.
 */
export function analyticsRoutes(app: App): void {
  const { analytics, config } = app.deps;
  const tags = ['analytics'];

  app.get('/analytics/activity', {
    schema: {
      tags,
      summary: 'Searches, searches without results, clicks and chat answers over time',
      querystring: Type.Object({ ...WindowQuery, interval: Type.Optional(Type.Unsafe<'day' | 'hour'>({ type: 'string', enum: ['day', 'hour'], description: 'bucket (UTC; hours for windows of at most 14 days)' })), format: Format }),
      response: { 200: Rows(Type.Array(ActivityPoint), Type.Object({ ...WindowMeta.properties, interval: Type.String() })), ...responses },
    },
  }, async (request, reply) => {
    const { window: w, interval, points } = await analytics.activity(request.scope, { ...windowParams(request.query), ...(request.query.interval && { interval: request.query.interval }) });
    if (request.query.format === 'csv') return sendCsv(reply, 'activity', w, points as never, ['period', 'searches', 'no_results', 'clicks', 'chat_answers', 'summaries']);
    return { data: points, meta: { ...metaOf(w), interval } };
  });

  app.get('/analytics/queries', {
    schema: {
      tags,
      summary: 'The most frequent queries: all (`top`), those that found nothing (`no_results`), or nothing good enough to summarise (`low_similarity`)',
      querystring: Type.Object({ ...WindowQuery, kind: Type.Optional(Type.Unsafe<'top' | 'no_results' | 'low_similarity'>({ type: 'string', enum: ['top', 'no_results', 'low_similarity'] })), limit: Limit, format: Format }),
      response: { 200: Rows(Type.Array(QueryStat)), ...responses },
    },
  }, async (request, reply) => {
    const { window: w, queries } = await analytics.queries(request.scope, { ...windowParams(request.query), ...(request.query.kind && { kind: request.query.kind }), limit: limitOf(request.query.limit) });
    if (request.query.format === 'csv') return sendCsv(reply, `queries-${request.query.kind ?? 'top'}`, w, queries as never, ['query', 'searches', 'avg_results', 'avg_top_score', 'last_searched_at']);
    return { data: queries, meta: metaOf(w) };
  });

  app.get('/analytics/clicks', {
    schema: {
      tags,
      summary: 'Click-through rate and the positions of the results clicked',
      querystring: Type.Object({ ...WindowQuery, format: Format }),
      response: { 200: Rows(Clicks), ...responses },
    },
  }, async (request, reply) => {
    const { window: w, stats } = await analytics.clicks(request.scope, windowParams(request.query));
    if (request.query.format === 'csv') return sendCsv(reply, 'clicks', w, stats.positions, ['rank', 'clicks']);
    return { data: { ...stats, click_through_rate: stats.searches > 0 ? Math.round((stats.clicks / stats.searches) * 10_000) / 10_000 : null }, meta: metaOf(w) };
  });

  app.get('/analytics/feedback', {
    schema: {
      tags,
      summary: 'Thumbs up and down, and the answers they were given for (most thumbs down first)',
      querystring: Type.Object({ ...WindowQuery, limit: Limit, format: Format }),
      response: { 200: Rows(Feedback), ...responses },
    },
  }, async (request, reply) => {
    const { window: w, stats } = await analytics.feedback(request.scope, { ...windowParams(request.query), limit: limitOf(request.query.limit) });
    if (request.query.format === 'csv') return sendCsv(reply, 'feedback', w, stats.answers as never, ['answer_id', 'thumbs_up', 'thumbs_down', 'last_feedback_at', 'conversation_id', 'question', 'answer']);
    return { data: stats, meta: metaOf(w) };
  });

  app.get('/analytics/unanswered', {
    schema: {
      tags,
      summary: 'Chat answers and summaries that had nothing relevant to cite (newest first), with their questions',
      querystring: Type.Object({ ...WindowQuery, limit: Limit, format: Format }),
      response: { 200: Rows(Type.Array(Unanswered)), ...responses },
    },
  }, async (request, reply) => {
    const { window: w, answers } = await analytics.unanswered(request.scope, { ...windowParams(request.query), limit: limitOf(request.query.limit) });
    if (request.query.format === 'csv') return sendCsv(reply, 'unanswered', w, answers as never, ['created_at', 'kind', 'question', 'answer', 'conversation_id', 'answer_id']);
    return { data: answers, meta: metaOf(w) };
  });

  app.get('/analytics/conversations', {
    schema: {
      tags,
      summary: 'Chat conversations started in the window (newest first)',
      querystring: Type.Object({ ...WindowQuery, page: Type.Optional(Type.Unknown()), per_page: Type.Optional(Type.Unknown()) }),
      response: { 200: Paginated(ConversationItem), ...responses },
    },
  }, async (request) =>
    presentPage(request, await analytics.conversations(request.scope, windowParams(request.query), pageRequest(request.query.page, request.query.per_page)), config.publicUrl));

  app.get('/analytics/conversations/:conversation', {
    schema: {
      tags,
      summary: 'A conversation’s transcript, with the feedback on each answer',
      params: Type.Object({ conversation: Type.String({ maxLength: 64 }) }),
      response: { 200: Type.Object({ data: Transcript }), ...responses },
    },
  }, async (request) => {
    const transcript = isUuid(request.params.conversation) ? await analytics.conversation(request.scope, request.params.conversation) : null;
    if (transcript === null) throw new NotFoundError('Conversation');
    return { data: transcript };
  });
}
