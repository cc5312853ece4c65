-- Monthly usage per organisation (calendar months in UTC, period 'YYYY-MM'). Each process
-- counts in memory and adds its counts here about once a second, so no request waits on
-- a write; the quota check reads these totals plus what the process has not written yet.
CREATE TABLE usage_counters (
  organisation_id integer NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  period          text    NOT NULL CHECK (period ~ '^[0-9]{4}-[0-9]{2}$'),
  requests        bigint  NOT NULL DEFAULT 0,
  answers         bigint  NOT NULL DEFAULT 0,
  PRIMARY KEY (organisation_id, period)
);
