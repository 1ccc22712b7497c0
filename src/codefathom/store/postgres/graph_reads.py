"""The PostgreSQL store's answers to the graph questions (`store.GraphReads`): `Store.graph` hands one out.
Each method is the query of the same name in store/sqlite/graph.py, kept to one project, in SQLite's row order.

Where SQLite leaves the order of equal rows to its plan (a table scan: rowid order), these queries
order by id, which grows in write order as rowids do. SQLite's LIKE ignores the case of ASCII letters,
so its patterns become ILIKE here, on text compared byte by byte (COLLATE "C": ASCII folding only).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from codefathom.graphsource import RefRow
from codefathom.store.postgres.db import Conn
from codefathom.store.postgres.graph import refs_to_rebind
from codefathom.store.records import (
    BaseRef,
    ImportInfo,
    IndexedFile,
    Neighbour,
    OutlineFileRow,
    OutlineSymbolRow,
    RefInfo,
    SymbolInfo,
)

__all__ = ["PostgresGraphReads"]

_INFO_COLUMNS = (
    "s.id, f.path, s.kind, s.name, s.qualified_name, s.parent, s.start_line, s.end_line, s.signature, s.doc"
)
_REF_COLUMNS = "f.path, r.line, r.col, r.kind, r.name, r.receiver, r.scope, r.label, r.confidence, r.target_id"
# How a reference kind counts as a file dependency (as store/sqlite/graph.py's DEP_TYPE_OF_REF).
_DEP_TYPE_OF_REF = {"call": "call", "inherit": "inherit", "decorator": "reference", "type": "reference",
                    "read": "reference"}
_UNBOUND_KINDS = ["call", "inherit", "decorator", "type", "read"]
_DEFINITION_UNITS = ("class", "function", "method", "module")
_QUOTED_NAME = re.compile(r"""['"]([A-Za-z_]\w*)""")
# SQLite's LIKE: ASCII letters match either case, every other character only itself.
_LIKE = 'COLLATE "C" ILIKE'


def _like_prefix(prefix: str) -> str:
    return _escaped(prefix) + "%"


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _symbol(row: tuple[Any, ...]) -> SymbolInfo:
    return SymbolInfo(int(row[0]), row[1], row[2], row[3], row[4], row[5], int(row[6]), int(row[7]), row[8], row[9])


def _ref(row: tuple[Any, ...]) -> RefInfo:
    return RefInfo(row[0], int(row[1]), int(row[2]), row[3], row[4], row[5], row[6], row[7], float(row[8]),
                   None if row[9] is None else int(row[9]))


class PostgresGraphReads:
    """The graph questions one project's index answers (symbols, references, file edges, outline, brief)."""

    def __init__(self, conn: Conn, project: int, locked: Callable[[], AbstractContextManager[None]]) -> None:
        self._conn = conn
        self._project = project
        self._locked = locked

    def _all(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        """Rows of a query whose first parameter is the project."""
        with self._locked():
            return self._conn.execute(sql, (self._project, *params)).fetchall()

    def _under(self, prefix: str) -> tuple[str, tuple[object, ...]]:
        """A condition on f.path keeping to the directory `prefix` ("" for all), and its parameters."""
        if not prefix:
            return "TRUE", ()
        return f"f.path {_LIKE} %s", (_like_prefix(prefix.rstrip("/") + "/"),)

    def refs_to_rebind(
        self, file_ids: Iterable[int] | None, names: Iterable[str], within: Iterable[int] = ()
    ) -> list[RefRow]:
        with self._locked():
            return refs_to_rebind(self._conn, self._project, file_ids, names, within)

    # -- symbols ----------------------------------------------------------------------------------

    def find_symbols(self, text: str, kinds: Iterable[str] = ()) -> list[SymbolInfo]:
        wanted = text.strip().replace("::", ".")
        last = wanted.rsplit(".", 1)[-1]
        rows = self._all(
            f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND (s.name = %s OR s.qualified_name = %s) ORDER BY f.path, s.start_line, s.id",
            last, wanted,
        )
        found = [_symbol(row) for row in rows]
        if "." in wanted:
            found = [s for s in found if s.qualified_name == wanted or s.qualified_name.endswith("." + wanted)]
        kept = set(kinds)
        return [s for s in found if not kept or s.kind in kept]

    def symbols_by_ids(self, ids: Iterable[int]) -> dict[int, SymbolInfo]:
        rows = self._all(
            f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND s.id = ANY(%s) ORDER BY s.id",
            sorted(set(ids)),
        )
        return {int(row[0]): _symbol(row) for row in rows}

    def symbol_in_scope(self, path: str, qualified: str) -> SymbolInfo | None:
        rows = self._all(
            f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE f.project_id = %s AND f.path = %s AND s.qualified_name = %s ORDER BY s.id LIMIT 1",
            path, qualified,
        )
        return _symbol(rows[0]) if rows else None

    def symbols_in_scopes(self, scopes: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SymbolInfo]:
        wanted = set(scopes)
        rows = self._all(
            f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND s.qualified_name = ANY(%s) ORDER BY s.id",
            sorted({qualified for _, qualified in wanted}),
        )
        found: dict[tuple[str, str], SymbolInfo] = {}
        for row in rows:
            symbol = _symbol(row)
            key = (symbol.path, symbol.qualified_name)
            if key in wanted and key not in found:
                found[key] = symbol
        return found

    # -- references -------------------------------------------------------------------------------

    def _bound_to(self, ids: Iterable[int], kinds: Iterable[str], within: str) -> tuple[str, tuple[object, ...]]:
        where = "r.project_id = %s AND r.target_id = ANY(%s)"
        params: tuple[object, ...] = (sorted(set(ids)),)
        wanted = sorted(set(kinds))
        if wanted:
            where += " AND r.kind = ANY(%s)"
            params += (wanted,)
        if within:
            where += f" AND f.path {_LIKE} %s"
            params += (_like_prefix(within.rstrip("/") + "/"),)
        return where, params

    def references_to(
        self, ids: Iterable[int], kinds: Iterable[str] = (), within: str = "", limit: int = 0
    ) -> list[RefInfo]:
        where, params = self._bound_to(ids, kinds, within)
        rows = self._all(
            f"SELECT {_REF_COLUMNS} FROM refs r JOIN files f ON f.id = r.file_id WHERE {where}"
            f" ORDER BY f.path, r.line, r.col, r.id{' LIMIT %s' if limit else ''}",
            *params, *((limit,) if limit else ()),
        )
        return [_ref(row) for row in rows]

    def reference_counts(self, ids: Iterable[int], kinds: Iterable[str] = (), within: str = "") -> dict[int, int]:
        where, params = self._bound_to(ids, kinds, within)
        joined = " JOIN files f ON f.id = r.file_id" if within else ""
        rows = self._all(
            f"SELECT r.target_id, count(*) FROM refs r{joined} WHERE {where} GROUP BY r.target_id ORDER BY 1", *params
        )
        return {int(target): int(count) for target, count in rows}

    def references_from(self, symbol: SymbolInfo, kinds: Iterable[str] = ()) -> list[RefInfo]:
        nested = "" if symbol.kind == "class" else f" OR r.scope {_LIKE} %s"
        params: tuple[object, ...] = (symbol.path, symbol.qualified_name)
        if nested:
            params += (_like_prefix(symbol.qualified_name + "."),)
        rows = self._all(
            f"SELECT {_REF_COLUMNS} FROM refs r JOIN files f ON f.id = r.file_id"
            f" WHERE f.project_id = %s AND f.path = %s AND (r.scope = %s{nested}) ORDER BY r.line, r.col, r.id",
            *params,
        )
        kept = set(kinds)
        return [ref for ref in map(_ref, rows) if not kept or ref.kind in kept]

    def unbound_count(self, name: str, kinds: Iterable[str] = ()) -> int:
        rows = self._all(
            "SELECT count(*) FROM refs WHERE project_id = %s AND name = %s AND label = 'unbound' AND candidates > 0"
            " AND kind = ANY(%s)",
            name, sorted(set(kinds)) or _UNBOUND_KINDS,
        )
        return int(rows[0][0])

    # -- files ------------------------------------------------------------------------------------

    def file_edges(self, file_id: int, *, reverse: bool) -> list[tuple[int, str, int]]:
        return self.file_edges_of([file_id], reverse=reverse).get(file_id, [])

    def file_edges_of(self, file_ids: Iterable[int], *, reverse: bool) -> dict[int, list[tuple[int, str, int]]]:
        ids = sorted(set(file_ids))
        if reverse:
            ref_sql = (
                "SELECT s.file_id, r.file_id, r.kind, count(*) FROM refs r JOIN symbols s ON s.id = r.target_id"
                " WHERE r.project_id = %s AND s.file_id = ANY(%s) AND r.file_id != s.file_id"
                " GROUP BY s.file_id, r.file_id, r.kind"
            )
            import_sql = (
                "SELECT target_file_id, file_id, count(*) FROM imports WHERE project_id = %s"
                " AND target_file_id = ANY(%s) AND file_id != target_file_id GROUP BY target_file_id, file_id"
            )
        else:
            ref_sql = (
                "SELECT r.file_id, s.file_id, r.kind, count(*) FROM refs r JOIN symbols s ON s.id = r.target_id"
                " WHERE r.project_id = %s AND r.file_id = ANY(%s) AND s.file_id != r.file_id"
                " GROUP BY r.file_id, s.file_id, r.kind"
            )
            import_sql = (
                "SELECT file_id, target_file_id, count(*) FROM imports WHERE project_id = %s AND file_id = ANY(%s)"
                " AND target_file_id IS NOT NULL AND target_file_id != file_id GROUP BY file_id, target_file_id"
            )
        counts: dict[int, dict[tuple[int, str], int]] = {}
        for of, other, kind, count in self._all(ref_sql, ids):
            key = (int(other), _DEP_TYPE_OF_REF.get(kind, "reference"))
            found = counts.setdefault(int(of), {})
            found[key] = found.get(key, 0) + int(count)
        for of, other, count in self._all(import_sql, ids):
            found = counts.setdefault(int(of), {})
            found[(int(other), "import")] = found.get((int(other), "import"), 0) + int(count)
        return {of: [(other, kind, n) for (other, kind), n in sorted(found.items())] for of, found in counts.items()}

    def external_imports(self, file_id: int) -> list[str]:
        rows = self._all(
            'SELECT DISTINCT module COLLATE "C" FROM imports WHERE project_id = %s AND file_id = %s AND external = 1'
            ' ORDER BY 1',
            file_id,
        )
        return [row[0] for row in rows]

    def file_languages(self) -> dict[str, str]:
        return {row[0]: row[1] for row in self._all(
            "SELECT path, language FROM files WHERE project_id = %s ORDER BY id"
        )}

    def script_paths(self, languages: Iterable[str]) -> set[str]:
        rows = self._all(
            "SELECT f.path FROM files f WHERE f.project_id = %s AND f.language = ANY(%s)"
            " AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.target_file_id = f.id)"
            " AND EXISTS (SELECT 1 FROM units u WHERE u.file_id = f.id AND u.start_line = 1"
            " AND starts_with(u.content, '#!'))",
            sorted(set(languages)),
        )
        return {row[0] for row in rows}

    def file_id_of(self, path: str) -> int | None:
        rows = self._all("SELECT id FROM files WHERE project_id = %s AND path = %s", path)
        return int(rows[0][0]) if rows else None

    def paths_of(self, ids: Iterable[int]) -> dict[int, str]:
        rows = self._all(
            "SELECT id, path FROM files WHERE project_id = %s AND id = ANY(%s) ORDER BY id", sorted(set(ids))
        )
        return {int(row[0]): row[1] for row in rows}

    def file_record(self, path: str) -> IndexedFile | None:
        rows = self._all(
            "SELECT id, path, language, status, error, rank, size FROM files WHERE project_id = %s AND path = %s", path
        )
        if not rows:
            return None
        row = rows[0]
        return IndexedFile(int(row[0]), row[1], row[2], row[3], row[4], float(row[5]), int(row[6]))

    def symbols_of_file(self, file_id: int) -> list[SymbolInfo]:
        rows = self._all(
            f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND s.file_id = %s ORDER BY s.start_line, s.id",
            file_id,
        )
        return [_symbol(row) for row in rows]

    def file_imports(self, file_id: int) -> list[ImportInfo]:
        rows = self._all(
            "SELECT i.module, i.name, i.alias, i.line, i.level, t.path, i.external FROM imports i"
            " LEFT JOIN files t ON t.id = i.target_file_id WHERE i.project_id = %s AND i.file_id = %s"
            " ORDER BY i.line, i.id",
            file_id,
        )
        return [ImportInfo(m, n, a, int(line), int(level), t, bool(e)) for m, n, a, line, level, t, e in rows]

    def all_paths(self) -> list[str]:
        return [row[0] for row in self._all(
            "SELECT path FROM files WHERE project_id = %s AND status != 'skipped' ORDER BY path"
        )]

    def module_doc(self, file_id: int) -> str:
        rows = self._all(
            "SELECT doc FROM units WHERE project_id = %s AND file_id = %s AND kind = 'module' AND doc != ''"
            " ORDER BY part, id LIMIT 1",
            file_id,
        )
        return str(rows[0][0]) if rows else ""

    def file_importers(self, file_id: int) -> list[str]:
        rows = self._all(
            "SELECT DISTINCT f.path FROM imports i JOIN files f ON f.id = i.file_id"
            " WHERE i.project_id = %s AND i.target_file_id = %s AND i.file_id != %s ORDER BY f.path",
            file_id, file_id,
        )
        return [row[0] for row in rows]

    def generated_paths(self) -> list[str]:
        rows = self._all(
            f"SELECT path FROM files WHERE project_id = %s AND status = 'skipped' AND error {_LIKE} %s ORDER BY path",
            "generated code%",
        )
        return [row[0] for row in rows]

    def files_containing(self, needle: str) -> set[str]:
        rows = self._all(
            f"SELECT DISTINCT f.path FROM units u JOIN files f ON f.id = u.file_id"
            f" WHERE u.project_id = %s AND u.content {_LIKE} %s",
            f"%{_escaped(needle)}%",
        )
        return {row[0] for row in rows}

    def file_links(self) -> set[tuple[str, str]]:
        rows = self._all(
            "SELECT DISTINCT a.path, b.path FROM refs r JOIN symbols s ON s.id = r.target_id"
            " JOIN files a ON a.id = r.file_id JOIN files b ON b.id = s.file_id"
            " WHERE r.project_id = %s AND r.file_id != s.file_id"
            " UNION SELECT a.path, b.path FROM imports i JOIN files a ON a.id = i.file_id"
            " JOIN files b ON b.id = i.target_file_id WHERE i.project_id = %s AND i.file_id != i.target_file_id",
            self._project,
        )
        return {(row[0], row[1]) for row in rows}

    # -- dead code and module systems -------------------------------------------------------------

    def unreferenced_symbols(self, kinds: Iterable[str]) -> list[SymbolInfo]:
        rows = self._all(
            f"SELECT {_INFO_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND s.kind = ANY(%s)"
            " AND NOT EXISTS (SELECT 1 FROM refs r WHERE r.target_id = s.id"
            "   AND NOT (r.file_id = s.file_id AND r.line BETWEEN s.start_line AND s.end_line))"
            " AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.target_symbol_id = s.id)"
            " ORDER BY f.path, s.start_line, s.id",
            sorted(set(kinds)),
        )
        return [_symbol(row) for row in rows]

    def classes_used_through_members(self) -> set[int]:
        rows = self._all(
            "SELECT DISTINCT c.id FROM symbols c JOIN symbols s ON s.project_id = c.project_id"
            " AND s.parent = c.qualified_name JOIN refs r ON r.target_id = s.id"
            " WHERE c.project_id = %s AND c.kind = 'class'"
            " AND NOT (r.file_id = c.file_id AND r.line BETWEEN c.start_line AND c.end_line)"
        )
        return {int(row[0]) for row in rows}

    def decorators_of_symbols(self) -> dict[int, set[str]]:
        rows = self._all(
            "SELECT DISTINCT s.id, r.name FROM symbols s"
            " JOIN refs r ON r.file_id = s.file_id AND r.scope = s.qualified_name"
            " WHERE s.project_id = %s AND r.kind = 'decorator' AND r.line BETWEEN s.start_line AND s.start_line + 4"
            " ORDER BY s.id"
        )
        found: dict[int, set[str]] = {}
        for symbol_id, name in rows:
            found.setdefault(int(symbol_id), set()).add(name)
        return found

    def base_refs(self) -> dict[str, list[BaseRef]]:
        rows = self._all(
            "SELECT f.path, r.scope, r.line, r.name, r.target_id, r.label FROM refs r JOIN files f ON f.id = r.file_id"
            " WHERE r.project_id = %s AND r.kind = 'inherit' AND r.scope IS NOT NULL ORDER BY r.id"
        )
        found: dict[str, list[BaseRef]] = {}
        for path, scope, line, name, target, label in rows:
            found.setdefault(scope, []).append(
                BaseRef(path, scope, int(line), name, None if target is None else int(target), label)
            )
        return found

    def class_blocks(self, path: str, qualified: str) -> list[tuple[int, int]]:
        rows = self._all(
            "SELECT u.start_line, u.end_line, u.part FROM units u JOIN files f ON f.id = u.file_id"
            " WHERE f.project_id = %s AND f.path = %s AND u.qualified_name = %s AND u.kind = 'class'"
            " ORDER BY u.start_line, u.part, u.id",
            path, qualified,
        )
        blocks: list[tuple[int, int]] = []
        for start, end, part in rows:
            if part > 1 and blocks:
                blocks[-1] = (blocks[-1][0], max(blocks[-1][1], int(end)))
            else:
                blocks.append((int(start), int(end)))
        return blocks

    def ambiguous_names(self) -> dict[str, int]:
        rows = self._all(
            "SELECT name, count(*) FROM refs WHERE project_id = %s AND label = 'unbound' AND candidates > 0"
            " GROUP BY name ORDER BY name"
        )
        return {row[0]: int(row[1]) for row in rows}

    def referenced_names(self, languages: Iterable[str], qualified: bool = False) -> set[str]:
        column = "s.qualified_name" if qualified else "s.name"
        rows = self._all(
            f"SELECT DISTINCT {column} FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND f.language = ANY(%s)"
            " AND EXISTS (SELECT 1 FROM refs r WHERE r.target_id = s.id)",
            sorted(set(languages)),
        )
        return {row[0] for row in rows}

    def condition_hints(self) -> dict[tuple[str, str, int], list[str]]:
        found: dict[tuple[str, str, int], list[str]] = {}
        for path, name, line, condition in self._all(
            "SELECT f.path, h.variable, h.line, h.type_name FROM hints h JOIN files f ON f.id = h.file_id"
            " WHERE h.project_id = %s AND h.kind = 'condition' ORDER BY h.id"
        ):
            found.setdefault((path, name, int(line)), []).append(condition)
        return found

    def prototypes(self) -> list[tuple[str, str]]:
        rows = self._all(
            "SELECT f.path, h.variable FROM hints h JOIN files f ON f.id = h.file_id"
            " WHERE h.project_id = %s AND h.kind = 'prototype' GROUP BY f.path, h.variable ORDER BY min(h.id)"
        )
        return [(row[0], row[1]) for row in rows]

    def interface_sources(self, language: str) -> list[tuple[str, str, str]]:
        rows = self._all(
            "SELECT f.path, u.qualified_name, u.parent, u.name, u.content FROM units u JOIN files f ON f.id = u.file_id"
            f" WHERE f.project_id = %s AND f.language = %s AND u.kind = 'class' AND u.signature {_LIKE} %s"
            " ORDER BY f.path, u.start_line, u.part, u.id",
            language, "% interface%",
        )
        joined: dict[tuple[str, str], tuple[str, str, list[str]]] = {}
        for path, qualified, parent, name, content in rows:
            joined.setdefault((path, qualified), (parent or "", name, []))[2].append(content)
        return [(package, name, "\n".join(parts)) for package, name, parts in joined.values()]

    def methods_by_owner(self, language: str) -> dict[str, frozenset[str]]:
        found: dict[str, set[str]] = {}
        for parent, name in self._all(
            "SELECT s.parent, s.name FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND f.language = %s AND s.kind = 'method' AND s.parent IS NOT NULL"
            " ORDER BY s.id",
            language,
        ):
            found.setdefault(parent, set()).add(name)
        return {owner: frozenset(names) for owner, names in found.items()}

    def quoted_names(self, languages: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for (content,) in self._all(
            "SELECT u.content FROM units u JOIN files f ON f.id = u.file_id"
            " WHERE u.project_id = %s AND f.language = ANY(%s) AND u.kind != 'module'",
            sorted(set(languages)),
        ):
            found.update(_QUOTED_NAME.findall(content))
        return found

    def defining_files(self, languages: Iterable[str]) -> dict[str, tuple[str, set[tuple[str, str]]]]:
        found: dict[str, tuple[str, set[tuple[str, str]]]] = {}
        for path, language, name, qualified in self._all(
            "SELECT f.path, f.language, s.name, s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND f.status != 'skipped' AND s.kind != 'module' AND f.language = ANY(%s)"
            " ORDER BY s.id",
            sorted(set(languages)),
        ):
            found.setdefault(path, (language, set()))[1].add((name, qualified))
        return found

    # -- outline, conventions ---------------------------------------------------------------------

    def outline_files(self, prefix: str = "") -> list[OutlineFileRow]:
        where, params = self._under(prefix)
        rows = self._all(
            "SELECT f.id, f.path, f.language, f.status, f.rank FROM files f"
            f" WHERE f.project_id = %s AND f.status != 'skipped' AND {where} ORDER BY f.path",
            *params,
        )
        return [OutlineFileRow(int(r[0]), r[1], r[2], r[3], float(r[4])) for r in rows]

    def outline_symbols(self, prefix: str = "", kinds: Iterable[str] = ()) -> list[OutlineSymbolRow]:
        where, params = self._under(prefix)
        rows = self._all(
            "SELECT s.id, s.file_id, s.kind, s.name, s.qualified_name, s.parent, s.start_line, s.signature, s.doc,"
            " s.rank FROM symbols s JOIN files f ON f.id = s.file_id"
            f" WHERE s.project_id = %s AND s.kind = ANY(%s) AND {where} ORDER BY s.file_id, s.start_line, s.id",
            sorted(set(kinds)), *params,
        )
        return [
            OutlineSymbolRow(int(r[0]), int(r[1]), r[2], r[3], r[4], r[5], int(r[6]), r[7], r[8], float(r[9]))
            for r in rows
        ]

    def definition_names(self, kinds: Iterable[str]) -> list[tuple[str, int, str, str, str]]:
        rows = self._all(
            "SELECT f.path, s.start_line, s.kind, s.name, f.language FROM symbols s JOIN files f ON f.id = s.file_id"
            " WHERE s.project_id = %s AND s.kind = ANY(%s) ORDER BY f.path, s.start_line, s.id",
            list(kinds),
        )
        return [(r[0], int(r[1]), r[2], r[3], r[4]) for r in rows]

    def import_modules(self) -> list[tuple[str, int, str, int, bool, str]]:
        rows = self._all(
            "SELECT f.path, i.line, i.module, i.level, i.target_file_id IS NOT NULL, f.language"
            " FROM imports i JOIN files f ON f.id = i.file_id WHERE i.project_id = %s ORDER BY f.path, i.line, i.id"
        )
        return [(r[0], int(r[1]), r[2], int(r[3]), bool(r[4]), r[5]) for r in rows]

    # -- a search result's neighbours in the graph ------------------------------------------------

    def graph_neighbours(self, unit_id: int, labels: Iterable[str], per_relation: int) -> list[Neighbour]:
        source = self._all(
            "SELECT s.id, s.file_id, s.kind, s.qualified_name FROM units u JOIN symbols s ON s.file_id = u.file_id"
            " AND s.qualified_name = u.qualified_name AND s.kind = u.kind WHERE u.project_id = %s AND u.id = %s"
            " ORDER BY s.id LIMIT 1",
            unit_id,
        )
        if not source:
            return []
        symbol_id, file_id, kind, qualified = int(source[0][0]), int(source[0][1]), str(source[0][2]), source[0][3]
        wanted = sorted(set(labels))
        edges: list[tuple[int, str, str, str, float, bool]] = []
        if kind in ("function", "method"):
            edges += self._targets_of(file_id, qualified, "call", wanted, per_relation, nested=True, via="calls")
        if kind in ("function", "method", "class"):
            edges += self._scopes_reaching(symbol_id, "call", wanted, per_relation, via="called by")
        if kind == "class":
            edges += self._targets_of(file_id, qualified, "inherit", wanted, per_relation, nested=False,
                                      via="inherits")
            edges += self._scopes_reaching(symbol_id, "inherit", wanted, per_relation, via="inherited by")
        if kind == "module":
            edges += self._imported(file_id, per_relation)
        found: dict[int, Neighbour] = {}
        for other_file, other, via, label, rank, enclosing in edges:
            unit = self._unit_of(other_file, other, enclosing)
            if unit is not None and unit != unit_id and unit not in found:
                found[unit] = Neighbour(unit, other_file, via, label, rank)
        return list(found.values())

    def _targets_of(
        self, file_id: int, qualified: str, ref_kind: str, labels: list[str], limit: int, *, nested: bool, via: str
    ) -> list[tuple[int, str, str, str, float, bool]]:
        inner = f" OR r.scope {_LIKE} %s" if nested else ""
        params: tuple[object, ...] = (file_id, qualified) + ((_like_prefix(qualified + "."),) if nested else ())
        rows = self._all(
            "SELECT t.file_id, t.qualified_name, min(r.label), max(t.rank) FROM refs r"
            " JOIN symbols t ON t.id = r.target_id"
            f" WHERE r.project_id = %s AND r.file_id = %s AND (r.scope = %s{inner}) AND r.kind = %s"
            " AND r.label = ANY(%s) GROUP BY t.id"
            " ORDER BY min(r.label) = 'exact' DESC, max(t.rank) DESC, t.file_id, t.start_line, t.id LIMIT %s",
            *params, ref_kind, labels, limit,
        )
        return [(int(f), str(q), via, str(label), float(rank), False) for f, q, label, rank in rows]

    def _scopes_reaching(
        self, symbol_id: int, ref_kind: str, labels: list[str], limit: int, *, via: str
    ) -> list[tuple[int, str, str, str, float, bool]]:
        rows = self._all(
            "SELECT r.file_id, r.scope, min(r.label), coalesce(max(c.rank), 0) FROM refs r"
            " LEFT JOIN symbols c ON c.file_id = r.file_id AND c.qualified_name = r.scope"
            " WHERE r.project_id = %s AND r.target_id = %s AND r.kind = %s AND r.scope IS NOT NULL"
            " AND r.label = ANY(%s) GROUP BY r.file_id, r.scope"
            " ORDER BY min(r.label) = 'exact' DESC, 4 DESC, r.file_id, min(r.line), r.scope LIMIT %s",
            symbol_id, ref_kind, labels, limit,
        )
        return [(int(f), str(scope), via, str(label), float(rank), True) for f, scope, label, rank in rows]

    def _imported(self, file_id: int, limit: int) -> list[tuple[int, str, str, str, float, bool]]:
        rows = self._all(
            "SELECT coalesce(t.file_id, i.target_file_id),"
            " coalesce(t.qualified_name, (SELECT u.qualified_name FROM units u WHERE u.file_id = i.target_file_id"
            "   AND u.kind = 'module' ORDER BY u.part, u.id LIMIT 1), (SELECT s.qualified_name FROM symbols s"
            "   WHERE s.file_id = i.target_file_id AND s.kind IN ('class', 'function') ORDER BY s.rank DESC, s.id"
            "   LIMIT 1)),"
            " coalesce(t.rank, f.rank, 0)"
            " FROM imports i LEFT JOIN symbols t ON t.id = i.target_symbol_id"
            " LEFT JOIN files f ON f.id = i.target_file_id"
            " WHERE i.project_id = %s AND i.file_id = %s"
            " AND (i.target_symbol_id IS NOT NULL OR i.target_file_id IS NOT NULL)"
            " AND coalesce(t.file_id, i.target_file_id) != %s"
            " ORDER BY 3 DESC, i.line, i.id LIMIT %s",
            file_id, file_id, limit,
        )
        return [(int(f), str(q), "imports", "exact", float(rank), False) for f, q, rank in rows if q is not None]

    def _unit_of(self, file_id: int, qualified: str, enclosing: bool) -> int | None:
        kinds = [k for k in _DEFINITION_UNITS if not enclosing or k != "module"]
        while qualified:
            rows = self._all(
                "SELECT id FROM units WHERE project_id = %s AND file_id = %s AND qualified_name = %s"
                " AND kind = ANY(%s) ORDER BY part, start_line, id LIMIT 1",
                file_id, qualified, kinds,
            )
            if rows:
                return int(rows[0][0])
            if not enclosing or "." not in qualified:
                return None
            qualified = qualified.rsplit(".", 1)[0]
        return None
