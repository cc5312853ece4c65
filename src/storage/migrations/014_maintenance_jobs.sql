-- Maintenance that one process runs for all (storage/maintenance.ts): chunks written by every
-- process since the job last ran, and until when a process holds the job.

CREATE TABLE maintenance_jobs (
  job          text        PRIMARY KEY,
  pending      bigint      NOT NULL DEFAULT 0,
  leased_until timestamptz NOT NULL DEFAULT '-infinity'
);
