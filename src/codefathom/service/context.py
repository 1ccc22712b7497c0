"""Context for agents: an outline of a directory that fits a token budget, and a brief of one file.

`ContextVerbs` is mixed into `Codefathom`. `outline` ranks the candidates; `fit_outline` (called by
the renderers, which know the reply's format) keeps as many as the budget holds, best first.

Token counts are estimates: `estimate_tokens` (see its docstring for the method and its error).
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from codefathom.errors import NotFound, UsageError, shown
from codefathom.search.rank import path_role
from codefathom.service.graph import DepNode, ServiceBase, _relative, states_binding
from codefathom.store import ImportInfo, SymbolInfo
from codefathom.store import records as g
from codefathom.tokens import IDENTIFIER, split_identifier

__all__ = [
    "ContextVerbs", "OutlineResponse", "OutlineFile", "OutlineDef", "OutlineSelection", "FileBriefResponse",
    "BriefImport", "BriefTest", "estimate_tokens", "conventional_test_names", "fit_outline", "CHARS_PER_TOKEN",
    "MIN_TOKENS", "MAX_TOKENS", "OUTLINE_KINDS",
]

CHARS_PER_TOKEN = 3
BRIEF_LIMITS = {"definitions": 100, "imports": 50, "dependents": 50, "tests": 30}  # per list of a file brief
MIN_TOKENS = 50
MAX_TOKENS = 100_000
OUTLINE_KINDS = ("class", "function", "method")  # what an outline lists (modules only place them)
MAX_CANDIDATES = 5000  # items considered for an outline, best first
MAX_MISSES = 25  # an outline stops trying items after this many in a row did not fit
DECAY = 0.8  # each further definition of a file scores this much of the one before: outlines spread over files
NAMED_BOOST = 3  # matches a file gets for being named in the focus (`shop/stack.py`, `stack.py`)
_STOPWORDS = frozenset(
    "a an and are as at be by do does for from how in is it of on or the to what where which who why with".split()
)


def estimate_tokens(text: str) -> int:
    """The token count replies are cut to: one token per 3 characters, rounded up.

    It is an estimate, not a tokenizer (none is installed offline, so it was not measured here).
    BPE tokenizers (OpenAI's cl100k/o200k, Anthropic's) average about 3.5-4 characters per token on
    English and source code, so this count is usually 15-25% above the real one: that is the
    safety margin. Dense punctuation (long type signatures) can come near 3 characters per token,
    where the margin shrinks to nothing.
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN)


# -- outline ----------------------------------------------------------------------------------


@dataclass
class OutlineDef:
    id: int
    kind: str
    name: str
    signature: str
    line: int
    parent: int | None  # the enclosing class shown above it (None at the top level)
    score: float
    matches: int


@dataclass
class OutlineFile:
    id: int
    path: str
    language: str
    status: str
    score: float
    matches: int
    defs: list[OutlineDef] = field(default_factory=list)  # in line order

    @property
    def dir(self) -> str:
        return posixpath.dirname(self.path)


@dataclass
class OutlineResponse:
    """Every candidate of an outline, ranked; `fit_outline` chooses what a reply holds."""

    project_root: str
    path: str  # the directory outlined ("" for the whole project)
    focus: str
    budget: int
    files: dict[int, OutlineFile]  # by id
    order: list[tuple[int, int | None]]  # (file id, def id or None for the file itself), best first
    notices: list[str] = field(default_factory=list)  # what the index has not done yet


@dataclass
class OutlineSelection:
    """What a reply shows: files, and the definitions shown of each (ids)."""

    files: dict[int, set[int]] = field(default_factory=dict)


# -- file brief --------------------------------------------------------------------------------


@dataclass
class BriefImport:
    path: str  # the project file imported
    names: list[str]  # the names imported from it ([] for the module itself)
    line: int


@dataclass
class BriefTest:
    path: str
    reasons: list[str]  # "import", "call", ... (how it depends on the file) and/or "named like it"


