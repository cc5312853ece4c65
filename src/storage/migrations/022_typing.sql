-- Search as people type (docs/SEARCH.md, "Prefixes and typos"). The word being typed matches
-- the terms it begins, and a query term found nowhere matches the terms within one or two
-- edits of it. Both read the collection's dictionary (collection_terms, kept exact by every
-- write in its transaction): the terms a prefix begins are a range in byte order, and a
-- typo's candidates share trigrams with it (pg_trgm), confirmed by their edit distance
-- (fuzzystrmatch). btree_gin puts the collection into the trigram index, so one tenant's
-- lookup never reads another's terms. Neither index holds df, so the df updates of every
-- write stay heap-only where the page has room.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX collection_terms_prefix ON collection_terms (collection_id, term COLLATE "C");
CREATE INDEX collection_terms_trigrams ON collection_terms USING gin (collection_id, term gin_trgm_ops);
