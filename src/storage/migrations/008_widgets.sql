-- Widgets: a browser embed (search or chat) over one integration, keyed publicly as
-- `{organisation public_id}/{widget id}`. Only the SHA-256 of the secret key is kept. The
-- identity signing secret must stay usable to verify visitor HMACs, so it is kept as-is;
-- it is read only to verify visitor hashes, never into API responses (see storage/widgets.ts).
CREATE TABLE widgets (
  id              text        PRIMARY KEY,
  seq             bigint      GENERATED ALWAYS AS IDENTITY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  integration_id  uuid        NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  type            text        NOT NULL CHECK (type IN ('search', 'chat')),
  name            text        NOT NULL,
  websites        text[]      NOT NULL DEFAULT '{}',
  config          jsonb       NOT NULL DEFAULT '{}',
  secret_hash     bytea       NOT NULL,
  identity_secret text        NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX widgets_organisation ON widgets (organisation_id, seq);

-- Analytics events reported by widget clients (clicks on results, summaries, …).
CREATE TABLE widget_events (
  id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  widget_id       text        NOT NULL REFERENCES widgets(id) ON DELETE CASCADE,
  name            text        NOT NULL,
  url             text,
  rank            integer,
  source          text,
  session_id      text,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX widget_events_widget ON widget_events (widget_id, created_at);