@dataclass
class FileBriefResponse:
    project_root: str
    path: str
    language: str
    status: str  # ok | partial | text | failed
    error: str | None
    rank: float
    doc: str  # the module's docstring, when it has one
    definitions: list[SymbolInfo]
    imports: list[BriefImport]
    external: list[str]  # third-party (or standard library) modules
    unresolved: list[str]  # imports bound to nothing known
    dependents: list[DepNode]
    tests: list[BriefTest]
    notices: list[str] = field(default_factory=list)  # what the index has not done yet
    left_out: dict[str, int] = field(default_factory=dict)  # per list cut to BRIEF_LIMITS, how many it left out


# How much a file's role counts in an outline: a map of the project is a map of its source first.
OUTLINE_ROLE_WEIGHT = {"source": 1.0, "example": 0.5, "vendored": 0.3, "test": 0.25}
OUTLINE_CACHE_SIZE = 16  # ranked outlines kept per service (directory x focus), until the index changes


class ContextVerbs:
    """The context half of `Codefathom`: outline and brief."""

    @states_binding
    def outline(
        self: ServiceBase, path: str | None = None, *, tokens: int = 1500, focus: str | None = None,
        fresh: bool = True,
    ) -> OutlineResponse:
        """Directories, files and their most important definitions, ranked by PageRank and the focus."""
        if not MIN_TOKENS <= tokens <= MAX_TOKENS:
            raise UsageError(f"tokens must be between {MIN_TOKENS} and {MAX_TOKENS}, got {tokens}")
        prefix = self.within
        if path:
            prefix = _relative(self.root, path)
            prefix = "" if prefix == "." else prefix
            if not (self.root / prefix).is_dir():
                raise UsageError(f"{shown(path)} is not a directory of the project")
        store = self._graph_store(fresh)
        focus = (focus or "").strip()
        # Ranking reads every definition under the prefix: keep the result until the index changes,
        # so an agent's repeated outline calls are answered at once.
        cache: dict[tuple[str, str, str | None], OutlineResponse] = self.__dict__.setdefault("_outlines", {})
        key = (prefix, focus, store.get_meta("last_change"))
        ranked = cache.get(key)
        if ranked is None:
            rows = store.graph.outline_files(prefix)
            symbols = store.graph.outline_symbols(prefix, ("module", *OUTLINE_KINDS))
            ranked = _rank_outline(str(self.root), prefix, focus, tokens, rows, symbols)
            if len(cache) >= OUTLINE_CACHE_SIZE:
                cache.pop(next(iter(cache)))
            cache[key] = ranked
        return replace(ranked, budget=tokens)

    @states_binding
    def brief(self: ServiceBase, path: str, *, fresh: bool = True) -> FileBriefResponse:
        """A file's definitions, imports, dependents, tests, language and parse health."""
        if not path.strip():
            raise UsageError("give a file of the project")
        relative = _relative(self.root, path)
        store = self._graph_store(fresh)
        record = store.graph.file_record(relative)
        if record is None or record.status == "skipped":
            why = f" ({record.error})" if record is not None and record.error else ""
            raise NotFound(f"{shown(relative)} is not in the index (not a file of the project, or left out){why}")
        symbols = store.graph.symbols_of_file(record.id)
        module_doc = next((s.doc for s in symbols if s.kind == "module" and s.doc), "") or store.graph.module_doc(
            record.id
        )
        imports, external, unresolved = _imports(store.graph.file_imports(record.id))
        edges: dict[int, dict[str, int]] = {}
        for other, kind, count in store.graph.file_edges(record.id, reverse=True):
            edges.setdefault(other, {})[kind] = count
        paths = store.graph.paths_of(edges)
        dependents = sorted((DepNode(paths.get(i, "?"), kinds) for i, kinds in edges.items()), key=lambda d: d.path)
        tests = _tests_of(relative, dependents, store.graph.all_paths())
        definitions = [s for s in symbols if s.kind != "module"]
        # The files with the most links to it are the dependents kept; they are listed by path.
        strongest = sorted(dependents, key=lambda d: (-sum(d.dep_types.values()), d.path))[: BRIEF_LIMITS["dependents"]]
        kept = {id(d) for d in strongest}
        lists: dict[str, Sequence[object]] = {
            "definitions": definitions, "imports": imports, "dependents": dependents, "tests": tests,
        }
        left_out = {
            name: len(items) - BRIEF_LIMITS[name] for name, items in lists.items() if len(items) > BRIEF_LIMITS[name]
        }
        return FileBriefResponse(
            str(self.root), relative, record.language, record.status, record.error, round(record.rank, 3),
            module_doc, definitions[: BRIEF_LIMITS["definitions"]], imports[: BRIEF_LIMITS["imports"]],
            external, unresolved, [d for d in dependents if id(d) in kept], tests[: BRIEF_LIMITS["tests"]],
            left_out=left_out,
        )


