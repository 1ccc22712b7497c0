-- Version 2: vectors and summaries, as SQLite's `embeddings` (version 7) and `summaries` (version 9),
-- each project its own rows (a project's cache is pruned and forgotten on its own).
--
-- Vectors are pgvector's `vector`, float32 as SQLite's blobs hold them (halfvec would change the
-- scores). The column takes any number of dimensions, as a project may change embedder; an ANN
-- index needs one, so it would be an expression index per dimension count (`vector::vector(384)`,
-- WHERE vector_dims(vector) = 384), built once the table is filled (see docs/architecture.md).
-- The extension is not trusted: a superuser creates it once per database, or this does.

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE embeddings (
    project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    key        text COLLATE "C" NOT NULL,   -- blake2b of the embedder id and the embedded text
    vector     vector NOT NULL,             -- unit length, meta embedder_dims values
    used_at    double precision NOT NULL,   -- last time a unit was linked to it: the oldest unlinked go first
    PRIMARY KEY (project_id, key)
);
-- Which vectors units link to (pruning), and the units of a text (summaries).
CREATE INDEX units_embed_key ON units(project_id, embed_key) WHERE embed_key IS NOT NULL;

CREATE TABLE summaries (
    project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    key        text COLLATE "C" NOT NULL,   -- blake2b of the unit's content: units.summary_key
    model      text COLLATE "C" NOT NULL,   -- provider:model that wrote it
    summary    text NOT NULL,               -- one sentence, as results show it
    searchable text NOT NULL,               -- the same with compound identifiers split, as unit_texts holds it
    tokens_in  bigint NOT NULL DEFAULT 0,
    tokens_out bigint NOT NULL DEFAULT 0,
    created_at double precision NOT NULL,
    PRIMARY KEY (project_id, key, model)
);
