"""What a store is, whatever database runs below: `Store`, `GraphReads` (`Store.graph`) and
`WritingLookup` (the binder's source, `Store.graph_lookup()`), as protocols.

The service, search and graph/ are typed against these; `sqlite/` implements them (`open_store`
picks the backend from the index's location). Records crossing them are in store/records.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from types import EllipsisType
from typing import Any, Literal, Protocol, Self

import numpy as np
import numpy.typing as npt

from codefathom.graphsource import GraphLookup, RefRow
from codefathom.model import FileFacts, FileState, MatchTerm, StoredUnit, Unit
from codefathom.store.records import (
    BaseRef,
    DirectoryRow,
    FileRecord,
    ImportInfo,
    IndexCounts,
    IndexedFile,
    IsTest,
    Neighbour,
    NewSummary,
    OutlineFileRow,
    OutlineSymbolRow,
    PendingUnit,
    PreparedFacts,
    PreparedUnits,
    RefInfo,
    Scope,
    SummaryCandidate,
    SummaryCoverage,
    SymbolInfo,
    VectorMatrix,
)

__all__ = ["Store", "GraphReads", "WritingLookup", "VectorIndex", "Work", "REFS_HELD", "SUMMARY_MODEL"]

# Meta key, "1" while a first index's references are held back until they are bound (PostgreSQL: one
# write of each, bound, instead of a write and an update): a sync that finds it was stopped before
# then, and reads every file again.
REFS_HELD = "refs_held"
# Meta key: the model whose unit summaries the index shows; absent until summaries are first stored.
SUMMARY_MODEL = "summary_model"


class WritingLookup(GraphLookup, Protocol):
    """The binder's source as a sync gets it: it may also follow the graph rows the sync writes."""

    def follow(self) -> None:
        """Take each file's rows as `Store.replace_facts` writes them, on an index without graph rows
        yet (a first index), so that binding reads nothing back; does nothing on one that has them."""

    def take(self, file_id: int, rows: PreparedFacts, symbol_id: int, ref_id: int, import_id: int) -> None:
        """A file's rows just written, the first of each table with the given id (see follow)."""


