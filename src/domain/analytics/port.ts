import type { JsonObject, Scope } from '../model.js';
import type { SearchLogRow } from '../search/port.js';
import type { Page, PageRequest } from '../pagination.js';

/** The analytics capability's ports: what it needs from storage and providers, which implement them (src/container.ts picks which). */

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
  /** Records a visitor's click or feedback on an integration's results. */
  recordEvent(scope: Scope, integrationId: string, eventType: string, meta: JsonObject): Promise<void>;
  /**
   * Adds searches to the analytics log, in one statement. Rows whose integration is gone (or
   * is not of the row's organisation) are left out.
   */
  logSearches(rows: readonly SearchLogRow[]): Promise<void>;
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
