import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnswerMessage } from '../../domain/answers/port.js';
import { fast, httpProviderContract } from './fixtures/contract.js';
import { collect, sse, startServer, status, type Reply } from './fixtures/replay.js';
import { createOpenAIChatProvider, type OpenAIChatProviderOptions } from './openai.js';

const messages: AnswerMessage[] = [
  { role: 'system', content: 'Answer from the numbered passages.\n[1] Lore is a knowledge search service.' },
  { role: 'user', content: 'What is Lore?' },
];
// The structured fields the extractive provider reads; HTTP adapters send `messages` only.
const grounding = { question: 'What is Lore?', passages: [{ ref: 1, title: null, url: null, text: 'Lore is a knowledge search service.' }] };
const apiKey = 'sk-test-7f3a9c0e1d2b4a5f';

const create = (url: string, options: Partial<OpenAIChatProviderOptions> = {}) =>
  createOpenAIChatProvider({ baseUrl: `${url}/v1/`, apiKey, model: 'gpt-4o-mini', ...fast, ...options });

async function serve(replies: Reply[], options: Partial<OpenAIChatProviderOptions> = {}) {
  const server = await startServer(replies);
  return { server, provider: create(server.url, options) };
}

function open(): AbortSignal {
  return new AbortController().signal;
}

describe('OpenAI-compatible answer provider', () => {
  httpProviderContract({
    provider: 'openai',
    model: 'gpt-4o-mini',
    apiKey,
    create,
    request: { ...grounding, messages },
    stream: 'openai-stream.txt',
    usage: { promptTokens: 57, completionTokens: 9 },
    eventsToFirstDelta: 2,
    busy: {
      status: 429,
      reply: status(429, { error: { message: 'Rate limit reached for gpt-4o-mini', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after': '1' }),
    },
    unavailable: { status: 503, body: { error: { message: 'The engine is currently overloaded' } } },
    refusal: {
      body: { error: { message: `max_tokens is too large: 999999 (key ${apiKey})`, type: 'invalid_request_error', param: 'max_tokens', code: null } },
      cause: /max_tokens is too large/,
    },
    errorStream: { name: 'openai-error.txt', cause: 'The server had an error while processing your request. Sorry about that!' },
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
});
