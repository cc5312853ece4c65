import { ApiError, createApi, type StreamEvent } from './api.js';
import { pageContext, type SharedOptions, type VisitorUser, type WidgetConfig } from './options.js';
import { tabSession } from './session.js';

/** A search result: every field of an entry plus scores and a highlighted snippet. */
export interface SearchHit {
  id: string;
  title: string | null;
  raw_text: string;
  source_url: string | null;
  meta: Record<string, unknown>;
  searchable_meta: Record<string, unknown>;
  snippet?: string;
  score_breakdown: { similarity: number; final_score: number };
  [field: string]: unknown;
}

export interface SearchPage {
  data: SearchHit[];
  summarisable: boolean;
  session_id: string;
  meta: { current_page: number; last_page: number; per_page: number; total: number };
}

/** A cited source of an answer. */
export interface Source {
  ref?: number;
  title: string;
  url: string;
  image?: string;
}

/** A page action offered with an answer; the visitor confirms it before anything happens. */
export interface Action {
  id: string;
  type: string;
  label: string;
  [payload: string]: unknown;
}

export type ChatStatus = 'searching' | 'web_searching' | 'sending' | 'offering';

export interface ChatReply {
  text: string;
  conversationId: string;
  answerId: string;
  sources: Source[];
  actions: Action[];
  /** Set when answer credits ran out (402): plain search hits for the message instead of an answer. */
  hits?: SearchHit[];
  /** The server's message when there is no answer (402). */
  notice?: string;
  /**
   * When the documentation does not cover the question (the reply says so): the closest
   * pages search found, offered as links rather than as an answer.
   */
  related?: Source[];
}

export interface ChatOptions {
  conversationId?: string | null;
  onToken?: (delta: string, full: string) => void;
  onStatus?: (status: ChatStatus) => void;
  onSource?: (source: Source) => void;
  onAction?: (action: Action) => void;
  signal?: AbortSignal;
}

export interface HeadlessClient {
  readonly key: string;
  readonly sessionId: string;
  search(text: string, options?: { limit?: number; page?: number; signal?: AbortSignal }): Promise<SearchHit[]>;
  /** The whole search response (hits, summarisable, pagination); what the search widget uses. */
  searchPage(text: string, options?: { limit?: number; page?: number; signal?: AbortSignal }): Promise<SearchPage>;
  chat(text: string, options?: ChatOptions): Promise<ChatReply>;
  summarize(text: string, options?: { onToken?: (delta: string, full: string) => void; onSource?: (source: Source) => void; signal?: AbortSignal }): Promise<{ summarized: boolean; text: string; sources: Source[] }>;
  trackEvent(name: string, detail?: { url?: string | null; rank?: number | null; source?: string | null; answerId?: string | null }): void;
  identify(user: VisitorUser | null | undefined): void;
  fetchConfig(): Promise<WidgetConfig>;
  listConversations(): Promise<unknown[]>;
  getConversation(id: string): Promise<unknown>;
  keepConversation(id: string, kept?: boolean): Promise<unknown>;
  deleteConversation(id: string): Promise<void>;
  deleteConversations(): Promise<void>;
}

/**
 * A client of one widget without UI, ready at once (SPEC.md "Headless client"). `base` is
 * Lore's origin. Chat always streams; the reply resolves when the stream ends.
 */
