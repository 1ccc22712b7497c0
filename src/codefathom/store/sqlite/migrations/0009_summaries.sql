-- Version 9: one-sentence summaries of units, written by a language model (`codefathom summarize`).
-- A summary is keyed by a hash of the unit's text (units.summary_key) and the model that wrote it,
-- not by unit, so a unit re-indexed unchanged or moved to another file finds its summary again.
-- meta `summary_model` names the model whose summaries the index shows; none until one has run.
ALTER TABLE units ADD COLUMN summary_key TEXT NOT NULL DEFAULT '';
CREATE INDEX units_summary_key ON units(summary_key);

CREATE TABLE summaries (
    key        TEXT NOT NULL,             -- blake2b of the unit's content: units.summary_key
    model      TEXT NOT NULL,             -- provider:model that wrote it
    summary    TEXT NOT NULL,             -- one sentence, as results show it
    searchable TEXT NOT NULL,             -- the same with compound identifiers split, as units_fts holds it
    tokens_in  INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    PRIMARY KEY (key, model)
);

-- units_fts gains a seventh BM25F field, the unit's summary ('' without one). An empty column adds
-- nothing to a row's length or to any term's document frequency, so without summaries every BM25
-- score is what it was. FTS5 cannot add a column: the table is made again with its rows.
CREATE VIRTUAL TABLE units_fts_v9 USING fts5(
    name, qualified_name, signature, doc, path, body, summary,
    tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
INSERT INTO units_fts_v9(rowid, name, qualified_name, signature, doc, path, body, summary)
    SELECT rowid, name, qualified_name, signature, doc, path, body, '' FROM units_fts;
DROP TABLE units_fts;
ALTER TABLE units_fts_v9 RENAME TO units_fts;
