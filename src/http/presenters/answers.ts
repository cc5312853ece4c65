/**
 * What the answer routes — the integration's and the widget's — share: the request and
 * response schemas, and the summary and chat turns as Server-Sent Events or JSON.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AnswerEvent, AnswerService, AnswerStream } from '../../domain/answers/service.js';
import type { PageContext } from '../../domain/answers/retrieval.js';
import { httpUrl } from '../../domain/urls.js';
import type { ConversationOwner } from '../../domain/answers/port.js';
import { ValidationError } from '../../domain/errors.js';
import { LOCALE, parseSummariseParams } from '../answerParams.js';
import { HtmlBlockStream } from '../markdown.js';
import { Entry, errorResponses, Message } from '../schemas.js';
import { disconnectSignal, sendEvents } from '../sse.js';

const MAX_MESSAGE = 4_000;

/**
 * When the documentation does not cover the question: the closest pages search found, offered
 * as links (the `related` event). An addition to SPEC's shapes, in summaries and chat.
 */
const Related = Type.Array(Type.Object({ title: Type.String(), url: Type.String() }), {
  description: 'When the documentation does not cover the question: the closest pages search found, offered as links (not cited; the reply says it found no answer).',
});
/** The sources an answer cites, numbered as its text cites them ([1] is the first cited). */
const References = Type.Array(Type.Object({ ref: Type.Integer(), title: Type.String(), url: Type.String() }));
export const SummaryResponse = Type.Object({
  has_relevant_results: Type.Boolean(),
  summary: Type.String(),
  references: References,
  data: Type.Array(Type.Object({ id: Type.String(), title: Type.Union([Type.String(), Type.Null()]), raw_text: Type.String() })),
  related: Type.Optional(Related),
});
export const ChatBody = Type.Object({
  message: Type.String({ minLength: 1, maxLength: MAX_MESSAGE }),
  conversation_id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  stream: Type.Optional(Type.Boolean()),
  locale: Type.Optional(Type.String({ pattern: LOCALE.source, maxLength: 35 })),
  // The page the visitor is on (SPEC.md `context`; the SDK sends its URL and title): retrieval
  // prefers that page and its section, and models are told which page "this page" is.
  context: Type.Optional(Type.Union([Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 20 }), Type.Literal(false)])),
});
const MAX_CONTEXT_BYTES = 4_096;
// `references` as in summarise (DESIGN.md): an addition to SPEC's `{conversation_id, message}`.
export const ChatResponse = Type.Object({ conversation_id: Type.String(), message: Type.String(), references: References, related: Type.Optional(Related) });
const PaymentRequired = Type.Object({ message: Type.String(), data: Type.Optional(Type.Array(Type.Object({ ...Entry.properties }, { additionalProperties: true }))) });
export const failures = { 402: PaymentRequired, 403: Message, 502: Message, 503: Message, ...errorResponses };


/**
 * Summarise over `integrationId` for the request's scope (integration and widget routes):
 * Server-Sent Events, or the whole summary as JSON with `stream=false`. `analytics: false`
 * (integration routes only) keeps it out of the organisation's analytics.
 */
export async function respondSummary(answers: AnswerService, request: FastifyRequest, reply: FastifyReply, integrationId: string, options: { analytics?: boolean } = {}) {
  const params = { ...parseSummariseParams(request.query as Record<string, unknown>), ...options };
  const answer = await answers.summarise(request.scope, integrationId, params, disconnectSignal(reply));
  const events = params.format === 'html' ? asHtml(answer.events) : answer.events;
  if (params.stream) return sendEvents(request, reply, events);
  const { text, references, related } = await collect(events);
  return {
    has_relevant_results: answer.relevant,
    summary: text,
    references,
    data: answer.passages.map((p) => ({ id: p.hit.id, title: p.hit.title, raw_text: p.hit.raw_text })),
    ...(related.length > 0 && { related }),
  };
}

/**
 * One chat turn over `integrationId` (integration and widget routes); X-Conversation-Id carries
 * the conversation. Widget routes pass the conversation `owner`.
 */
export async function respondChat(
  answers: AnswerService,
  request: FastifyRequest,
  reply: FastifyReply,
  integrationId: string,
  body: Static<typeof ChatBody>,
  owner?: ConversationOwner,
) {
  const message = body.message.trim();
  if (message === '') throw ValidationError.field('message', 'The message field is required.');
  if (body.context && Buffer.byteLength(JSON.stringify(body.context)) > MAX_CONTEXT_BYTES) {
    throw ValidationError.field('context', `The context field must not be larger than ${MAX_CONTEXT_BYTES} bytes as JSON.`);
  }
  const answer = await answers.chat(
    request.scope,
    integrationId,
    { message, conversationId: body.conversation_id ?? null, locale: body.locale, owner, page: pageOf(body.context) },
    disconnectSignal(reply),
  );
  if (body.stream ?? true) return sendEvents(request, reply, answer.events, { 'x-conversation-id': answer.conversationId });
  reply.header('x-conversation-id', answer.conversationId);
  const { text, references, related } = await collect(answer.events);
  return { conversation_id: answer.conversationId, message: text, references, ...(related.length > 0 && { related }) };
}

/**
 * The page of a chat's context: its `url` when it is an absolute http(s) URL (other context
 * keys are the site's own, kept out of answers), and its `title` when it is a string.
 */
export function pageOf(context: Static<typeof ChatBody>['context']): PageContext | undefined {
  const url = context ? httpUrl(context.url) : undefined;
  if (!context || url === undefined) return undefined;
  const title = typeof context.title === 'string' && context.title.trim() ? context.title.trim().slice(0, 300) : undefined;
  return { url, ...(title && { title }) };
}

/** The text and the citations of a whole answer (as SPEC shapes references: no image). */
async function collect(events: AnswerStream['events']) {
  let text = '';
  const references: { ref: number; title: string; url: string }[] = [];
  const related: { title: string; url: string }[] = [];
  for await (const event of events) {
    if (event.type === 'text_delta') text += event.delta;
    if (event.type === 'related') related.push(...event.results);
    if (event.type === 'citation') references.push({ ref: event.citation.ref, title: event.citation.title, url: event.citation.url });
  }
  return { text: text.trim(), references, related };
}

/** The same events with markdown text turned into sanitised HTML, block by block. */
async function* asHtml(events: AsyncIterable<AnswerEvent>): AsyncGenerator<AnswerEvent> {
  const html = new HtmlBlockStream();
  let messageId = '';
  for await (const event of events) {
    if (event.type === 'text_delta') {
      messageId = event.message_id;
      const delta = html.push(event.delta);
      if (delta) yield { ...event, delta };
      continue;
    }
    if (event.type === 'stream_end') {
      const rest = html.flush();
      if (rest) yield { type: 'text_delta', delta: rest, message_id: messageId };
    }
    yield event;
  }
}

