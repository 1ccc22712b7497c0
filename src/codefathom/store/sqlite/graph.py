"""Graph rows: a file's symbols, references, imports and type hints, and the reads binding needs.

Like units, every row is owned by one file and replaced with it; bindings point across files.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from codefathom.graphsource import (
    BindingRow,
    BoundRef,
    GraphLookup,
    ImportResolution,
    ImportRow,
    RankInputs,
    RefRow,
    RefSpan,
    SymbolRow,
)
from codefathom.model import FileFacts
from codefathom.store import graph_cache
from codefathom.store.base import WritingLookup
from codefathom.store.graph_cache import GraphRowCache
from codefathom.store.records import (
    BaseRef,
    ImportInfo,
    IndexedFile,
    Neighbour,
    OutlineFileRow,
    OutlineSymbolRow,
    PreparedFacts,
    RefInfo,
    SymbolInfo,
    prepare_facts,
)
from codefathom.store.sqlite.errors import backend_errors

__all__ = [
    "replace_facts", "BOUND_LABELS", "symbol_names_of",
    "refs_to_rebind", "save_bindings", "save_import_targets", "SQLiteGraphLookup", "PreparedFacts", "prepare_facts",
    "drop_local_reads", "REF_INDEXES", "drop_ref_indexes", "missing_ref_indexes", "create_ref_indexes",
    "SymbolInfo", "RefInfo",
    "ref_spans", "refs_between", "bound_edges",
    "find_symbols", "symbols_by_ids", "symbol_in_scope", "symbols_in_scopes", "references_to", "reference_counts",
    "references_from", "unbound_count",
    "file_edges", "file_edges_of", "external_imports", "unreferenced_symbols", "ambiguous_names", "referenced_names",
    "condition_hints",
    "file_id_of", "paths_of",
    "DEP_TYPE_OF_REF", "decorators_of_symbols", "classes_used_through_members", "BaseRef", "base_refs",
    "class_blocks", "rank_inputs", "save_ranks",
]

# Labels of a reference that points at a symbol (the rest say why it does not).
BOUND_LABELS = ("exact", "high", "likely", "possible")

SYMBOL_COLUMNS = "s.id, s.file_id, s.kind, s.name, s.qualified_name, s.parent, s.start_line, s.end_line"


def replace_facts(
    conn: sqlite3.Connection, file_id: int, facts: FileFacts | PreparedFacts, lookup: WritingLookup | None = None
) -> None:
    """The file's graph rows become `facts` (its old symbols go, so refs to them lose their target).
    A `lookup` that follows the writes (`SQLiteGraphLookup.follow`) takes the rows, with their ids."""
    rows = facts if isinstance(facts, PreparedFacts) else prepare_facts(facts)
    following = lookup is not None and lookup.following
    ranks: dict[tuple[str, str], float] = {}
    if not following:  # (a following lookup: the index had no graph rows, so the file has none)
        # A definition keeps its rank through an edit of its file (ranks are recomputed only when
        # much of the project changed: see the indexer); one that is new has none until then.
        ranks = {
            (qualified, kind): rank for qualified, kind, rank in conn.execute(
                "SELECT qualified_name, kind, rank FROM symbols WHERE file_id = ?", (file_id,)
            )
        }
        for table in ("refs", "imports", "hints", "symbols"):
            conn.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))
    # A following lookup is told the rows' ids: given here, after the largest ones (the sync holds the
    # index's write lock), rather than by SQLite. Without one, NULL ids are SQLite's to choose.
    first: tuple[int, int, int] | None = None
    if following:
        first = conn.execute(
            "SELECT (SELECT coalesce(max(id), 0) + 1 FROM symbols), (SELECT coalesce(max(id), 0) + 1 FROM refs),"
            " (SELECT coalesce(max(id), 0) + 1 FROM imports)"
        ).fetchone()
    symbol, ref, imported = first or (None, None, None)
    conn.executemany(
        "INSERT INTO symbols(id, file_id, kind, name, qualified_name, parent, start_line, end_line, signature, doc,"
        " rank) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (symbol and symbol + i, file_id, *row, ranks.get((row[2], row[0]), 0.0))
            for i, row in enumerate(rows.symbols)
        ],
    )
    conn.executemany(
        "INSERT INTO refs(id, file_id, name, kind, receiver, line, col, scope, arity, arguments)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(ref and ref + i, file_id, *row) for i, row in enumerate(rows.refs)],
    )
    conn.executemany(
        "INSERT INTO imports(id, file_id, module, name, alias, line, level) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(imported and imported + i, file_id, *row) for i, row in enumerate(rows.imports)],
    )
    conn.executemany(
        "INSERT INTO hints(file_id, scope, variable, type_name, line, kind) VALUES (?, ?, ?, ?, ?, ?)",
        [(file_id, *row) for row in rows.hints],
    )
    if lookup is not None and first is not None:
        lookup.take(file_id, rows, *first)


# The references' secondary indexes (migrations/0002_graph.sql), by name. A large first index writes
# and binds its references without them, and builds each once at the end from the sorted column:
# kept up row by row, they cost the writer and the binder more than the whole build (see indexer.sync).
REF_INDEXES = {"refs_file": "file_id", "refs_target": "target_id", "refs_name": "name"}


def drop_ref_indexes(conn: sqlite3.Connection) -> None:
    for name in REF_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def missing_ref_indexes(conn: sqlite3.Connection) -> list[str]:
    """Those of REF_INDEXES the index lacks: a first index stopped before building them."""
    have = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'refs'")}
    return [name for name in REF_INDEXES if name not in have]


def create_ref_indexes(conn: sqlite3.Connection) -> None:
    for name, column in REF_INDEXES.items():
        conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON refs({column})")


def drop_local_reads(conn: sqlite3.Connection, file_ids: Sequence[int] | None = None) -> None:
    """Reads of names no definition has are parameters and locals: they answer no graph question,
    and are a third of all references, so they are not kept. Only a binding labels them, so after
    one of some files (`file_ids`) only theirs can be there."""
    if file_ids is None:
        conn.execute("DELETE FROM refs WHERE kind = 'read' AND label = 'local'")
        return
    for start in range(0, len(file_ids), 500):
        chunk = file_ids[start : start + 500]
        conn.execute(
            f"DELETE FROM refs WHERE file_id IN ({', '.join('?' * len(chunk))}) AND kind = 'read' AND label = 'local'",
            tuple(chunk),
        )


def symbol_names_of(conn: sqlite3.Connection, file_ids: Iterable[int]) -> set[str]:
    ids = json.dumps(sorted(set(file_ids)))
    rows = conn.execute("SELECT DISTINCT name FROM symbols WHERE file_id IN (SELECT value FROM json_each(?))", (ids,))
    return {row[0] for row in rows}


def refs_to_rebind(
    conn: sqlite3.Connection, file_ids: Iterable[int] | None, names: Iterable[str], within: Iterable[int] = ()
) -> list[RefRow]:
    """References whose binding may have changed: those in changed files, those that lost their
    target, and those of a name that changed files define or defined. None means every reference
    (of the files `within`, when given)."""
    columns = "r.id, r.file_id, r.name, r.kind, r.receiver, r.line, r.scope, r.arity, r.arguments"
    shard = sorted(set(within))
    if file_ids is None and shard:
        rows = conn.execute(
            f"SELECT {columns} FROM refs r WHERE r.file_id IN (SELECT value FROM json_each(?))", (json.dumps(shard),)
        )
    elif file_ids is None:
        rows = conn.execute(f"SELECT {columns} FROM refs r")
    else:
        rows = conn.execute(
            f"SELECT {columns} FROM refs r WHERE r.file_id IN (SELECT value FROM json_each(?))"
            " OR r.name IN (SELECT value FROM json_each(?))"
            f" OR (r.target_id IS NULL AND r.label IN {BOUND_LABELS!r})",
            (json.dumps(sorted(set(file_ids))), json.dumps(sorted(set(names)))),
        )
    return [RefRow(*row) for row in rows]


_REF_COLUMNS_TO_BIND = "id, file_id, name, kind, receiver, line, scope, arity, arguments"


def ref_spans(conn: sqlite3.Connection) -> list[RefSpan]:
    """Every file's run of reference ids (see RefSpan), in id order: a whole project's binding plan."""
    rows = conn.execute("SELECT file_id, min(id), max(id), count(*) FROM refs GROUP BY file_id ORDER BY 2")
    return [(int(f), int(first), int(last), int(count)) for f, first, last, count in rows]


def refs_between(conn: sqlite3.Connection, first: int, last: int) -> list[RefRow]:
    """The references with ids from `first` to `last`, in id order: one batch of a whole project's."""
    rows = conn.execute(
        f"SELECT {_REF_COLUMNS_TO_BIND} FROM refs WHERE id BETWEEN ? AND ? ORDER BY id", (first, last)
    )
    return [RefRow(*row) for row in rows]


