"""The SQLite store's answers to the graph questions (`store.GraphReads`): `Store.graph` hands one out.

Each method is the function of the same name in sqlite/graph.py run on the store's connection under
its lock, so that mypy checks every argument and no caller holds a connection; SQLite's errors come
out as StoreError.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager

from codefathom.graphsource import RefRow
from codefathom.store.sqlite import graph
from codefathom.store.sqlite.graph import (
    BaseRef,
    ImportInfo,
    IndexedFile,
    Neighbour,
    OutlineFileRow,
    OutlineSymbolRow,
    RefInfo,
    SymbolInfo,
)

__all__ = ["SQLiteGraphReads"]


class SQLiteGraphReads:
    """The graph questions an open index answers (symbols, references, file edges, outline, brief)."""

    def __init__(self, conn: sqlite3.Connection, locked: Callable[[], AbstractContextManager[None]]) -> None:
        self._conn = conn
        self._locked = locked

    def refs_to_rebind(
        self, file_ids: Iterable[int] | None, names: Iterable[str], within: Iterable[int] = ()
    ) -> list[RefRow]:
        with self._locked():
            return graph.refs_to_rebind(self._conn, file_ids, names, within)

    def find_symbols(self, text: str, kinds: Iterable[str] = ()) -> list[SymbolInfo]:
        with self._locked():
            return graph.find_symbols(self._conn, text, kinds)

    def symbols_by_ids(self, ids: Iterable[int]) -> dict[int, SymbolInfo]:
        with self._locked():
            return graph.symbols_by_ids(self._conn, ids)

    def symbol_in_scope(self, path: str, qualified: str) -> SymbolInfo | None:
        with self._locked():
            return graph.symbol_in_scope(self._conn, path, qualified)

    def symbols_in_scopes(self, scopes: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SymbolInfo]:
        with self._locked():
            return graph.symbols_in_scopes(self._conn, scopes)

    def references_to(
        self, ids: Iterable[int], kinds: Iterable[str] = (), within: str = "", limit: int = 0
    ) -> list[RefInfo]:
        with self._locked():
            return graph.references_to(self._conn, ids, kinds, within, limit)

    def reference_counts(self, ids: Iterable[int], kinds: Iterable[str] = (), within: str = "") -> dict[int, int]:
        with self._locked():
            return graph.reference_counts(self._conn, ids, kinds, within)

    def references_from(self, symbol: SymbolInfo, kinds: Iterable[str] = ()) -> list[RefInfo]:
        with self._locked():
            return graph.references_from(self._conn, symbol, kinds)

    def unbound_count(self, name: str, kinds: Iterable[str] = ()) -> int:
        with self._locked():
            return graph.unbound_count(self._conn, name, kinds)

    def file_edges(self, file_id: int, *, reverse: bool) -> list[tuple[int, str, int]]:
        with self._locked():
            return graph.file_edges(self._conn, file_id, reverse=reverse)

    def file_edges_of(self, file_ids: Iterable[int], *, reverse: bool) -> dict[int, list[tuple[int, str, int]]]:
        with self._locked():
            return graph.file_edges_of(self._conn, file_ids, reverse=reverse)

    def external_imports(self, file_id: int) -> list[str]:
        with self._locked():
            return graph.external_imports(self._conn, file_id)

    def unreferenced_symbols(self, kinds: Iterable[str]) -> list[SymbolInfo]:
        with self._locked():
            return graph.unreferenced_symbols(self._conn, kinds)

    def file_languages(self) -> dict[str, str]:
        with self._locked():
            return graph.file_languages(self._conn)

    def script_paths(self, languages: Iterable[str]) -> set[str]:
        with self._locked():
            return graph.script_paths(self._conn, languages)

    def classes_used_through_members(self) -> set[int]:
        with self._locked():
            return graph.classes_used_through_members(self._conn)

    def decorators_of_symbols(self) -> dict[int, set[str]]:
        with self._locked():
            return graph.decorators_of_symbols(self._conn)

    def base_refs(self) -> dict[str, list[BaseRef]]:
        with self._locked():
            return graph.base_refs(self._conn)

    def class_blocks(self, path: str, qualified: str) -> list[tuple[int, int]]:
        with self._locked():
            return graph.class_blocks(self._conn, path, qualified)

    def ambiguous_names(self) -> dict[str, int]:
        with self._locked():
            return graph.ambiguous_names(self._conn)

    def referenced_names(self, languages: Iterable[str], qualified: bool = False) -> set[str]:
        with self._locked():
            return graph.referenced_names(self._conn, languages, qualified)

    def condition_hints(self) -> dict[tuple[str, str, int], list[str]]:
        with self._locked():
            return graph.condition_hints(self._conn)

    def prototypes(self) -> list[tuple[str, str]]:
        with self._locked():
            return graph.prototypes(self._conn)

    def file_id_of(self, path: str) -> int | None:
        with self._locked():
            return graph.file_id_of(self._conn, path)

    def paths_of(self, ids: Iterable[int]) -> dict[int, str]:
        with self._locked():
            return graph.paths_of(self._conn, ids)

    def outline_files(self, prefix: str = "") -> list[OutlineFileRow]:
        with self._locked():
            return graph.outline_files(self._conn, prefix)

    def outline_symbols(self, prefix: str = "", kinds: Iterable[str] = ()) -> list[OutlineSymbolRow]:
        with self._locked():
            return graph.outline_symbols(self._conn, prefix, kinds)

    def file_record(self, path: str) -> IndexedFile | None:
        with self._locked():
            return graph.file_record(self._conn, path)

    def symbols_of_file(self, file_id: int) -> list[SymbolInfo]:
        with self._locked():
            return graph.symbols_of_file(self._conn, file_id)

    def file_imports(self, file_id: int) -> list[ImportInfo]:
        with self._locked():
            return graph.file_imports(self._conn, file_id)

    def all_paths(self) -> list[str]:
        with self._locked():
            return graph.all_paths(self._conn)

    def module_doc(self, file_id: int) -> str:
        with self._locked():
            return graph.module_doc(self._conn, file_id)

    def file_importers(self, file_id: int) -> list[str]:
        with self._locked():
            return graph.file_importers(self._conn, file_id)

    def graph_neighbours(self, unit_id: int, labels: Iterable[str], per_relation: int) -> list[Neighbour]:
        with self._locked():
            return graph.graph_neighbours(self._conn, unit_id, labels, per_relation)

    def interface_sources(self, language: str) -> list[tuple[str, str, str]]:
        with self._locked():
            return graph.interface_sources(self._conn, language)

    def generated_paths(self) -> list[str]:
        with self._locked():
            return graph.generated_paths(self._conn)

    def methods_by_owner(self, language: str) -> dict[str, frozenset[str]]:
        with self._locked():
            return graph.methods_by_owner(self._conn, language)

    def definition_names(self, kinds: Iterable[str]) -> list[tuple[str, int, str, str, str]]:
        with self._locked():
            return graph.definition_names(self._conn, kinds)

    def import_modules(self) -> list[tuple[str, int, str, int, bool, str]]:
        with self._locked():
            return graph.import_modules(self._conn)

    def quoted_names(self, languages: Iterable[str]) -> set[str]:
        with self._locked():
            return graph.quoted_names(self._conn, languages)

    def file_links(self) -> set[tuple[str, str]]:
        with self._locked():
            return graph.file_links(self._conn)

    def defining_files(self, languages: Iterable[str]) -> dict[str, tuple[str, set[tuple[str, str]]]]:
        with self._locked():
            return graph.defining_files(self._conn, languages)

    def files_containing(self, needle: str) -> set[str]:
        with self._locked():
            return graph.files_containing(self._conn, needle)
