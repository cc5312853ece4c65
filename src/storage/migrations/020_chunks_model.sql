-- Chunks by the model that embedded them: a server's start finds those of another model
-- (`lore reindex`) by two index ranges, empty in the usual case, instead of reading every
-- chunk. One value almost everywhere, so the index is deduplicated to a few pages.
CREATE INDEX chunks_model ON chunks (model);