def bound_edges(conn: sqlite3.Connection, first: int, last: int) -> list[BoundRef]:
    """(file, scope, target, confidence) of the bound references with ids from `first` to `last`,
    in id order, as saved (another process bound them)."""
    rows = conn.execute(
        "SELECT file_id, scope, target_id, confidence FROM refs WHERE id BETWEEN ? AND ? AND target_id IS NOT NULL"
        " ORDER BY id",
        (first, last),
    )
    return [(int(f), scope, int(target), float(confidence)) for f, scope, target, confidence in rows]


def save_bindings(conn: sqlite3.Connection, bindings: Iterable[BindingRow]) -> None:
    conn.executemany(
        "UPDATE refs SET target_id = ?, confidence = ?, label = ?, candidates = ? WHERE id = ?",
        [(target, confidence, label, candidates, ref_id) for ref_id, target, confidence, label, candidates in bindings],
    )


def save_import_targets(conn: sqlite3.Connection, targets: Iterable[ImportResolution]) -> None:
    """(import id, target file id, target symbol id, external, binds module) of resolved imports."""
    conn.executemany(
        "UPDATE imports SET target_file_id = ?, target_symbol_id = ?, external = ?, binds_module = ? WHERE id = ?",
        [(f, s, int(e), int(m), i) for i, f, s, e, m in targets],
    )


_IMPORT_COLUMNS = (
    "id, file_id, module, name, alias, level, target_file_id, target_symbol_id, external, binds_module, line"
)


def _import_row(row: sqlite3.Row | tuple[Any, ...]) -> ImportRow:
    return ImportRow(
        row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], bool(row[8]), bool(row[9]), row[10]
    )


_HINT_ROWS = "SELECT file_id, scope, variable, type_name, kind, line FROM hints"


def _resolved_row(row: ImportRow, target: ImportResolution | None) -> ImportRow:
    if target is None:
        return row
    _, file_id, symbol_id, external, module = target
    return ImportRow(row.id, row.file_id, row.module, row.name, row.alias, row.level, file_id, symbol_id,
                     bool(external), bool(module), row.line)