def _focus_words(focus: str) -> tuple[set[str], list[str]]:
    """The words of the focus (identifiers split, lower-case, stopwords dropped) and its path-like tokens."""
    words: set[str] = set()
    for identifier in IDENTIFIER.findall(focus):
        words.add(identifier.lower())
        words.update(split_identifier(identifier))
    words = {w for w in words if len(w) > 1 and w not in _STOPWORDS}
    named = [t.strip("./") for t in re.findall(r"[\w./-]+", focus) if "." in t.strip(".") or "/" in t]
    return words, [t for t in named if t]


def _words_of(text: str) -> set[str]:
    words: set[str] = set()
    for identifier in IDENTIFIER.findall(text):
        words.add(identifier.lower())
        words.update(split_identifier(identifier))
    return words


def _rank_outline(
    root: str, prefix: str, focus: str, budget: int, rows: list[g.OutlineFileRow], symbols: list[g.OutlineSymbolRow]
) -> OutlineResponse:
    """The candidates and their order.

    Score = PageRank (mean 1 over the project) x the weight of the file's role (tests, fixtures,
    examples and vendored code map a project less than its source) x (1 + focus matches). A file's
    matches are the focus words in its path, NAMED_BOOST when the focus names it, and 1 when a
    definition in it matches; a definition's are the focus words in its name, 1 when its doc has
    one, and 1 when its file's path matches. The k-th best definition of a file (from 0) scores
    DECAY**k less, so an outline covers several files before all of one. Everything the focus
    matches comes before everything it does not, then by score, path, line.
    """
    words, named = _focus_words(focus)
    files: dict[int, OutlineFile] = {}
    for row in rows:
        matches = 0
        if words or named:
            matches = len(words & _words_of(posixpath.splitext(row.path)[0]))  # `py` would match every file
            if any(row.path == t or row.path.endswith("/" + t) or row.path.startswith(t.rstrip("/") + "/")
                   for t in named):
                matches += NAMED_BOOST
        weight = OUTLINE_ROLE_WEIGHT[path_role(row.path)]
        files[row.id] = OutlineFile(row.id, row.path, row.language, row.status, row.rank * weight, matches)
    by_qualified: dict[tuple[int, str], g.OutlineSymbolRow] = {(s.file_id, s.qualified_name): s for s in symbols}
    shown: dict[int, OutlineDef] = {}
    for s in symbols:
        file = files.get(s.file_id)
        if file is None or s.kind not in OUTLINE_KINDS:
            continue
        parent = by_qualified.get((s.file_id, s.parent)) if s.parent else None
        if parent is not None and parent.kind not in ("module", "class"):
            continue  # nested in a function: an implementation detail
        parent_id = parent.id if parent is not None and parent.kind == "class" else None
        if parent_id is not None and parent_id not in shown:
            continue  # inside a class that is itself left out
        matches = 0
        if words:
            matches = len(words & _words_of(s.name)) + (1 if words & _words_of(s.doc) else 0)
        weight = OUTLINE_ROLE_WEIGHT[path_role(file.path)]
        shown[s.id] = OutlineDef(s.id, s.kind, s.name, s.signature, s.start_line, parent_id, s.rank * weight, matches)
        file.defs.append(shown[s.id])
    for file in files.values():
        path_matched = file.matches > 0
        if any(d.matches for d in file.defs):
            file.matches += 1
        for d in file.defs:
            d.matches += 1 if path_matched else 0
    keyed: list[tuple[tuple[int, float, str, int], tuple[int, int | None]]] = []
    for file in files.values():
        keyed.append(((0 if file.matches else 1, -file.score * (1 + file.matches), file.path, 0), (file.id, None)))
        best_first = sorted(file.defs, key=lambda d: (-d.score * (1 + d.matches), d.line))
        for k, d in enumerate(best_first):
            score = d.score * (1 + d.matches) * DECAY**k
            keyed.append(((0 if d.matches else 1, -score, file.path, d.line), (file.id, d.id)))
    keyed.sort(key=lambda pair: pair[0])
    order = [item for _, item in keyed[:MAX_CANDIDATES]]
    return OutlineResponse(root, prefix, focus, budget, files, order)


