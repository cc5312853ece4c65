import { randomUUID } from 'node:crypto';
import { isUuid } from '../ids.js';
import { notCoveredReply } from './notCovered.js';
import type { IntegrationService } from '../search/integrations.js';
import type { Integration, Scope } from '../model.js';
import { NotFoundError, PaymentRequiredError, UpstreamError } from '../errors.js';
import type { AnswerChunk, AnswerMessage, AnswerProvider, ConversationOwner, ConversationRepository } from './port.js';
import { ProviderError } from './port.js';
import type { Passage, SearchHit } from '../search/service.js';
import { integrationCorpus, pageBonus, type Corpus, type PageContext, type Retrieve, type Retrieved } from './retrieval.js';
import { isVagueQuery } from '../ingestion/text/questionWords.js';
import { detectLanguage } from '../ingestion/text/tokenize.js';
import type { Reservation, UsageService } from '../access/usage.js';
import { CitationFilter, type CitedSource } from './citations.js';
import { citedSource, entryUrl, offeredActions, type PageAction } from './offers.js';
import { buildMessages } from './prompt.js';

/**
 * The domain's stream events; the HTTP layer adds timestamps and SSE framing. A chat answer
 * whose cited entries carry page actions sends `status: offering` and then one `action` per
 * entry after the text, before `stream_end`; summaries never offer actions.
 */
export type AnswerEvent =
  | { type: 'stream_start'; provider: string; model: string }
  | { type: 'text_delta'; delta: string; message_id: string }
  | { type: 'citation'; citation: CitedSource }
  | { type: 'status'; status: 'offering' }
  | { type: 'action'; action: PageAction }
  /** A chat the documentation does not cover: after the reply saying so, the closest pages, offered as links, not cited. */
  | { type: 'related'; results: RelatedPage[] }
  | { type: 'stream_end'; reason: string; usage: { prompt_tokens: number; completion_tokens: number } };

/** A page close to a question it does not answer. */
export interface RelatedPage {
  title: string;
  url: string;
}

export interface AnswerStream {
  /** False when search found nothing relevant: the stream then carries no generated text. */
  relevant: boolean;
  /** The passages given to the provider, numbered from 1 in this order. */
  passages: Passage[];
  /** When not relevant: the passages close to the question that are not evidence (retrieval.ts `closest`), to offer as links. */
  closest?: Passage[];
  messageId: string;
  /** Starts with `stream_start` and ends with `stream_end`; throws if the provider fails midway. */
  events: AsyncIterable<AnswerEvent>;
}

export interface SummariseParams {
  query: string;
  threshold: number;
  locale?: string;
  /** false: the summary is not recorded for analytics (the console's playground). Default true. */
  analytics?: boolean;
}

export interface ChatParams {
  message: string;
  conversationId: string | null;
  locale?: string;
  /**
   * Widget chats: the conversation is stored as this widget's (and visitor's), and only such
   * a conversation can be continued. Integration chats have none.
   */
  owner?: ConversationOwner;
  /** The page the visitor is on: retrieval prefers it, and prompts name it. */
  page?: PageContext;
}

export interface AnswerService {
  /**
   * A streamed summary of what the integration's collections say about `query`. Resolves
   * once the provider has started answering, so failures before that reject (402 credits,
   * 403 inactive, 404 unknown, 502/503 provider) and nothing is streamed.
   */
  summarise(scope: Scope, integrationId: string, params: SummariseParams, signal: AbortSignal): Promise<AnswerStream>;
  /**
   * `summarise` over collections rather than an integration (the MCP `answer` tool): the
   * caller has checked that its credential may read every one of `collectionIds`. Credits and
   * the usage quota are taken as by `summarise` (402 when exhausted); typos are corrected, as
   * an integration does by default. Not recorded for analytics, which are an integration's.
   */
  summariseCollections(scope: Scope, collectionIds: readonly string[], params: Omit<SummariseParams, 'analytics'>, signal: AbortSignal): Promise<AnswerStream>;
  /**
   * A streamed chat reply grounded in the integration's collections, continuing
   * `conversationId` (404 when unknown or foreign) or starting a conversation. Both turns
   * are stored; a reply cut short by `signal` is stored as far as it got.
   */
  chat(scope: Scope, integrationId: string, params: ChatParams, signal: AbortSignal): Promise<AnswerStream & { conversationId: string }>;
}

/** Passages given to a provider. */
const PASSAGES = 6;
/** Earlier messages sent with a chat turn. */
const HISTORY = 8;

