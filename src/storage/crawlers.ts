import type { ClaimedCrawler, Crawler, CrawlerRepository, CrawlTarget, OrganisationCrawls } from '../domain/crawl/port.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

const COLUMNS = `id, collection_id, start_url, include, exclude, max_pages, keep_gone, sections, schedule_hours,
  CASE WHEN leased_until > clock_timestamp() THEN 'running'
       WHEN run IS NOT NULL AND leased_until > '-infinity' THEN 'interrupted'
       WHEN next_run_at <= clock_timestamp() OR run IS NOT NULL THEN 'queued' ELSE 'idle' END AS status,
  ${iso('next_run_at')}, progress, ${iso('CASE WHEN run IS NOT NULL THEN seen_at END', 'last_seen_at')}, last_run, ${iso('created_at')}, ${iso('updated_at')}`;

/** Whether a crawler (of table alias `t`, when given) can be taken: due, or with a run in progress, and not leased. */
const takeable = (t = '') => `(${t}next_run_at <= clock_timestamp() OR ${t}run IS NOT NULL) AND ${t}leased_until <= clock_timestamp()`;
/** The crawlers of a group that a process holds now. */
const RUNNING = 'count(*) FILTER (WHERE leased_until > clock_timestamp())';
/** A run's progress before it has done anything. */
const NO_PROGRESS = `'{"found":0,"fetched":0,"written":0,"failed":0}'::jsonb`;

