-- Resumable crawl runs (domain/crawl/crawlers.ts). A run in progress keeps in the database what
-- it has done — its report so far (`run`) and its frontier: every URL it queued, in order, and
-- whether its result is written (`settled`) — saved with each small batch of pages written. A
-- run whose process died, or that gave its slot to another organisation's crawl, continues
-- from there in whichever process takes it next. `claimed_at`: when a process last took the
-- crawler (organisations take turns by it); `seen_at`: when the process running it last
-- renewed its lease (an interrupted run shows it).
ALTER TABLE crawlers ADD COLUMN run jsonb;
ALTER TABLE crawlers ADD COLUMN claimed_at timestamptz;
ALTER TABLE crawlers ADD COLUMN seen_at timestamptz;

CREATE TABLE crawl_frontier (
  crawler_id uuid    NOT NULL REFERENCES crawlers(id) ON DELETE CASCADE,
  seq        bigint  GENERATED ALWAYS AS IDENTITY,
  url        text    NOT NULL,
  location   text    NOT NULL,
  settled    boolean NOT NULL DEFAULT false,
  PRIMARY KEY (crawler_id, url)
);
CREATE INDEX crawl_frontier_order ON crawl_frontier (crawler_id, seq);
