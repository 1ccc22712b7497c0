"""Records that cross pipeline stages: discovered files, parsed units, search hits.

Frozen dataclasses only; this module imports nothing from codefathom so every stage can use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "SourceFile", "SkippedFile", "Unit", "ParsedFile", "Symbol", "RefSite", "ImportSite", "TypeHint",
    "FileFacts", "LOCAL_HINT_KINDS", "StoredUnit", "FileState", "Hit", "Expansion", "Overload", "UnitKind",
    "UNIT_KINDS", "MatchTerm",
]

UnitKind = str
# Every kind a search result can have; "chunk" is a line window of a file no grammar understands,
# "directory" a directory's summary node (search/areas.py), the one kind that is not a unit.
UNIT_KINDS: tuple[UnitKind, ...] = ("module", "class", "function", "method", "section", "chunk", "directory")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file discovery decided to index."""

    path: str  # relative to the project root, with forward slashes
    abs_path: Path
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file discovery saw and left out, with the reason a user can act on."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Unit:
    """One searchable piece of a file: a definition, a doc section, or a window of lines."""

    kind: UnitKind
    name: str
    qualified_name: str
    start_line: int  # 1-based, inclusive
    end_line: int
    content: str
    language: str
    parent: str | None = None
    signature: str = ""
    doc: str = ""
    part: int = 0  # >0 when an oversized unit was split; every part keeps the unit's identity


@dataclass(frozen=True, slots=True)
class Symbol:
    """A definition the code graph knows: what references bind to."""

    kind: str  # module | class | function | method | field | constant
    name: str
    qualified_name: str
    start_line: int
    end_line: int
    parent: str | None = None  # qualified name of the enclosing definition
    signature: str = ""
    doc: str = ""


@dataclass(frozen=True, slots=True)
class RefSite:
    """A place that uses a name: a call, a base class, a decorator, a type, a read."""

    name: str  # the last part of what is written (`find` in `self.repo.find()`)
    kind: str  # call | inherit | decorator | type | read
    line: int
    column: int
    scope: str | None  # qualified name of the innermost enclosing definition; None at module level
    receiver: str = ""  # what the name is reached through: `self.repo`, `os.path`; "" for a bare name
    arity: int = -1  # arguments a call passes, where overloads are told apart by it; -1: not counted
    arguments: str = ""  # their types as far as the code says, ARGUMENT_SEPARATOR between (Java: `String`, `=buf`, `?`)


@dataclass(frozen=True, slots=True)
class ImportSite:
    """One name an import statement binds in its file."""

    module: str  # as written, without leading dots: `os.path`, `models`, `./util`
    name: str | None  # the imported member (`from m import name`), None when the module itself
    alias: str  # the local name it is bound to
    line: int
    level: int = 0  # relative-import depth (Python's leading dots)


@dataclass(frozen=True, slots=True)
class TypeHint:
    """Evidence of a variable's type: `x = Foo()`, `x: Foo`, `self.x = Foo()`, a typed parameter."""

    scope: str | None  # the function (or class, for `self.x`) it holds in; None at module level
    variable: str  # `repo`, or `self.repo` for an attribute
    type_name: str  # as written: `UserRepo`, `models.User`
    line: int
    kind: str = "assign"  # the @hint.<kind> of queries/<lang>-graph.scm: assign, annotation, returns, ...


# Between the types of a call's arguments in RefSite.arguments (an expression's text may hold commas,
# never a tab).
ARGUMENT_SEPARATOR = "\t"

# Hint kinds that bind a name in the function they are written in: a read of that name there
# means the local (a parameter, an assigned variable, a loop or `with` target), never a global.
LOCAL_HINT_KINDS = frozenset(
    {"assign", "annotation", "alias", "literal", "parameter", "local", "element", "item", "enter", "caught", "callback"}
)


@dataclass(frozen=True, slots=True)
class FileFacts:
    """The graph facts of one file, replaced together whenever the file changes."""

    symbols: tuple[Symbol, ...] = ()
    refs: tuple[RefSite, ...] = ()
    imports: tuple[ImportSite, ...] = ()
    hints: tuple[TypeHint, ...] = ()


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """What parsing one file produced, with its parse health."""

    path: str
    language: str
    units: tuple[Unit, ...]
    status: str = "ok"  # ok | partial (syntax errors) | text (no grammar) | failed
    error: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)
    facts: FileFacts = field(default_factory=FileFacts)


@dataclass(frozen=True, slots=True)
class StoredUnit:
    """A unit as the index holds it: its row id, the file it belongs to, and its PageRank (its
    definition's, else its file's; 0 before ranks are computed)."""

    id: int
    path: str
    unit: Unit
    rank: float = 0.0


@dataclass(frozen=True, slots=True)
class FileState:
    """What the index remembers of a file, to tell whether it changed."""

    id: int
    path: str
    content_hash: str
    mtime_ns: int
    size: int
    language: str
    status: str


@dataclass(frozen=True, slots=True)
class MatchTerm:
    """One term of a full-text query, in no engine's syntax: a text matches it when it holds every
    word of one of its alternatives (`parse_args`: the token whole, or both `parse` and `args`).
    A query matches what matches any of its terms; the store quotes each word, so user text is
    never query syntax."""

    alternatives: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Expansion:
    """Why a result was added by graph expansion (search/expand.py): the result it is a neighbour of."""

    source: str  # the qualified name of that result
    via: str  # calls | called by | inherits | inherited by | imports: how the source reaches this one


@dataclass(frozen=True, slots=True)
class Overload:
    """Another definition of a result's name in its file (an overload, a `const` twin, a property's
    setter, a Rust type's `impl` block), shown with it instead of as a result of its own."""

    start_line: int
    end_line: int
    signature: str


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result, as both shells render it (the JSON contract's `results` items)."""

    path: str
    start_line: int
    end_line: int
    name: str
    qualified_name: str
    kind: str
    language: str
    parent: str | None
    score: float
    content: str
    truncated: bool
    signature: str = ""
    debug: dict[str, object] | None = None
    files: tuple[str, ...] = ()  # a directory hit's top files, best first
    expanded: Expansion | None = None  # set on a neighbour graph expansion added
    # Asked for with include_deps: per relation (calls, called by, inherits, inherited by, imports) the
    # qualified names one graph edge away, best first; a trailing "..." says there are more.
    deps: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    # The file line of each line of `content`, when they do not run on unbroken from start_line
    # (a class stored as its members' headers); None when they do.
    line_numbers: tuple[int, ...] | None = None
    summary: str = ""  # its one-sentence summary (`codefathom summarize`), when one was written
    part: int = 0  # which part of a unit stored in parts (parse/windows.py); 0 for a whole unit
    overloads: tuple[Overload, ...] = ()  # the name's other definitions in the file, by line