class SQLiteGraphLookup(GraphRowCache):
    """Cached reads of symbols, imports and hints for one binding run (the index does not change
    while it runs: the caller holds the write transaction, or reads a committed state)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__()
        self._conn = conn

    def follow(self) -> None:
        """Take each file's rows as `replace_facts` writes them, on an index without graph rows yet
        (a first index): then `preload` reads nothing back, and the references to bind are at hand
        (`written_refs`, while there are few). Does nothing on an index that has graph rows."""
        with backend_errors():  # (called outside a transaction)
            row = self._conn.execute("SELECT 1 FROM symbols UNION ALL SELECT 1 FROM imports LIMIT 1").fetchone()
        if row is None:
            self.following = True
            self.written_refs = []

    def _read_all(self) -> None:
        one = self._strings.setdefault  # each string once (see take)
        symbols = self._conn.execute(f"SELECT {SYMBOL_COLUMNS} FROM symbols s")
        for i, f, kind, name, qualified, parent, start, end in symbols:
            self._add_symbol(SymbolRow(
                i, f, one(kind, kind), one(name, name), one(qualified, qualified),
                None if parent is None else one(parent, parent), start, end,
            ))
        for row in self._conn.execute(f"SELECT {_IMPORT_COLUMNS} FROM imports"):
            self._imports.setdefault(row[1], []).append(_import_row(row))
        if self._conn.execute("SELECT count(*) FROM hints").fetchone()[0] > graph_cache.HELD_HINTS:
            self._let_hints_go()
        else:
            for file_id, scope, variable, type_name, kind, line in self._conn.execute(_HINT_ROWS):
                key = (None if scope is None else one(scope, scope), one(variable, variable))
                evidence = (one(type_name, type_name), one(kind, kind), line)
                self._hints.setdefault(file_id, {}).setdefault(key, []).append(evidence)
        # In the order the query per class gives (`bases_of`): by column, then as written.
        for file_id, scope, receiver, name in self._conn.execute(
            "SELECT file_id, scope, receiver, name FROM refs WHERE kind = 'inherit' AND scope IS NOT NULL"
            " ORDER BY file_id, scope, col, id"
        ):
            self._bases.setdefault((file_id, scope), []).append((receiver, name))

    def _file_rows(self) -> list[tuple[int, str, str]]:
        return [(int(r[0]), r[1], r[2]) for r in self._conn.execute("SELECT id, path, language FROM files")]

    def _symbols(self, where: str, params: tuple[object, ...]) -> list[SymbolRow]:
        rows = self._conn.execute(f"SELECT {SYMBOL_COLUMNS} FROM symbols s WHERE {where}", params)
        return [SymbolRow(*row) for row in rows]

    def _symbols_with(self, column: str, value: object) -> list[SymbolRow]:
        return self._symbols(f"s.{column} = ?", (value,))

    # A read of one file's rows or one name's symbols costs no round trip here: nothing to read ahead.
    def prefetch_files(self, file_ids: Iterable[int]) -> None:
        return None

    def prefetch_names(self, names: Iterable[str], *, qualified: bool = False) -> None:
        return None

    def signature(self, symbol_id: int) -> str:
        """A definition's signature as written (read when asked: few are ever needed)."""
        if symbol_id not in self._signatures:
            row = self._conn.execute("SELECT signature FROM symbols WHERE id = ?", (symbol_id,)).fetchone()
            self._signatures[symbol_id] = str(row[0] or "") if row is not None else ""
        return self._signatures[symbol_id]

    def module_symbols(self, file_id: int) -> list[int]:
        """Ids of the file's module symbols (one, unless the file defines none), in id order."""
        if self._complete:
            return self._module_ids.get(file_id, [])
        rows = self._conn.execute(
            "SELECT id FROM symbols WHERE file_id = ? AND kind = 'module' ORDER BY id", (file_id,)
        )
        return [int(row[0]) for row in rows]

    def all_imports(self) -> Iterable[list[ImportRow]]:
        """Every file's import rows (preloaded lookups only)."""
        assert self._complete
        return self._imports.values()

    def module_of(self, file_id: int) -> SymbolRow | None:
        if file_id not in self._modules:
            found = self._symbols("s.file_id = ? AND s.kind = 'module'", (file_id,))
            self._modules[file_id] = found[0] if found else None
        return self._modules[file_id]

    def module_file(self, module: str) -> int | None:
        if module not in self._module_files:
            found = [s for s in self.by_qualified(module) if s.kind == "module"]
            self._module_files[module] = found[0].file_id if found else None
        return self._module_files[module]

    def imports_of(self, file_id: int) -> list[ImportRow]:
        if file_id not in self._imports:
            rows = self._conn.execute(f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE file_id = ?", (file_id,))
            resolutions = self._resolutions
            self._imports[file_id] = [_resolved_row(item, resolutions.get(item.id)) for item in map(_import_row, rows)]
        return self._imports[file_id]

    def hint_table(self, file_id: int) -> dict[tuple[str | None, str], list[tuple[str, str, int]]]:
        """(scope, variable) -> (type_name, kind, line) of each piece of the file's type evidence,
        in the order it was written."""
        if file_id not in self._hints:
            if self._hints_held < 0 and len(self._hints) >= graph_cache.HINT_FILES:
                del self._hints[next(iter(self._hints))]  # the file read longest ago
            table: dict[tuple[str | None, str], list[tuple[str, str, int]]] = {}
            for _, scope, variable, type_name, kind, line in self._conn.execute(
                f"{_HINT_ROWS} WHERE file_id = ?", (file_id,)
            ):
                table.setdefault((scope, variable), []).append((type_name, kind, line))
            self._hints[file_id] = table
        return self._hints[file_id]

    def bases_of(self, cls: SymbolRow) -> list[tuple[str, str]]:
        """(receiver, name) of the base classes a class names."""
        key = (cls.file_id, cls.qualified_name)
        if key not in self._bases:
            if self._complete:
                return []
            rows = self._conn.execute(
                "SELECT receiver, name FROM refs WHERE file_id = ? AND kind = 'inherit' AND scope = ? ORDER BY col",
                key,
            )
            self._bases[key] = [(row[0], row[1]) for row in rows]
        return self._bases[key]

    def ranked_files(self) -> list[int]:
        """Ids of the files PageRank ranks (every file not skipped), in id order."""
        return [int(row[0]) for row in self._conn.execute("SELECT id FROM files WHERE status != 'skipped'")]

    def file_text(self, file_id: int) -> str:
        """A file's text as its units hold it (a text file's line windows, in order)."""
        rows = self._conn.execute(
            "SELECT content FROM units WHERE file_id = ? ORDER BY start_line, part", (file_id,)
        )
        return "\n".join(row[0] for row in rows)

    def imports_needing_resolution(self, file_ids: Iterable[int] | None) -> list[ImportRow]:
        """Imports of the changed files, imports that led into them (their symbols were replaced),
        and imports nothing in the project answered yet; all of them when file_ids is None."""
        if file_ids is None and self.following:  # all are at hand, in id order
            return [row for rows in self._imports.values() for row in rows]
        if file_ids is None:
            rows = self._conn.execute(f"SELECT {_IMPORT_COLUMNS} FROM imports")
        else:
            ids = json.dumps(sorted(set(file_ids)))
            rows = self._conn.execute(
                f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE file_id IN (SELECT value FROM json_each(?))"
                " OR target_file_id IN (SELECT value FROM json_each(?)) OR target_file_id IS NULL",
                (ids, ids),
            )
        return [_import_row(row) for row in rows]

    def imports_in(self, file_ids: Iterable[int]) -> list[ImportRow]:
        """Every import of the given files, in one read."""
        ids = json.dumps(sorted(set(file_ids)))
        rows = self._conn.execute(
            f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE file_id IN (SELECT value FROM json_each(?))", (ids,)
        )
        return [_import_row(row) for row in rows]

    def resolved(self, targets: Iterable[ImportResolution]) -> None:
        """Take the resolutions `save_import_targets` stores into the cached import rows, and into
        the rows read later (whether or not the connection they are read through sees them)."""
        by_id = {target[0]: target for target in targets}
        self._resolutions.update(by_id)
        for file_id, rows in self._imports.items():
            if any(row.id in by_id for row in rows):
                self._imports[file_id] = [_resolved_row(row, by_id.get(row.id)) for row in rows]

    # -- a binding run's reads and writes through this lookup's connection --------------------

    @classmethod
    def read_only(cls, database: str) -> SQLiteGraphLookup:
        """A lookup of the committed index at `database` (a path), on a read-only connection of its own."""
        return cls(_read_only(database))

    def reader(self) -> Callable[[], GraphLookup]:
        """`read_only` of this lookup's file, for a helper process to call (a partial pickles)."""
        return partial(SQLiteGraphLookup.read_only, self.database())

    def reconnect_read_only(self, database: str) -> None:
        """Read through a read-only connection of its own from now on (a forked child: the connection
        it inherited is its parent's)."""
        self._conn = _read_only(database)

    def close(self) -> None:
        self._conn.close()

    def database(self) -> str:
        """The path of the index file this lookup reads."""
        return str(self._conn.execute("PRAGMA database_list").fetchone()[2])

    def refs_to_rebind(
        self, file_ids: Iterable[int] | None, names: Iterable[str], within: Iterable[int] = ()
    ) -> list[RefRow]:
        """See the function refs_to_rebind."""
        return refs_to_rebind(self._conn, file_ids, names, within)

    def ref_spans(self) -> list[RefSpan]:
        """Every file's run of reference ids (see RefSpan), in id order."""
        return ref_spans(self._conn)

    def refs_between(self, first: int, last: int) -> list[RefRow]:
        """The references with ids from `first` to `last`, in id order."""
        return refs_between(self._conn, first, last)

    def bound_edges(self, first: int, last: int) -> list[BoundRef]:
        """(file, scope, target, confidence) of the bound references with ids from `first` to `last`."""
        return bound_edges(self._conn, first, last)

    def save_bindings(self, bindings: Iterable[BindingRow]) -> None:
        save_bindings(self._conn, bindings)

    def save_import_targets(self, targets: Iterable[ImportResolution]) -> None:
        save_import_targets(self._conn, targets)

    def drop_local_reads(self, file_ids: Sequence[int] | None = None) -> None:
        """See the function drop_local_reads."""
        drop_local_reads(self._conn, file_ids)

    def rank_inputs(self) -> RankInputs:
        """Nodes and weighted edges of the file and symbol graphs, read from the bound references."""
        return rank_inputs(self._conn)

    def save_ranks(self, files: dict[int, float], symbols: dict[int, float]) -> None:
        save_ranks(self._conn, files, symbols)

    # -- what a module system reads of the whole project (graph/<module system>.py) ------------

    def parents_in(self, languages: Sequence[str]) -> list[tuple[str | None, str, str]]:
        """(parent, qualified name, kind) of every definition (no module) of files of `languages`."""
        marks = ", ".join("?" * len(languages))
        return self._conn.execute(
            "SELECT s.parent, s.qualified_name, s.kind FROM symbols s JOIN files f ON f.id = s.file_id"
            f" WHERE f.language IN ({marks}) AND s.kind != 'module'",
            tuple(languages),
        ).fetchall()

    def signatures_in(
        self, languages: Sequence[str], kind: str, like: str | None = None
    ) -> list[tuple[int, str, str]]:
        """(symbol id, path, signature) of the definitions of `kind` in files of `languages`, only
        those whose signature is LIKE `like` when given."""
        marks = ", ".join("?" * len(languages))
        where = "" if like is None else " AND s.signature LIKE ?"
        return self._conn.execute(
            "SELECT s.id, f.path, s.signature FROM symbols s JOIN files f ON f.id = s.file_id"
            f" WHERE f.language IN ({marks}) AND s.kind = ?{where}",
            (*languages, kind, *(() if like is None else (like,))),
        ).fetchall()

    def definitions_in(self, language: str, kinds: Sequence[str]) -> list[tuple[int, str, str | None]]:
        """(file id, qualified name, parent) of the definitions of `kinds` in files of `language`, by
        file and start line."""
        marks = ", ".join("?" * len(kinds))
        return self._conn.execute(
            "SELECT s.file_id, s.qualified_name, s.parent FROM symbols s JOIN files f ON f.id = s.file_id"
            f" WHERE f.language = ? AND s.kind IN ({marks}) ORDER BY s.file_id, s.start_line",
            (language, *kinds),
        ).fetchall()

    def outer_parents(self, languages: Sequence[str], kinds: Sequence[str]) -> list[tuple[int, str | None]]:
        """(file id, parent) of the definitions of `kinds` in files of `languages`, by file, start
        line, and the longest first (a file's first row is its outermost definition)."""
        marks = ", ".join("?" * len(languages))
        kind_marks = ", ".join("?" * len(kinds))
        return self._conn.execute(
            "SELECT s.file_id, s.parent FROM symbols s JOIN files f ON f.id = s.file_id"
            f" WHERE f.language IN ({marks}) AND s.kind IN ({kind_marks})"
            " ORDER BY s.file_id, s.start_line, s.end_line DESC",
            (*languages, *kinds),
        ).fetchall()

    def holds_under(self, file_id: int, prefix: str) -> bool:
        """Whether the file defines something whose parent is `prefix` or lies under it (`prefix.x`)."""
        return self._conn.execute(
            "SELECT 1 FROM symbols WHERE file_id = ? AND (parent = ? OR substr(parent, 1, ?) = ?) LIMIT 1",
            (file_id, prefix, len(prefix) + 1, prefix + "."),
        ).fetchone() is not None

    def first_definition(self, file_id: int) -> str | None:
        """The qualified name of a definition (not the module) of the file, the first the index has."""
        row = self._conn.execute(
            "SELECT qualified_name FROM symbols WHERE file_id = ? AND kind != 'module' LIMIT 1", (file_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def scope_spans(self) -> list[tuple[int, int, int, str, str]]:
        """(file id, start, end, qualified name, kind) of every class, function and method."""
        return self._conn.execute(
            "SELECT file_id, start_line, end_line, qualified_name, kind FROM symbols"
            " WHERE kind IN ('class', 'function', 'method')"
        ).fetchall()


def _read_only(database: str) -> sqlite3.Connection:
    return sqlite3.connect(f"{Path(database).as_uri()}?mode=ro", uri=True)


# -- reads for graph questions ---------------------------------------------------------------


_INFO_COLUMNS = (
    "s.id, f.path, s.kind, s.name, s.qualified_name, s.parent, s.start_line, s.end_line, s.signature, s.doc"
)
_REF_COLUMNS = "f.path, r.line, r.col, r.kind, r.name, r.receiver, r.scope, r.label, r.confidence, r.target_id"


def find_symbols(conn: sqlite3.Connection, text: str, kinds: Iterable[str] = ()) -> list[SymbolInfo]:
    """Symbols named `text`: a simple name, a qualified tail (`UserService.find`) or a full path."""
    wanted = text.strip().replace("::", ".")
    last = wanted.rsplit(".", 1)[-1]
    rows = conn.execute(
        f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE s.name = ? OR s.qualified_name = ? ORDER BY f.path, s.start_line",
        (last, wanted),
    )
    found = [SymbolInfo(*row) for row in rows]
    if "." in wanted:
        found = [s for s in found if s.qualified_name == wanted or s.qualified_name.endswith("." + wanted)]
    kinds = set(kinds)
    return [s for s in found if not kinds or s.kind in kinds]


def symbols_by_ids(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, SymbolInfo]:
    rows = conn.execute(
        f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE s.id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(ids))),),
    )
    return {row[0]: SymbolInfo(*row) for row in rows}