class GraphReads(Protocol):
    """The graph questions an open index answers (symbols, references, file edges, outline, brief)."""

    def refs_to_rebind(
        self, file_ids: Iterable[int] | None, names: Iterable[str], within: Iterable[int] = ()
    ) -> list[RefRow]:
        """References whose binding may have changed: those in changed files, those that lost their
    target, and those of a name that changed files define or defined. None means every reference
    (of the files `within`, when given)."""

    def find_symbols(self, text: str, kinds: Iterable[str] = ()) -> list[SymbolInfo]:
        """Symbols named `text`: a simple name, a qualified tail (`UserService.find`) or a full path."""

    def symbols_by_ids(self, ids: Iterable[int]) -> dict[int, SymbolInfo]: ...

    def symbol_in_scope(self, path: str, qualified: str) -> SymbolInfo | None: ...

    def symbols_in_scopes(self, scopes: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SymbolInfo]:
        """`symbol_in_scope` for many (path, qualified name) pairs in one query."""

    def references_to(
        self, ids: Iterable[int], kinds: Iterable[str] = (), within: str = '', limit: int = 0
    ) -> list[RefInfo]:
        """References bound to these definitions, by path and line: of `kinds` (all when empty), in the
    directory `within` (the project when ""), the first `limit` (all when 0)."""

    def reference_counts(self, ids: Iterable[int], kinds: Iterable[str] = (), within: str = '') -> dict[int, int]:
        """How many references `references_to` has for each of these definitions, without a limit."""

    def references_from(self, symbol: SymbolInfo, kinds: Iterable[str] = ()) -> list[RefInfo]:
        """References written inside a definition: a function's own and its nested functions'; a
    class's own body only (its methods are definitions of their own)."""

    def unbound_count(self, name: str, kinds: Iterable[str] = ()) -> int:
        """References of `name` that could mean several definitions and were left unbound."""

    def file_edges(self, file_id: int, *, reverse: bool) -> list[tuple[int, str, int]]:
        """(other file id, dep type, count) of the files `file_id` depends on (or that depend on it)."""

    def file_edges_of(self, file_ids: Iterable[int], *, reverse: bool) -> dict[int, list[tuple[int, str, int]]]:
        """`file_edges` of several files in one pass: file id -> its (other file id, dep type, count)."""

    def external_imports(self, file_id: int) -> list[str]: ...

    def unreferenced_symbols(self, kinds: Iterable[str]) -> list[SymbolInfo]:
        """Definitions nothing binds to: no reference and no import points at them."""

    def file_languages(self) -> dict[str, str]:
        """Each indexed file's language as parsing settled it: a `.h` that is C++, a script that says
    what runs it on its `#!` line, which the path alone does not tell."""

    def script_paths(self, languages: Iterable[str]) -> set[str]:
        """Files of these languages run as programs: a `#!` first line, and no file of the project sources
    (imports) them; the others are libraries, read into whatever sources them."""

    def classes_used_through_members(self) -> set[int]:
        """Classes nothing names but whose members are used from outside them (`Strings.Pad(x)`, an
    extension method, a static factory)."""

    def decorators_of_symbols(self) -> dict[int, set[str]]:
        """Definitions with decorators (annotations, attributes) and their names: the decorator references
    scoped to a definition on its first lines."""

    def base_refs(self) -> dict[str, list[BaseRef]]:
        """Every base reference, by the qualified name of the class naming it."""

    def class_blocks(self, path: str, qualified: str) -> list[tuple[int, int]]:
        """(first, last line) of each class-like unit of a file named `qualified`: a class, or a Rust impl
    block (which has no symbol), the parts of a long one joined."""

    def ambiguous_names(self) -> dict[str, int]:
        """Names with unbound references that could mean several definitions, and how many such refs."""

    def referenced_names(self, languages: Iterable[str], qualified: bool = False) -> set[str]:
        """Names (or qualified names) of the definitions in files of these languages that some reference
    binds to."""

    def condition_hints(self) -> dict[tuple[str, str, int], list[str]]:
        """(path, name, line) of each definition under preprocessor branches -> their conditions."""

    def prototypes(self) -> list[tuple[str, str]]:
        """(path, name) of every function declared without a body (a C or C++ prototype)."""

    def file_id_of(self, path: str) -> int | None: ...

    def paths_of(self, ids: Iterable[int]) -> dict[int, str]: ...

    def outline_files(self, prefix: str = '') -> list[OutlineFileRow]:
        """The indexed files under `prefix` (not the skipped ones), by path."""

    def outline_symbols(self, prefix: str = '', kinds: Iterable[str] = ()) -> list[OutlineSymbolRow]:
        """The symbols of the given kinds in files under `prefix`, by file and line."""

    def file_record(self, path: str) -> IndexedFile | None: ...

    def symbols_of_file(self, file_id: int) -> list[SymbolInfo]: ...

    def file_imports(self, file_id: int) -> list[ImportInfo]: ...

    def all_paths(self) -> list[str]: ...

    def module_doc(self, file_id: int) -> str:
        """The file's own docstring, as its module unit holds it ("" when none)."""

    def file_importers(self, file_id: int) -> list[str]:
        """Paths of the other files that import `file_id` (or a name from it)."""

    def graph_neighbours(self, unit_id: int, labels: Iterable[str], per_relation: int) -> list[Neighbour]:
        """The neighbours of a unit's definition: what a function calls and what calls it, a class's
    bases and subclasses (and what constructs it), the files module-level code imports. References
    count only with one of `labels`; each relation's best `per_relation`, exact before high, then by
    PageRank. Empty for a unit without a definition (a window, a section).

    Labels sort as they rank (exact < high < likely < possible), so `min(label)` is a pair's best."""

    def interface_sources(self, language: str) -> list[tuple[str, str, str]]:
        """(package, name, source text) of each interface type declared in files of `language`, a long
    one's parts joined in order."""

    def generated_paths(self) -> list[str]:
        """Files left out of the index as generated code: their references are not in it."""

    def methods_by_owner(self, language: str) -> dict[str, frozenset[str]]:
        """The names of the methods each type of `language` declares, by the type's qualified name."""

    def definition_names(self, kinds: Iterable[str]) -> list[tuple[str, int, str, str, str]]:
        """(path, line, kind, name, language) of every definition of these kinds, by path and line."""

    def import_modules(self) -> list[tuple[str, int, str, int, bool, str]]:
        """(path, line, module, level, names a project file, language) of every import, by path and line."""

    def quoted_names(self, languages: Iterable[str]) -> set[str]:
        """The names the code of these languages writes right after a quote, whole (`"_latex"`) or as
    the head of a name it builds (`'_print_' + name`, `f"visit_{x}"`, `"_eval_is_%s"`)."""

    def file_links(self) -> set[tuple[str, str]]:
        """(from, to) paths of files one of which uses the other: a reference bound to a definition of
    the other, or an import resolved to it."""

    def defining_files(self, languages: Iterable[str]) -> dict[str, tuple[str, set[tuple[str, str]]]]:
        """Files of these languages that define something: their language and the (name, qualified
    name) of each definition."""

    def files_containing(self, needle: str) -> set[str]:
        """Paths of the files some unit of which holds `needle` as written (`__main__`)."""