export function createAnswerService(deps: {
  integrations: IntegrationService;
  /** The passages answers are written from (retrieval.ts). */
  retrieve: Retrieve;
  provider: AnswerProvider;
  /** Answer credits: one is taken before a provider is asked, and given back if nothing was answered. */
  credits: Pick<UsageService, 'reserveCredit' | 'refund'>;
  conversations: ConversationRepository;
  /** Where summaries are kept for analytics (chat answers are the conversations'); a failure is logged, never the visitor's. */
  summaries?: { record(scope: Scope, row: { integrationId: string; messageId: string; query: string; relevant: boolean }): Promise<void> };
  log?: (error: unknown) => void;
}): AnswerService {
  const { integrations, retrieve, provider, credits, conversations } = deps;

  /**
   * Asks the provider and waits for its first chunk, so a provider that fails at once
   * becomes an error response instead of a broken stream. The credit is given back then.
   */
  async function start(scope: Scope, reservation: Reservation, request: Parameters<AnswerProvider['stream']>[0], signal: AbortSignal) {
    const iterator = provider.stream(request, signal)[Symbol.asyncIterator]();
    try {
      const first = await iterator.next();
      return { first, iterator };
    } catch (error) {
      await credits.refund(scope, reservation).catch((e) => deps.log?.(e));
      if (error instanceof ProviderError) throw new UpstreamError(error.message, error.status);
      throw error;
    }
  }

  /**
   * Provider chunks → answer events, citations checked against the passages given and
   * numbered 1, 2, … in the order the text first cites them (whichever provider wrote it);
   * each `citation` event follows the text that first cites it. Code the text leaves open
   * is closed. With `offerActions` (chat), the cited entries' page actions follow the text.
   */
  async function* events(
    first: IteratorResult<AnswerChunk>,
    iterator: AsyncIterator<AnswerChunk>,
    passages: readonly Passage[],
    messageId: string,
    offerActions: boolean,
    done: (text: string, cited: readonly CitedSource[], complete: boolean) => Promise<void>,
  ): AsyncGenerator<AnswerEvent> {
    const sources = new Map(passages.map((p, i) => [i + 1, citedSource(p.hit, i + 1, p.headings)]));
    const filter = new CitationFilter(sources);
    let text = '';
    let complete = false;
    try {
      yield { type: 'stream_start', provider: provider.provider, model: provider.model };
      for (let step = first; !step.done; step = await iterator.next()) {
        const chunk = step.value;
        if (chunk.type === 'end') {
          const rest = filter.flush();
          text += rest.text;
          if (rest.text) yield { type: 'text_delta', delta: rest.text, message_id: messageId };
          for (const citation of rest.cited) yield { type: 'citation', citation };
          const actions = offerActions ? offeredActions(passages, filter.citedPassages) : [];
          if (actions.length > 0) yield { type: 'status', status: 'offering' };
          for (const action of actions) yield { type: 'action', action };
          complete = true;
          yield { type: 'stream_end', reason: chunk.reason, usage: { prompt_tokens: chunk.usage.promptTokens, completion_tokens: chunk.usage.completionTokens } };
          break;
        }
        if (chunk.type === 'section') {
          // Before the text: the quoted part of a passage stands in another section than its chunk.
          const passage = passages[chunk.ref - 1];
          if (passage && !filter.has(chunk.ref)) sources.set(chunk.ref, citedSource(passage.hit, chunk.ref, chunk.headings));
          continue;
        }
        const { text: shown, cited } = filter.push(chunk.delta);
        text += shown;
        if (shown) yield { type: 'text_delta', delta: shown, message_id: messageId };
        for (const citation of cited) yield { type: 'citation', citation };
      }
    } catch (error) {
      if (error instanceof ProviderError) throw new UpstreamError(error.message, error.status);
      throw error;
    } finally {
      await iterator.return?.().catch(() => undefined);
      await done(text, filter.cited, complete).catch((e) => deps.log?.(e));
    }
  }

  /** The passages a summary of `params.query` is written from. */
  async function summaryPassages(scope: Scope, corpus: Corpus, params: Pick<SummariseParams, 'query' | 'threshold'>): Promise<Retrieved> {
    // A query too short or vague to say what it is about is answered as finding nothing (search: `summarisable` false).
    if (isVagueQuery(params.query)) return { passages: [], closest: [], language: 'und', terms: [] };
    return retrieve(scope, corpus, { query: retrievalQuery(params.query), language: languageOf(params.query), threshold: params.threshold, limit: PASSAGES });
  }

  /**
   * The summary of `passages`: nothing to stream when there are none; otherwise a credit is
   * reserved (402 when credits or the quota are exhausted) and the provider asked.
   */
  async function summary(scope: Scope, { passages, closest, terms }: Retrieved, messageId: string, params: Pick<SummariseParams, 'query' | 'locale'>, signal: AbortSignal): Promise<AnswerStream> {
    if (passages.length === 0) {
      return { relevant: false, passages, closest, messageId, events: fixed('', messageId, 'no_relevant_results', async () => {}, relatedPages(closest)) };
    }
    const reservation = await credits.reserveCredit(scope);
    if (reservation === null) throw new PaymentRequiredError('Your answer credits or usage quota are exhausted.');
    const request = {
      messages: buildMessages({ task: 'summary', locale: params.locale, passages: promptPassages(passages) }, [], params.query),
      question: params.query,
      passages: promptPassages(passages),
      terms,
      locale: params.locale,
    };
    const { first, iterator } = await start(scope, reservation, request, signal);
    return { relevant: true, passages, messageId, events: events(first, iterator, passages, messageId, false, async () => {}) };
  }

  /** A fixed reply streamed like an answer (nothing relevant was found). */
  async function* fixed(text: string, messageId: string, reason: string, done: () => Promise<void>, related: RelatedPage[] = []): AsyncGenerator<AnswerEvent> {
    try {
      yield { type: 'stream_start', provider: provider.provider, model: provider.model };
      if (text) yield { type: 'text_delta', delta: text, message_id: messageId };
      if (related.length > 0) yield { type: 'related', results: related };
      yield { type: 'stream_end', reason, usage: { prompt_tokens: 0, completion_tokens: 0 } };
    } finally {
      await done().catch((e) => deps.log?.(e));
    }
  }

  return {
    async summarise(scope, integrationId, params, signal) {
      const integration = await integrations.getActive(scope, integrationId);
      const retrieved = await summaryPassages(scope, integrationCorpus(integration), params);
      const messageId = randomUUID();
      if (params.analytics !== false) deps.summaries?.record(scope, { integrationId: integration.id, messageId, query: params.query, relevant: retrieved.passages.length > 0 }).catch((e) => deps.log?.(e));
      return summary(scope, retrieved, messageId, params, signal);
    },

    async summariseCollections(scope, collectionIds, params, signal) {
      return summary(scope, await summaryPassages(scope, { collectionIds, typos: true }, params), randomUUID(), params, signal);
    },

    async chat(scope, integrationId, params, signal) {
      const integration = await integrations.getActive(scope, integrationId);
      const settings = chatSettings(integration);
      const conversationId = params.conversationId;
      let history: AnswerMessage[] = [];
      if (conversationId !== null) {
        if (!isUuid(conversationId) || !(await conversations.exists(scope, integration.id, conversationId, params.owner))) throw new NotFoundError('Conversation');
        history = (await conversations.recentMessages(scope, conversationId, HISTORY)).map((m) => ({ role: m.role, content: m.content }));
      }
      // A follow-up ("and how much is it?") is searched together with the last question.
      const context = [...history].reverse().find((m) => m.role === 'user')?.content;
      // The question without its scaffolding, read in the whole question's language (which the reply follows too).
      const language = languageOf(params.message);
      const { passages, closest, language: readIn, terms } = await retrieve(scope, integrationCorpus(integration), { query: retrievalQuery(params.message), language, context, page: params.page, threshold: 0.4, limit: PASSAGES });
      const reservation = passages.length > 0 ? await credits.reserveCredit(scope) : undefined;
      if (reservation === null) {
        throw new PaymentRequiredError('Your answer credits or usage quota are exhausted.', { data: passages.map((p) => p.hit satisfies SearchHit) });
      }

      const isNew = conversationId === null;
      const id = conversationId ?? randomUUID();
      const saveQuestion = async () => {
        if (isNew) await conversations.create(scope, { id, integrationId: integration.id, title: params.message.slice(0, 120), owner: params.owner });
        await conversations.addMessage(scope, id, { id: randomUUID(), role: 'user', content: params.message, citations: [] });
      };
      const messageId = randomUUID();
      const store = (content: string, citations: readonly CitedSource[]) =>
        content.trim() ? conversations.addMessage(scope, id, { id: messageId, role: 'assistant', content, citations: [...citations] }) : Promise.resolve();

      const locale = params.locale ?? language;
      if (passages.length === 0) {
        await saveQuestion();
        // Said in the visitor's language: the chat's locale, the question's, else the language it was read in (its collections'; English when 'und').
        const reply = settings.unknownAnswer ?? notCoveredReply(locale ?? readIn);
        return { relevant: false, passages, closest, messageId, conversationId: id, events: fixed(reply, messageId, 'no_answer', () => store(reply, []), relatedPages(closest)) };
      }
      const prompt = { task: 'chat' as const, persona: settings.persona, instructions: settings.instructions, locale, page: params.page, passages: promptPassages(passages, params.page) };
      const request = {
        messages: buildMessages(prompt, history, params.message),
        question: context ? `${params.message}\n${context}` : params.message,
        passages: prompt.passages,
        terms,
        locale,
      };
      // The question is stored while the provider starts, off the time to the first words.
      const [saved, started] = await Promise.allSettled([saveQuestion(), start(scope, reservation!, request, signal)]);
      if (saved.status === 'rejected') {
        if (started.status === 'fulfilled') {
          await started.value.iterator.return?.().catch(() => undefined);
          await credits.refund(scope, reservation!).catch((e) => deps.log?.(e));
        }
        throw saved.reason;
      }
      if (started.status === 'rejected') throw started.reason;
      const { first, iterator } = started.value;
      return {
        relevant: true,
        passages,
        messageId,
        conversationId: id,
        events: events(first, iterator, passages, messageId, true, (text, cited) => store(text, cited)),
      };
    },
  };
}