def symbol_in_scope(conn: sqlite3.Connection, path: str, qualified: str) -> SymbolInfo | None:
    row = conn.execute(
        f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE f.path = ? AND s.qualified_name = ? LIMIT 1",
        (path, qualified),
    ).fetchone()
    return SymbolInfo(*row) if row else None


def symbols_in_scopes(
    conn: sqlite3.Connection, scopes: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], SymbolInfo]:
    """`symbol_in_scope` for many (path, qualified name) pairs in one query."""
    wanted = set(scopes)
    rows = conn.execute(
        f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE s.qualified_name IN (SELECT value FROM json_each(?)) ORDER BY s.id",
        (json.dumps(sorted({qualified for _, qualified in wanted})),),
    )
    found: dict[tuple[str, str], SymbolInfo] = {}
    for row in rows:
        symbol = SymbolInfo(*row)
        key = (symbol.path, symbol.qualified_name)
        if key in wanted and key not in found:
            found[key] = symbol
    return found


def references_to(
    conn: sqlite3.Connection, ids: Iterable[int], kinds: Iterable[str] = (), within: str = "", limit: int = 0
) -> list[RefInfo]:
    """References bound to these definitions, by path and line: of `kinds` (all when empty), in the
    directory `within` (the project when ""), the first `limit` (all when 0)."""
    where, params = _bound_to(ids, kinds, within)
    rows = conn.execute(
        f"SELECT {_REF_COLUMNS} FROM refs r JOIN files f ON f.id = r.file_id WHERE {where}"
        f" ORDER BY f.path, r.line, r.col{' LIMIT ?' if limit else ''}",
        (*params, limit) if limit else params,
    )
    return [RefInfo(*row) for row in rows]


def reference_counts(
    conn: sqlite3.Connection, ids: Iterable[int], kinds: Iterable[str] = (), within: str = ""
) -> dict[int, int]:
    """How many references `references_to` has for each of these definitions, without a limit."""
    where, params = _bound_to(ids, kinds, within)
    joined = " JOIN files f ON f.id = r.file_id" if within else ""  # (the path is needed only then)
    rows = conn.execute(f"SELECT r.target_id, count(*) FROM refs r{joined} WHERE {where} GROUP BY r.target_id", params)
    return {int(target): int(count) for target, count in rows}


