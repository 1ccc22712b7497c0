"""The binder's source: the graph rows import resolution and binding read and write, and
`GraphLookup`, the protocol through which graph/ reads and writes them, which a store implements.

The rows are plain slotted dataclasses, not model.py's frozen records (see below); graph/ imports
this module and no store module, so a second store implements the protocol without graph/ knowing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "SymbolRow", "RefRow", "ImportRow", "Binding", "ImportResolution", "BindingRow", "BoundRef", "RefSpan",
    "RankInputs", "HintTable", "GraphLookup",
]


# The rows binding reads and writes are made by the hundred thousand per index: not frozen, as a
# frozen dataclass is five times slower to make (each field set through object.__setattr__).
# Nothing changes one once made.
@dataclass(slots=True)
class SymbolRow:
    id: int
    file_id: int
    kind: str
    name: str
    qualified_name: str
    parent: str | None
    start_line: int
    end_line: int


@dataclass(slots=True)
class RefRow:
    id: int
    file_id: int
    name: str
    kind: str
    receiver: str
    line: int
    scope: str | None
    arity: int = -1  # arguments of a call, where counted
    arguments: str = ""  # their types as written or named, where read (RefSite.arguments)


@dataclass(slots=True)
class ImportRow:
    id: int
    file_id: int
    module: str
    name: str | None
    alias: str
    level: int
    # Where the last resolution led (see graph.rebind, which keeps these current).
    target_file_id: int | None = None
    target_symbol_id: int | None = None
    external: bool = False
    binds_module: bool = False
    line: int = 0  # where the statement is: an import inside a function binds its names there only


# (import id, target file id, target symbol id, external, binds module): an import's resolution.
ImportResolution = tuple[int, int | None, int | None, bool, bool]


@dataclass(slots=True)
class Binding:
    ref_id: int
    target_id: int | None
    confidence: float
    label: str
    candidates: int = 0


# A Binding as a plain tuple (ref_id, target_id, confidence, label, candidates): what crosses from
# a helper process and what `save_bindings` writes.
BindingRow = tuple[int, int | None, float, str, int]
# (file id, scope, target symbol id, confidence) of a bound reference: what PageRank reads of it.
BoundRef = tuple[int, str | None, int, float]
# (file id, first reference id, last reference id, references) of one file's references, which
# are written together and so hold a run of ids no other file's fall in.
RefSpan = tuple[int, int, int, int]
# Nodes and weighted edges of the file graph and of the symbol graph, as PageRank takes them.
RankInputs = tuple[list[int], list[tuple[int, int, float]], list[int], Iterable[tuple[int, int, float]]]

# (scope, variable) -> (type_name, kind, line) of each piece of a file's type evidence, as written.
HintTable = dict[tuple[str | None, str], list[tuple[str, str, int]]]


class GraphLookup(Protocol):
    """Cached reads of symbols, imports and hints for one binding run, and the run's writes (the
    index does not change while it runs: the caller holds the write transaction, or reads a
    committed state). `Store.graph_lookup()` gives one."""

    # Whether this lookup followed the writes of every graph row (a first index); then the span of
    # each file's references in id order, and the references themselves while there are few.
    following: bool
    written_spans: list[RefSpan]
    written_refs: list[RefRow] | None
    # Whether the references held reach the index only as `save_bindings` writes them, bound (a
    # first index on PostgreSQL): until then no other connection can read them.
    refs_unwritten: bool

    def preload(self) -> None:
        """Read every symbol, import, hint and base class at once, for binding a whole project."""

    def by_name(self, name: str) -> list[SymbolRow]: ...

    def prefetch_files(self, file_ids: Iterable[int]) -> None:
        """Read the imports, hints and base classes of all these files at once, before the binder
        asks for each file's (a database server's round trips; nothing to gain in SQLite's file)."""

    def prefetch_names(self, names: Iterable[str], *, qualified: bool = False) -> None:
        """Read the symbols of all these names (qualified names) at once, before `by_name`
        (`by_qualified`) asks for each: a binding of a few files asks for hundreds, on a database
        server a round trip each."""

    def by_qualified(self, qualified: str) -> list[SymbolRow]: ...

    def members(self, parent: str, name: str) -> list[SymbolRow]: ...

    def signature(self, symbol_id: int) -> str:
        """A definition's signature as written."""

    def symbol(self, symbol_id: int) -> SymbolRow | None: ...

    def symbol_ids(self) -> list[int]:
        """Every symbol's id (preloaded lookups only)."""

    def module_symbols(self, file_id: int) -> list[int]:
        """Ids of the file's module symbols (one, unless the file defines none), in id order."""

    def all_imports(self) -> Iterable[list[ImportRow]]:
        """Every file's import rows (preloaded lookups only)."""

    def module_of(self, file_id: int) -> SymbolRow | None: ...

    def module_file(self, module: str) -> int | None: ...

    def imports_of(self, file_id: int) -> list[ImportRow]: ...

    def hint_table(self, file_id: int) -> HintTable: ...

    def bases_of(self, cls: SymbolRow) -> list[tuple[str, str]]:
        """(receiver, name) of the base classes a class names."""

    def path_of(self, file_id: int) -> str: ...

    def language_of(self, file_id: int) -> str: ...

    def paths(self) -> dict[int, str]:
        """Every indexed file's path, by id."""

    def ids_by_path(self) -> dict[str, int]:
        """Every indexed file's id, by path."""

    def ranked_files(self) -> list[int]:
        """Ids of the files PageRank ranks (every file not skipped), in id order."""

    def file_text(self, file_id: int) -> str:
        """A file's text as its units hold it (a text file's line windows, in order)."""

    def imports_needing_resolution(self, file_ids: Iterable[int] | None) -> list[ImportRow]:
        """Imports of the changed files, imports that led into them, and imports nothing in the
        project answered yet; all of them when file_ids is None."""

    def imports_in(self, file_ids: Iterable[int]) -> list[ImportRow]:
        """Every import of the given files."""

    def resolved(self, targets: Iterable[ImportResolution]) -> None:
        """Take the resolutions `save_import_targets` stores into the import rows read from now on."""

    # -- a binding run's reads and writes -------------------------------------------------------

    def reader(self) -> Callable[[], GraphLookup]:
        """A function that opens a lookup of the committed index, read-only, on a connection of its
        own: picklable, as a helper process calls it."""

    def database(self) -> str:
        """Where the index this lookup reads is (handed to `reconnect_read_only`)."""

    def reconnect_read_only(self, database: str) -> None:
        """Read through a read-only connection of its own from now on (a forked child)."""

    def close(self) -> None: ...

    def refs_to_rebind(
        self, file_ids: Iterable[int] | None, names: Iterable[str], within: Iterable[int] = ()
    ) -> list[RefRow]:
        """References whose binding may have changed: those in changed files, those that lost their
        target, and those of a name that changed files define or defined. None means every
        reference (of the files `within`, when given)."""

    def ref_spans(self) -> list[RefSpan]:
        """Every file's run of reference ids (see RefSpan), in id order."""

    def refs_between(self, first: int, last: int) -> list[RefRow]:
        """The references with ids from `first` to `last`, in id order."""

    def bound_edges(self, first: int, last: int) -> list[BoundRef]:
        """(file, scope, target, confidence) of the bound references with ids from `first` to `last`."""

    def save_bindings(self, bindings: Iterable[BindingRow]) -> None: ...

    def save_import_targets(self, targets: Iterable[ImportResolution]) -> None: ...

    def drop_local_reads(self, file_ids: Sequence[int] | None = None) -> None:
        """Drop the reads of names no definition has (parameters and locals): they answer no
        graph question. `file_ids`: only those files' references were bound (all when None)."""

    def rank_inputs(self) -> RankInputs:
        """Nodes and weighted edges of the file and symbol graphs, read from the bound references."""

    def save_ranks(self, files: dict[int, float], symbols: dict[int, float]) -> None: ...

    # -- what a module system reads of the whole project (graph/<module system>.py) --------------

    def parents_in(self, languages: Sequence[str]) -> list[tuple[str | None, str, str]]:
        """(parent, qualified name, kind) of every definition (no module) of files of `languages`."""

    def signatures_in(self, languages: Sequence[str], kind: str, like: str | None = None) -> list[tuple[int, str, str]]:
        """(symbol id, path, signature) of the definitions of `kind` in files of `languages`, only
        those whose signature is LIKE `like` when given."""

    def definitions_in(self, language: str, kinds: Sequence[str]) -> list[tuple[int, str, str | None]]:
        """(file id, qualified name, parent) of the definitions of `kinds` in files of `language`,
        by file and start line."""

    def outer_parents(self, languages: Sequence[str], kinds: Sequence[str]) -> list[tuple[int, str | None]]:
        """(file id, parent) of the definitions of `kinds` in files of `languages`, by file, start
        line, and the longest first."""

    def holds_under(self, file_id: int, prefix: str) -> bool:
        """Whether the file defines something whose parent is `prefix` or lies under it (`prefix.x`)."""

    def first_definition(self, file_id: int) -> str | None:
        """The qualified name of a definition (not the module) of the file, the first the index has."""

    def scope_spans(self) -> list[tuple[int, int, int, str, str]]:
        """(file id, start, end, qualified name, kind) of every class, function and method."""
