-- Search at scale (docs/SEARCH.md, "How the work is bounded").
--
-- 1. Vectors leave the wide chunk rows for a narrow table of their own: with the text beside
--    them a 384-d vector was TOASTed and detoasted for every cosine; a narrow row (~1.6 kB)
--    lives inline, five to a page, read by primary key. (Stored in full precision: on PGlite,
--    WebAssembly without F16C, half-precision distances measured 2x slower and HNSW builds 5x.)
-- 2. Postings carry an impact (the BM25 term-frequency factor at the collection's average
--    length when written) in an index ordered by it, so a query term reads its best postings
--    first and stops after a bounded number; exact scores are recomputed for the candidates.
--    The probe "does chunk c contain term t" is served by the primary key (chunk_id, term).
-- 3. Embeddings are reused by (collection, content hash) from an index instead of a scan of
--    the collection's chunks on every write.

CREATE TABLE chunk_vectors (
  chunk_id      bigint  PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
  collection_id uuid    NOT NULL,
  dims          integer NOT NULL,
  embedding     vector  NOT NULL
);
INSERT INTO chunk_vectors (chunk_id, collection_id, dims, embedding)
  SELECT id, collection_id, dims, embedding FROM chunks;
-- A search over few chunks compares their vectors exactly, reading its own rows through this
-- index, instead of filtering the HNSW graph that every organisation shares (search.ts).
CREATE INDEX chunk_vectors_collection ON chunk_vectors (collection_id);
-- Drops the per-dimension HNSW indexes on chunks with it; ensureVectorIndex builds the new one.
ALTER TABLE chunks DROP COLUMN embedding;

DROP INDEX chunks_content_hash;
CREATE INDEX chunks_content_hash ON chunks (collection_id, content_hash);

CREATE TABLE chunk_postings (
  collection_id uuid    NOT NULL,
  term          text    NOT NULL,
  chunk_id      bigint  NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  tf            integer NOT NULL,
  length        integer NOT NULL,
  impact        real    NOT NULL
);
INSERT INTO chunk_postings (collection_id, term, chunk_id, tf, length, impact)
  SELECT t.collection_id, t.term, t.chunk_id, t.tf, t.length,
    t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * t.length / greatest(s.total_length::float8 / nullif(s.chunk_count, 0), 1)))
  FROM chunk_terms t JOIN collection_stats s ON s.collection_id = t.collection_id;
DROP TABLE chunk_terms;
ALTER TABLE chunk_postings RENAME TO chunk_terms;
ALTER TABLE chunk_terms RENAME CONSTRAINT chunk_postings_chunk_id_fkey TO chunk_terms_chunk_id_fkey;
ALTER TABLE chunk_terms ADD CONSTRAINT chunk_terms_pkey PRIMARY KEY (chunk_id, term) INCLUDE (tf, length);
CREATE INDEX chunk_terms_impact ON chunk_terms (collection_id, term, impact DESC) INCLUDE (chunk_id);