def _bound_to(ids: Iterable[int], kinds: Iterable[str], within: str) -> tuple[str, tuple[object, ...]]:
    where = "r.target_id IN (SELECT value FROM json_each(?))"
    params: tuple[object, ...] = (json.dumps(sorted(set(ids))),)
    if kinds:
        where += " AND r.kind IN (SELECT value FROM json_each(?))"
        params += (json.dumps(sorted(set(kinds))),)
    if within:
        where += " AND f.path LIKE ? ESCAPE '\\'"
        params += (_like_prefix(within.rstrip("/") + "/"),)
    return where, params


def references_from(conn: sqlite3.Connection, symbol: SymbolInfo, kinds: Iterable[str] = ()) -> list[RefInfo]:
    """References written inside a definition: a function's own and its nested functions'; a
    class's own body only (its methods are definitions of their own)."""
    nested = "" if symbol.kind == "class" else " OR r.scope LIKE ? ESCAPE '\\'"
    params: tuple[object, ...] = (symbol.path, symbol.qualified_name)
    if nested:
        params += (_like_prefix(symbol.qualified_name + "."),)
    rows = conn.execute(
        f"SELECT {_REF_COLUMNS} FROM refs r JOIN files f ON f.id = r.file_id"
        f" WHERE f.path = ? AND (r.scope = ?{nested}) ORDER BY r.line, r.col",
        params,
    )
    kinds = set(kinds)
    return [ref for ref in (RefInfo(*row) for row in rows) if not kinds or ref.kind in kinds]


def unbound_count(conn: sqlite3.Connection, name: str, kinds: Iterable[str] = ()) -> int:
    """References of `name` that could mean several definitions and were left unbound."""
    kinds = sorted(set(kinds)) or ["call", "inherit", "decorator", "type", "read"]
    row = conn.execute(
        "SELECT count(*) FROM refs WHERE name = ? AND label = 'unbound' AND candidates > 0"
        " AND kind IN (SELECT value FROM json_each(?))",
        (name, json.dumps(kinds)),
    ).fetchone()
    return int(row[0])


# How a reference kind counts as a file dependency.
DEP_TYPE_OF_REF = {"call": "call", "inherit": "inherit", "decorator": "reference", "type": "reference",
                   "read": "reference"}


def file_edges(conn: sqlite3.Connection, file_id: int, *, reverse: bool) -> list[tuple[int, str, int]]:
    """(other file id, dep type, count) of the files `file_id` depends on (or that depend on it)."""
    return file_edges_of(conn, [file_id], reverse=reverse).get(file_id, [])


def file_edges_of(
    conn: sqlite3.Connection, file_ids: Iterable[int], *, reverse: bool
) -> dict[int, list[tuple[int, str, int]]]:
    """`file_edges` of several files in one pass: file id -> its (other file id, dep type, count)."""
    ids = json.dumps(sorted(set(file_ids)))
    if reverse:
        ref_sql = (
            "SELECT s.file_id, r.file_id, r.kind, count(*) FROM refs r JOIN symbols s ON s.id = r.target_id"
            " WHERE s.file_id IN (SELECT value FROM json_each(?)) AND r.file_id != s.file_id"
            " GROUP BY s.file_id, r.file_id, r.kind"
        )
        import_sql = (
            "SELECT target_file_id, file_id, count(*) FROM imports WHERE target_file_id IN"
            " (SELECT value FROM json_each(?)) AND file_id != target_file_id GROUP BY target_file_id, file_id"
        )
    else:
        ref_sql = (
            "SELECT r.file_id, s.file_id, r.kind, count(*) FROM refs r JOIN symbols s ON s.id = r.target_id"
            " WHERE r.file_id IN (SELECT value FROM json_each(?)) AND s.file_id != r.file_id"
            " GROUP BY r.file_id, s.file_id, r.kind"
        )
        import_sql = (
            "SELECT file_id, target_file_id, count(*) FROM imports WHERE file_id IN (SELECT value FROM json_each(?))"
            " AND target_file_id IS NOT NULL AND target_file_id != file_id GROUP BY file_id, target_file_id"
        )
    counts: dict[int, dict[tuple[int, str], int]] = {}
    for of, other, kind, count in conn.execute(ref_sql, (ids,)):
        key = (int(other), DEP_TYPE_OF_REF.get(kind, "reference"))
        found = counts.setdefault(int(of), {})
        found[key] = found.get(key, 0) + int(count)
    for of, other, count in conn.execute(import_sql, (ids,)):
        found = counts.setdefault(int(of), {})
        found[(int(other), "import")] = found.get((int(other), "import"), 0) + int(count)
    return {of: [(other, kind, n) for (other, kind), n in sorted(found.items())] for of, found in counts.items()}


def external_imports(conn: sqlite3.Connection, file_id: int) -> list[str]:
    rows = conn.execute(
        "SELECT DISTINCT module FROM imports WHERE file_id = ? AND external = 1 ORDER BY module", (file_id,)
    )
    return [row[0] for row in rows]


def unreferenced_symbols(conn: sqlite3.Connection, kinds: Iterable[str]) -> list[SymbolInfo]:
    """Definitions nothing binds to: no reference and no import points at them."""
    rows = conn.execute(
        f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE s.kind IN (SELECT value FROM json_each(?))"
        " AND NOT EXISTS (SELECT 1 FROM refs r WHERE r.target_id = s.id"
        "   AND NOT (r.file_id = s.file_id AND r.line BETWEEN s.start_line AND s.end_line))"
        " AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.target_symbol_id = s.id)"
        " ORDER BY f.path, s.start_line",
        (json.dumps(sorted(set(kinds))),),
    )
    return [SymbolInfo(*row) for row in rows]


def file_languages(conn: sqlite3.Connection) -> dict[str, str]:
    """Each indexed file's language as parsing settled it: a `.h` that is C++, a script that says
    what runs it on its `#!` line, which the path alone does not tell."""
    return dict(conn.execute("SELECT path, language FROM files"))


def script_paths(conn: sqlite3.Connection, languages: Iterable[str]) -> set[str]:
    """Files of these languages run as programs: a `#!` first line, and no file of the project sources
    (imports) them; the others are libraries, read into whatever sources them."""
    rows = conn.execute(
        "SELECT f.path FROM files f WHERE f.language IN (SELECT value FROM json_each(?))"
        " AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.target_file_id = f.id)"
        " AND EXISTS (SELECT 1 FROM units u WHERE u.file_id = f.id AND u.start_line = 1 AND u.content LIKE '#!%')",
        (json.dumps(sorted(set(languages))),),
    )
    return {row[0] for row in rows}


def classes_used_through_members(conn: sqlite3.Connection) -> set[int]:
    """Classes nothing names but whose members are used from outside them (`Strings.Pad(x)`, an
    extension method, a static factory)."""
    rows = conn.execute(
        "SELECT DISTINCT c.id FROM symbols c JOIN symbols s ON s.parent = c.qualified_name"
        " JOIN refs r ON r.target_id = s.id"
        " WHERE c.kind = 'class' AND NOT (r.file_id = c.file_id AND r.line BETWEEN c.start_line AND c.end_line)"
    )
    return {int(row[0]) for row in rows}


def decorators_of_symbols(conn: sqlite3.Connection) -> dict[int, set[str]]:
    """Definitions with decorators (annotations, attributes) and their names: the decorator references
    scoped to a definition on its first lines."""
    rows = conn.execute(
        "SELECT DISTINCT s.id, r.name FROM symbols s"
        " JOIN refs r ON r.file_id = s.file_id AND r.scope = s.qualified_name"
        " WHERE r.kind = 'decorator' AND r.line BETWEEN s.start_line AND s.start_line + 4"
    )
    found: dict[int, set[str]] = {}
    for symbol_id, name in rows:
        found.setdefault(int(symbol_id), set()).add(name)
    return found