/**
 * How-to and "can I" scaffolding ("How do I", "Wie kann ich", "Comment puis-je", "…するには
 * どうすればいいですか") says what kind of answer is wanted, not what it is about. Searched with
 * it, a question's similarity drops below the threshold ("How do I turn off the demo?": 0.34
 * to the section that answers it, "turn off the demo": 0.53), and where the tokeniser keeps
 * such words as terms (German "wie", "ich"; Japanese "どう", "すれ", "ば", "いい", "です") they
 * match every FAQ entry asked the same way, over the section that answers. Retrieval for
 * answers searches without it; the provider still gets the whole question. French by analogy
 * with German (no French questions in the bench). Not Spanish "¿Cómo …" nor Chinese "如何":
 * stripped, they gained no answer on Express's docs (bench:answers), Spanish lost one and
 * Chinese a gold section from the passages ("安装 Express" alone matched every "安装" heading).
 */
const SCAFFOLDING: readonly [RegExp, string][] = [
  [/^\s*(?:how\s+(?:do|can|could|should|would|might)\s+(?:i|we|you|one)|how\s+to|(?:can|could|may)\s+(?:i|we|you))\s+(?=\S)/i, ''],
  // "Wie kann ich …", "Kann ich …"; "Wie fahre ich … herunter?" keeps its verb.
  [/^\s*(?:wie\s+)?(?:kann|könnte|soll|sollte|muss|darf)\s+(?:ich|man|wir)\s+(?=\S)/iu, ''],
  [/^\s*wie\s+(?!viele?\b|lange\b|oft\b|alt\b|hei(?:ß|ss)t\b|nennt\b)(\p{L}+)\s+(?:ich|man|wir)\s+(?=\S)/iu, '$1 '],
  // "Comment puis-je …", "Comment est-ce que je …", "Comment installer …"
  [/^\s*comment\s+(?:(?:puis-je|peut-on|faire\s+pour)\s+|est-ce\s+qu(?:e\s+|')(?:je|on)\s+|(?=\p{L}+er\b))/iu, ''],
  // "…するには？", "…にはどうすればいいですか？" (the verb stays: "Express をインストール")
  [/(?:する)?には(?:どう(?:すれば|したら)(?:いい|よい)(?:ですか|でしょうか)?)?\s*[？?]?\s*$/u, ''],
  [/どう(?:すれば|したら)(?:いい|よい)(?:ですか|でしょうか)?\s*[？?]?\s*$/u, ''],
];

export function retrievalQuery(question: string): string {
  for (const [pattern, replacement] of SCAFFOLDING) {
    const stripped = question.replace(pattern, replacement).trim();
    if (stripped === question.trim()) continue;
    // A question that is all scaffolding is searched as asked.
    return /[\p{L}\p{N}]/u.test(stripped) ? stripped : question;
  }
  return question;
}

function promptPassages(passages: readonly Passage[], page?: PageContext) {
  return passages.map((p, i) => ({
    ref: i + 1,
    title: p.hit.title,
    url: entryUrl(p.hit, p.headings) || null,
    text: p.text,
    source: p.hit.raw_text,
    ...(page && { prior: pageBonus(page, p.hit.source_url) }),
    ...(typeof p.hit.meta?.page_title === 'string' && { pageTitle: p.hit.meta.page_title }),
  }));
}


/** The question's language when it can be told: its passages are searched in it, and the reply follows it. */
export function languageOf(text: string): string | undefined {
  const language = detectLanguage(text);
  return language === 'und' ? undefined : language;
}

function chatSettings(integration: Integration) {
  const s = integration.settings;
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : null);
  return {
    persona: typeof s.persona === 'string' ? s.persona : 'custom',
    instructions: text(s.instructions),
    unknownAnswer: text(s.unknown_answer_message),
  };
}

/** The closest passages as pages to offer (those with a URL, each page once). */
function relatedPages(closest: readonly Passage[]): RelatedPage[] {
  const pages = new Map<string, RelatedPage>();
  for (const [i, p] of closest.entries()) {
    const { title, url } = citedSource(p.hit, i + 1, p.headings);
    if (url && !pages.has(url)) pages.set(url, { title, url });
  }
  return [...pages.values()];
}
