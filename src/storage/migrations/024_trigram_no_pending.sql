-- The typo dictionary's trigram index keeps no pending list (docs/SEARCH.md, "Prefixes and
-- typos"). With GIN's fast update, the index entries of every new collection_terms row wait in
-- an unsorted pending list until a VACUUM (the maintenance job's, every 2,000 chunks written)
-- or 4 MB of them, and every typo lookup reads the whole list, every tenant's entries in it.
-- Measured right after importing SciFact's abstracts and two XQuAD collections (15k chunks):
-- 397 pending pages on PostgreSQL, a mistyped word's lookup up to 89 ms and search p95 53.8 ms;
-- on PGlite up to 150 ms and p95 80 ms. Without the list, 2.4 and 3.5 ms p95 for the lexical
-- stage, and ingest 1-4 % slower (the entries go straight into the index). The list already
-- there is merged now: turning fast update off does not flush it.
ALTER INDEX collection_terms_trigrams SET (fastupdate = off);
SELECT gin_clean_pending_list('collection_terms_trigrams'::regclass);
