-- The index of one project. Every fact is owned by exactly one file: re-indexing a file deletes
-- its rows and inserts the new ones in one transaction.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE files (
    id           INTEGER PRIMARY KEY,
    path         TEXT NOT NULL UNIQUE,     -- relative to the project root, forward slashes
    content_hash TEXT NOT NULL,            -- blake2b of the bytes, hex
    mtime_ns     INTEGER NOT NULL,
    size         INTEGER NOT NULL,
    language     TEXT NOT NULL,            -- grammar name, 'markdown' or 'text'
    status       TEXT NOT NULL,            -- ok | partial | text | failed | skipped
    error        TEXT,                     -- parse error or the reason it was skipped
    unit_count   INTEGER NOT NULL DEFAULT 0,
    indexed_at   REAL NOT NULL
);

CREATE TABLE units (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    kind           TEXT NOT NULL,          -- module | class | function | method | section | chunk
    name           TEXT NOT NULL,
    name_key       TEXT NOT NULL,          -- lower-case letters and digits of name
    qualified_name TEXT NOT NULL,
    parent         TEXT,
    signature      TEXT NOT NULL,
    doc            TEXT NOT NULL,
    language       TEXT NOT NULL,
    start_line     INTEGER NOT NULL,
    end_line       INTEGER NOT NULL,
    part           INTEGER NOT NULL DEFAULT 0,
    content        TEXT NOT NULL
);
CREATE INDEX units_file ON units(file_id);
CREATE INDEX units_name_key ON units(name_key);

-- One row per unit (rowid = units.id). Columns are the BM25F fields; their text is the unit's
-- text plus the words of its compound identifiers, Porter-stemmed. '_' is a token character so `parse_args`
-- stays one token beside `parse` and `args`.
CREATE VIRTUAL TABLE units_fts USING fts5(
    name, qualified_name, signature, doc, path, body,
    tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);

