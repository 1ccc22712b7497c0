"""What a binding run holds of the graph rows, whichever backend they come from: the caches a graph
lookup answers from, filled as a first index writes its rows (`take`) or read at once (`preload`)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from codefathom.graphsource import HintTable, ImportResolution, ImportRow, RefRow, RefSpan, SymbolRow
from codefathom.store.records import PreparedFacts

__all__ = ["GraphRowCache", "HELD_REFS", "HELD_HINTS", "HINT_FILES"]

# A first index's lookup keeps the references it takes, as written, up to this many: a project that
# small is bound without reading them back. Past it they are let go, and binding reads them back a
# batch at a time (`refs_between`), so what a large project holds at once does not grow with them.
HELD_REFS = 100_000
# Likewise type hints, read by file (one query each) past this many; then only the last HINT_FILES
# files' are kept, oldest let go first: binding visits files in order, and few others' hints.
HELD_HINTS = 200_000
HINT_FILES = 1000


class GraphRowCache(ABC):
    """The in-memory half of a graph lookup; a backend's lookup adds the reads (`_read_all`,
    `_file_ids` and the questions binding asks) over its own connection."""

    def __init__(self) -> None:
        self._by_name: dict[str, list[SymbolRow]] = {}
        self._members: dict[tuple[str, str], list[SymbolRow]] = {}
        self._by_qualified: dict[str, list[SymbolRow]] = {}
        self._by_id: dict[int, SymbolRow] = {}
        self._modules: dict[int, SymbolRow | None] = {}
        self._module_ids: dict[int, list[int]] = {}  # every module symbol of a file (preload only)
        self._module_files: dict[str, int | None] = {}
        self._imports: dict[int, list[ImportRow]] = {}
        self._hints: dict[int, HintTable] = {}
        self._hints_held = 0  # how many hints the cache holds, until there are too many (-1: see HELD_HINTS)
        self._bases: dict[tuple[int, str], list[tuple[str, str]]] = {}
        self._signatures: dict[int, str] = {}
        # This run's import resolutions, for rows read after they were stored: a reader on another
        # connection (a forked binder) does not see them in the index until the run commits.
        self._resolutions: dict[int, ImportResolution] = {}
        self._paths: dict[int, str] | None = None
        self._ids: dict[str, int] | None = None
        self._languages: dict[int, str] | None = None
        self._complete = False  # every symbol, import, hint and base is in the caches (see preload)
        # Whether this lookup followed the writes of every graph row (follow); then the span of each
        # file's references, in id order, and the references themselves while there are few (HELD_REFS).
        self.following = False
        self.written_spans: list[RefSpan] = []
        self.written_refs: list[RefRow] | None = None
        self.refs_unwritten = False
        # Strings the rows taken share (names, scopes, types): each is kept once, not once per row.
        self._strings: dict[str, str] = {}

    @abstractmethod
    def _read_all(self) -> None:
        """Every symbol, import, hint and base class of the index into the caches."""

    @abstractmethod
    def _file_rows(self) -> list[tuple[int, str, str]]:
        """(id, path, language) of every indexed file."""

    @abstractmethod
    def _symbols_with(self, column: str, value: object) -> list[SymbolRow]:
        """The symbols whose `column` (name, qualified_name, id) holds `value`, read from the index."""

    # A complete lookup (see preload) keeps no entry for a name nothing has: binding asks for far
    # more of those than there are symbols (Django's sdist: 187,000 pairs of class and member name).

    def by_name(self, name: str) -> list[SymbolRow]:
        if name not in self._by_name:
            if self._complete:
                return []
            self._by_name[name] = self._symbols_with("name", name)
        return self._by_name[name]

    def by_qualified(self, qualified: str) -> list[SymbolRow]:
        if qualified not in self._by_qualified:
            if self._complete:
                return []
            self._by_qualified[qualified] = self._symbols_with("qualified_name", qualified)
        return self._by_qualified[qualified]

    def members(self, parent: str, name: str) -> list[SymbolRow]:
        key = (parent, name)
        if key not in self._members:
            if self._complete:
                return []
            self._members[key] = [s for s in self.by_name(name) if s.parent == parent]
        return self._members[key]

    def symbol(self, symbol_id: int) -> SymbolRow | None:
        if self._complete:
            return self._by_id.get(symbol_id)
        found = self._symbols_with("id", symbol_id)
        return found[0] if found else None

    def _load_files(self) -> None:
        rows = self._file_rows()
        self._paths = {file_id: path for file_id, path, _ in rows}
        self._languages = {file_id: language for file_id, _, language in rows}

    def paths(self) -> dict[int, str]:
        """Every indexed file's path, by id."""
        if self._paths is None:
            self._load_files()
        assert self._paths is not None
        return self._paths

    def path_of(self, file_id: int) -> str:
        return self.paths().get(file_id, "")

    def language_of(self, file_id: int) -> str:
        if self._languages is None:
            self._load_files()
        assert self._languages is not None
        return self._languages.get(file_id, "")

    def ids_by_path(self) -> dict[str, int]:
        """Every indexed file's id, by path (module systems probe paths without a query)."""
        if self._ids is None:
            self._ids = {path: file_id for file_id, path in self.paths().items()}
        return self._ids

    def symbol_ids(self) -> list[int]:
        """Every symbol's id (preloaded lookups only)."""
        assert self._complete
        return list(self._by_id)

    def take(self, file_id: int, rows: PreparedFacts, symbol_id: int, ref_id: int, import_id: int) -> None:
        """A file's rows just written, the first of each table with the given id (see follow)."""
        if not self.following:
            return
        # Strings arrive from the parse workers once per row: kept once each, the rows of a large
        # project take a third less memory (Django: 942,000 strings, most of them repeats).
        one = self._strings.setdefault
        for number, (kind, name, qualified, parent, start, end, _, _) in enumerate(rows.symbols, symbol_id):
            self._add_symbol(SymbolRow(
                number, file_id, one(kind, kind), one(name, name), one(qualified, qualified),
                None if parent is None else one(parent, parent), start, end,
            ))
        if rows.imports:
            self._imports[file_id] = [
                ImportRow(number, file_id, one(module, module), name and one(name, name), one(alias, alias), level,
                          line=line)
                for number, (module, name, alias, line, level) in enumerate(rows.imports, import_id)
            ]
        if self._hints_held >= 0 and self._hints_held + len(rows.hints) > HELD_HINTS:
            self._let_hints_go()
        if self._hints_held >= 0:
            self._hints_held += len(rows.hints)
            hints = self._hints.setdefault(file_id, {})
            for scope, variable, type_name, line, kind in rows.hints:
                key = (None if scope is None else one(scope, scope), one(variable, variable))
                hints.setdefault(key, []).append((one(type_name, type_name), one(kind, kind), line))
        if rows.refs:
            self.written_spans.append((file_id, ref_id, ref_id + len(rows.refs) - 1, len(rows.refs)))
        bases: list[tuple[int, int, str, str, str]] = []
        refs = self.written_refs
        if refs is not None and len(refs) + len(rows.refs) > HELD_REFS:
            refs = self.written_refs = None  # too many to hold: binding reads them back (refs_between)
        for number, (name, kind, receiver, line, column, scope, arity, arguments) in enumerate(rows.refs, ref_id):
            if refs is not None:
                refs.append(RefRow(number, file_id, name, kind, receiver, line, scope, arity, arguments))
            if kind == "inherit" and scope is not None:
                bases.append((column, number, one(scope, scope), one(receiver, receiver), one(name, name)))
        for _, _, scope, receiver, name in sorted(bases):  # as preload reads them: by column, then as written
            self._bases.setdefault((file_id, scope), []).append((receiver, name))

    def _add_symbol(self, symbol: SymbolRow) -> None:
        self._by_id[symbol.id] = symbol
        self._by_name.setdefault(symbol.name, []).append(symbol)
        self._by_qualified.setdefault(symbol.qualified_name, []).append(symbol)
        if symbol.parent is not None:
            self._members.setdefault((symbol.parent, symbol.name), []).append(symbol)
        if symbol.kind == "module":
            self._modules.setdefault(symbol.file_id, symbol)
            self._module_ids.setdefault(symbol.file_id, []).append(symbol.id)

    def preload(self) -> None:
        """Read every symbol, import, hint and base class at once: for binding a whole project, one
        pass over each table beats a query per name, file or class. Lookups then never query for
        them again. A lookup that followed the writes (see follow) has them all already."""
        if not self.following:
            self._read_all()
        for file_id in self.paths():
            self._modules.setdefault(file_id, None)
            self._imports.setdefault(file_id, [])
            if self._hints_held >= 0:  # (else each file's are read when asked for)
                self._hints.setdefault(file_id, {})
        self._complete = True
        self._strings = {}  # the rows hold each string once now; nothing more is taken

    def _let_hints_go(self) -> None:
        """Too many hints to hold: from now on each file's are read when asked for (hint_table)."""
        self._hints.clear()
        self._hints_held = -1
