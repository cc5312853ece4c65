import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderError, type AnswerMessage } from '../../domain/ports.js';
import { createAnthropicProvider, type AnthropicProviderOptions } from './anthropic.js';
import { collect, deltas, sse, startServer, status, within, type Reply } from './fixtures/replay.js';

const system = 'Answer from the numbered passages.\n[1] Lore is a knowledge search service.';
const messages: AnswerMessage[] = [
  { role: 'system', content: system },
  { role: 'user', content: 'What is Lore?' },
  { role: 'assistant', content: 'A knowledge search service [1].' },
  { role: 'user', content: 'And what does it cost?' },
];
// The structured fields the extractive provider reads; HTTP adapters send `messages` only.
const grounding = { question: 'And what does it cost?', passages: [{ ref: 1, title: null, url: null, text: 'Lore is a knowledge search service.' }] };
const apiKey = 'sk-ant-test-5e8d1c2b3a4f';
// Fast retries and timeouts keep the suite quick; the defaults are seconds.
const fast = { retryBaseMs: 1, timeoutMs: 2_000, idleTimeoutMs: 2_000 };
const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };

async function serve(replies: Reply[], options: Partial<AnthropicProviderOptions> = {}) {
  const server = await startServer(replies);
  const provider = createAnthropicProvider({ baseUrl: server.url, apiKey, model: 'claude-sonnet-4-5', ...fast, ...options });
  return { server, provider };
}

function open(): AbortSignal {
  return new AbortController().signal;
}

describe('Anthropic answer provider', () => {
  it('streams the text deltas in order, skipping pings, then the stop reason and integer usage', async (t) => {
    const { server, provider } = await serve([sse('anthropic-stream.txt')]);
    t.after(() => server.close());
    assert.equal(provider.provider, 'anthropic');
    assert.equal(provider.model, 'claude-sonnet-4-5');
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.equal(error, undefined);
    assert.deepEqual(chunks, [
      { type: 'text', delta: 'Lore' },
      { type: 'text', delta: ' searches your docs' },
      { type: 'text', delta: ' [1] — grüße 👋' },
      { type: 'end', reason: 'stop', usage: { promptTokens: 25, completionTokens: 15 } },
    ]);
  });

  it('posts the system prompt at the top level, the turns as messages, and the API key headers', async (t) => {
    const { server, provider } = await serve([sse('anthropic-stream.txt')]);
    t.after(() => server.close());
    await collect(provider.stream({ ...grounding, messages }, open()));
    const [request] = server.requests;
    assert.equal(request?.url, '/v1/messages');
    assert.equal(request.headers['x-api-key'], apiKey);
    assert.equal(request.headers['anthropic-version'], '2023-06-01');
    assert.equal(request.headers.authorization, undefined);
    assert.deepEqual(request.body, {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      temperature: 0.2,
      system,
      messages: messages.slice(1),
      stream: true,
    });
  });

  it('retries a 529 after the Retry-After wait (capped), then streams', async (t) => {
    const busy = status(529, overloaded, { 'retry-after': '2' });
    const { server, provider } = await serve([busy, sse('anthropic-stream.txt')], { maxRetryDelayMs: 150 });
    t.after(() => server.close());
    const started = performance.now();
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    const elapsed = performance.now() - started;
    assert.equal(error, undefined);
    assert.equal(deltas(chunks).join(''), 'Lore searches your docs [1] — grüße 👋');
    assert.equal(server.requests.length, 2);
    assert.ok(elapsed >= 140 && elapsed < 900, `waited ${elapsed} ms`);
  });

  it('retries a 429 rate limit, then streams', async (t) => {
    const limited = status(429, { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } });
    const { server, provider } = await serve([limited, sse('anthropic-stream.txt')]);
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.equal(error, undefined);
    assert.equal(chunks.length, 4);
    assert.equal(server.requests.length, 2);
  });

  it('retries an overloaded error event that arrives before any text', async (t) => {
    const { server, provider } = await serve([sse('anthropic-overloaded.txt'), sse('anthropic-stream.txt')]);
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.equal(error, undefined);
    assert.equal(chunks.length, 4);
    assert.equal(server.requests.length, 2);
  });

  it('gives up after the retries with a 503 ProviderError', async (t) => {
    const { server, provider } = await serve([status(529, overloaded)], { retries: 1 });
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.deepEqual(chunks, []);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.status, 503);
    assert.equal(server.requests.length, 2);
  });

  it('turns a 400 into a 502 without retrying, never leaking the key or the provider body', async (t) => {
    const body = { type: 'error', error: { type: 'invalid_request_error', message: `messages: roles must alternate (x-api-key ${apiKey})` } };
    const { server, provider } = await serve([status(400, body)]);
    t.after(() => server.close());
    const { error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.status, 502);
    assert.equal(error.message, 'The answer provider refused the request (HTTP 400).');
    assert.ok(error.cause instanceof Error);
    assert.match(error.cause.message, /roles must alternate/);
    assert.ok(!error.cause.message.includes(apiKey), 'the API key is redacted from the cause');
    assert.equal(server.requests.length, 1);
  });

  it('throws after the earlier deltas when an error event arrives mid-stream, without retrying', async (t) => {
    const { server, provider } = await serve([sse('anthropic-error.txt')]);
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.deepEqual(deltas(chunks), ['Lore', ' searches']);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.status, 503);
    assert.ok(error.cause instanceof Error);
    assert.equal(error.cause.message, 'Overloaded');
    assert.equal(server.requests.length, 1);
  });

  it('stops promptly on abort mid-stream and closes the connection', async (t) => {
    const { server, provider } = await serve([sse('anthropic-stream.txt', { events: 4, hold: true })]);
    t.after(() => server.close());
    const controller = new AbortController();
    const received: string[] = [];
    let abortedAt = 0;
    await assert.rejects(
      (async () => {
        for await (const chunk of provider.stream({ ...grounding, messages }, controller.signal)) {
          if (chunk.type === 'text') received.push(chunk.delta);
          abortedAt = performance.now();
          controller.abort();
        }
      })(),
      { name: 'AbortError' },
    );
    assert.ok(performance.now() - abortedAt < 200, 'stopped within 200 ms');
    assert.deepEqual(received, ['Lore']);
    await within(server.requests[0]!.closed, 1_000, 'the server sees the connection closed');
  });

  it('closes the connection when the consumer stops reading early', async (t) => {
    const { server, provider } = await serve([sse('anthropic-stream.txt', { events: 4, hold: true })]);
    t.after(() => server.close());
    for await (const chunk of provider.stream({ ...grounding, messages }, open())) {
      assert.deepEqual(chunk, { type: 'text', delta: 'Lore' });
      break;
    }
    await within(server.requests[0]!.closed, 1_000, 'the server sees the connection closed');
  });

  it('fails with a 503 when the stream goes quiet past the idle timeout', async (t) => {
    const { server, provider } = await serve([sse('anthropic-stream.txt', { events: 4, hold: true })], { idleTimeoutMs: 100 });
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.deepEqual(deltas(chunks), ['Lore']);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.status, 503);
    assert.equal(error.message, 'The answer provider stopped responding.');
    assert.equal(server.requests.length, 1);
  });
});
