import type { SearchLogRow } from '../domain/search/port.js';
import type { AnalyticsRepository, AnalyticsWindow, AnswerFeedback, ConversationListItem, ConversationTranscript, TranscriptMessage, UnansweredQuestion } from '../domain/analytics/port.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

/**
 * What visitors did, read from the logs Lore keeps: `search_log` (every search), clicks and
 * feedback from widgets (`widget_events`, its integration through the widget) and from the API
 * (`integration_events`), and chat conversations. Every statement is bounded to one
 * organisation ($1), a time window ($2 ≤ created_at < $3) and optionally one integration ($4).
 */
export function createAnalyticsRepository(db: Db): AnalyticsRepository {
  const window = (w: AnalyticsWindow) => [w.organisationId, w.from.toISOString(), w.to.toISOString(), w.integrationId];

  /** A table with organisation_id, integration_id and created_at (search_log, answer_log) inside the window. */
  const IN_WINDOW = 'organisation_id = $1 AND created_at >= $2 AND created_at < $3 AND ($4::uuid IS NULL OR integration_id = $4)';
  /** The answer an API feedback event names in its meta. */
  const API_ANSWER_ID = "coalesce(e.meta->>'message_id', e.meta->>'answer_id')";
  /** The question a chat answer `m` answered: the user's message before it. */
  const QUESTION = `(SELECT u.content FROM conversation_messages u
                      WHERE u.conversation_id = m.conversation_id AND u.seq < m.seq AND u.role = 'user' ORDER BY u.seq DESC LIMIT 1)`;

  /** Clicks from widgets and from the API, with their time and position. */
  const CLICKS = `
    SELECT w.created_at, w.rank FROM widget_events w JOIN widgets g ON g.id = w.widget_id
     WHERE w.organisation_id = $1 AND w.name = 'click' AND w.created_at >= $2 AND w.created_at < $3
       AND ($4::uuid IS NULL OR g.integration_id = $4)
    UNION ALL
    SELECT e.created_at,
           CASE WHEN jsonb_typeof(e.meta->'rank') = 'number' AND (e.meta->>'rank')::numeric BETWEEN 0 AND 10000
                THEN (e.meta->>'rank')::numeric::int END
      FROM integration_events e
     WHERE e.organisation_id = $1 AND e.event_type = 'click' AND e.created_at >= $2 AND e.created_at < $3
       AND ($4::uuid IS NULL OR e.integration_id = $4)`;

  /** Thumbs up and down from widgets and from the API, with the answer they name (when they name one). */
  const FEEDBACK = `
    SELECT w.name AS kind, w.answer_id, w.created_at FROM widget_events w JOIN widgets g ON g.id = w.widget_id
     WHERE w.organisation_id = $1 AND w.name IN ('thumbs_up', 'thumbs_down') AND w.created_at >= $2 AND w.created_at < $3
       AND ($4::uuid IS NULL OR g.integration_id = $4)
    UNION ALL
    SELECT e.event_type, ${API_ANSWER_ID}, e.created_at FROM integration_events e
     WHERE e.organisation_id = $1 AND e.event_type IN ('thumbs_up', 'thumbs_down') AND e.created_at >= $2 AND e.created_at < $3
       AND ($4::uuid IS NULL OR e.integration_id = $4)`;

  /** search_daily's rows of the window's days (the last: the day of the window's last instant). */
  const IN_DAYS = `organisation_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date
    AND day <= (($3::timestamptz - interval '1 microsecond') AT TIME ZONE 'UTC')::date AND ($4::uuid IS NULL OR integration_id = $4)`;
  /** The window's searches: from their daily counts when the window is whole days (see AnalyticsWindow.daily). */
  const searchCount = (w: AnalyticsWindow) =>
    w.daily ? `SELECT coalesce(sum(searches), 0)::int FROM search_daily WHERE ${IN_DAYS}` : `SELECT count(*)::int FROM search_log WHERE ${IN_WINDOW}`;

  /** An answer id as a uuid (null for anything else, which no stored message has). */
  const UUID = (column: string) => `CASE WHEN ${column} ~ '^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$' THEN ${column}::uuid END`;

  return {
    async recordEvent(scope, integrationId, eventType, meta) {
      await db.query('INSERT INTO integration_events (organisation_id, integration_id, event_type, meta) VALUES ($1, $2, $3, $4)', [
        scope.organisationId,
        integrationId,
        eventType,
        meta,
      ]);
    },

    async logSearches(rows) {
      if (rows.length === 0) return;
      const column = <K extends keyof SearchLogRow>(key: K) => rows.map((r) => r[key]);
      // One statement: the searches, and their counts by day and query (search_daily, which the
      // console's activity and top queries read), both or neither.
      await db.query(
        `WITH x AS (
           SELECT x.* FROM unnest($1::int[], $2::uuid[], $3::text[], $4::int[], $5::real[], $6::real[], $7::timestamptz[])
             AS x(organisation_id, integration_id, query, result_count, top_score, latency_ms, created_at)
           JOIN integrations i ON i.id = x.integration_id AND i.organisation_id = x.organisation_id
         ), logged AS (
           INSERT INTO search_log (organisation_id, integration_id, query, result_count, top_score, latency_ms, created_at)
           SELECT organisation_id, integration_id, query, result_count, top_score, latency_ms, created_at FROM x
         )
         INSERT INTO search_daily (organisation_id, integration_id, day, query, searches, no_results, sum_results, sum_top_score, scored, last_at)
         SELECT organisation_id, integration_id, (created_at AT TIME ZONE 'UTC')::date, lower(btrim(query)),
                count(*), count(*) FILTER (WHERE result_count = 0), sum(result_count), coalesce(sum(top_score::float8), 0), count(top_score), max(created_at)
           FROM x GROUP BY 1, 2, 3, 4
         ON CONFLICT (integration_id, day, query) DO UPDATE SET
           searches = search_daily.searches + EXCLUDED.searches,
           no_results = search_daily.no_results + EXCLUDED.no_results,
           sum_results = search_daily.sum_results + EXCLUDED.sum_results,
           sum_top_score = search_daily.sum_top_score + EXCLUDED.sum_top_score,
           scored = search_daily.scored + EXCLUDED.scored,
           last_at = greatest(search_daily.last_at, EXCLUDED.last_at)`,
        [
          column('organisationId'),
          column('integrationId'),
          column('query'),
          column('resultCount'),
          column('topScore'),
          column('latencyMs'),
          rows.map((r) => r.at.toISOString()),
        ],
      );
    },

    async activity(w, interval) {
      return db.query(
        `WITH buckets AS (
           SELECT generate_series(date_trunc($5, $2::timestamptz AT TIME ZONE 'UTC'),
                                  ($3::timestamptz - interval '1 microsecond') AT TIME ZONE 'UTC',
                                  ('1 ' || $5)::interval) AS period
         ), searches AS (
           ${
             w.daily && interval === 'day'
               ? `SELECT day::timestamp AS period, sum(searches) AS searches, sum(no_results) AS no_results
                    FROM search_daily WHERE ${IN_DAYS}
                   GROUP BY 1`
               : `SELECT date_trunc($5, created_at AT TIME ZONE 'UTC') AS period, count(*) AS searches,
                         count(*) FILTER (WHERE result_count = 0) AS no_results
                    FROM search_log WHERE ${IN_WINDOW}
                   GROUP BY 1`
           }
         ), clicks AS (
           SELECT date_trunc($5, created_at AT TIME ZONE 'UTC') AS period, count(*) AS clicks FROM (${CLICKS}) x GROUP BY 1
         ), summaries AS (
           SELECT date_trunc($5, created_at AT TIME ZONE 'UTC') AS period, count(*) AS summaries
             FROM answer_log WHERE ${IN_WINDOW}
            GROUP BY 1
         ), answers AS (
           SELECT date_trunc($5, m.created_at AT TIME ZONE 'UTC') AS period, count(*) AS chat_answers
             FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
            WHERE c.organisation_id = $1 AND ($4::uuid IS NULL OR c.integration_id = $4) AND c.updated_at >= $2
              AND m.role = 'assistant' AND m.created_at >= $2 AND m.created_at < $3
            GROUP BY 1
         )
         SELECT to_char(b.period, 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS period,
                coalesce(s.searches, 0)::int AS searches, coalesce(s.no_results, 0)::int AS no_results,
                coalesce(k.clicks, 0)::int AS clicks, coalesce(a.chat_answers, 0)::int AS chat_answers,
                coalesce(y.summaries, 0)::int AS summaries
           FROM buckets b
           LEFT JOIN searches s ON s.period = b.period
           LEFT JOIN clicks k ON k.period = b.period
           LEFT JOIN answers a ON a.period = b.period
           LEFT JOIN summaries y ON y.period = b.period
          ORDER BY b.period`,
        [...window(w), interval],
      );
    },

    async queries(w, kind, limit, lowSimilarity) {
      if (kind === 'top' && w.daily) {
        return db.query(
          `SELECT query, sum(searches)::int AS searches,
                  round(sum(sum_results)::numeric / sum(searches), 1)::float8 AS avg_results,
                  round((sum(sum_top_score) / nullif(sum(scored), 0))::numeric, 3)::float8 AS avg_top_score,
                  ${iso('max(last_at)', 'last_searched_at')}
             FROM search_daily WHERE ${IN_DAYS}
            GROUP BY query ORDER BY sum(searches) DESC, max(last_at) DESC, query LIMIT $5`,
          [...window(w), limit],
        );
      }
      const only = kind === 'no_results' ? 'AND result_count = 0' : kind === 'low_similarity' ? 'AND result_count > 0 AND top_score < $6' : '';
      return db.query(
        `SELECT lower(btrim(query)) AS query, count(*)::int AS searches,
                round(avg(result_count)::numeric, 1)::float8 AS avg_results,
                round(avg(top_score)::numeric, 3)::float8 AS avg_top_score,
                ${iso('max(created_at)', 'last_searched_at')}
           FROM search_log
          WHERE ${IN_WINDOW} ${only}
          GROUP BY 1 ORDER BY count(*) DESC, max(created_at) DESC, 1 LIMIT $5`,
        [...window(w), limit, ...(kind === 'low_similarity' ? [lowSimilarity] : [])],
      );
    },

    async clicks(w) {
      const [totals] = await db.query<{ searches: number; clicks: number }>(
        `SELECT (${searchCount(w)}) AS searches, (SELECT count(*)::int FROM (${CLICKS}) x) AS clicks`,
        window(w),
      );
      const positions = await db.query<{ rank: number | null; clicks: number }>(
        `SELECT rank, count(*)::int AS clicks FROM (${CLICKS}) x GROUP BY rank ORDER BY rank NULLS LAST`,
        window(w),
      );
      return { searches: totals!.searches, clicks: totals!.clicks, positions };
    },

    async feedback(w, limit) {
      const [totals] = await db.query<{ thumbs_up: number; thumbs_down: number }>(
        `SELECT count(*) FILTER (WHERE kind = 'thumbs_up')::int AS thumbs_up, count(*) FILTER (WHERE kind = 'thumbs_down')::int AS thumbs_down
           FROM (${FEEDBACK}) f`,
        window(w),
      );
      // An answer is shown only when it is a message of this organisation's conversations:
      // the answer id comes from the visitor's browser and may name anything.
      const answers = await db.query<AnswerFeedback>(
        `WITH f AS (${FEEDBACK}),
         by_answer AS (
           SELECT answer_id, count(*) FILTER (WHERE kind = 'thumbs_up')::int AS thumbs_up,
                  count(*) FILTER (WHERE kind = 'thumbs_down')::int AS thumbs_down, max(created_at) AS last_at
             FROM f WHERE answer_id IS NOT NULL GROUP BY answer_id
         )
         SELECT a.answer_id, a.thumbs_up, a.thumbs_down, ${iso('a.last_at', 'last_feedback_at')},
                c.id::text AS conversation_id, m.content AS answer,
                coalesce(
                  ${QUESTION},
                  (SELECT l.query FROM answer_log l WHERE l.message_id = a.answer_id AND l.organisation_id = $1 LIMIT 1)
                ) AS question
           FROM by_answer a
           LEFT JOIN conversation_messages m ON m.id = ${UUID('a.answer_id')}
             AND EXISTS (SELECT 1 FROM conversations o WHERE o.id = m.conversation_id AND o.organisation_id = $1)
           LEFT JOIN conversations c ON c.id = m.conversation_id
          ORDER BY a.thumbs_down DESC, a.thumbs_up DESC, a.last_at DESC, a.answer_id LIMIT $5`,
        [...window(w), limit],
      );
      return { ...totals!, answers };
    },

    async unanswered(w, limit) {
      return db.query<UnansweredQuestion>(
        `SELECT kind, answer_id, conversation_id, answer, question, ${iso('at', 'created_at')} FROM (
           SELECT 'chat' AS kind, m.id::text AS answer_id, c.id::text AS conversation_id, m.content AS answer, ${QUESTION} AS question,
                  m.created_at AS at
             FROM conversations c JOIN conversation_messages m ON m.conversation_id = c.id
            WHERE c.organisation_id = $1 AND ($4::uuid IS NULL OR c.integration_id = $4) AND c.updated_at >= $2
              AND m.role = 'assistant' AND m.citations = '[]'::jsonb AND m.created_at >= $2 AND m.created_at < $3
           UNION ALL
           SELECT 'summary', message_id, NULL, NULL, query, created_at
             FROM answer_log WHERE ${IN_WINDOW} AND NOT relevant
         ) x ORDER BY at DESC, answer_id LIMIT $5`,
        [...window(w), limit],
      );
    },

    async recordSummary(scope, row) {
      await db.query(
        `INSERT INTO answer_log (organisation_id, integration_id, message_id, query, relevant)
         SELECT $1, i.id, $3, $4, $5 FROM integrations i WHERE i.id = $2 AND i.organisation_id = $1`,
        [scope.organisationId, row.integrationId, row.messageId, row.query, row.relevant],
      );
    },

    async conversations(w, { page, perPage }) {
      const where = 'c.organisation_id = $1 AND c.created_at >= $2 AND c.created_at < $3 AND ($4::uuid IS NULL OR c.integration_id = $4)';
      const [count] = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM conversations c WHERE ${where}`, window(w));
      const items = await db.query<ConversationListItem>(
        `SELECT c.id::text AS id, c.integration_id::text AS integration_id, c.widget_id, c.visitor_id, c.title,
                (SELECT count(*)::int FROM conversation_messages m WHERE m.conversation_id = c.id) AS message_count,
                ${iso('c.created_at', 'created_at')}, ${iso('c.updated_at', 'updated_at')}
           FROM conversations c WHERE ${where} ORDER BY c.created_at DESC, c.id LIMIT $5 OFFSET $6`,
        [...window(w), perPage, (page - 1) * perPage],
      );
      return { items, total: count!.total, page, perPage };
    },

    async conversation(scope, id) {
      const [conversation] = await db.query<Omit<ConversationTranscript, 'messages'>>(
        `SELECT c.id::text AS id, c.integration_id::text AS integration_id, c.widget_id, c.visitor_id, c.title,
                ${iso('c.created_at', 'created_at')}, ${iso('c.updated_at', 'updated_at')}
           FROM conversations c WHERE c.id = $1 AND c.organisation_id = $2`,
        [id, scope.organisationId],
      );
      if (!conversation) return null;
      // Feedback names an answer by its message id; only this organisation's events count.
      const messages = await db.query<TranscriptMessage>(
        `SELECT m.id::text AS id, m.role, m.content, m.citations, ${iso('m.created_at', 'created_at')},
                count(f.kind) FILTER (WHERE f.kind = 'thumbs_up')::int AS thumbs_up,
                count(f.kind) FILTER (WHERE f.kind = 'thumbs_down')::int AS thumbs_down
           FROM conversation_messages m
           LEFT JOIN LATERAL (
             SELECT w.name AS kind FROM widget_events w
              WHERE w.organisation_id = $2 AND w.answer_id = m.id::text AND w.name IN ('thumbs_up', 'thumbs_down')
             UNION ALL
             SELECT e.event_type FROM integration_events e
              WHERE e.integration_id = $3 AND e.event_type IN ('thumbs_up', 'thumbs_down') AND ${API_ANSWER_ID} = m.id::text
           ) f ON true
          WHERE m.conversation_id = $1
          GROUP BY m.id, m.seq ORDER BY m.seq`,
        [id, scope.organisationId, conversation.integration_id],
      );
      return { ...conversation, messages };
    },
  };
}
