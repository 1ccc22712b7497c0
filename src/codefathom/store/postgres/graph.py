"""Graph rows in PostgreSQL: the binder's source and the binding's writes (`PostgresGraphLookup`),
every read kept to one project. A file's own rows are written with the rest of its batch (pending.py).

The lookup mirrors the SQLite one (store/sqlite/graph.py) query for query, in the same row orders.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from codefathom.graphsource import (
    BindingRow,
    BoundRef,
    GraphLookup,
    HintTable,
    ImportResolution,
    ImportRow,
    RankInputs,
    RefRow,
    RefSpan,
    SymbolRow,
)
from codefathom.store import graph_cache
from codefathom.store.base import REFS_HELD
from codefathom.store.graph_cache import GraphRowCache
from codefathom.store.postgres.db import Conn, backend_errors, connect
from codefathom.store.postgres.held_refs import HeldRefs

__all__ = ["PostgresGraphLookup"]

BOUND_LABELS = ["exact", "high", "likely", "possible"]
# At most this many files' imports, hints and bases are read ahead (`prefetch_files`): beyond, as asked.
PREFETCH_FILES = 5000
# A lazy lookup reads a kind of row one at a time (a name, a file's module, a symbol, a signature,
# a class's bases) this many times, then reads more at once: each read is a round trip (a one-file
# edit of java.base asked 9,193 questions), where SQLite's lookup pays none.
ONE_BY_ONE = 50
SIGNATURES_AT_ONCE = 20_000

_SYMBOL_COLUMNS = "s.id, s.file_id, s.kind, s.name, s.qualified_name, s.parent, s.start_line, s.end_line"
_IMPORT_COLUMNS = (
    "id, file_id, module, name, alias, level, target_file_id, target_symbol_id, external, binds_module, line"
)
_REF_COLUMNS_TO_BIND = "id, file_id, name, kind, receiver, line, scope, arity, arguments"
_HINT_ROWS = "SELECT file_id, scope, variable, type_name, kind, line FROM hints"


def _import_row(row: Sequence[Any]) -> ImportRow:
    return ImportRow(
        row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7],
        bool(row[8]), bool(row[9]), row[10],
    )


def _resolved_row(row: ImportRow, target: ImportResolution | None) -> ImportRow:
    if target is None:
        return row
    _, file_id, symbol_id, external, module = target
    return ImportRow(row.id, row.file_id, row.module, row.name, row.alias, row.level, file_id, symbol_id,
                     bool(external), bool(module), row.line)


class PostgresGraphLookup(GraphRowCache):
    """Cached reads of one project's symbols, imports and hints for one binding run (the index does
    not change while it runs: the caller holds the write transaction, or reads a committed state)."""

    def __init__(self, conn: Conn, project: int, uri: str) -> None:
        super().__init__()
        self._conn = conn
        self._project = project
        self._uri = uri
        self._bases_read: set[int] = set()  # files whose base classes are all in the cache (prefetch_files)
        self._names: set[str] | None = None  # every symbol name of the project, once read
        self._all_modules = False  # every file's module symbol is in the cache
        self._asked: Counter[str] = Counter()  # reads one at a time, by kind
        self._held: HeldRefs | None = None  # a first index's references, until bound (see hold_refs)

    def _rows(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        """Rows of a query whose first parameter is the project."""
        return self._conn.execute(sql, (self._project, *params)).fetchall()

    # -- following a first index's writes ------------------------------------------------------

    def follow(self) -> None:
        """Take each file's rows as `replace_facts` writes them, on a project without graph rows yet."""
        with backend_errors():
            found = self._rows(
                "SELECT 1 FROM symbols WHERE project_id = %s UNION ALL"
                " SELECT 1 FROM imports WHERE project_id = %s LIMIT 1", self._project
            )
        if not found:
            self.following = True
            self.written_refs = []
            self.refs_unwritten = True

    def hold_refs(self, rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
        """A file's reference rows as the store would write them: the rows it is to write now. A
        first index holds them all (see held_refs.py) for `save_bindings` to write each once, bound."""
        if not self.refs_unwritten:
            return rows
        if self._held is None:
            self._held = HeldRefs()
        if not self._held.count and rows:  # (the first held: in the transaction of its file's rows)
            self._conn.execute(
                "INSERT INTO meta(project_id, key, value) VALUES (%s, %s, '1')"
                " ON CONFLICT (project_id, key) DO UPDATE SET value = excluded.value", (self._project, REFS_HELD),
            )
        self._held.add(rows)
        return []

    # -- preloading ----------------------------------------------------------------------------

    def _read_all(self) -> None:
        one = self._strings.setdefault
        for i, f, kind, name, qualified, parent, start, end in self._rows(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols s WHERE s.project_id = %s ORDER BY s.id"
        ):
            self._add_symbol(SymbolRow(
                i, f, one(kind, kind), one(name, name), one(qualified, qualified),
                None if parent is None else one(parent, parent), start, end,
            ))
        for row in self._rows(f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE project_id = %s ORDER BY id"):
            self._imports.setdefault(int(row[1]), []).append(_import_row(row))
        count = self._rows("SELECT count(*) FROM hints WHERE project_id = %s")[0][0]
        if int(count) > graph_cache.HELD_HINTS:
            self._let_hints_go()
        else:
            for file_id, scope, variable, type_name, kind, line in self._rows(
                f"{_HINT_ROWS} WHERE project_id = %s ORDER BY id"
            ):
                key = (None if scope is None else one(scope, scope), one(variable, variable))
                evidence = (one(type_name, type_name), one(kind, kind), line)
                self._hints.setdefault(file_id, {}).setdefault(key, []).append(evidence)
        for file_id, scope, receiver, name in self._rows(
            "SELECT file_id, scope, receiver, name FROM refs WHERE project_id = %s AND kind = 'inherit'"
            " AND scope IS NOT NULL ORDER BY file_id, scope, col, id"
        ):
            self._bases.setdefault((file_id, scope), []).append((receiver, name))

    def _file_rows(self) -> list[tuple[int, str, str]]:
        rows = self._rows("SELECT id, path, language FROM files WHERE project_id = %s ORDER BY id")
        return [(int(r[0]), r[1], r[2]) for r in rows]

    def _symbols(self, where: str, *params: object) -> list[SymbolRow]:
        rows = self._rows(f"SELECT {_SYMBOL_COLUMNS} FROM symbols s WHERE s.project_id = %s AND {where} ORDER BY s.id",
                          *params)
        found = [SymbolRow(*row) for row in rows]
        self._by_id.update((symbol.id, symbol) for symbol in found)  # (what `symbol` and `signature` know)
        return found

    def _many(self, kind: str) -> bool:
        """Counts a read of `kind` one at a time: whether there have been enough to read more at once."""
        self._asked[kind] += 1
        return self._asked[kind] > ONE_BY_ONE

    def _symbols_with(self, column: str, value: object) -> list[SymbolRow]:
        if column == "name":
            # Most names binding asks for are no symbol's (locals, parameters, the JDK's classes).
            if self._names is None and self._many("name"):
                self._names = {str(r[0]) for r in self._rows("SELECT DISTINCT name FROM symbols WHERE project_id = %s")}
            if self._names is not None and value not in self._names:
                return []
        return self._symbols(f"s.{column} = %s", value)

    def symbol(self, symbol_id: int) -> SymbolRow | None:
        if self._complete:
            return super().symbol(symbol_id)
        if symbol_id not in self._by_id:
            wanted = {symbol_id}
            if self._many("symbol"):  # those that imports resolved to, which binding asks for next
                wanted |= {
                    row.target_symbol_id for rows in self._imports.values() for row in rows
                    if row.target_symbol_id is not None and row.target_symbol_id not in self._by_id
                }
            self._symbols("s.id = ANY(%s)", sorted(wanted))
        return self._by_id.get(symbol_id)

    def prefetch_names(self, names: Iterable[str], *, qualified: bool = False) -> None:
        """The symbols of these names (qualified names) in one read, each name's in id order as
        `_symbols_with` gives them; a name with none is remembered as such."""
        if self._complete:
            return
        cache, column = (self._by_qualified, "qualified_name") if qualified else (self._by_name, "name")
        wanted = sorted({name for name in names if name not in cache})
        if not wanted:
            return
        found: dict[str, list[SymbolRow]] = {name: [] for name in wanted}
        for row in self._symbols(f"s.{column} = ANY(%s)", wanted):
            found[row.qualified_name if qualified else row.name].append(row)
        cache.update(found)

    # -- the binder's reads --------------------------------------------------------------------

    def signature(self, symbol_id: int) -> str:
        if symbol_id not in self._signatures:
            wanted = [symbol_id]
            if self._many("signature"):  # every symbol read so far: overloads are compared in turn
                held = (i for i in self._by_id if i not in self._signatures and i != symbol_id)
                wanted += list(itertools.islice(held, SIGNATURES_AT_ONCE))
            for found, signature in self._conn.execute("SELECT id, signature FROM symbols WHERE id = ANY(%s)",
                                                       (wanted,)):
                self._signatures[int(found)] = str(signature or "")
            for missing in wanted:
                self._signatures.setdefault(missing, "")
        return self._signatures[symbol_id]

    def module_symbols(self, file_id: int) -> list[int]:
        if self._complete:
            return self._module_ids.get(file_id, [])
        return [s.id for s in self._symbols("s.file_id = %s AND s.kind = 'module'", file_id)]

    def all_imports(self) -> Iterable[list[ImportRow]]:
        assert self._complete
        return self._imports.values()

    def module_of(self, file_id: int) -> SymbolRow | None:
        if file_id not in self._modules:
            if self._all_modules:
                return None
            if self._many("module"):  # a file's first module symbol by id, as one file's read gives it
                for symbol in self._symbols("s.kind = 'module'"):
                    self._modules.setdefault(symbol.file_id, symbol)
                self._all_modules = True
                return self._modules.get(file_id)
            found = self._symbols("s.file_id = %s AND s.kind = 'module'", file_id)
            self._modules[file_id] = found[0] if found else None
        return self._modules[file_id]

    def module_file(self, module: str) -> int | None:
        if module not in self._module_files:
            found = [s for s in self.by_qualified(module) if s.kind == "module"]
            self._module_files[module] = found[0].file_id if found else None
        return self._module_files[module]

    def imports_of(self, file_id: int) -> list[ImportRow]:
        if file_id not in self._imports:
            rows = self._conn.execute(
                f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE file_id = %s ORDER BY id", (file_id,)
            )
            resolutions = self._resolutions
            self._imports[file_id] = [_resolved_row(item, resolutions.get(item.id)) for item in map(_import_row, rows)]
        return self._imports[file_id]

    def hint_table(self, file_id: int) -> HintTable:
        if file_id not in self._hints:
            if self._hints_held < 0 and len(self._hints) >= graph_cache.HINT_FILES:
                del self._hints[next(iter(self._hints))]
            table: HintTable = {}
            for _, scope, variable, type_name, kind, line in self._conn.execute(
                f"{_HINT_ROWS} WHERE file_id = %s ORDER BY id", (file_id,)
            ):
                table.setdefault((scope, variable), []).append((type_name, kind, line))
            self._hints[file_id] = table
        return self._hints[file_id]

    def prefetch_files(self, file_ids: Iterable[int]) -> None:
        """Each file's imports, hints and base classes in three reads, in the order the reads of
        one file give them (a rebinding of many files asked for each, three round trips a file)."""
        wanted = sorted({f for f in file_ids if f not in self._imports} - self._bases_read)
        if self._complete or not wanted or len(wanted) > PREFETCH_FILES:
            return
        resolutions = self._resolutions
        imports: dict[int, list[ImportRow]] = {f: [] for f in wanted}
        for row in self._conn.execute(
            f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE file_id = ANY(%s) ORDER BY id", (wanted,)
        ):
            item = _import_row(row)
            imports[item.file_id].append(_resolved_row(item, resolutions.get(item.id)))
        self._imports.update(imports)
        hints: dict[int, HintTable] = {f: {} for f in wanted if f not in self._hints}
        for file_id, scope, variable, type_name, kind, line in self._conn.execute(
            f"{_HINT_ROWS} WHERE file_id = ANY(%s) ORDER BY id", (sorted(hints),)
        ):
            hints[file_id].setdefault((scope, variable), []).append((type_name, kind, line))
        self._hints.update(hints)
        self._read_bases(wanted)

    def _read_bases(self, file_ids: list[int]) -> None:
        """Every class's bases in these files, each class's in the order its own read gives them."""
        found: dict[tuple[int, str], list[tuple[str, str]]] = {}
        for file_id, scope, receiver, name in self._conn.execute(
            "SELECT file_id, scope, receiver, name FROM refs WHERE file_id = ANY(%s) AND kind = 'inherit'"
            " AND scope IS NOT NULL ORDER BY file_id, scope, col, id", (file_ids,)
        ):
            found.setdefault((file_id, scope), []).append((receiver, name))
        for key, bases in found.items():
            self._bases.setdefault(key, bases)
        self._bases_read.update(file_ids)

    def bases_of(self, cls: SymbolRow) -> list[tuple[str, str]]:
        key = (cls.file_id, cls.qualified_name)
        if key not in self._bases:
            if self._complete or cls.file_id in self._bases_read:
                return []
            if self._many("bases"):  # every class of the file: its other classes are asked for next
                self._read_bases([cls.file_id])
                return self._bases.get(key, [])
            rows = self._conn.execute(
                "SELECT receiver, name FROM refs WHERE file_id = %s AND kind = 'inherit' AND scope = %s"
                " ORDER BY col, id",
                key,
            )
            self._bases[key] = [(row[0], row[1]) for row in rows]
        return self._bases[key]

    def ranked_files(self) -> list[int]:
        rows = self._rows("SELECT id FROM files WHERE project_id = %s AND status != 'skipped' ORDER BY id")
        return [int(row[0]) for row in rows]

    def file_text(self, file_id: int) -> str:
        rows = self._conn.execute(
            "SELECT content FROM units WHERE file_id = %s ORDER BY start_line, part, id", (file_id,)
        )
        return "\n".join(row[0] for row in rows)

    def imports_needing_resolution(self, file_ids: Iterable[int] | None) -> list[ImportRow]:
        if file_ids is None and self.following:
            return [row for rows in self._imports.values() for row in rows]
        if file_ids is None:
            rows = self._rows(f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE project_id = %s ORDER BY id")
        else:
            ids = sorted(set(file_ids))
            rows = self._rows(
                f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE project_id = %s AND (file_id = ANY(%s)"
                " OR target_file_id = ANY(%s) OR target_file_id IS NULL) ORDER BY id",
                ids, ids,
            )
        return [_import_row(row) for row in rows]

    def imports_in(self, file_ids: Iterable[int]) -> list[ImportRow]:
        rows = self._conn.execute(
            f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE file_id = ANY(%s) ORDER BY id", (sorted(set(file_ids)),)
        )
        return [_import_row(row) for row in rows]

    def resolved(self, targets: Iterable[ImportResolution]) -> None:
        by_id = {target[0]: target for target in targets}
        self._resolutions.update(by_id)
        for file_id, rows in self._imports.items():
            if any(row.id in by_id for row in rows):
                self._imports[file_id] = [_resolved_row(row, by_id.get(row.id)) for row in rows]

    # -- a binding run's reads and writes ------------------------------------------------------

    @classmethod
    def read_only(cls, uri: str, project: int) -> PostgresGraphLookup:
        """A lookup of the project's committed rows, on a read-only connection of its own."""
        return cls(connect(uri, read_only=True), project, uri)

    def reader(self) -> Callable[[], GraphLookup]:
        return partial(PostgresGraphLookup.read_only, self._uri, self._project)

    def database(self) -> str:
        return json.dumps({"uri": self._uri, "project": self._project})

    def reconnect_read_only(self, database: str) -> None:
        # (a forked child: the connection it inherited is its parent's, and psycopg leaves it be)
        where = json.loads(database)
        self._conn = connect(str(where["uri"]), read_only=True)
        self._project = int(where["project"])

    def close(self) -> None:
        self._conn.close()

    def refs_to_rebind(
        self, file_ids: Iterable[int] | None, names: Iterable[str], within: Iterable[int] = ()
    ) -> list[RefRow]:
        return refs_to_rebind(self._conn, self._project, file_ids, names, within)

    def ref_spans(self) -> list[RefSpan]:
        rows = self._rows(
            "SELECT file_id, min(id), max(id), count(*) FROM refs WHERE project_id = %s GROUP BY file_id ORDER BY 2"
        )
        return [(int(f), int(a), int(b), int(n)) for f, a, b, n in rows]

    def refs_between(self, first: int, last: int) -> list[RefRow]:
        if self._held is not None:
            return self._held.between(first, last)
        rows = self._rows(
            f"SELECT {_REF_COLUMNS_TO_BIND} FROM refs WHERE project_id = %s AND id BETWEEN %s AND %s ORDER BY id",
            first, last,
        )
        return [RefRow(*row) for row in rows]

    def bound_edges(self, first: int, last: int) -> list[BoundRef]:
        rows = self._rows(
            "SELECT file_id, scope, target_id, confidence FROM refs WHERE project_id = %s AND id BETWEEN %s AND %s"
            " AND target_id IS NOT NULL ORDER BY id",
            first, last,
        )
        return [(int(f), s, int(t), float(c)) for f, s, t, c in rows]

    def save_bindings(self, bindings: Iterable[BindingRow]) -> None:
        rows = list(bindings)
        if not rows:
            return
        if self.refs_unwritten:
            self._write_held(rows)
            return
        ids, targets, confidences, labels, candidates = (list(column) for column in zip(*rows, strict=True))
        # One statement over arrays: a whole batch of bindings in one round trip.
        self._conn.execute(
            "UPDATE refs r SET target_id = b.target, confidence = b.confidence, label = b.label,"
            " candidates = b.candidates FROM unnest(%s::bigint[], %s::bigint[], %s::float8[], %s::text[],"
            " %s::int[]) AS b(id, target, confidence, label, candidates) WHERE r.id = b.id",
            (ids, targets, confidences, labels, candidates),
        )

    def save_import_targets(self, targets: Iterable[ImportResolution]) -> None:
        rows = list(targets)
        if not rows:
            return
        ids, files, symbols, external, module = (list(column) for column in zip(*rows, strict=True))
        self._conn.execute(
            "UPDATE imports i SET target_file_id = t.file, target_symbol_id = t.symbol, external = t.external,"
            " binds_module = t.module FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::smallint[],"
            " %s::smallint[]) AS t(id, file, symbol, external, module) WHERE i.id = t.id",
            (ids, files, symbols, [int(e) for e in external], [int(m) for m in module]),
        )

    def _write_held(self, bindings: Iterable[BindingRow]) -> None:
        assert self._held is not None
        text = self._held.bound(bindings)
        if text:
            with self._conn.cursor() as cursor, cursor.copy(f"COPY refs ({HeldRefs.columns}) FROM STDIN") as copy:
                copy.write(text)

    def drop_local_reads(self, file_ids: Sequence[int] | None = None) -> None:
        if self.refs_unwritten:  # the end of a first index's binding, which wrote every reference
            if self._held is not None:
                self._write_held(self._held.rest())
                self._held.close()
                self._held = None
            self.refs_unwritten = False
            self._conn.execute("DELETE FROM meta WHERE project_id = %s AND key = %s", (self._project, REFS_HELD))
            return
        if file_ids is None:
            self._conn.execute("DELETE FROM refs WHERE project_id = %s AND kind = 'read' AND label = 'local'",
                               (self._project,))
        else:
            self._conn.execute("DELETE FROM refs WHERE file_id = ANY(%s) AND kind = 'read' AND label = 'local'",
                               (list(file_ids),))

    def rank_inputs(self) -> RankInputs:
        """Nodes and weighted edges of the file and symbol graphs, in the order SQLite gives them
        (groups by key, each weight summed in id order)."""
        files = self.ranked_files()
        file_edges = [
            (int(a), int(b), float(w))
            for a, b, w in self._rows(
                "SELECT * FROM (SELECT r.file_id, s.file_id AS other, sum(r.confidence ORDER BY r.id)"
                " FROM refs r JOIN symbols s ON s.id = r.target_id WHERE r.project_id = %s AND r.file_id != s.file_id"
                " GROUP BY r.file_id, s.file_id ORDER BY 1, 2) AS bound UNION ALL"
                " SELECT * FROM (SELECT file_id, target_file_id, 0.5 * count(*) FROM imports WHERE project_id = %s"
                " AND target_file_id IS NOT NULL AND target_file_id != file_id GROUP BY file_id, target_file_id"
                " ORDER BY 1, 2) AS imported",
                self._project,
            )
        ]
        symbols = [int(row[0]) for row in self._rows(
            "SELECT id FROM symbols WHERE project_id = %s ORDER BY id"
        )]
        symbol_edges = [
            (int(a), int(b), float(w))
            for a, b, w in self._rows(
                "SELECT coalesce(src.id, m.id), r.target_id, sum(r.confidence ORDER BY r.id) FROM refs r"
                " LEFT JOIN symbols src ON src.file_id = r.file_id AND src.qualified_name = r.scope"
                " LEFT JOIN symbols m ON m.file_id = r.file_id AND m.kind = 'module'"
                " WHERE r.project_id = %s AND r.target_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2"
            )
            if a is not None
        ]
        return files, file_edges, symbols, symbol_edges

    def save_ranks(self, files: dict[int, float], symbols: dict[int, float]) -> None:
        for table, ranks in (("files", files), ("symbols", symbols)):
            if ranks:
                self._conn.execute(
                    f"UPDATE {table} t SET rank = r.rank FROM unnest(%s::bigint[], %s::float8[]) AS r(id, rank)"
                    " WHERE t.id = r.id",
                    (list(ranks), list(ranks.values())),
                )

    # -- what a module system reads of the whole project ---------------------------------------

    def parents_in(self, languages: Sequence[str]) -> list[tuple[str | None, str, str]]:
        return self._rows(
            "SELECT s.parent, s.qualified_name, s.kind FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND f.language = ANY(%s) AND s.kind != 'module' ORDER BY s.id",
            list(languages),
        )

    def signatures_in(
        self, languages: Sequence[str], kind: str, like: str | None = None
    ) -> list[tuple[int, str, str]]:
        where = "" if like is None else " AND s.signature LIKE %s"
        return self._rows(
            "SELECT s.id, f.path, s.signature FROM symbols s JOIN files f ON f.id = s.file_id"
            f" WHERE s.project_id = %s AND f.language = ANY(%s) AND s.kind = %s{where} ORDER BY s.id",
            list(languages), kind, *(() if like is None else (like,)),
        )

    def definitions_in(self, language: str, kinds: Sequence[str]) -> list[tuple[int, str, str | None]]:
        return self._rows(
            "SELECT s.file_id, s.qualified_name, s.parent FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND f.language = %s AND s.kind = ANY(%s) ORDER BY s.file_id, s.start_line, s.id",
            language, list(kinds),
        )

    def outer_parents(self, languages: Sequence[str], kinds: Sequence[str]) -> list[tuple[int, str | None]]:
        return self._rows(
            "SELECT s.file_id, s.parent FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND f.language = ANY(%s) AND s.kind = ANY(%s)"
            " ORDER BY s.file_id, s.start_line, s.end_line DESC, s.id",
            list(languages), list(kinds),
        )

    def holds_under(self, file_id: int, prefix: str) -> bool:
        return self._conn.execute(
            "SELECT 1 FROM symbols WHERE file_id = %s AND (parent = %s OR left(parent, %s) = %s) LIMIT 1",
            (file_id, prefix, len(prefix) + 1, prefix + "."),
        ).fetchone() is not None

    def first_definition(self, file_id: int) -> str | None:
        row = self._conn.execute(
            "SELECT qualified_name FROM symbols WHERE file_id = %s AND kind != 'module' ORDER BY id LIMIT 1",
            (file_id,),
        ).fetchone()
        return None if row is None else str(row[0])

    def scope_spans(self) -> list[tuple[int, int, int, str, str]]:
        return self._rows(
            "SELECT file_id, start_line, end_line, qualified_name, kind FROM symbols"
            " WHERE project_id = %s AND kind IN ('class', 'function', 'method') ORDER BY id"
        )


def refs_to_rebind(
    conn: Conn, project: int, file_ids: Iterable[int] | None, names: Iterable[str], within: Iterable[int] = ()
) -> list[RefRow]:
    """References whose binding may have changed (see GraphLookup.refs_to_rebind), in id order."""
    columns = "r.id, r.file_id, r.name, r.kind, r.receiver, r.line, r.scope, r.arity, r.arguments"
    shard = sorted(set(within))
    if file_ids is None and shard:
        rows = conn.execute(f"SELECT {columns} FROM refs r WHERE r.file_id = ANY(%s) ORDER BY r.id", (shard,))
    elif file_ids is None:
        rows = conn.execute(f"SELECT {columns} FROM refs r WHERE r.project_id = %s ORDER BY r.id", (project,))
    else:
        rows = conn.execute(
            f"SELECT {columns} FROM refs r WHERE r.project_id = %s AND (r.file_id = ANY(%s) OR r.name = ANY(%s)"
            " OR (r.target_id IS NULL AND r.label = ANY(%s))) ORDER BY r.id",
            (project, sorted(set(file_ids)), sorted(set(names)), BOUND_LABELS),
        )
    return [RefRow(*row) for row in rows]
