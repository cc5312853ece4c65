-- Summaries asked for (search modals, the summarise API), for analytics: what was asked,
-- whether anything relevant was found, and the answer's message id, which feedback names.
-- Chat answers are in conversation_messages.
CREATE TABLE answer_log (
  id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  integration_id  uuid        NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  message_id      text        NOT NULL,
  query           text        NOT NULL,
  relevant        boolean     NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX answer_log_organisation ON answer_log (organisation_id, created_at);
CREATE INDEX answer_log_integration ON answer_log (integration_id, created_at);
CREATE INDEX answer_log_message ON answer_log (message_id);
