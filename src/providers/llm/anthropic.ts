import type { EventSourceMessage } from 'eventsource-parser';
import type { AnswerChunk, AnswerMessage, AnswerProvider } from '../../domain/answers/port.js';
import { endedEarly, generation, parseData, streamError, streamSse, tokens, type ProviderHttpOptions } from './http.js';

export interface AnthropicProviderOptions extends ProviderHttpOptions {
  /** Default `https://api.anthropic.com`; `/v1/messages` is appended. */
  baseUrl?: string;
  apiKey: string;
  model: string;
}

/**
 * An answer provider speaking the Anthropic Messages API with streaming. System messages
 * go, joined, into the top-level `system` field; the turns go in `messages` in order.
 * `end.reason` uses the OpenAI vocabulary the other providers share: end_turn and
 * stop_sequence → `stop`, max_tokens → `length`, refusal → `content_filter`; anything else
 * is passed through.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): AnswerProvider {
  const url = (options.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '') + '/v1/messages';
  const headers = { 'x-api-key': options.apiKey, 'anthropic-version': '2023-06-01' };
  return {
    provider: 'anthropic',
    model: options.model,
    stream(request, signal) {
      const { maxTokens, temperature } = generation(request);
      const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
      const body = {
        model: options.model,
        max_tokens: maxTokens,
        temperature,
        ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
        messages: request.messages.filter(isTurn).map(({ role, content }) => ({ role, content })),
        stream: true,
      };
      return streamSse({ url, headers, body, secret: options.apiKey }, decodeMessages, options, signal);
    },
  };
}

function isTurn(message: AnswerMessage): message is AnswerMessage & { role: 'user' | 'assistant' } {
  return message.role !== 'system';
}

interface Usage {
  input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  output_tokens?: unknown;
}

interface MessagesEvent {
  type?: unknown;
  message?: { usage?: Usage };
  content_block?: { type?: unknown; text?: unknown };
  delta?: { type?: unknown; text?: unknown; stop_reason?: unknown };
  usage?: Usage;
  error?: { type?: unknown; message?: unknown };
}

// Anthropic's transient error types (HTTP 429, 500, 504 and 529 when not streamed).
const TRANSIENT_ERRORS = new Set(['rate_limit_error', 'api_error', 'timeout_error', 'overloaded_error']);

const REASONS: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', refusal: 'content_filter' };

/**
 * message_start (input usage), content_block_start / content_block_delta (text), then
 * message_delta (stop_reason, output usage) and message_stop. Ping and unknown events are
 * skipped, as Anthropic's versioning policy asks; an error event throws.
 */
async function* decodeMessages(events: AsyncIterable<EventSourceMessage>): AsyncGenerator<AnswerChunk> {
  let promptTokens = 0;
  let completionTokens = 0;
  let reason = 'stop';
  const readUsage = (usage: Usage | undefined) => {
    if (!usage) return;
    if (usage.input_tokens !== undefined) {
      // Cached prompt tokens are reported apart from input_tokens but are part of the prompt.
      promptTokens = tokens(usage.input_tokens) + tokens(usage.cache_creation_input_tokens) + tokens(usage.cache_read_input_tokens);
    }
    if (usage.output_tokens !== undefined) completionTokens = tokens(usage.output_tokens);
  };
  for await (const event of events) {
    const data = parseData(event) as MessagesEvent;
    switch (data.type) {
      case 'message_start':
        readUsage(data.message?.usage);
        break;
      case 'content_block_start':
        if (data.content_block?.type === 'text' && typeof data.content_block.text === 'string' && data.content_block.text !== '') {
          yield { type: 'text', delta: data.content_block.text };
        }
        break;
      case 'content_block_delta':
        if (data.delta?.type === 'text_delta' && typeof data.delta.text === 'string' && data.delta.text !== '') {
          yield { type: 'text', delta: data.delta.text };
        }
        break;
      case 'message_delta':
        if (typeof data.delta?.stop_reason === 'string') reason = REASONS[data.delta.stop_reason] ?? data.delta.stop_reason;
        readUsage(data.usage);
        break;
      case 'message_stop':
        yield { type: 'end', reason, usage: { promptTokens, completionTokens } };
        return;
      case 'error':
        throw streamError(data.error?.message, TRANSIENT_ERRORS.has(String(data.error?.type)));
    }
  }
  throw endedEarly();
}
