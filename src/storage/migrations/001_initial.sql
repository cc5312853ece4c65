-- Organisations, credentials, collections, entries, chunks and BM25 statistics.

CREATE TABLE organisations (
  id             integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  public_id      text        NOT NULL UNIQUE,
  name           text        NOT NULL,
  answer_credits integer,
  usage_quota    integer,
  created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- API v1 bearer tokens: `lore_<id>_<secret>`; only the SHA-256 of the whole token is kept.
CREATE TABLE api_tokens (
  id              text        PRIMARY KEY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  token_hash      bytea       NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  revoked_at      timestamptz
);
CREATE INDEX api_tokens_organisation ON api_tokens (organisation_id);

CREATE TABLE collections (
  id              uuid        PRIMARY KEY,
  seq             bigint      GENERATED ALWAYS AS IDENTITY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  name            text        NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- Lists are in creation order; `seq` breaks ties between rows created in the same instant.
CREATE INDEX collections_organisation ON collections (organisation_id, seq);

CREATE TABLE entries (
  id              uuid        PRIMARY KEY,
  seq             bigint      GENERATED ALWAYS AS IDENTITY,
  organisation_id integer     NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  collection_id   uuid        NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  title           text,
  raw_text        text        NOT NULL,
  meta            jsonb       NOT NULL DEFAULT '{}',
  searchable_meta jsonb       NOT NULL DEFAULT '{}',
  source_url      text,
  source_type     text,
  source_id       text,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX entries_collection ON entries (collection_id, seq);
-- Upsert identity: (source_type, source_id) is unique within a collection when both are set.
CREATE UNIQUE INDEX entries_source ON entries (collection_id, source_type, source_id)
  WHERE source_type IS NOT NULL AND source_id IS NOT NULL;

-- One row per chunk. `content_hash` covers the embedded text and the model, so an
-- unchanged chunk keeps its embedding across updates. Embeddings have no fixed dimension
-- in the column; HNSW indexes are built per dimension on an expression.
CREATE TABLE chunks (
  id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  entry_id        uuid        NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
  collection_id   uuid        NOT NULL,
  organisation_id integer     NOT NULL,
  ordinal         integer     NOT NULL,
  text            text        NOT NULL,
  headings        text[]      NOT NULL DEFAULT '{}',
  language        text        NOT NULL,
  content_hash    text        NOT NULL,
  model           text        NOT NULL,
  dims            integer     NOT NULL,
  embedding       vector      NOT NULL,
  length          integer     NOT NULL,
  UNIQUE (entry_id, ordinal)
);
CREATE INDEX chunks_collection ON chunks (collection_id);
CREATE INDEX chunks_content_hash ON chunks (entry_id, content_hash);

-- BM25 postings: term frequency of each term in each chunk, with the chunk's length
-- (copied here so scoring reads only this table's index).
CREATE TABLE chunk_terms (
  collection_id uuid    NOT NULL,
  term          text    NOT NULL,
  chunk_id      bigint  NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  tf            integer NOT NULL,
  length        integer NOT NULL,
  PRIMARY KEY (collection_id, term, chunk_id)
);
CREATE INDEX chunk_terms_chunk ON chunk_terms (chunk_id);

-- BM25 collection statistics, maintained in the same transaction as the postings.
CREATE TABLE collection_terms (
  collection_id uuid    NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  term          text    NOT NULL,
  df            integer NOT NULL,
  PRIMARY KEY (collection_id, term)
);

CREATE TABLE collection_stats (
  collection_id uuid    PRIMARY KEY REFERENCES collections(id) ON DELETE CASCADE,
  chunk_count   integer NOT NULL DEFAULT 0,
  total_length  bigint  NOT NULL DEFAULT 0
);
