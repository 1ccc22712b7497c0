-- Version 6: a node per directory that holds indexed files, so a question about an area ("what
-- does auth/ do?") can be answered by the directory rather than by one of its functions. Built
-- from the directory's files (store/directories.py); rebuilt when one of them changes.
CREATE TABLE directories (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL UNIQUE,      -- relative to the project root, no trailing slash
    file_count  INTEGER NOT NULL,          -- indexed files directly in it
    languages   TEXT NOT NULL,             -- JSON {language: files}, most files first
    files       TEXT NOT NULL,             -- JSON [path, ...] of its top files, best first
    description TEXT NOT NULL,             -- README first lines, package docstring, or ''
    summary     TEXT NOT NULL,             -- what a search result shows: description and top files
    rank        REAL NOT NULL DEFAULT 0    -- the highest file PageRank in it
);

-- One row per directory (rowid = directories.id), with units_fts's tokenizer so queries plan the
-- same way: its own name, its path, its files' names, its definitions' names, and docs.
CREATE VIRTUAL TABLE directories_fts USING fts5(
    name, path, files, definitions, doc,
    tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
