-- Analytics: every search (written after the response) and integration events.

CREATE TABLE search_log (
  id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  integration_id  uuid        NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  query           text        NOT NULL,
  result_count    integer     NOT NULL,
  top_score       real,
  latency_ms      real        NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX search_log_integration ON search_log (integration_id, created_at);

CREATE TABLE integration_events (
  id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  integration_id  uuid        NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  event_type      text        NOT NULL,
  meta            jsonb       NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX integration_events_integration ON integration_events (integration_id, created_at);
