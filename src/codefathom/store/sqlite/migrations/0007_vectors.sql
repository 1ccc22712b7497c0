-- Version 7: vectors for semantic search. A vector is keyed by a hash of the embedder and the
-- exact text it read (embed/text.py), not by unit, so a unit re-indexed unchanged, or back after a
-- branch switch, finds its vector again. `units.embed_key` links a unit to its vector once it has one.
-- meta `embedder` and `embedder_dims` stamp whose vectors these are; two embedders never mix.
ALTER TABLE units ADD COLUMN embed_key TEXT;
CREATE INDEX units_embed_pending ON units(id) WHERE embed_key IS NULL;

CREATE TABLE embeddings (
    key     TEXT PRIMARY KEY,
    vector  BLOB NOT NULL,     -- float32 little-endian, meta.embedder_dims values, unit length
    used_at REAL NOT NULL      -- last time a unit was linked to it: the oldest unlinked are pruned first
);