export function createHeadless(base: string, key: string, options: SharedOptions = {}): HeadlessClient {
  const api = createApi(base, key, options.token);
  const sessionId = tabSession();
  let user: VisitorUser | null = validUser(options.user);
  let config: Promise<WidgetConfig> | undefined;

  const visitor = () => {
    if (!user?.hash) return Promise.reject(new Error('Lore: conversation history needs identify({id, hash}) with a server-signed hash.'));
    return Promise.resolve({ user: user.id, hash: user.hash });
  };
  const conversation = (id: string) => `/conversations/${encodeURIComponent(id)}`;

  const searchPage: HeadlessClient['searchPage'] = (text, { limit, page, signal } = {}) =>
    api.json<SearchPage>('GET', '/search', { query: { query: text, per_page: limit, page, session_id: sessionId }, signal });

  return {
    key,
    sessionId,
    searchPage,
    async search(text, searchOptions) {
      return (await searchPage(text, searchOptions)).data;
    },

    async chat(text, chat = {}) {
      const reply: ChatReply = { text: '', conversationId: chat.conversationId ?? '', answerId: '', sources: [], actions: [] };
      chat.onStatus?.('searching');
      const context = pageContext(options.context);
      const body = {
        message: text,
        conversation_id: chat.conversationId ?? null,
        stream: true,
        ...(user && { user }),
        ...(context && { context }),
      };
      try {
        const headers = await api.stream('POST', '/chat', {
          body,
          signal: chat.signal,
          onEvent: (event) => onChatEvent(event, reply, chat),
        });
        reply.conversationId = headers.get('x-conversation-id') ?? reply.conversationId;
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 402) throw error;
        const hits = Array.isArray(error.body.data) ? (error.body.data as SearchHit[]) : [];
        reply.hits = hits;
        reply.notice = error.message;
        reply.sources = hits.map((hit) => ({ title: hit.title ?? hit.source_url ?? '', url: hit.source_url ?? '' }));
      }
      return reply;
    },

    async summarize(text, summary = {}) {
      // The same events as a chat answer (text_delta, citation); summary has only those callbacks.
      const reply = { text: '', answerId: '', sources: [], actions: [] };
      try {
        await api.stream('GET', '/summarize', {
          query: { query: text, stream: true },
          signal: summary.signal,
          onEvent: (event) => onChatEvent(event, reply, summary),
        });
      } catch (error) {
        if (error instanceof ApiError && error.status === 402) return { summarized: false, text: '', sources: [] };
        throw error;
      }
      return { summarized: reply.text.trim() !== '', text: reply.text, sources: reply.sources };
    },

    trackEvent(name, detail = {}) {
      api.beacon('/events', {
        name,
        url: detail.url ?? null,
        rank: Number.isInteger(detail.rank) ? detail.rank : null,
        source: detail.source ?? null,
        session_id: sessionId,
        ...(detail.answerId && { answer_id: detail.answerId }),
      });
    },

    identify(next) {
      user = validUser(next);
    },

    fetchConfig() {
      config ??= api.json<WidgetConfig>('GET', '/config').catch((error) => {
        config = undefined;
        throw error;
      });
      return config;
    },

    async listConversations() {
      const page = await api.json<{ data: unknown[] }>('GET', '/conversations', { query: { ...(await visitor()), per_page: 100 } });
      return page.data;
    },
    async getConversation(id) {
      return (await api.json<{ data: unknown }>('GET', conversation(id), { query: await visitor() })).data;
    },
    async keepConversation(id, kept = true) {
      return (await api.json<{ data: unknown }>('POST', `${conversation(id)}/keep`, { body: { ...(await visitor()), kept } })).data;
    },
    async deleteConversation(id) {
      await api.json('DELETE', conversation(id), { query: await visitor() });
    },
    async deleteConversations() {
      await api.json('DELETE', '/conversations', { query: await visitor() });
    },
  };
}

function onChatEvent(event: StreamEvent, reply: Pick<ChatReply, 'text' | 'answerId' | 'sources' | 'actions' | 'related'>, chat: ChatOptions): void {
  switch (event.type) {
    case 'status':
      if (typeof event.status === 'string') chat.onStatus?.(event.status as ChatStatus);
      break;
    case 'stream_start':
      chat.onStatus?.('sending');
      break;
    case 'text_delta':
      if (typeof event.delta !== 'string') break;
      if (typeof event.message_id === 'string') reply.answerId = event.message_id;
      reply.text += event.delta;
      chat.onToken?.(event.delta, reply.text);
      break;
    case 'citation':
      if (isSource(event.citation)) {
        reply.sources.push(event.citation);
        chat.onSource?.(event.citation);
      }
      break;
    case 'related':
      if (Array.isArray(event.results)) reply.related = event.results.filter(isSource);
      break;
    case 'action': {
      const action = event.action as Action | undefined;
      if (action && typeof action.id === 'string' && typeof action.type === 'string' && typeof action.label === 'string') {
        reply.actions.push(action);
        chat.onAction?.(action);
      }
      break;
    }
  }
}

function isSource(value: unknown): value is Source {
  return typeof (value as Source)?.title === 'string' && typeof (value as Source).url === 'string';
}

function validUser(user: VisitorUser | null | undefined): VisitorUser | null {
  const { id, hash } = user ?? {};
  if (typeof id !== 'string' || !id) return null;
  return typeof hash === 'string' && hash ? { id, hash } : { id };
}
