import type { UsageMonth, UsageRepository, UsageTotal } from '../domain/access/port.js';
import type { Db } from './db.js';

export function createUsageRepository(db: Db): UsageRepository {
  return {
    async takeCredit(scope, requests) {
      // One statement: the conditional UPDATE is the atomic part (row lock, re-checked
      // credits and quota); the reads tell unlimited (null) from exhausted and return the
      // quota as stored now, so an admin's change applies to the very next answer, whichever
      // process serves it.
      const [row] = await db.query<{ taken: boolean; unlimited: boolean; quota: number | null }>(
        `WITH taken AS (
           UPDATE organisations SET answer_credits = answer_credits - 1
            WHERE id = $1 AND answer_credits > 0 AND (usage_quota IS NULL OR $2 <= usage_quota) RETURNING id)
         SELECT EXISTS (SELECT 1 FROM taken) AS taken, o.answer_credits IS NULL AS unlimited, o.usage_quota AS quota
           FROM organisations o WHERE o.id = $1`,
        [scope.organisationId, requests],
      );
      if (!row) return { credit: 'exhausted', usageQuota: null };
      return { credit: row.taken ? 'taken' : row.unlimited ? 'unlimited' : 'exhausted', usageQuota: row.quota };
    },

    async returnCredit(scope) {
      await db.query('UPDATE organisations SET answer_credits = answer_credits + 1 WHERE id = $1 AND answer_credits IS NOT NULL', [
        scope.organisationId,
      ]);
    },

    async month(scope, period) {
      const [row] = await db.query<UsageMonth>(
        `SELECT o.answer_credits AS "answerCredits", o.usage_quota AS "usageQuota",
                coalesce(c.requests, 0)::float8 AS requests, coalesce(c.answers, 0)::float8 AS answers
           FROM organisations o
           LEFT JOIN usage_counters c ON c.organisation_id = o.id AND c.period = $2
          WHERE o.id = $1`,
        [scope.organisationId, period],
      );
      return row ?? { answerCredits: null, usageQuota: null, requests: 0, answers: 0 };
    },

    async add(deltas) {
      if (deltas.length === 0) return [];
      // The join drops organisations deleted since their requests were counted.
      return db.query<UsageTotal>(
        `WITH added AS (
           INSERT INTO usage_counters (organisation_id, period, requests, answers)
           SELECT d.organisation_id, d.period, d.requests, d.answers
             FROM unnest($1::int[], $2::text[], $3::bigint[], $4::bigint[]) AS d(organisation_id, period, requests, answers)
             JOIN organisations o ON o.id = d.organisation_id
           ON CONFLICT (organisation_id, period) DO UPDATE
             SET requests = usage_counters.requests + EXCLUDED.requests,
                 answers = usage_counters.answers + EXCLUDED.answers
           RETURNING organisation_id, period, requests)
         SELECT a.organisation_id AS "organisationId", a.period, a.requests::float8 AS requests, o.usage_quota AS "usageQuota"
           FROM added a JOIN organisations o ON o.id = a.organisation_id`,
        [deltas.map((d) => d.organisationId), deltas.map((d) => d.period), deltas.map((d) => d.requests), deltas.map((d) => d.answers)],
      );
    },

    async totals(period, organisationIds) {
      if (organisationIds.length === 0) return [];
      return db.query<UsageTotal>(
        `SELECT o.id AS "organisationId", $1::text AS period, coalesce(c.requests, 0)::float8 AS requests, o.usage_quota AS "usageQuota"
           FROM organisations o
           LEFT JOIN usage_counters c ON c.organisation_id = o.id AND c.period = $1
          WHERE o.id = ANY($2::int[])`,
        [period, organisationIds],
      );
    },
  };
}