def base_refs(conn: sqlite3.Connection) -> dict[str, list[BaseRef]]:
    """Every base reference, by the qualified name of the class naming it."""
    rows = conn.execute(
        "SELECT f.path, r.scope, r.line, r.name, r.target_id, r.label FROM refs r JOIN files f ON f.id = r.file_id"
        " WHERE r.kind = 'inherit' AND r.scope IS NOT NULL"
    )
    found: dict[str, list[BaseRef]] = {}
    for row in rows:
        found.setdefault(row[1], []).append(BaseRef(*row))
    return found


def class_blocks(conn: sqlite3.Connection, path: str, qualified: str) -> list[tuple[int, int]]:
    """(first, last line) of each class-like unit of a file named `qualified`: a class, or a Rust impl
    block (which has no symbol), the parts of a long one joined."""
    rows = conn.execute(
        "SELECT u.start_line, u.end_line, u.part FROM units u JOIN files f ON f.id = u.file_id"
        " WHERE f.path = ? AND u.qualified_name = ? AND u.kind = 'class' ORDER BY u.start_line, u.part",
        (path, qualified),
    )
    blocks: list[tuple[int, int]] = []
    for start, end, part in rows:
        if part > 1 and blocks:
            blocks[-1] = (blocks[-1][0], max(blocks[-1][1], end))
        else:
            blocks.append((start, end))
    return blocks


def ambiguous_names(conn: sqlite3.Connection) -> dict[str, int]:
    """Names with unbound references that could mean several definitions, and how many such refs."""
    rows = conn.execute("SELECT name, count(*) FROM refs WHERE label = 'unbound' AND candidates > 0 GROUP BY name")
    return {row[0]: int(row[1]) for row in rows}


def referenced_names(conn: sqlite3.Connection, languages: Iterable[str], qualified: bool = False) -> set[str]:
    """Names (or qualified names) of the definitions in files of these languages that some reference
    binds to."""
    column = "s.qualified_name" if qualified else "s.name"
    rows = conn.execute(
        f"SELECT DISTINCT {column} FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE f.language IN (SELECT value FROM json_each(?))"
        " AND EXISTS (SELECT 1 FROM refs r WHERE r.target_id = s.id)",
        (json.dumps(sorted(set(languages))),),
    )
    return {row[0] for row in rows}


def condition_hints(conn: sqlite3.Connection) -> dict[tuple[str, str, int], list[str]]:
    """(path, name, line) of each definition under preprocessor branches -> their conditions."""
    found: dict[tuple[str, str, int], list[str]] = {}
    for path, name, line, condition in conn.execute(
        "SELECT f.path, h.variable, h.line, h.type_name FROM hints h JOIN files f ON f.id = h.file_id"
        " WHERE h.kind = 'condition'"
    ):
        found.setdefault((path, name, int(line)), []).append(condition)
    return found


def prototypes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(path, name) of every function declared without a body (a C or C++ prototype)."""
    rows = conn.execute(
        "SELECT DISTINCT f.path, h.variable FROM hints h JOIN files f ON f.id = h.file_id WHERE h.kind = 'prototype'"
    )
    return [(row[0], row[1]) for row in rows]


def file_id_of(conn: sqlite3.Connection, path: str) -> int | None:
    row = conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
    return int(row[0]) if row else None


def paths_of(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, str]:
    rows = conn.execute(
        "SELECT id, path FROM files WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(sorted(set(ids))),)
    )
    return {int(row[0]): row[1] for row in rows}


def _like_prefix(prefix: str) -> str:
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


# -- ranking ----------------------------------------------------------------------------------


def rank_inputs(conn: sqlite3.Connection) -> tuple[list[int], list[tuple[int, int, float]], list[int],
                                                     list[tuple[int, int, float]]]:
    """Nodes and weighted edges of the file graph and of the symbol graph, from bound references.

    A reference weighs its confidence; one written at module level comes from the file's module
    symbol. Imports add file edges.
    """
    files = [int(row[0]) for row in conn.execute("SELECT id FROM files WHERE status != 'skipped'")]
    file_edges = [
        (int(a), int(b), float(w))
        for a, b, w in conn.execute(
            "SELECT r.file_id, s.file_id, sum(r.confidence) FROM refs r JOIN symbols s ON s.id = r.target_id"
            " WHERE r.file_id != s.file_id GROUP BY r.file_id, s.file_id"
            " UNION ALL SELECT file_id, target_file_id, 0.5 * count(*) FROM imports"
            " WHERE target_file_id IS NOT NULL AND target_file_id != file_id GROUP BY file_id, target_file_id"
        )
    ]
    symbols = [int(row[0]) for row in conn.execute("SELECT id FROM symbols")]
    symbol_edges = [
        (int(a), int(b), float(w))
        for a, b, w in conn.execute(
            "SELECT coalesce(src.id, m.id), r.target_id, sum(r.confidence) FROM refs r"
            " LEFT JOIN symbols src ON src.file_id = r.file_id AND src.qualified_name = r.scope"
            " LEFT JOIN symbols m ON m.file_id = r.file_id AND m.kind = 'module'"
            " WHERE r.target_id IS NOT NULL GROUP BY 1, 2"
        )
        if a is not None
    ]
    return files, file_edges, symbols, symbol_edges


def save_ranks(conn: sqlite3.Connection, files: dict[int, float], symbols: dict[int, float]) -> None:
    conn.executemany("UPDATE files SET rank = ? WHERE id = ?", [(r, i) for i, r in files.items()])
    conn.executemany("UPDATE symbols SET rank = ? WHERE id = ?", [(r, i) for i, r in symbols.items()])


# -- reads for context: outline and file brief ------------------------------------------------

__all__ += ["OutlineFileRow", "OutlineSymbolRow", "IndexedFile", "ImportInfo", "outline_files", "outline_symbols",
            "file_record", "symbols_of_file", "file_imports", "all_paths"]


def _under(prefix: str) -> tuple[str, str]:
    """A WHERE clause on f.path keeping to the directory `prefix` ("" for all), and its parameter."""
    if not prefix:
        return "1", ""
    return "f.path LIKE ? ESCAPE '\\'", _like_prefix(prefix.rstrip("/") + "/")


def outline_files(conn: sqlite3.Connection, prefix: str = "") -> list[OutlineFileRow]:
    """The indexed files under `prefix` (not the skipped ones), by path."""
    where, param = _under(prefix)
    rows = conn.execute(
        f"SELECT f.id, f.path, f.language, f.status, f.rank FROM files f WHERE f.status != 'skipped' AND {where}"
        " ORDER BY f.path",
        (param,) if prefix else (),
    )
    return [OutlineFileRow(*row) for row in rows]


def outline_symbols(conn: sqlite3.Connection, prefix: str = "", kinds: Iterable[str] = ()) -> list[OutlineSymbolRow]:
    """The symbols of the given kinds in files under `prefix`, by file and line."""
    where, param = _under(prefix)
    params: tuple[object, ...] = (json.dumps(sorted(set(kinds))),) + ((param,) if prefix else ())
    rows = conn.execute(
        "SELECT s.id, s.file_id, s.kind, s.name, s.qualified_name, s.parent, s.start_line, s.signature, s.doc,"
        " s.rank FROM symbols s JOIN files f ON f.id = s.file_id"
        f" WHERE s.kind IN (SELECT value FROM json_each(?)) AND {where} ORDER BY s.file_id, s.start_line, s.id",
        params,
    )
    return [OutlineSymbolRow(*row) for row in rows]


def file_record(conn: sqlite3.Connection, path: str) -> IndexedFile | None:
    row = conn.execute(
        "SELECT id, path, language, status, error, rank, size FROM files WHERE path = ?", (path,)
    ).fetchone()
    return IndexedFile(*row) if row else None


def symbols_of_file(conn: sqlite3.Connection, file_id: int) -> list[SymbolInfo]:
    rows = conn.execute(
        f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.file_id = ?"
        " ORDER BY s.start_line, s.id",
        (file_id,),
    )
    return [SymbolInfo(*row) for row in rows]


def file_imports(conn: sqlite3.Connection, file_id: int) -> list[ImportInfo]:
    rows = conn.execute(
        "SELECT i.module, i.name, i.alias, i.line, i.level, t.path, i.external FROM imports i"
        " LEFT JOIN files t ON t.id = i.target_file_id WHERE i.file_id = ? ORDER BY i.line, i.id",
        (file_id,),
    )
    return [ImportInfo(m, n, a, int(line), int(level), t, bool(e)) for m, n, a, line, level, t, e in rows]


def all_paths(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT path FROM files WHERE status != 'skipped' ORDER BY path")]


def module_doc(conn: sqlite3.Connection, file_id: int) -> str:
    """The file's own docstring, as its module unit holds it ("" when none)."""
    row = conn.execute(
        "SELECT doc FROM units WHERE file_id = ? AND kind = 'module' AND doc != '' ORDER BY part LIMIT 1", (file_id,)
    ).fetchone()
    return str(row[0]) if row else ""