class VectorIndex(Protocol):
    """Nearest neighbours found by the store's own index (see `Store.vector_index`)."""

    @property
    def sample(self) -> VectorMatrix:
        """A fixed sample of the units' vectors, spread over the project: how a query's cosines
        spread over the units searched is measured on it."""

    def nearest(self, query: npt.NDArray[np.float32], limit: int, scope: Scope) -> list[tuple[int, float]]:
        """The units of `scope` whose vectors are nearest `query`: (unit id, cosine), best first."""

    def scoped(self, scope: Scope) -> VectorMatrix:
        """The vectors of the units of `scope` only, read now: for a scope too narrow to sample."""

    def lacking(self, unit_ids: Iterable[int]) -> frozenset[int]:
        """Those of `unit_ids` without a vector of this index's dimensions."""


# Work on an index that runs long and must not run twice at once, even from two machines.
Work = Literal["sync", "embed", "summarize"]


class Store(Protocol):
    """An open index: every read and write the service and search make of it. Safe to share
    between threads."""

    path: Path  # where it lives (a file, for SQLite)
    rebuilt_reason: str | None  # set when the index had to be recreated or re-parsed
    # Whether `replace_file` wants units prepared with their postings (store/postings.py): a store
    # without FTS5 keeps its own, and parse workers make them in parallel rather than the writer.
    keeps_postings: bool

    @property
    def graph(self) -> GraphReads:
        """The code graph's questions."""

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...

    def transaction(self, *, check_keys: bool = True) -> AbstractContextManager[None]:
        """All writes inside commit together or not at all (a killed process leaves the last commit).

        `check_keys=False` skips foreign-key enforcement, for filling an index that held no files
        when the sync began: every row then points at rows the same sync wrote, and nothing it
        deletes has dependents (a sixth of the graph's writing time on Django goes to the checks)."""

    def unmapped(self) -> AbstractContextManager[None]:
        """Read through a bounded cache while inside, not memory the process keeps (SQLite: its page
        cache, not the memory map): a sync reads most of a large index (binding, directory nodes)."""

    def hold(self, work: Work, timeout: float | None) -> bool:
        """Take the lock a long `work` holds as a whole against the same work on this index from
        other machines (a sync, an embedding pass, a summarising run), waiting at most `timeout`
        seconds (None: as long as it takes); False when it was not free. SQLite's file has one
        machine, whose file locks (service/locking.py) suffice: always True."""

    def let_go(self, work: Work) -> None:
        """Let go of what `hold(work)` took."""

    def holder(self, work: Work) -> str:
        """Who holds `work`'s lock now (a client's address and process), "" when nobody or not known."""

    def settle(self) -> None:
        """After a sync that wrote many units: bring the database's statistics and visibility up to
        date for the tables a search reads (PostgreSQL: VACUUM ANALYZE, so the postings' reads are
        index-only at once, not once autovacuum comes by). SQLite: nothing to do."""

    def analyze(self) -> None:
        """After a sync wrote many graph rows, before the binding reads them back: the planner's
        statistics of the graph's tables brought up to date (PostgreSQL: ANALYZE; with those of the
        tables before, it chose a nested loop over every file: 5 s of java.base's binding, 0.09 s
        after). SQLite: nothing to do."""

    def caught_up(self, timeout: float) -> bool:
        """Wait at most `timeout` seconds until the reads see what this store wrote (a replica answering
        them has replayed it); whether they do. One database, SQLite's file included: always True."""

    def delete_project(self) -> None:
        """Delete the project's rows from a database many projects share (`clear`); the handle is
        closed. A SQLite index is deleted as its files instead, and refuses."""

    def replace_file(
        self, record: FileRecord, units: Sequence[Unit] | PreparedUnits, file_id: int | None | EllipsisType = ...
    ) -> int: ...

    def file_ids(self, paths: Iterable[str]) -> dict[str, int]:
        """Row ids of those of `paths` the index has; inside a transaction, exact for its duration."""

    def replace_facts(
        self, file_id: int, facts: FileFacts | PreparedFacts, lookup: WritingLookup | None = None
    ) -> None:
        """The file's graph rows; a `lookup` that follows the writes (WritingLookup.follow) takes them."""

    def symbol_names_of(self, file_ids: Iterable[int]) -> set[str]: ...

    def missing_ref_indexes(self) -> list[str]:
        """Those of REF_INDEXES the index lacks: a first index stopped before building them."""

    def drop_ref_indexes(self) -> None:
        """Inside transaction(): see graph.REF_INDEXES."""

    def create_ref_indexes(self) -> None:
        """Inside transaction(): see graph.REF_INDEXES."""

    def graph_lookup(self) -> WritingLookup:
        """Reads for binding; use inside transaction() so the index holds still meanwhile."""

    def refresh_directories(self, file_ids: Iterable[int] | None, removed: Iterable[str], is_test: IsTest) -> int:
        """Rebuild the directory nodes of these changed files (all when None); inside transaction()."""

    def touch_file(self, path: str, mtime_ns: int, size: int) -> None: ...

    def remove_files(self, paths: Iterable[str]) -> int: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def get_meta(self, key: str) -> str | None: ...

    def file_states(self, paths: Iterable[str] | None = None) -> dict[str, FileState]: ...

    def has_files(self) -> bool: ...

    def file_stats(self) -> list[tuple[str, int, int]]:
        """(path, size, mtime_ns) of every file, as last seen on disk."""

    def file_paths(self) -> list[tuple[int, str]]: ...

    def definition_units(self, kinds: Sequence[str]) -> list[tuple[int, str, str, int, int, str, str]]: ...

    def term_units(self, terms: Sequence[str], cap: int) -> list[int]:
        """How many units hold each of `terms` (as the index cuts and stems it), counted up to `cap`."""

    def fts_candidates(
        self, terms: Sequence[MatchTerm], weights: Sequence[float], scope: Scope, limit: int
    ) -> list[tuple[int, float]]:
        """Unit ids and BM25F scores (higher is better) of the units matching any of `terms`."""

    def name_candidates(
        self, keys: Iterable[str], scope: Scope, limit: int, prefix: bool = False
    ) -> list[tuple[int, str, str, str]]: ...

    def units_by_id(
        self, ids: Iterable[int], with_rank: bool = False, with_content: bool = True
    ) -> dict[int, StoredUnit]: ...

    def directory_candidates(
        self, terms: Sequence[MatchTerm], weights: Sequence[float], limit: int
    ) -> list[tuple[int, float]]:
        """Directory ids and BM25F scores (higher is better) of the directories matching any of `terms`."""

    def directories_by_id(self, ids: Iterable[int]) -> dict[int, DirectoryRow]: ...

    def directory_count(self) -> int: ...

    def directories_holding(self, word: str, *, in_name: bool = False) -> set[int]:
        """Every directory whose text (with `in_name`, whose name) holds `word`."""

    def units_holding(self, word: str, ids: Sequence[int]) -> list[int]:
        """Those of the units `ids` whose text holds `word`."""

    def indexed_files(self) -> list[tuple[int, str, str]]:
        """(id, path, language) of every file the index holds, by path (files it left out are not searched)."""

    def files_named(self, name: str) -> list[tuple[int, str, str]]:
        """(id, path, language) of the indexed files whose file name is `name` (any path)."""

    def files_holding(self, words: Sequence[str], texts: Sequence[str]) -> set[int]:
        """Ids of the files that may hold a line with all `words` and all `texts` (see store/sqlite/lookups.py)."""

    def unit_ids_of_file(self, file_id: int, lines: tuple[int, int] | None = None) -> list[int]:
        """The file's units by line; with `lines` (first, last), those starting within them."""

    def definitions_around(self, file_id: int, start: int, end: int) -> list[tuple[str, str, int, int]]:
        """(kind, qualified name, start, end) of the definitions holding lines start-end, innermost first."""

    def waiting_reparse(self) -> int:
        """Files whose facts came from another version's parsers and wait to be parsed again."""

    def counts(self) -> IndexCounts: ...

    def digest(self, parts: tuple[str, ...] = ...) -> dict[str, str]:
        """What the index holds, part by part, independent of row ids (see store/sqlite/digest.py)."""

    def pending_units(self) -> list[tuple[int, str, str, float]]: ...

    def pending_in_files(self, file_ids: Sequence[int]) -> list[int]: ...

    def units_to_embed(self, ids: Sequence[int]) -> list[PendingUnit]: ...

    def cached_vectors(self, keys: Iterable[str]) -> set[str]: ...

    def store_vectors(self, new: dict[str, Any], links: Sequence[tuple[int, str]]) -> None:
        """Add vectors and link units to them, in a transaction of their own."""

    def forget_vectors(self) -> None: ...

    def prune_vectors(self, keep_unlinked: int) -> int: ...

    def vector_coverage(self) -> tuple[int, int]:
        """(units with a vector, all units)."""

    def vector_matrix(self, dims: int) -> VectorMatrix:
        """Every stored vector as one matrix, read again only when vectors or files changed."""

    def vector_index(self, dims: int) -> VectorIndex | None:
        """An index of the project's vectors of `dims` dimensions that finds nearest neighbours
        itself (PostgreSQL's HNSW on a large project), so that no process holds every vector; None:
        the search scans `vector_matrix`."""

    def summary_candidates(self, kinds: Sequence[str], model: str) -> list[SummaryCandidate]: ...

    def store_summaries(self, model: str, new: Sequence[NewSummary]) -> int:
        """Cache summaries and make `model` the one shown, in a transaction of their own."""

    def definition_summary(self, file_id: int, qualified_name: str, start_line: int) -> str:
        """The summary of the unit of a definition (its first part), '' without one."""

    def unit_summaries(self, ids: Sequence[int]) -> dict[int, str]: ...

    def summary_coverage(self, kinds: Sequence[str]) -> SummaryCoverage: ...

    def size_bytes(self) -> int: ...
