import type { Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';

/** The answers capability's ports: what it needs from storage and providers, which implement them (src/container.ts picks which). */

export interface AnswerMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A word of the question as search matched it in the collections, with its idf there (BM25's). */
export interface QuestionTerm {
  term: string;
  idf: number;
}

export interface AnswerRequest {
  /** Built by the domain: the system prompt (persona, instructions, locale, numbered passages), then the turns. */
  messages: AnswerMessage[];
  /** The question to answer (for chat: the visitor's message, possibly with earlier turns' context appended by the domain). */
  question: string;
  /**
   * Numbered passages the answer may cite as [ref]; the same ones the prompt in `messages`
   * carries. `source` is the whole text of the entry the passage was taken from (the passage
   * is its best chunk): a provider that reads no prompt may quote whole blocks from it.
   * `prior`: how much more the passage is worth for a reason its words do not show (the
   * visitor is reading it: 0.04–0.2), for providers that weigh passages themselves. `url`
   * links the passage's section when its page names one (see AnswerChunk `section`).
   * `pageTitle`: the title of the page a section entry was cut from (its `meta.page_title`),
   * which the section's own title ("The Why") leaves out.
   */
  passages: { ref: number; title: string | null; url: string | null; text: string; source?: string; prior?: number; pageTitle?: string }[];
  /**
   * The question's terms as search matched them in the passages' collections, each with its
   * idf there (BM25's): how telling each word is in these documents, for providers that weigh
   * the question's words themselves. A term the collections lack is not among them.
   */
  terms?: QuestionTerm[];
  /** Preferred response language (BCP 47), when known. */
  locale?: string;
  /** Upper bound on generated tokens; default 1024. */
  maxTokens?: number;
  /** Sampling temperature; default 0.2. */
  temperature?: number;
}

/**
 * One step of a streamed answer: text in order, then exactly one `end`. Usage counts are
 * always integers (0 when the provider did not report them).
 */
export type AnswerChunk =
  | { type: 'text'; delta: string }
  /**
   * Before the text: what the answer quotes of passage `ref` stands under these headings (of
   * its `source`, the whole entry), so its citation links that section. Providers that read
   * only the passages' text send none: a citation then links the passage's own section.
   */
  | { type: 'section'; ref: number; headings: string[] }
  | { type: 'end'; reason: string; usage: { promptTokens: number; completionTokens: number } };

/** Generates an answer, streamed (the extractive default, OpenAI-compatible, Anthropic, …). */
export interface AnswerProvider {
  /** Who answers, e.g. 'openai' or 'anthropic'; shown as stream_start.provider. */
  readonly provider: string;
  readonly model: string;
  /**
   * Streams the answer. Throws ProviderError before the first chunk when the provider fails
   * (and mid-stream when it fails later); stops promptly, rejecting with `signal.reason`,
   * when `signal` aborts.
   */
  stream(request: AnswerRequest, signal: AbortSignal): AsyncIterable<AnswerChunk>;
}

/**
 * An answer provider failed. `status` is what a request that had not started streaming
 * answers with: 503 when the provider is unavailable, overloaded, timed out or still
 * rate-limiting after retries; 502 when it rejected the request or answered malformed.
 * The message is safe to show a client; the provider's own words are kept in `cause`.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: 502 | 503,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ProviderError';
  }
}

export interface StoredMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  /** The passages an assistant message cited: `{ref, title, url}`. */
  citations: { ref: number; title: string; url: string }[];
  created_at: string;
}

/** Who a widget conversation belongs to: the widget, and the proven visitor (null: anonymous). */
export interface ConversationOwner {
  widgetId: string;
  visitorId: string | null;
}

/** A visitor's conversation in a list. */
export interface ConversationSummary {
  id: string;
  title: string;
  kept: boolean;
  message_count: number;
  created_at: string;
  updated_at: string;
}

export interface ConversationRepository {
  create(scope: Scope, conversation: { id: string; integrationId: string; title: string; owner?: ConversationOwner }): Promise<void>;
  /**
   * Whether the conversation exists for this organisation and integration and, with `owner`,
   * belongs to exactly that widget and visitor (an anonymous owner matches anonymous ones only).
   */
  exists(scope: Scope, integrationId: string, id: string, owner?: ConversationOwner): Promise<boolean>;
  /** The visitor's conversations of the widget, most recently updated first. */
  listOwned(scope: Scope, owner: ConversationOwner & { visitorId: string }, page: PageRequest): Promise<Page<ConversationSummary>>;
  /** One of the visitor's conversations with every message, oldest first; null when not theirs. */
  getOwned(scope: Scope, owner: ConversationOwner & { visitorId: string }, id: string): Promise<{ id: string; kept: boolean; messages: StoredMessage[] } | null>;
  /** Sets `kept`; false when the conversation is not the visitor's. */
  setKept(scope: Scope, owner: ConversationOwner & { visitorId: string }, id: string, kept: boolean): Promise<boolean>;
  /** Deletes one (`id`) or all of the visitor's conversations; the number deleted. */
  deleteOwned(scope: Scope, owner: ConversationOwner & { visitorId: string }, id: string | null): Promise<number>;
  /** Instance-wide expiry: deletes conversations not kept and not updated since `before`; the number deleted. */
  deleteExpired(before: Date): Promise<number>;
  /** The last `limit` messages, oldest first. */
  recentMessages(scope: Scope, conversationId: string, limit: number): Promise<StoredMessage[]>;
  /** Appends a message; does nothing when the conversation is gone or foreign. */
  addMessage(scope: Scope, conversationId: string, message: Omit<StoredMessage, 'created_at'>): Promise<void>;
}
