"""Records a store hands out and takes in, whatever database runs below: search scopes, file and
unit rows prepared for writing, graph answers, directory nodes, summaries, vectors.

Frozen dataclasses (and the prepared rows' plain tuples, in the schema's column order, made in the
parse workers); what any store implements in `Store` (store/base.py) is typed with these.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from codefathom.model import FileFacts, Unit
from codefathom.store.postings import UNIT_FIELDS, Packed, pack_postings
from codefathom.tokens import name_key, searchable_text, spelled_out

__all__ = [
    "Scope", "IndexCounts", "FileRecord", "PreparedUnits", "prepare_units", "summary_key", "SymbolValues",
    "path_search_text", "unit_search_fields",
    "RefValues", "ImportValues", "HintValues", "PreparedFacts", "prepare_facts", "SymbolInfo", "RefInfo", "BaseRef",
    "OutlineFileRow", "OutlineSymbolRow", "IndexedFile", "ImportInfo", "Neighbour", "IsTest", "DirectoryRow",
    "SummaryCandidate", "NewSummary", "SummaryCoverage", "PendingUnit", "VectorMatrix",
]


@dataclass(frozen=True)
class Scope:
    """Which units a search may return; None means no restriction on that axis."""

    file_ids: frozenset[int] | None = None
    languages: frozenset[str] | None = None
    kinds: frozenset[str] | None = None


@dataclass(frozen=True)
class IndexCounts:
    files: int
    units: int
    by_language: dict[str, int]  # files per language
    by_status: dict[str, int]  # files per parse status
    problems: list[tuple[str, str, str]]  # (path, status, error) of files that did not parse cleanly


@dataclass(frozen=True, slots=True)
class FileRecord:
    path: str
    content_hash: str
    mtime_ns: int
    size: int
    language: str
    status: str
    error: str | None = None


@dataclass(frozen=True, slots=True)
class PreparedUnits:
    """A file's units as rows ready to insert: the `units` columns after file_id, in order, and
    the `units_fts` columns after rowid. Plain tuples, so they cross process boundaries cheaply."""

    units: tuple[tuple[object, ...], ...]  # the last column is the summary key
    fts: tuple[tuple[str, ...], ...]
    # The units' postings of their `fts` fields, packed, for a store that keeps its own (postings.py).
    postings: Packed | None = None

    def __len__(self) -> int:
        return len(self.units)


def prepare_units(path: str, units: Sequence[Unit], *, postings: bool = False) -> PreparedUnits:
    """The rows `replace_file` inserts for `units` of the file at `path`, with their postings
    when asked (a parse worker makes them then, in parallel, rather than the writer)."""
    path_text = path_search_text(path)
    unit_rows = []
    fts_rows = []
    for unit in units:
        unit_rows.append(
            (
                unit.kind, unit.name, name_key(unit.name), unit.qualified_name, unit.parent, unit.signature,
                unit.doc, unit.language, unit.start_line, unit.end_line, unit.part, unit.content,
                summary_key(unit.content),
            )
        )
        fts_rows.append(
            unit_search_fields(path_text, unit.name, unit.qualified_name, unit.signature, unit.doc, unit.content)
        )
    if postings:
        return PreparedUnits(tuple(unit_rows), tuple(fts_rows), pack_postings(fts_rows, UNIT_FIELDS))
    return PreparedUnits(tuple(unit_rows), tuple(fts_rows))


def path_search_text(path: str) -> str:
    """A file's path as its units' path field holds it."""
    return searchable_text(path.replace("/", " ").replace(".", " "))


def unit_search_fields(
    path_text: str, name: str, qualified_name: str, signature: str, doc: str, content: str
) -> tuple[str, ...]:
    """A unit's search fields but its summary (UNIT_FIELDS: name, qualified name, signature, doc,
    path, body), made of its stored columns: PostgreSQL makes them again rather than store them."""
    return (
        searchable_text(f"{name} {spelled_out(name)}"), searchable_text(qualified_name),
        searchable_text(signature), searchable_text(doc), path_text, searchable_text(content),
    )


def summary_key(content: str) -> str:
    """The key a unit's summary is cached by: a hash of its text, wherever it lives."""
    return hashlib.blake2b(content.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


# A row's values after its file_id, in column order: a symbol's (kind, name, qualified_name, parent,
# start_line, end_line, signature, doc), a reference's (name, kind, receiver, line, col, scope,
# arity, arguments), an import's (module, name, alias, line, level), a hint's (scope, variable,
# type_name, line, kind).
SymbolValues = tuple[str, str, str, str | None, int, int, str, str]


RefValues = tuple[str, str, str, int, int, str | None, int, str]


ImportValues = tuple[str, str | None, str, int, int]


HintValues = tuple[str | None, str, str, int, str]


@dataclass(frozen=True, slots=True)
class PreparedFacts:
    """A file's graph facts as rows ready to insert (columns after file_id, in table order).
    Plain tuples: they cross from a parse worker to the writer far faster than dataclasses."""

    symbols: tuple[SymbolValues, ...] = ()
    refs: tuple[RefValues, ...] = ()
    imports: tuple[ImportValues, ...] = ()
    hints: tuple[HintValues, ...] = ()

    @property
    def symbol_names(self) -> set[str]:
        return {str(row[1]) for row in self.symbols}


def prepare_facts(facts: FileFacts) -> PreparedFacts:
    # attrgetter of several names gives the tuple in C: a file has thousands of references.
    return PreparedFacts(
        tuple(map(_SYMBOL_VALUES, facts.symbols)),
        tuple(map(_REF_VALUES, facts.refs)),
        tuple(map(_IMPORT_VALUES, facts.imports)),
        tuple(map(_HINT_VALUES, facts.hints)),
    )


_SYMBOL_VALUES = attrgetter("kind", "name", "qualified_name", "parent", "start_line", "end_line", "signature", "doc")
_REF_VALUES = attrgetter("name", "kind", "receiver", "line", "column", "scope", "arity", "arguments")
_IMPORT_VALUES = attrgetter("module", "name", "alias", "line", "level")
_HINT_VALUES = attrgetter("scope", "variable", "type_name", "line", "kind")


@dataclass(frozen=True, slots=True)
class SymbolInfo:
    id: int
    path: str
    kind: str
    name: str
    qualified_name: str
    parent: str | None
    start_line: int
    end_line: int
    signature: str
    doc: str


@dataclass(frozen=True, slots=True)
class RefInfo:
    path: str
    line: int
    column: int
    kind: str
    name: str
    receiver: str
    scope: str | None
    label: str
    confidence: float
    target_id: int | None


@dataclass(frozen=True, slots=True)
class BaseRef:
    """A base a class names (`extends`, `implements`, `: IFoo`, `impl Trait for`), where and bound to what."""

    path: str
    scope: str  # the class (or impl block) naming it
    line: int
    name: str
    target_id: int | None
    label: str


@dataclass(frozen=True, slots=True)
class OutlineFileRow:
    id: int
    path: str
    language: str
    status: str
    rank: float


@dataclass(frozen=True, slots=True)
class OutlineSymbolRow:
    id: int
    file_id: int
    kind: str
    name: str
    qualified_name: str
    parent: str | None
    start_line: int
    signature: str
    doc: str
    rank: float


@dataclass(frozen=True, slots=True)
class IndexedFile:
    id: int
    path: str
    language: str
    status: str  # ok | partial | text | failed | skipped
    error: str | None
    rank: float
    size: int


@dataclass(frozen=True, slots=True)
class ImportInfo:
    module: str
    name: str | None
    alias: str
    line: int
    level: int
    target_path: str | None  # the project file it resolved to
    external: bool


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A definition one graph edge from a search result, as the unit that holds it."""

    unit_id: int
    file_id: int
    via: str  # calls | called by | inherits | inherited by | imports: how the result reaches it
    label: str  # the reference's label; an import resolved to a file counts as exact
    rank: float  # the definition's PageRank, else its file's


# is_test(path): whether a file is a test (the search stage's path roles); tests are listed last.
IsTest = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class DirectoryRow:
    """A directory node as search reads it."""

    id: int
    path: str
    file_count: int
    languages: dict[str, int]
    files: tuple[str, ...]  # its top files, best first
    description: str
    summary: str
    rank: float


@dataclass(frozen=True)
class SummaryCandidate:
    id: int
    path: str
    kind: str
    qualified_name: str
    signature: str
    language: str
    start_line: int
    end_line: int
    content: str
    key: str
    rank: float


@dataclass(frozen=True)
class NewSummary:
    key: str
    summary: str
    searchable: str
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(frozen=True)
class SummaryCoverage:
    model: str | None  # the model the index shows, None before any summary
    with_summary: int  # units whose text has a summary by that model
    definitions: int  # units of the kinds summarised
    units: int  # all units
    tokens_in: int  # what writing the cached summaries of that model cost
    tokens_out: int


@dataclass(frozen=True)
class PendingUnit:
    id: int
    path: str
    kind: str
    qualified_name: str
    signature: str
    doc: str
    content: str
    summary: str = ""  # its one-sentence summary, when one was written (store/sqlite/summaries.py)


@dataclass(frozen=True)
class VectorMatrix:
    """Every unit with a vector: one row each, aligned with the id, file, kind and language arrays."""

    unit_ids: npt.NDArray[np.int64]
    file_ids: npt.NDArray[np.int64]
    kinds: npt.NDArray[np.str_]
    languages: npt.NDArray[np.str_]
    vectors: npt.NDArray[np.float32]  # shape (n, dims), unit length
    epoch: str

    def __len__(self) -> int:
        return len(self.unit_ids)
