-- Version 3: postings of the BM25F fields, so that lexical search ranks as SQLite's FTS5 does
-- (store/postgres/search.py). Each row holds a term (as FTS5's tokenizer cuts and stems it) of one
-- unit or directory, its occurrences per field in the column order of units_fts / directories_fts,
-- and the row's length in tokens over every field (what FTS5's bm25 takes as the document length).
-- `*_sizes` has one row per unit or directory, even with no token: FTS5 counts every row.

CREATE TABLE unit_terms (
    project_id bigint NOT NULL,
    term       text COLLATE "C" NOT NULL,
    unit_id    bigint NOT NULL REFERENCES units(id) ON DELETE CASCADE,
    tf         integer[] NOT NULL,
    size       integer NOT NULL,
    PRIMARY KEY (project_id, term, unit_id)
);
CREATE INDEX unit_terms_unit ON unit_terms(unit_id);

CREATE TABLE unit_sizes (
    unit_id    bigint PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
    project_id bigint NOT NULL,
    size       integer NOT NULL
);
CREATE INDEX unit_sizes_project ON unit_sizes(project_id) INCLUDE (size);

CREATE TABLE directory_terms (
    project_id   bigint NOT NULL,
    term         text COLLATE "C" NOT NULL,
    directory_id bigint NOT NULL REFERENCES directories(id) ON DELETE CASCADE,
    tf           integer[] NOT NULL,
    size         integer NOT NULL,
    PRIMARY KEY (project_id, term, directory_id)
);
CREATE INDEX directory_terms_directory ON directory_terms(directory_id);

CREATE TABLE directory_sizes (
    directory_id bigint PRIMARY KEY REFERENCES directories(id) ON DELETE CASCADE,
    project_id   bigint NOT NULL,
    size         integer NOT NULL
);
CREATE INDEX directory_sizes_project ON directory_sizes(project_id) INCLUDE (size);
