-- Chat conversations and their messages (with the citations each answer made).

CREATE TABLE conversations (
  id              uuid        PRIMARY KEY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  integration_id  uuid        NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  title           text        NOT NULL,
  kept            boolean     NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX conversations_integration ON conversations (integration_id, created_at);

CREATE TABLE conversation_messages (
  id              uuid        PRIMARY KEY,
  seq             bigint      GENERATED ALWAYS AS IDENTITY,
  conversation_id uuid        NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  role            text        NOT NULL CHECK (role IN ('user', 'assistant')),
  content         text        NOT NULL,
  citations       jsonb       NOT NULL DEFAULT '[]',
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX conversation_messages_conversation ON conversation_messages (conversation_id, seq);
