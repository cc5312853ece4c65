-- Searches counted by UTC day and query (lower-cased, trimmed), written with the search log's
-- batches: the console's activity and top queries read a month of these instead of every
-- search of the month (bench:analytics). Built here from the searches logged so far.
CREATE TABLE search_daily (
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  integration_id  uuid        NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  day             date        NOT NULL,
  query           text        NOT NULL,
  searches        integer     NOT NULL,
  no_results      integer     NOT NULL,
  sum_results     bigint      NOT NULL,
  sum_top_score   double precision NOT NULL,
  scored          integer     NOT NULL,
  last_at         timestamptz NOT NULL,
  PRIMARY KEY (integration_id, day, query)
);
CREATE INDEX search_daily_organisation ON search_daily (organisation_id, day);

INSERT INTO search_daily (organisation_id, integration_id, day, query, searches, no_results, sum_results, sum_top_score, scored, last_at)
SELECT organisation_id, integration_id, (created_at AT TIME ZONE 'UTC')::date, lower(btrim(query)),
       count(*), count(*) FILTER (WHERE result_count = 0), sum(result_count), coalesce(sum(top_score::float8), 0), count(top_score), max(created_at)
  FROM search_log
 GROUP BY 1, 2, 3, 4;