def file_importers(conn: sqlite3.Connection, file_id: int) -> list[str]:
    """Paths of the other files that import `file_id` (or a name from it)."""
    rows = conn.execute(
        "SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id"
        " WHERE i.target_file_id = ? AND i.file_id != ? ORDER BY f.path",
        (file_id, file_id),
    )
    return [row[0] for row in rows]


__all__ += ["module_doc", "file_importers"]


# -- reads for search expansion: a result's neighbours in the graph ----------------------------

__all__ += ["Neighbour", "graph_neighbours"]

# The units a neighbour may be: definitions and a file's module-level code.
_DEFINITION_UNITS = ("class", "function", "method", "module")


def graph_neighbours(
    conn: sqlite3.Connection, unit_id: int, labels: Iterable[str], per_relation: int
) -> list[Neighbour]:
    """The neighbours of a unit's definition: what a function calls and what calls it, a class's
    bases and subclasses (and what constructs it), the files module-level code imports. References
    count only with one of `labels`; each relation's best `per_relation`, exact before high, then by
    PageRank. Empty for a unit without a definition (a window, a section).

    Labels sort as they rank (exact < high < likely < possible), so `min(label)` is a pair's best."""
    source = conn.execute(
        "SELECT s.id, s.file_id, s.kind, s.qualified_name FROM units u JOIN symbols s ON s.file_id = u.file_id"
        " AND s.qualified_name = u.qualified_name AND s.kind = u.kind WHERE u.id = ? LIMIT 1",
        (unit_id,),
    ).fetchone()
    if source is None:
        return []
    symbol_id, file_id, kind, qualified = int(source[0]), int(source[1]), str(source[2]), str(source[3])
    wanted = json.dumps(sorted(set(labels)))
    # (file id, qualified name, via, label, rank, whether an enclosing definition may stand in)
    edges: list[tuple[int, str, str, str, float, bool]] = []
    if kind in ("function", "method"):
        edges += _targets_of(conn, file_id, qualified, "call", wanted, per_relation, nested=True, via="calls")
    if kind in ("function", "method", "class"):
        edges += _scopes_reaching(conn, symbol_id, "call", wanted, per_relation, via="called by")
    if kind == "class":
        edges += _targets_of(conn, file_id, qualified, "inherit", wanted, per_relation, nested=False, via="inherits")
        edges += _scopes_reaching(conn, symbol_id, "inherit", wanted, per_relation, via="inherited by")
    if kind == "module":
        edges += _imported(conn, file_id, per_relation)
    found: dict[int, Neighbour] = {}
    for other_file, other, via, label, rank, enclosing in edges:
        unit = _unit_of(conn, other_file, other, enclosing)
        if unit is not None and unit != unit_id and unit not in found:
            found[unit] = Neighbour(unit, other_file, via, label, rank)
    return list(found.values())


def _targets_of(
    conn: sqlite3.Connection, file_id: int, qualified: str, ref_kind: str, labels: str, limit: int, *,
    nested: bool, via: str,
) -> list[tuple[int, str, str, str, float, bool]]:
    """The definitions references of `ref_kind` written in `qualified` (and, `nested`, in the
    functions nested in it) are bound to."""
    inner = " OR r.scope LIKE ? ESCAPE '\\'" if nested else ""
    params: tuple[object, ...] = (file_id, qualified) + ((_like_prefix(qualified + "."),) if nested else ())
    rows = conn.execute(
        "SELECT t.file_id, t.qualified_name, min(r.label), max(t.rank) FROM refs r JOIN symbols t ON t.id = r.target_id"
        f" WHERE r.file_id = ? AND (r.scope = ?{inner}) AND r.kind = ? AND r.label IN (SELECT value FROM json_each(?))"
        " GROUP BY t.id ORDER BY min(r.label) = 'exact' DESC, max(t.rank) DESC, t.file_id, t.start_line LIMIT ?",
        (*params, ref_kind, labels, limit),
    )
    return [(int(f), str(q), via, str(label), float(rank), False) for f, q, label, rank in rows]


def _scopes_reaching(
    conn: sqlite3.Connection, symbol_id: int, ref_kind: str, labels: str, limit: int, *, via: str
) -> list[tuple[int, str, str, str, float, bool]]:
    """The definitions whose references of `ref_kind` are bound to `symbol_id` (module-level ones left out)."""
    rows = conn.execute(
        "SELECT r.file_id, r.scope, min(r.label), coalesce(max(c.rank), 0) FROM refs r"
        " LEFT JOIN symbols c ON c.file_id = r.file_id AND c.qualified_name = r.scope"
        " WHERE r.target_id = ? AND r.kind = ? AND r.scope IS NOT NULL"
        " AND r.label IN (SELECT value FROM json_each(?))"
        " GROUP BY r.file_id, r.scope ORDER BY min(r.label) = 'exact' DESC, 4 DESC, r.file_id, min(r.line) LIMIT ?",
        (symbol_id, ref_kind, labels, limit),
    )
    return [(int(f), str(scope), via, str(label), float(rank), True) for f, scope, label, rank in rows]


