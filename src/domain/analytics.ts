import { ValidationError } from './errors.js';
import type { IntegrationService } from './integrations.js';
import type { Scope } from './model.js';
import type { Page, PageRequest } from './pagination.js';
import { SUMMARISABLE_SIMILARITY } from './search.js';

/** One organisation's logs within [from, to), of one integration or all of them. */
export interface AnalyticsWindow {
  organisationId: number;
  integrationId: string | null;
  from: Date;
  to: Date;
  /**
   * Whether the window is whole UTC days up to its end (it starts at midnight and ends at
   * midnight or later than now): searches can then be counted from their daily counts.
   */
  daily: boolean;
}

export type Interval = 'day' | 'hour';
export type QueryKind = 'top' | 'no_results' | 'low_similarity';

/** One bucket of the activity series (UTC). */
export interface ActivityPoint {
  period: string;
  searches: number;
  no_results: number;
  clicks: number;
  chat_answers: number;
  summaries: number;
}

export interface QueryStat {
  query: string;
  searches: number;
  avg_results: number;
  avg_top_score: number | null;
  last_searched_at: string;
}

export interface ClickStats {
  searches: number;
  clicks: number;
  /** Clicks by the position of the result clicked (null: not given). */
  positions: { rank: number | null; clicks: number }[];
}

export interface AnswerFeedback {
  answer_id: string;
  thumbs_up: number;
  thumbs_down: number;
  last_feedback_at: string;
  /** The chat answer and the question it answered; null when the id names no answer of the organisation (a summary's). */
  conversation_id: string | null;
  answer: string | null;
  question: string | null;
}

export interface FeedbackStats {
  thumbs_up: number;
  thumbs_down: number;
  answers: AnswerFeedback[];
}

export interface UnansweredQuestion {
  /** A chat answer, or a summary (which no conversation holds and whose text is not kept). */
  kind: 'chat' | 'summary';
  answer_id: string;
  conversation_id: string | null;
  question: string | null;
  answer: string | null;
  created_at: string;
}

/** A summary asked for, as the answer service records it. */
export interface SummaryRecord {
  integrationId: string;
  messageId: string;
  query: string;
  relevant: boolean;
}

export interface ConversationListItem {
  id: string;
  integration_id: string;
  widget_id: string | null;
  visitor_id: string | null;
  title: string;
  message_count: number;
  created_at: string;
  updated_at: string;
}

export interface TranscriptMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  citations: unknown[];
  created_at: string;
  thumbs_up: number;
  thumbs_down: number;
}

export interface ConversationTranscript extends Omit<ConversationListItem, 'message_count'> {
  messages: TranscriptMessage[];
}

export interface AnalyticsRepository {
  activity(window: AnalyticsWindow, interval: Interval): Promise<ActivityPoint[]>;
  /** `lowSimilarity`: the best hit's similarity under which a search counts as `low_similarity` (found something, nothing to summarise). */
  queries(window: AnalyticsWindow, kind: QueryKind, limit: number, lowSimilarity: number): Promise<QueryStat[]>;
  clicks(window: AnalyticsWindow): Promise<ClickStats>;
  feedback(window: AnalyticsWindow, limit: number): Promise<FeedbackStats>;
  unanswered(window: AnalyticsWindow, limit: number): Promise<UnansweredQuestion[]>;
  conversations(window: AnalyticsWindow, page: PageRequest): Promise<Page<ConversationListItem>>;
  conversation(scope: Scope, id: string): Promise<ConversationTranscript | null>;
  recordSummary(scope: Scope, row: SummaryRecord): Promise<void>;
}

/** What a caller asks for: dates as given (validated here). */
export interface WindowParams {
  integrationId?: string;
  /** `YYYY-MM-DD` (the start of that UTC day) or an ISO 8601 time; default: 29 days before `to`'s day. */
  from?: string;
  /** `YYYY-MM-DD` (the whole UTC day included) or an ISO 8601 time (excluded); default: now. */
  to?: string;
}

