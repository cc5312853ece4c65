import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderError, type AnswerMessage } from '../../domain/ports.js';
import { collect, deltas, drop, silent, sse, startServer, status, within, type Reply } from './fixtures/replay.js';
import { createOpenAIChatProvider, type OpenAIChatProviderOptions } from './openai.js';

const messages: AnswerMessage[] = [
  { role: 'system', content: 'Answer from the numbered passages.\n[1] Lore is a knowledge search service.' },
  { role: 'user', content: 'What is Lore?' },
];
// The structured fields the extractive provider reads; HTTP adapters send `messages` only.
const grounding = { question: 'What is Lore?', passages: [{ ref: 1, title: null, url: null, text: 'Lore is a knowledge search service.' }] };
const apiKey = 'sk-test-7f3a9c0e1d2b4a5f';
// Fast retries and timeouts keep the suite quick; the defaults are seconds.
const fast = { retryBaseMs: 1, timeoutMs: 2_000, idleTimeoutMs: 2_000 };

async function serve(replies: Reply[], options: Partial<OpenAIChatProviderOptions> = {}) {
  const server = await startServer(replies);
  const provider = createOpenAIChatProvider({ baseUrl: `${server.url}/v1/`, apiKey, model: 'gpt-4o-mini', ...fast, ...options });
  return { server, provider };
}

function open(): AbortSignal {
  return new AbortController().signal;
}

describe('OpenAI-compatible answer provider', () => {
  it('streams the text deltas in order, then the finish reason and integer usage', async (t) => {
    const { server, provider } = await serve([sse('openai-stream.txt')]);
    t.after(() => server.close());
    assert.equal(provider.provider, 'openai');
    assert.equal(provider.model, 'gpt-4o-mini');
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.equal(error, undefined);
    assert.deepEqual(chunks, [
      { type: 'text', delta: 'Lore' },
      { type: 'text', delta: ' searches your docs' },
      { type: 'text', delta: ' [1] — grüße 👋' },
      { type: 'end', reason: 'stop', usage: { promptTokens: 57, completionTokens: 9 } },
    ]);
  });

  it('posts the model, the messages and the stream flags with a bearer token', async (t) => {
    const { server, provider } = await serve([sse('openai-stream.txt')]);
    t.after(() => server.close());
    await collect(provider.stream({ ...grounding, messages, maxTokens: 300, temperature: 0 }, open()));
    const [request] = server.requests;
    assert.equal(request?.url, '/v1/chat/completions');
    assert.equal(request.headers.authorization, `Bearer ${apiKey}`);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(request.body, {
      model: 'gpt-4o-mini',
      messages,
      max_tokens: 300,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends no authorization to a keyless local server and names the provider as configured', async (t) => {
    const { server, provider } = await serve([sse('openai-stream.txt')], { apiKey: undefined, provider: 'ollama' });
    t.after(() => server.close());
    assert.equal(provider.provider, 'ollama');
    await collect(provider.stream({ ...grounding, messages }, open()));
    assert.equal(server.requests[0]?.headers.authorization, undefined);
    assert.deepEqual(server.requests[0]?.body, {
      model: 'gpt-4o-mini',
      messages,
      max_tokens: 1024,
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('retries a 429 after the Retry-After wait (capped), then streams', async (t) => {
    const limited = status(429, { error: { message: 'Rate limit reached for gpt-4o-mini', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after': '1' });
    const { server, provider } = await serve([limited, sse('openai-stream.txt')], { maxRetryDelayMs: 150 });
    t.after(() => server.close());
    const started = performance.now();
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    const elapsed = performance.now() - started;
    assert.equal(error, undefined);
    assert.equal(deltas(chunks).join(''), 'Lore searches your docs [1] — grüße 👋');
    assert.equal(server.requests.length, 2);
    // Waited for Retry-After rather than the 1 ms backoff, but no longer than the cap.
    assert.ok(elapsed >= 140 && elapsed < 900, `waited ${elapsed} ms`);
  });

  it('retries a dropped connection before anything was streamed', async (t) => {
    const { server, provider } = await serve([drop, sse('openai-stream.txt')]);
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.equal(error, undefined);
    assert.equal(chunks.length, 4);
    assert.equal(server.requests.length, 2);
  });

  it('gives up after the retries with a 503 ProviderError', async (t) => {
    const { server, provider } = await serve([status(503, { error: { message: 'The engine is currently overloaded' } })], { retries: 2 });
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.deepEqual(chunks, []);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.status, 503);
    assert.equal(server.requests.length, 3);
  });

  it('turns a 400 into a 502 without retrying, keeping the provider message only as the cause', async (t) => {
    const body = { error: { message: `max_tokens is too large: 999999 (key ${apiKey})`, type: 'invalid_request_error', param: 'max_tokens', code: null } };
    const { server, provider } = await serve([status(400, body)]);
    t.after(() => server.close());
    const { error } = await collect(provider.stream({ ...grounding, messages, maxTokens: 999_999 }, open()));
    assert.ok(error instanceof ProviderError);
    assert.equal(error.status, 502);
    assert.equal(error.message, 'The answer provider refused the request (HTTP 400).');
    assert.ok(error.cause instanceof Error);
    assert.match(error.cause.message, /max_tokens is too large/);
    assert.ok(!error.cause.message.includes(apiKey), 'the API key is redacted from the cause');
    assert.equal(server.requests.length, 1);
  });

  it('throws after the earlier deltas when the stream reports an error, without retrying', async (t) => {
    const { server, provider } = await serve([sse('openai-error.txt')]);
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.deepEqual(deltas(chunks), ['Lore', ' searches']);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.message, 'The answer provider failed while answering.');
    assert.equal(server.requests.length, 1);
  });

  it('fails with a 502 when the body ends before the answer finished', async (t) => {
    const { server, provider } = await serve([sse('openai-stream.txt', { events: 3 })]);
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.deepEqual(deltas(chunks), ['Lore', ' searches your docs']);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.status, 502);
  });

  it('stops promptly on abort mid-stream and closes the connection', async (t) => {
    const { server, provider } = await serve([sse('openai-stream.txt', { events: 2, hold: true })]);
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

  it('fails with a 503 when the stream goes quiet past the idle timeout, without retrying', async (t) => {
    const { server, provider } = await serve([sse('openai-stream.txt', { events: 2, hold: true })], { idleTimeoutMs: 100 });
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.deepEqual(deltas(chunks), ['Lore']);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.status, 503);
    assert.equal(error.message, 'The answer provider stopped responding.');
    assert.equal(server.requests.length, 1);
    await within(server.requests[0]!.closed, 1_000, 'the server sees the connection closed');
  });

  it('fails with a 503 when no byte arrives before the first-byte timeout', async (t) => {
    const { server, provider } = await serve([silent], { timeoutMs: 100 });
    t.after(() => server.close());
    const { chunks, error } = await collect(provider.stream({ ...grounding, messages }, open()));
    assert.deepEqual(chunks, []);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.status, 503);
    assert.equal(error.message, 'The answer provider did not respond in time.');
  });
});
