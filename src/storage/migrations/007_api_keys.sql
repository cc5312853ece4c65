-- Organisation API keys: `lore_key_<id>_<secret>`; only the SHA-256 of the whole key is kept.
-- `source_ids` limits the key to those collections; NULL means every collection of the
-- organisation. A deleted collection simply drops out of the limit (never widening it).
CREATE TABLE api_keys (
  id              text        PRIMARY KEY,
  seq             bigint      GENERATED ALWAYS AS IDENTITY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name            text        NOT NULL,
  key_hash        bytea       NOT NULL,
  permissions     text[]      NOT NULL,
  source_ids      uuid[],
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  revoked_at      timestamptz
);
CREATE INDEX api_keys_organisation ON api_keys (organisation_id, seq) WHERE revoked_at IS NULL;
