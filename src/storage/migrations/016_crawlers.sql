-- Website crawlers of collections, run by the server (domain/crawlers.ts): what to crawl, how
-- often, and the state of their runs. One process runs a crawler at a time: it holds the
-- lease (`leased_until`) and renews it while it works; a lease left by a process that died
-- expires and another process takes the crawler up.

CREATE TABLE crawlers (
  id              uuid        PRIMARY KEY,
  seq             bigint      GENERATED ALWAYS AS IDENTITY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  collection_id   uuid        NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  start_url       text        NOT NULL,
  include         text[]      NOT NULL DEFAULT '{}',
  exclude         text[]      NOT NULL DEFAULT '{}',
  max_pages       integer     NOT NULL,
  keep_gone       boolean     NOT NULL DEFAULT false,
  -- Hours between the starts of two runs; NULL: only when asked (POST …/run).
  schedule_hours  integer,
  next_run_at     timestamptz,
  leased_until    timestamptz NOT NULL DEFAULT '-infinity',
  -- While a run goes on: pages found, fetched, written, failed.
  progress        jsonb,
  -- The last finished run: times, outcome and report.
  last_run        jsonb,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX crawlers_collection ON crawlers (collection_id, seq);
CREATE INDEX crawlers_due ON crawlers (next_run_at) WHERE next_run_at IS NOT NULL;