const DAY_MS = 86_400_000;
/** The longest window: a year and a day. */
export const MAX_WINDOW_DAYS = 366;
/** Hourly buckets only for windows up to this many days (at most 336 buckets). */
export const MAX_HOURLY_DAYS = 14;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A window's bound: a date (UTC day) or a time; `end` makes a date include its whole day. */
function bound(field: 'from' | 'to', value: string, end: boolean): Date {
  const time = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) + (end ? DAY_MS : 0) : Date.parse(value);
  if (!Number.isFinite(time) || (!DATE.test(value) && !/^\d{4}-\d{2}-\d{2}T/.test(value))) {
    throw ValidationError.field(field, `The ${field} field must be a date (YYYY-MM-DD) or an ISO 8601 time.`);
  }
  return new Date(time);
}

export interface AnalyticsService {
  window(scope: Scope, params: WindowParams): Promise<AnalyticsWindow>;
  activity(scope: Scope, params: WindowParams & { interval?: Interval }): Promise<{ window: AnalyticsWindow; interval: Interval; points: ActivityPoint[] }>;
  queries(scope: Scope, params: WindowParams & { kind?: QueryKind; limit?: number }): Promise<{ window: AnalyticsWindow; queries: QueryStat[] }>;
  clicks(scope: Scope, params: WindowParams): Promise<{ window: AnalyticsWindow; stats: ClickStats }>;
  feedback(scope: Scope, params: WindowParams & { limit?: number }): Promise<{ window: AnalyticsWindow; stats: FeedbackStats }>;
  unanswered(scope: Scope, params: WindowParams & { limit?: number }): Promise<{ window: AnalyticsWindow; answers: UnansweredQuestion[] }>;
  conversations(scope: Scope, params: WindowParams, page: PageRequest): Promise<Page<ConversationListItem>>;
  conversation(scope: Scope, id: string): Promise<ConversationTranscript | null>;
}

export function createAnalyticsService(deps: { analytics: AnalyticsRepository; integrations: Pick<IntegrationService, 'get'>; now?: () => Date }): AnalyticsService {
  const { analytics } = deps;
  const now = deps.now ?? (() => new Date());

  async function window(scope: Scope, params: WindowParams): Promise<AnalyticsWindow> {
    const current = now();
    const to = params.to === undefined ? current : bound('to', params.to, true);
    const from = params.from === undefined ? new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate()) - 29 * DAY_MS) : bound('from', params.from, false);
    if (from >= to) throw ValidationError.field('from', 'The from field must be before to.');
    if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS) throw ValidationError.field('from', `A window is at most ${MAX_WINDOW_DAYS} days.`);
    // Another organisation's integration is as unknown as a missing one (404).
    if (params.integrationId !== undefined) await deps.integrations.get(scope, params.integrationId);
    const midnight = (d: Date) => d.getTime() % DAY_MS === 0;
    const daily = midnight(from) && (midnight(to) || to >= current);
    return { organisationId: scope.organisationId, integrationId: params.integrationId ?? null, from, to, daily };
  }

  return {
    window,
    async activity(scope, params) {
      const w = await window(scope, params);
      const interval = params.interval ?? 'day';
      if (interval === 'hour' && w.to.getTime() - w.from.getTime() > MAX_HOURLY_DAYS * DAY_MS) {
        throw ValidationError.field('interval', `Hourly buckets are for windows of at most ${MAX_HOURLY_DAYS} days.`);
      }
      return { window: w, interval, points: await analytics.activity(w, interval) };
    },
    async queries(scope, params) {
      const w = await window(scope, params);
      return { window: w, queries: await analytics.queries(w, params.kind ?? 'top', params.limit ?? 20, SUMMARISABLE_SIMILARITY) };
    },
    async clicks(scope, params) {
      const w = await window(scope, params);
      return { window: w, stats: await analytics.clicks(w) };
    },
    async feedback(scope, params) {
      const w = await window(scope, params);
      return { window: w, stats: await analytics.feedback(w, params.limit ?? 20) };
    },
    async unanswered(scope, params) {
      const w = await window(scope, params);
      return { window: w, answers: await analytics.unanswered(w, params.limit ?? 20) };
    },
    async conversations(scope, params, page) {
      return analytics.conversations(await window(scope, params), page);
    },
    conversation: (scope, id) => analytics.conversation(scope, id),
  };
}
