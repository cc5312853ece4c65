-- Languages present in each collection (chunk counts), maintained with the postings, so a
-- search learns them without scanning the collection's chunks.

CREATE TABLE collection_languages (
  collection_id uuid    NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  language      text    NOT NULL,
  chunk_count   integer NOT NULL,
  PRIMARY KEY (collection_id, language)
);

INSERT INTO collection_languages (collection_id, language, chunk_count)
  SELECT collection_id, language, count(*)::int FROM chunks GROUP BY collection_id, language;
