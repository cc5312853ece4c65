import type { EventSourceMessage } from 'eventsource-parser';
import type { AnswerChunk, AnswerProvider } from '../../domain/answers/port.js';
import { endedEarly, generation, parseData, streamError, streamSse, tokens, type ProviderHttpOptions } from './http.js';
import { RETRYABLE_STATUSES } from './retry.js';

export interface OpenAIChatProviderOptions extends ProviderHttpOptions {
  /** The API root including its version, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Sent as a bearer token; local servers usually need none. */
  apiKey?: string;
  model: string;
  /** Shown as stream_start.provider (e.g. 'ollama' for a local server); default 'openai'. */
  provider?: string;
}

/**
 * An answer provider speaking OpenAI-compatible Chat Completions with streaming (OpenAI,
 * Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter). Messages are sent as given;
 * `end.reason` is the provider's finish_reason (`stop`, `length`, …).
 */
export function createOpenAIChatProvider(options: OpenAIChatProviderOptions): AnswerProvider {
  const url = options.baseUrl.replace(/\/+$/, '') + '/chat/completions';
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  return {
    provider: options.provider ?? 'openai',
    model: options.model,
    stream(request, signal) {
      const { maxTokens, temperature } = generation(request);
      const body = {
        model: options.model,
        messages: request.messages,
        max_tokens: maxTokens,
        temperature,
        stream: true,
        stream_options: { include_usage: true },
      };
      return streamSse({ url, headers, body, secret: options.apiKey }, decodeChatCompletions, options, signal);
    },
  };
}

interface ChatCompletionChunk {
  choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[] | null;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  error?: { message?: unknown; type?: unknown; code?: unknown };
  // vLLM and some proxies send the error object itself instead of wrapping it.
  object?: unknown;
  message?: unknown;
  type?: unknown;
  code?: unknown;
}

/**
 * Chunks carry `choices[0].delta.content` and, at the end, `finish_reason`; with
 * include_usage a last chunk with empty choices carries the usage; `[DONE]` closes. Some
 * servers put usage on the finish chunk or omit `[DONE]`, so usage is taken from any
 * chunk and a body that ends after a finish_reason counts as complete.
 */
async function* decodeChatCompletions(events: AsyncIterable<EventSourceMessage>): AsyncGenerator<AnswerChunk> {
  let reason: string | undefined;
  let done = false;
  let usage = { promptTokens: 0, completionTokens: 0 };
  for await (const event of events) {
    if (event.data.trim() === '[DONE]') {
      done = true;
      break;
    }
    const chunk = parseData(event) as ChatCompletionChunk;
    const error = chunk.error ?? (chunk.object === 'error' || event.event === 'error' ? chunk : undefined);
    if (error) throw streamError(error.message, isTransient(error.type, error.code));
    if (chunk.usage) usage = { promptTokens: tokens(chunk.usage.prompt_tokens), completionTokens: tokens(chunk.usage.completion_tokens) };
    const choice = chunk.choices?.[0];
    const content = choice?.delta?.content;
    if (typeof content === 'string' && content !== '') yield { type: 'text', delta: content };
    if (typeof choice?.finish_reason === 'string') reason = choice.finish_reason;
  }
  if (!done && reason === undefined) throw endedEarly();
  yield { type: 'end', reason: reason ?? 'stop', usage };
}

function isTransient(type: unknown, code: unknown): boolean {
  if (typeof code === 'number') return RETRYABLE_STATUSES.has(code);
  return /server_error|overloaded|rate_limit|unavailable|timeout/i.test(`${String(type)} ${String(code)}`);
}