export function createCrawlerRepository(db: Db): CrawlerRepository {
  const get = async (organisationId: number, collectionId: string, id: string) => {
    const [row] = await db.query<Crawler>(`SELECT ${COLUMNS} FROM crawlers WHERE id = $1 AND collection_id = $2 AND organisation_id = $3`, [id, collectionId, organisationId]);
    return row ?? null;
  };

  return {
    async list(scope, collectionId, { page, perPage }) {
      const [count] = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM crawlers WHERE collection_id = $1 AND organisation_id = $2', [collectionId, scope.organisationId]);
      const items = await db.query<Crawler>(
        `SELECT ${COLUMNS} FROM crawlers WHERE collection_id = $1 AND organisation_id = $2 ORDER BY seq LIMIT $3 OFFSET $4`,
        [collectionId, scope.organisationId, perPage, (page - 1) * perPage],
      );
      return { items, total: count!.total, page, perPage };
    },

    get: (scope, collectionId, id) => get(scope.organisationId, collectionId, id),

    async create(scope, collectionId, id, s, limit) {
      // Two creations at once may both see one slot left: the limit is a bound, not a quota.
      const rows = await db.query(
        `INSERT INTO crawlers (id, organisation_id, collection_id, start_url, include, exclude, max_pages, keep_gone, schedule_hours, sections, next_run_at)
         SELECT $1, $2, $3, $4, $5::text[], $6::text[], $7, $8, $9, $10, clock_timestamp()
         WHERE (SELECT count(*) FROM crawlers WHERE organisation_id = $2) < $11
         RETURNING id`,
        [id, scope.organisationId, collectionId, s.start_url, s.include, s.exclude, s.max_pages, s.keep_gone, s.schedule_hours, s.sections, limit],
      );
      return rows.length > 0 ? (await get(scope.organisationId, collectionId, id))! : null;
    },

    async update(scope, collectionId, id, s) {
      // A schedule set or changed counts from the last run's start (or now, with none).
      const rows = await db.query(
        `UPDATE crawlers SET start_url = $4, include = $5::text[], exclude = $6::text[], max_pages = $7, keep_gone = $8, schedule_hours = $9, sections = $10,
           next_run_at = CASE
             WHEN $9::int IS NULL THEN CASE WHEN next_run_at <= clock_timestamp() THEN next_run_at END
             WHEN schedule_hours IS DISTINCT FROM $9::int
               THEN coalesce((last_run->>'started_at')::timestamptz, clock_timestamp()) + make_interval(hours => $9::int)
             ELSE next_run_at END,
           updated_at = clock_timestamp()
         WHERE id = $1 AND collection_id = $2 AND organisation_id = $3 RETURNING id`,
        [id, collectionId, scope.organisationId, s.start_url, s.include, s.exclude, s.max_pages, s.keep_gone, s.schedule_hours, s.sections],
      );
      return rows.length ? get(scope.organisationId, collectionId, id) : null;
    },

    async delete(scope, collectionId, id) {
      const rows = await db.query('DELETE FROM crawlers WHERE id = $1 AND collection_id = $2 AND organisation_id = $3 RETURNING id', [id, collectionId, scope.organisationId]);
      return rows.length > 0;
    },

    async requestRun(scope, collectionId, id) {
      const rows = await db.query(
        `UPDATE crawlers SET next_run_at = least(coalesce(next_run_at, clock_timestamp()), clock_timestamp())
         WHERE id = $1 AND collection_id = $2 AND organisation_id = $3 RETURNING id`,
        [id, collectionId, scope.organisationId],
      );
      return rows.length > 0;
    },

    async claimDue(leaseSeconds, runsPerOrganisation) {
      // Organisations in turn (the one holding fewest runs, then the one that took a crawler
      // longest ago), and within one its crawlers in turn (never taken, then taken longest
      // ago): one that queued many crawlers at once does not hold up another's. (Two processes
      // claiming at once may both see one run left: a bound, not a quota.)
      const [row] = await db.query<ClaimedCrawler & { organisation_id: number }>(
        `UPDATE crawlers SET leased_until = clock_timestamp() + make_interval(secs => $1), claimed_at = clock_timestamp(), seen_at = clock_timestamp(),
           progress = CASE WHEN run IS NULL THEN ${NO_PROGRESS} ELSE progress END
         WHERE id = (WITH orgs AS (
                       SELECT organisation_id, ${RUNNING} AS running, max(claimed_at) AS last_claimed
                       FROM crawlers GROUP BY organisation_id)
                     SELECT c.id FROM crawlers c JOIN orgs o ON o.organisation_id = c.organisation_id
                     WHERE ${takeable('c.')} AND o.running < $2
                     ORDER BY o.running, o.last_claimed NULLS FIRST, c.claimed_at NULLS FIRST, c.next_run_at NULLS LAST LIMIT 1 FOR UPDATE OF c SKIP LOCKED)
           AND ${takeable()}
         RETURNING id, organisation_id, collection_id, start_url, include, exclude, max_pages, keep_gone, sections, schedule_hours, run`,
        [leaseSeconds, runsPerOrganisation],
      );
      if (!row) return null;
      const { organisation_id, ...crawler } = row;
      return { ...crawler, organisationId: organisation_id };
    },

    organisations() {
      return db.query<OrganisationCrawls>(
        `SELECT organisation_id AS "organisationId", ${RUNNING}::int AS running, coalesce(bool_or(${takeable()}), false) AS waiting
         FROM crawlers GROUP BY organisation_id
         HAVING ${RUNNING} > 0 OR bool_or(${takeable()})`,
      );
    },

    async frontier(id) {
      const rows = await db.query<CrawlTarget & { settled: boolean }>('SELECT url, location, settled FROM crawl_frontier WHERE crawler_id = $1 ORDER BY seq', [id]);
      return { pending: rows.filter((r) => !r.settled).map(({ url, location }) => ({ url, location })), settled: new Set(rows.filter((r) => r.settled).map((r) => r.url)) };
    },

    begin(id, run, leaseSeconds) {
      return db.transaction(async (tx) => {
        const rows = await tx.query(
          `UPDATE crawlers SET run = $2::jsonb, progress = ${NO_PROGRESS},
             leased_until = clock_timestamp() + make_interval(secs => $3), seen_at = clock_timestamp() WHERE id = $1 RETURNING id`,
          [id, JSON.stringify(run), leaseSeconds],
        );
        if (rows.length === 0) return false;
        await tx.query('DELETE FROM crawl_frontier WHERE crawler_id = $1', [id]);
        return true;
      });
    },

    async progress(id, progress, leaseSeconds) {
      const rows = await db.query(
        `UPDATE crawlers SET progress = $2::jsonb, leased_until = clock_timestamp() + make_interval(secs => $3), seen_at = clock_timestamp() WHERE id = $1 RETURNING id`,
        [id, JSON.stringify(progress), leaseSeconds],
      );
      return rows.length > 0;
    },

    checkpoint(id, { found, settled, run, progress }, leaseSeconds) {
      return db.transaction(async (tx) => {
        const rows = await tx.query(
          `UPDATE crawlers SET run = $2::jsonb, progress = $3::jsonb, leased_until = clock_timestamp() + make_interval(secs => $4), seen_at = clock_timestamp() WHERE id = $1 RETURNING id`,
          [id, JSON.stringify(run), JSON.stringify(progress), leaseSeconds],
        );
        if (rows.length === 0) return false;
        if (found.length > 0) {
          // In the order found: a run that goes on fetches them in that order.
          await tx.query(
            `INSERT INTO crawl_frontier (crawler_id, url, location, settled)
             SELECT $1, f.url, f.location, f.settled FROM unnest($2::text[], $3::text[], $4::boolean[]) WITH ORDINALITY AS f(url, location, settled, n) ORDER BY f.n
             ON CONFLICT (crawler_id, url) DO NOTHING`,
            [id, found.map((f) => f.url), found.map((f) => f.location), found.map((f) => f.settled)],
          );
        }
        if (settled.length > 0) await tx.query('UPDATE crawl_frontier SET settled = true WHERE crawler_id = $1 AND url = ANY($2::text[]) AND NOT settled', [id, settled]);
        return true;
      });
    },

    async release(id) {
      await db.query("UPDATE crawlers SET leased_until = '-infinity' WHERE id = $1", [id]);
    },

    async expireLeases() {
      await db.query('UPDATE crawlers SET leased_until = clock_timestamp() WHERE leased_until > clock_timestamp()');
    },

    async finish(id, run) {
      await db.transaction(async (tx) => {
        await tx.query(
          `UPDATE crawlers SET last_run = $2::jsonb, progress = NULL, run = NULL, leased_until = '-infinity',
             next_run_at = CASE WHEN schedule_hours IS NULL THEN NULL
                                ELSE greatest($3::timestamptz + make_interval(hours => schedule_hours), clock_timestamp()) END,
             updated_at = clock_timestamp()
           WHERE id = $1`,
          [id, JSON.stringify(run), run.started_at],
        );
        await tx.query('DELETE FROM crawl_frontier WHERE crawler_id = $1', [id]);
      });
    },
  };
}
