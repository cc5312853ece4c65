import type { ClaimedCrawler, Crawler, CrawlerRepository } from '../domain/crawl/port.js';
import type { Db } from './db.js';
import { iso } from './sql.js';

const COLUMNS = `id, collection_id, start_url, include, exclude, max_pages, keep_gone, sections, schedule_hours,
  CASE WHEN leased_until > clock_timestamp() THEN 'running'
       WHEN next_run_at <= clock_timestamp() THEN 'queued' ELSE 'idle' END AS status,
  ${iso('next_run_at')}, progress, last_run, ${iso('created_at')}, ${iso('updated_at')}`;

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
      // Organisations in turn: one that queued many crawlers at once does not hold up another's.
      // (Two processes claiming at once may both see one run left: a bound, not a quota.)
      const [row] = await db.query<ClaimedCrawler & { organisation_id: number }>(
        `UPDATE crawlers SET leased_until = clock_timestamp() + make_interval(secs => $1), progress = '{"found":0,"fetched":0,"written":0,"failed":0}'::jsonb
         WHERE id = (WITH orgs AS (
                       SELECT organisation_id,
                         count(*) FILTER (WHERE leased_until > clock_timestamp()) AS running,
                         max(CASE WHEN leased_until > clock_timestamp() THEN clock_timestamp() ELSE (last_run->>'started_at')::timestamptz END) AS last_started
                       FROM crawlers GROUP BY organisation_id)
                     SELECT c.id FROM crawlers c JOIN orgs o ON o.organisation_id = c.organisation_id
                     WHERE c.next_run_at <= clock_timestamp() AND c.leased_until <= clock_timestamp() AND o.running < $2
                     ORDER BY o.running, o.last_started NULLS FIRST, c.next_run_at LIMIT 1 FOR UPDATE OF c SKIP LOCKED)
           AND leased_until <= clock_timestamp()
         RETURNING id, organisation_id, collection_id, start_url, include, exclude, max_pages, keep_gone, sections, schedule_hours`,
        [leaseSeconds, runsPerOrganisation],
      );
      if (!row) return null;
      const { organisation_id, ...crawler } = row;
      return { ...crawler, organisationId: organisation_id };
    },

    async progress(id, progress, leaseSeconds) {
      const rows = await db.query(
        `UPDATE crawlers SET progress = $2::jsonb, leased_until = clock_timestamp() + make_interval(secs => $3) WHERE id = $1 RETURNING id`,
        [id, JSON.stringify(progress), leaseSeconds],
      );
      return rows.length > 0;
    },

    async finish(id, run) {
      await db.query(
        `UPDATE crawlers SET last_run = $2::jsonb, progress = NULL, leased_until = '-infinity',
           next_run_at = CASE WHEN schedule_hours IS NULL THEN NULL
                              ELSE greatest($3::timestamptz + make_interval(hours => schedule_hours), clock_timestamp()) END,
           updated_at = clock_timestamp()
         WHERE id = $1`,
        [id, JSON.stringify(run), run.started_at],
      );
    },
  };
}