def fit_outline(response: OutlineResponse, measure: Callable[[OutlineSelection], int]) -> OutlineSelection:
    """The best items that fit: each in rank order is kept when the whole reply still measures at
    most the budget (with the definitions and file it needs); MAX_MISSES misses in a row end it."""
    selection = OutlineSelection()
    if measure(selection) > response.budget:
        return selection
    misses = 0
    for file_id, def_id in response.order:
        added = _add(selection, response.files[file_id], def_id)
        if not added:
            continue
        if measure(selection) <= response.budget:
            misses = 0
            continue
        _remove(selection, file_id, added)
        misses += 1
        if misses >= MAX_MISSES:
            break
    return selection


def _add(selection: OutlineSelection, file: OutlineFile, def_id: int | None) -> list[int | None]:
    """Add a file (def_id None) or a definition with its enclosing classes; what was new."""
    added: list[int | None] = []
    if file.id not in selection.files:
        selection.files[file.id] = set()
        added.append(None)
    shown = selection.files[file.id]
    by_id = {d.id: d for d in file.defs} if def_id is not None else {}
    current = def_id
    while current is not None and current not in shown:
        shown.add(current)
        added.append(current)
        current = by_id[current].parent
    return added


def _remove(selection: OutlineSelection, file_id: int, added: list[int | None]) -> None:
    for item in added:
        if item is None:
            del selection.files[file_id]
        elif file_id in selection.files:
            selection.files[file_id].discard(item)


# -- brief -------------------------------------------------------------------------------------


def _imports(rows: list[ImportInfo]) -> tuple[list[BriefImport], list[str], list[str]]:
    """Imports of project files (grouped by file), external modules, and imports resolved to nothing."""
    by_path: dict[str, BriefImport] = {}
    external: dict[str, None] = {}
    unresolved: dict[str, None] = {}
    for row in rows:
        module = "." * row.level + row.module
        if row.target_path is not None:
            entry = by_path.setdefault(row.target_path, BriefImport(row.target_path, [], row.line))
            if row.name and row.name not in entry.names:
                entry.names.append(row.name)
        elif row.external:
            external[module] = None
        else:
            unresolved[module] = None
    return list(by_path.values()), list(external), list(unresolved)


def conventional_test_names(path: str) -> set[str]:
    """File names that by convention hold the tests of `path`: test_x.py, x_test.go, x.test.ts,
    x.spec.ts, XTest.java, ..."""
    base = posixpath.basename(path)
    stem, ext = posixpath.splitext(base)
    if not stem:
        return set()
    exts = {ext}
    if ext in (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"):
        exts |= {".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}
    names: set[str] = set()
    for e in exts:
        names |= {
            f"test_{stem}{e}", f"{stem}_test{e}", f"{stem}.test{e}", f"{stem}.spec{e}", f"{stem}_spec{e}",
            f"{stem}Test{e}", f"{stem}Tests{e}", f"Test{stem}{e}", f"{stem}.tests{e}",
        }
    return names


def _tests_of(path: str, dependents: list[DepNode], paths: list[str]) -> list[BriefTest]:
    found: dict[str, BriefTest] = {}
    for node in dependents:
        if path_role(node.path) == "test":
            found[node.path] = BriefTest(node.path, sorted(node.dep_types))
    names = conventional_test_names(path)
    for other in paths:
        if other != path and posixpath.basename(other) in names:
            found.setdefault(other, BriefTest(other, [])).reasons.append("named like it")
    return sorted(found.values(), key=lambda t: t.path)
