-- Chat prefers the page the visitor is on (domain/search.ts): an entry's page is its source_url
-- without fragment, query and trailing slashes, found through this index.

CREATE INDEX entries_page ON entries (collection_id, (rtrim(split_part(split_part(source_url, '#', 1), '?', 1), '/')))
  WHERE source_url IS NOT NULL;
