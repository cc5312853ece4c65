import { ValidationError } from '../errors.js';
import type { IntegrationService } from '../search/integrations.js';
import type { JsonObject, Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import { SUMMARISABLE_SIMILARITY } from '../search/fusion.js';
import type { ActivityPoint, AnalyticsRepository, AnalyticsWindow, ClickStats, ConversationListItem, ConversationTranscript, FeedbackStats, Interval, QueryKind, QueryStat, UnansweredQuestion } from './port.js';

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
  /** Records a click or feedback event for an active integration (NotFoundError, ForbiddenError otherwise). */
  recordEvent(scope: Scope, integrationId: string, eventType: string, meta: JsonObject): Promise<void>;
}

export function createAnalyticsService(deps: { analytics: AnalyticsRepository; integrations: Pick<IntegrationService, 'get' | 'getActive'>; now?: () => Date }): AnalyticsService {
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
    async recordEvent(scope, integrationId, eventType, meta) {
      await deps.integrations.getActive(scope, integrationId);
      await analytics.recordEvent(scope, integrationId, eventType, meta);
    },

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
