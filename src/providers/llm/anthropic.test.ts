import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnswerMessage } from '../../domain/answers/port.js';
import { createAnthropicProvider, type AnthropicProviderOptions } from './anthropic.js';
import { fast, httpProviderContract } from './fixtures/contract.js';
import { collect, sse, startServer, status, type Reply } from './fixtures/replay.js';

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
const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };

const create = (url: string, options: Partial<AnthropicProviderOptions> = {}) =>
  createAnthropicProvider({ baseUrl: url, apiKey, model: 'claude-sonnet-4-5', ...fast, ...options });

async function serve(replies: Reply[], options: Partial<AnthropicProviderOptions> = {}) {
  const server = await startServer(replies);
  return { server, provider: create(server.url, options) };
}

function open(): AbortSignal {
  return new AbortController().signal;
}

describe('Anthropic answer provider', () => {
  httpProviderContract({
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    apiKey,
    create,
    request: { ...grounding, messages },
    // Its ping event yields nothing.
    stream: 'anthropic-stream.txt',
    usage: { promptTokens: 25, completionTokens: 15 },
    eventsToFirstDelta: 4,
    busy: { status: 529, reply: status(529, overloaded, { 'retry-after': '2' }) },
    unavailable: { status: 529, body: overloaded },
    refusal: {
      body: { type: 'error', error: { type: 'invalid_request_error', message: `messages: roles must alternate (x-api-key ${apiKey})` } },
      cause: /roles must alternate/,
    },
    errorStream: { name: 'anthropic-error.txt', cause: 'Overloaded' },
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
});
