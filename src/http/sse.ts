import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';

/**
 * Writes `events` as Server-Sent Events: one `data: {json}` per event with an integer
 * `timestamp` (ms), then `data: [DONE]`. An error after the stream began is sent as
 * `{type: "error", message}` before `[DONE]`; the connection is always ended. Headers set
 * on the reply so far (CORS, rate limits) are kept.
 */
export async function sendEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  events: AsyncIterable<{ type: string }>,
  headers: Record<string, string> = {},
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Proxies such as nginx must pass each event on at once.
    'x-accel-buffering': 'no',
    ...headers,
  });
  const write = async (data: string) => {
    if (raw.destroyed) return;
    if (!raw.write(`data: ${data}\n\n`)) await new Promise((resolve) => raw.once('drain', resolve).once('close', resolve));
  };
  const started = performance.now();
  let firstDelta: number | null = null;
  try {
    for await (const event of events) {
      if (raw.destroyed) break;
      if (firstDelta === null && event.type === 'text_delta') firstDelta = performance.now() - started;
      await write(JSON.stringify({ ...event, timestamp: Date.now() }));
    }
  } catch (error) {
    if (!raw.destroyed) {
      if (!(error instanceof DomainError)) request.log.error({ err: error }, 'answer stream failed');
      const message = error instanceof DomainError ? error.message : 'The answer could not be completed.';
      await write(JSON.stringify({ type: 'error', message, timestamp: Date.now() }));
    }
  } finally {
    await write('[DONE]');
    raw.end();
    request.server.deps.metrics.answer(request.routeOptions.url ?? 'unmatched', firstDelta === null ? null : firstDelta / 1000, (performance.now() - started) / 1000);
  }
}

/** An AbortSignal that fires when the client goes away before the response is complete. */
export function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('The client disconnected.'));
  });
  return controller.signal;
}
