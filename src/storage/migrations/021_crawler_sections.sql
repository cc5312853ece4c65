-- A crawler may make an entry per section of a page (as `lore crawl --sections` does) instead
-- of one a page; existing crawlers keep one a page.
ALTER TABLE crawlers ADD COLUMN sections boolean NOT NULL DEFAULT false;