def _imported(conn: sqlite3.Connection, file_id: int, limit: int) -> list[tuple[int, str, str, str, float, bool]]:
    """What a file's imports resolve to: the symbol imported, else the imported file's module code,
    else its highest ranked definition."""
    rows = conn.execute(
        "SELECT coalesce(t.file_id, i.target_file_id),"
        " coalesce(t.qualified_name, (SELECT u.qualified_name FROM units u WHERE u.file_id = i.target_file_id"
        "   AND u.kind = 'module' ORDER BY u.part LIMIT 1), (SELECT s.qualified_name FROM symbols s"
        "   WHERE s.file_id = i.target_file_id AND s.kind IN ('class', 'function') ORDER BY s.rank DESC LIMIT 1)),"
        " coalesce(t.rank, f.rank, 0)"
        " FROM imports i LEFT JOIN symbols t ON t.id = i.target_symbol_id LEFT JOIN files f ON f.id = i.target_file_id"
        " WHERE i.file_id = ? AND (i.target_symbol_id IS NOT NULL OR i.target_file_id IS NOT NULL)"
        " AND coalesce(t.file_id, i.target_file_id) != ?"
        " ORDER BY 3 DESC, i.line LIMIT ?",
        (file_id, file_id, limit),
    )
    return [(int(f), str(q), "imports", "exact", float(rank), False) for f, q, rank in rows if q is not None]


def _unit_of(conn: sqlite3.Connection, file_id: int, qualified: str, enclosing: bool) -> int | None:
    """The unit of a definition (its first part); with `enclosing`, a function nested in another (a
    symbol without a unit of its own) stands for the definition it is nested in, never the module."""
    kinds = json.dumps([k for k in _DEFINITION_UNITS if not enclosing or k != "module"])
    while qualified:
        row = conn.execute(
            "SELECT id FROM units WHERE file_id = ? AND qualified_name = ?"
            " AND kind IN (SELECT value FROM json_each(?)) ORDER BY part, start_line LIMIT 1",
            (file_id, qualified, kinds),
        ).fetchone()
        if row is not None:
            return int(row[0])
        if not enclosing or "." not in qualified:
            return None
        qualified = qualified.rsplit(".", 1)[0]
    return None


# -- Go's implicit interfaces (graph/gointerfaces.py) ------------------------------------------------------

__all__ += ["interface_sources", "methods_by_owner", "generated_paths", "quoted_names", "file_links", "defining_files",
            "files_containing"]


def interface_sources(conn: sqlite3.Connection, language: str) -> list[tuple[str, str, str]]:
    """(package, name, source text) of each interface type declared in files of `language`, a long
    one's parts joined in order."""
    rows = conn.execute(
        "SELECT f.path, u.qualified_name, u.parent, u.name, u.content FROM units u JOIN files f ON f.id = u.file_id"
        " WHERE f.language = ? AND u.kind = 'class' AND u.signature LIKE '% interface%'"
        " ORDER BY f.path, u.start_line, u.part",
        (language,),
    )
    joined: dict[tuple[str, str], tuple[str, str, list[str]]] = {}
    for path, qualified, parent, name, content in rows:
        joined.setdefault((path, qualified), (parent or "", name, []))[2].append(content)
    return [(package, name, "\n".join(parts)) for package, name, parts in joined.values()]


def quoted_names(conn: sqlite3.Connection, languages: Iterable[str]) -> set[str]:
    """The names the code of these languages writes right after a quote, whole (`"_latex"`) or as
    the head of a name it builds (`'_print_' + name`, `f"visit_{x}"`, `"_eval_is_%s"`)."""
    found: set[str] = set()
    rows = conn.execute(
        "SELECT u.content FROM units u JOIN files f ON f.id = u.file_id"
        " WHERE f.language IN (SELECT value FROM json_each(?)) AND u.kind != 'module'",
        (json.dumps(sorted(set(languages))),),
    )
    for (content,) in rows:
        found.update(_QUOTED_NAME.findall(content))
    return found


_QUOTED_NAME = re.compile(r"""['"]([A-Za-z_]\w*)""")


def file_links(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    """(from, to) paths of files one of which uses the other: a reference bound to a definition of
    the other, or an import resolved to it."""
    rows = conn.execute(
        "SELECT DISTINCT a.path, b.path FROM refs r JOIN symbols s ON s.id = r.target_id"
        " JOIN files a ON a.id = r.file_id JOIN files b ON b.id = s.file_id WHERE r.file_id != s.file_id"
        " UNION SELECT a.path, b.path FROM imports i JOIN files a ON a.id = i.file_id"
        " JOIN files b ON b.id = i.target_file_id WHERE i.file_id != i.target_file_id"
    )
    return {(row[0], row[1]) for row in rows}


def defining_files(conn: sqlite3.Connection, languages: Iterable[str]) -> dict[str, tuple[str, set[tuple[str, str]]]]:
    """Files of these languages that define something: their language and the (name, qualified
    name) of each definition."""
    rows = conn.execute(
        "SELECT f.path, f.language, s.name, s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE f.status != 'skipped' AND s.kind != 'module' AND f.language IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(languages))),),
    )
    found: dict[str, tuple[str, set[tuple[str, str]]]] = {}
    for path, language, name, qualified in rows:
        found.setdefault(path, (language, set()))[1].add((name, qualified))
    return found


def files_containing(conn: sqlite3.Connection, needle: str) -> set[str]:
    """Paths of the files some unit of which holds `needle` as written (`__main__`)."""
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        "SELECT DISTINCT f.path FROM units u JOIN files f ON f.id = u.file_id WHERE u.content LIKE ? ESCAPE '\\'",
        (f"%{escaped}%",),
    )
    return {row[0] for row in rows}


def generated_paths(conn: sqlite3.Connection) -> list[str]:
    """Files left out of the index as generated code: their references are not in it."""
    rows = conn.execute(
        "SELECT path FROM files WHERE status = 'skipped' AND error LIKE 'generated code%' ORDER BY path"
    )
    return [row[0] for row in rows]


def methods_by_owner(conn: sqlite3.Connection, language: str) -> dict[str, frozenset[str]]:
    """The names of the methods each type of `language` declares, by the type's qualified name."""
    found: dict[str, set[str]] = {}
    rows = conn.execute(
        "SELECT s.parent, s.name FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE f.language = ? AND s.kind = 'method' AND s.parent IS NOT NULL",
        (language,),
    )
    for parent, name in rows:
        found.setdefault(parent, set()).add(name)
    return {owner: frozenset(names) for owner, names in found.items()}


# -- conventions (graph/conventions.py) ----------------------------------------------------------------

__all__ += ["definition_names", "import_modules"]


def definition_names(conn: sqlite3.Connection, kinds: Iterable[str]) -> list[tuple[str, int, str, str, str]]:
    """(path, line, kind, name, language) of every definition of these kinds, by path and line."""
    rows = conn.execute(
        "SELECT f.path, s.start_line, s.kind, s.name, f.language FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE s.kind IN (SELECT value FROM json_each(?)) ORDER BY f.path, s.start_line",
        (json.dumps(list(kinds)),),
    )
    return [(r[0], int(r[1]), r[2], r[3], r[4]) for r in rows]


def import_modules(conn: sqlite3.Connection) -> list[tuple[str, int, str, int, bool, str]]:
    """(path, line, module, level, names a project file, language) of every import, by path and line."""
    rows = conn.execute(
        "SELECT f.path, i.line, i.module, i.level, i.target_file_id IS NOT NULL, f.language"
        " FROM imports i JOIN files f ON f.id = i.file_id ORDER BY f.path, i.line"
    )
    return [(r[0], int(r[1]), r[2], int(r[3]), bool(r[4]), r[5]) for r in rows]
