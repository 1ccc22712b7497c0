-- Version 2: the code graph.
-- The code graph. Symbols are definitions; refs are the places that use a name, bound to the
-- symbol they mean (target_id) with a confidence and a label; imports bind local names to files
-- or to symbols; hints are type evidence used to bind method calls.
CREATE TABLE symbols (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    kind           TEXT NOT NULL,          -- module | class | function | method | field | constant
    name           TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    parent         TEXT,                   -- qualified name of the enclosing symbol
    start_line     INTEGER NOT NULL,
    end_line       INTEGER NOT NULL,
    signature      TEXT NOT NULL,
    doc            TEXT NOT NULL
);
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_name ON symbols(name);
CREATE INDEX symbols_qualified ON symbols(qualified_name);
CREATE INDEX symbols_parent ON symbols(parent);

CREATE TABLE refs (
    id         INTEGER PRIMARY KEY,
    file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL,              -- call | inherit | decorator | type | read
    receiver   TEXT NOT NULL,              -- `self.repo` in `self.repo.find()`; '' for a bare name
    line       INTEGER NOT NULL,
    col        INTEGER NOT NULL,
    scope      TEXT,                       -- qualified name of the enclosing definition
    target_id  INTEGER REFERENCES symbols(id) ON DELETE SET NULL,
    confidence REAL NOT NULL DEFAULT 0,
    label      TEXT NOT NULL DEFAULT 'unbound',  -- exact | high | likely | possible | unbound | external | builtin | local
    candidates INTEGER NOT NULL DEFAULT 0  -- definitions the name could mean when it stayed unbound
);
CREATE INDEX refs_file ON refs(file_id);
CREATE INDEX refs_target ON refs(target_id);
CREATE INDEX refs_name ON refs(name);

CREATE TABLE imports (
    id               INTEGER PRIMARY KEY,
    file_id          INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    module           TEXT NOT NULL,
    name             TEXT,
    alias            TEXT NOT NULL,
    line             INTEGER NOT NULL,
    level            INTEGER NOT NULL,
    target_file_id   INTEGER REFERENCES files(id) ON DELETE SET NULL,
    target_symbol_id INTEGER REFERENCES symbols(id) ON DELETE SET NULL,
    external         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_target ON imports(target_file_id);

CREATE TABLE hints (
    file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    scope     TEXT,
    variable  TEXT NOT NULL,
    type_name TEXT NOT NULL,
    line      INTEGER NOT NULL,
    kind      TEXT NOT NULL
);
CREATE INDEX hints_file ON hints(file_id);
