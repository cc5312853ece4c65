/**
 * What the REST API returns, as the console reads it: each resource declared once here and
 * imported by the pages that show it (SPEC.md has the full shapes).
 */
import type { WidgetConfig } from '../../src/shared/widgetSettings.js';

/** A page of a list route. */
export interface Paged<T> {
  data: T[];
  meta: { current_page: number; last_page: number; per_page: number; total: number };
}

export interface Collection { id: string; name: string; created_at: string }
export interface Entry { id: string; title: string | null; raw_text: string; source_type: string | null; source_id: string | null; source_url: string | null; updated_at: string }
export interface Integration { id: string; name: string; type: string; collection_ids: string[]; is_active: boolean; settings: Record<string, string | boolean | null> }
/** A widget, with its whole presentation config. */
export interface Widget {
  id: string;
  key: string;
  type: 'search' | 'chat';
  name: string;
  websites: string[];
  integration_id: string;
  /** The config the API serves (the server's own type: the two cannot drift apart). */
  config: WidgetConfig;
}
export interface ApiKey { id: string; name: string; permissions: string[]; source_ids: string[] | null; created_at: string }
export interface Usage { answer_credits: number | null; usage_quota: number | null; period: string; requests: number; answers: number }
export interface Organisation { id: number; name: string; answer_credits: number | null; usage_quota: number | null; created_at: string }

export interface CrawlReport { found: number; fetched: number; created: number; updated: number; unchanged: number; deleted: number; skipped_total: number; failed_total: number; failed: { url: string; reason: string }[] }
export interface Crawler {
  id: string;
  start_url: string;
  max_pages: number;
  sections: boolean;
  schedule_hours: number | null;
  status: 'idle' | 'queued' | 'running' | 'interrupted';
  next_run_at: string | null;
  progress: { found: number; fetched: number; written: number; failed: number } | null;
  last_seen_at: string | null;
  last_run: { started_at: string; finished_at: string; outcome: 'finished' | 'failed'; error: string | null; report: CrawlReport } | null;
}

export interface Breakdown { similarity: number; final_score: number; lexical: number; vector: number; bm25: number; cosine: number; lexical_weight: number; heading?: number }
export interface Hit { id: string; title: string | null; source_url: string | null; snippet: string; score_breakdown: Breakdown }
export interface Summary { has_relevant_results: boolean; summary: string; references: { ref: number; title: string; url: string }[]; data: Pick<Entry, 'id' | 'title' | 'raw_text'>[] }

export interface Conversation { id: string; integration_id: string; widget_id: string | null; visitor_id: string | null; title: string; message_count: number; created_at: string }
export interface Transcript {
  id: string;
  title: string;
  visitor_id: string | null;
  created_at: string;
  messages: { id: string; role: 'user' | 'assistant'; content: string; citations: { ref?: number; title?: string; url?: string }[]; created_at: string; thumbs_up: number; thumbs_down: number }[];
}

/** Analytics: a day of activity, a query's figures, clicks by position, feedback, answers with nothing to cite. */
export interface Point { period: string; searches: number; no_results: number; clicks: number; chat_answers: number; summaries: number }
export interface QueryStat { query: string; searches: number; avg_results: number; avg_top_score: number | null; last_searched_at: string }
export interface Clicks { searches: number; clicks: number; click_through_rate: number | null; positions: { rank: number | null; clicks: number }[] }
export interface Feedback {
  thumbs_up: number;
  thumbs_down: number;
  answers: { answer_id: string; thumbs_up: number; thumbs_down: number; question: string | null; answer: string | null; conversation_id: string | null }[];
}
export interface Unanswered { kind: 'chat' | 'summary'; answer_id: string; conversation_id: string | null; question: string | null; answer: string | null; created_at: string }
