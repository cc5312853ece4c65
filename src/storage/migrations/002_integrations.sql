-- Integrations: a chatbot, search box or custom client over one or more collections.

CREATE TABLE integrations (
  id              uuid        PRIMARY KEY,
  seq             bigint      GENERATED ALWAYS AS IDENTITY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name            text        NOT NULL,
  project         text,
  type            text        NOT NULL CHECK (type IN ('chatbot', 'search_box', 'custom')),
  allowed_domains text[],
  is_active       boolean     NOT NULL DEFAULT true,
  settings        jsonb       NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX integrations_organisation ON integrations (organisation_id, seq);

CREATE TABLE integration_collections (
  integration_id uuid    NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  collection_id  uuid    NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  position       integer NOT NULL,
  PRIMARY KEY (integration_id, collection_id)
);
CREATE INDEX integration_collections_collection ON integration_collections (collection_id);
