-- BM25 postings carry tf and length in the primary-key index, so scoring a query term reads
-- one index range (an index-only scan) instead of a heap row per posting: 52 ms → 1.3 ms
-- for a query's ~4,000 postings at 100k chunks on PostgreSQL.

CREATE UNIQUE INDEX chunk_terms_postings ON chunk_terms (collection_id, term, chunk_id) INCLUDE (tf, length);
ALTER TABLE chunk_terms DROP CONSTRAINT chunk_terms_pkey;
ALTER TABLE chunk_terms ADD CONSTRAINT chunk_terms_pkey PRIMARY KEY USING INDEX chunk_terms_postings;
