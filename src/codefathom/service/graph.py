"""Graph verbs of the service: symbol, refs, call hierarchy, file dependencies and impact, dead code.

`GraphVerbs` is mixed into `Codefathom`; each verb syncs the index, then reads bound references.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from codefathom.errors import UsageError
from codefathom.parse import graph_languages, language_name
from codefathom.search.rank import path_role
from codefathom.service.project import inside_root
from codefathom.store import Store
from codefathom.store import graph as g
from codefathom.store.graph import RefInfo, SymbolInfo

__all__ = [
    "GraphVerbs", "SymbolsResponse", "RefsResponse", "HierarchyNode", "HierarchyResponse", "DepNode",
    "DepsResponse", "DeadItem", "DeadResponse", "DEP_TYPES", "MAX_DEPTH", "SYMBOL_KINDS", "REF_KINDS",
]

DEP_TYPES = ("import", "call", "reference", "inherit")
SYMBOL_KINDS = ("module", "class", "function", "method", "field", "constant")  # model.Symbol.kind
REF_KINDS = ("call", "inherit", "decorator", "type", "read")  # model.RefSite.kind
MAX_DEPTH = 10
MAX_NODES = 500  # a tree stops growing here and says it was cut
CALLABLE = ("function", "method", "class")


@dataclass
class SymbolsResponse:
    project_root: str
    query: str
    symbols: list[SymbolInfo]


@dataclass
class RefsResponse:
    project_root: str
    query: str
    symbols: list[SymbolInfo]
    references: list[RefInfo]
    unbound_elsewhere: int  # references of the same name left unbound because they could mean several


@dataclass
class HierarchyNode:
    symbol: SymbolInfo | None  # None: the reference is at module level (a script, an import-time call)
    path: str
    line: int  # where the call is written (for callers) or the callee's definition line
    label: str
    children: list[HierarchyNode] = field(default_factory=list)
    seen_before: bool = False  # already expanded elsewhere in the tree (recursion, diamonds)


@dataclass
class HierarchyResponse:
    project_root: str
    query: str
    direction: str  # callers | callees
    depth: int
    roots: list[HierarchyNode]
    truncated: bool = False


@dataclass
class DepNode:
    path: str
    dep_types: dict[str, int]  # how it is connected to its parent: import/call/reference/inherit counts
    children: list[DepNode] = field(default_factory=list)
    seen_before: bool = False


@dataclass
class DepsResponse:
    project_root: str
    paths: list[str]
    direction: str  # dependencies | dependents
    depth: int
    dep_types: list[str]
    roots: list[DepNode]
    external: dict[str, list[str]]  # path -> third-party modules it imports (dependencies only)
    files: int  # distinct files reached
    truncated: bool = False


@dataclass
class DeadItem:
    symbol: SymbolInfo
    confidence: float
    reason: str


@dataclass
class DeadResponse:
    project_root: str
    unused: list[DeadItem]
    public_api: list[DeadItem]  # unused inside the project but public: possibly used from outside


class _ServiceBase(Protocol):
    @property
    def root(self) -> Path: ...  # read-only on Codefathom, so a property here too

    @property
    def within(self) -> str: ...  # the directory answers keep to ("" for the whole project)

    def _graph_store(self, fresh: bool) -> Store: ...


class GraphVerbs:
    """The graph half of `Codefathom` (see service/__init__.py for `_graph_store`)."""

    def symbol(self: _ServiceBase, name: str, *, kinds: Iterable[str] = (), fresh: bool = True) -> SymbolsResponse:
        """Definitions named `name` (simple, qualified tail or full): location, signature, doc."""
        store = self._graph_store(fresh)
        found = store.read(g.find_symbols, _check_name(name), kinds)
        return SymbolsResponse(str(self.root), name, _keep(found, self.within))

    def refs(self: _ServiceBase, name: str, *, kinds: Iterable[str] = (), fresh: bool = True) -> RefsResponse:
        """Every reference bound to the definitions named `name`, with confidence labels."""
        store = self._graph_store(fresh)
        symbols = store.read(g.find_symbols, _check_name(name))
        references = _keep(store.read(g.references_to, [s.id for s in symbols], kinds), self.within)
        last = name.replace("::", ".").rsplit(".", 1)[-1]
        unbound = store.read(g.unbound_count, last, kinds)
        return RefsResponse(str(self.root), name, _keep(symbols, self.within), references, unbound)

    def call_hierarchy(
        self: _ServiceBase, name: str, *, direction: str = "callers", depth: int = 1, fresh: bool = True
    ) -> HierarchyResponse:
        """Who calls `name` (callers), or what it calls (callees), `depth` levels deep."""
        if direction not in ("callers", "callees"):
            raise UsageError("direction must be 'callers' or 'callees'")
        depth = _check_depth(depth)
        store = self._graph_store(fresh)
        symbols = _keep(store.read(g.find_symbols, _check_name(name), CALLABLE), self.within)
        walker = _Hierarchy(store, direction, self.within)
        roots = [walker.expand(HierarchyNode(s, s.path, s.start_line, "definition"), depth) for s in symbols]
        return HierarchyResponse(str(self.root), name, direction, depth, roots, walker.truncated)

    def deps(
        self: _ServiceBase, paths: str | Iterable[str], *, depth: int = 1, dep_types: Iterable[str] = (),
        reverse: bool = False, fresh: bool = True,
    ) -> DepsResponse:
        """What the files depend on (or, reverse, what depends on them), as trees sharing one visited set."""
        depth = _check_depth(depth)
        kinds = _check_dep_types(dep_types)
        store = self._graph_store(fresh)
        wanted = [paths] if isinstance(paths, str) else list(paths)
        if not wanted:
            raise UsageError("give at least one file")
        relative = [_relative(self.root, p) for p in wanted]
        ids = {}
        for path in relative:
            file_id = store.read(g.file_id_of, path)
            if file_id is None:
                raise UsageError(f"{path} is not in the index (not a file of the project, or left out)")
            ids[path] = file_id
        walker = _Deps(store, reverse, set(kinds))
        roots = [walker.expand(DepNode(path, {}), ids[path], depth) for path in relative]
        external = {} if reverse else {p: store.read(g.external_imports, ids[p]) for p in relative}
        return DepsResponse(
            str(self.root), relative, "dependents" if reverse else "dependencies", depth, list(kinds), roots,
            external, len(walker.visited) - len(relative), walker.truncated,
        )

    def dead(self: _ServiceBase, *, include_tests: bool = False, fresh: bool = True) -> DeadResponse:
        """Definitions nothing references, with a confidence and the reason for it."""
        store = self._graph_store(fresh)
        ambiguous = store.read(g.ambiguous_names)
        decorated = store.read(g.decorated_symbols)
        unused: list[DeadItem] = []
        public: list[DeadItem] = []
        for symbol in _keep(store.read(g.unreferenced_symbols, CALLABLE), self.within):
            if language_name(symbol.path) not in graph_languages():
                continue  # no references are extracted for it yet: silence is not evidence
            verdict = _dead_verdict(symbol, ambiguous, decorated, include_tests)
            if verdict is None:
                continue
            confidence, reason, is_public = verdict
            (public if is_public else unused).append(DeadItem(symbol, confidence, reason))
        unused.sort(key=lambda d: (-d.confidence, d.symbol.path, d.symbol.start_line))
        return DeadResponse(str(self.root), unused, public)


class _Hierarchy:
    def __init__(self, store: Store, direction: str, within: str) -> None:
        self.store = store
        self.direction = direction
        self.within = within
        self.expanded: set[int] = set()
        self.nodes = 0
        self.truncated = False

    def expand(self, node: HierarchyNode, depth: int) -> HierarchyNode:
        symbol = node.symbol
        if depth <= 0 or symbol is None:
            return node
        if symbol.id in self.expanded:
            node.seen_before = True
            return node
        self.expanded.add(symbol.id)
        for child in _keep(self._neighbours(symbol), self.within):
            self.nodes += 1
            if self.nodes > MAX_NODES:
                self.truncated = True
                break
            node.children.append(self.expand(child, depth - 1))
        return node

    def _neighbours(self, symbol: SymbolInfo) -> list[HierarchyNode]:
        if self.direction == "callers":
            refs = self.store.read(g.references_to, [symbol.id], ("call",))
            by_caller: dict[tuple[str, str | None], HierarchyNode] = {}
            for ref in refs:  # one node per calling definition, however many calls it makes
                key = (ref.path, ref.scope)
                if key in by_caller:
                    continue
                caller = self.store.read(g.symbol_in_scope, ref.path, ref.scope) if ref.scope else None
                by_caller[key] = HierarchyNode(caller, ref.path, ref.line, ref.label)
            return list(by_caller.values())
        refs = [r for r in self.store.read(g.references_from, symbol, ("call",)) if r.target_id is not None]
        targets = self.store.read(g.symbols_by_ids, [r.target_id for r in refs if r.target_id is not None])
        seen: set[int] = set()
        callees = []
        for ref in refs:
            target = targets.get(ref.target_id or -1)
            if target is None or target.id in seen:
                continue
            seen.add(target.id)
            callees.append(HierarchyNode(target, target.path, target.start_line, ref.label))
        return callees


class _Deps:
    def __init__(self, store: Store, reverse: bool, kinds: set[str]) -> None:
        self.store = store
        self.reverse = reverse
        self.kinds = kinds
        self.visited: set[int] = set()
        self.truncated = False

    def expand(self, root: DepNode, file_id: int, depth: int) -> DepNode:
        """Breadth first, so a file appears at its shortest distance; one visited set for all roots."""
        self.visited.add(file_id)
        queue: deque[tuple[DepNode, int, int]] = deque([(root, file_id, depth)])
        while queue:
            node, current, remaining = queue.popleft()
            if remaining <= 0:
                continue
            edges: dict[int, dict[str, int]] = {}
            for other, kind, count in self.store.read(g.file_edges, current, reverse=self.reverse):
                if kind in self.kinds:
                    edges.setdefault(other, {})[kind] = count
            paths = self.store.read(g.paths_of, edges)
            for other in sorted(edges, key=lambda i: paths.get(i, "")):
                child = DepNode(paths.get(other, "?"), edges[other])
                node.children.append(child)
                if other in self.visited:
                    child.seen_before = True
                    continue
                if len(self.visited) >= MAX_NODES:
                    self.truncated = True
                    continue
                self.visited.add(other)
                queue.append((child, other, remaining - 1))
        return root


def _dead_verdict(
    symbol: SymbolInfo, ambiguous: dict[str, int], decorated: set[int], include_tests: bool
) -> tuple[float, str, bool] | None:
    """(confidence, reason, public) for an unreferenced definition, or None when it is an entry point."""
    name = symbol.name
    path = symbol.path
    is_test_file = _is_test_path(path)
    if name.startswith("__") and name.endswith("__"):
        return None  # called by the language (constructors, operators, protocols)
    if name in ("main", "setup", "teardown", "setUp", "tearDown", "setUpClass", "tearDownClass"):
        return None
    if is_test_file and not include_tests:
        return None  # tests are run by their runner, not called
    if symbol.id in decorated:
        return None  # registered by a decorator (routes, CLI commands, fixtures, plugins)
    confidence = 0.9
    reasons = ["no reference in the project binds to it"]
    private = name.startswith("_")
    public = not private and symbol.kind != "method" and not is_test_file
    if symbol.kind == "method":
        confidence = 0.6
        reasons.append("a method may still be called through a subclass or dynamically")
    elif public:
        confidence = 0.5
        reasons.append("it is public and may be used by other projects")
    others = ambiguous.get(name, 0)
    if others:
        confidence *= 0.5
        reasons.append(f"{others} unbound reference(s) to `{name}` could mean it")
    return round(confidence, 2), "; ".join(reasons), public


class _HasPath(Protocol):
    @property
    def path(self) -> str: ...


P = TypeVar("P", bound=_HasPath)


def _keep(items: list[P], within: str) -> list[P]:
    """The items in the directory a request keeps to (all when it keeps to none)."""
    if not within:
        return items
    prefix = within.rstrip("/") + "/"
    return [item for item in items if item.path.startswith(prefix)]


def _is_test_path(path: str) -> bool:
    return path_role(path) == "test"


def _check_name(name: str) -> str:
    text = name.strip()
    if not text:
        raise UsageError("give a symbol name, e.g. `parse_config` or `UserService.find`")
    return text


def _check_depth(depth: int) -> int:
    if not 1 <= depth <= MAX_DEPTH:
        raise UsageError(f"depth must be between 1 and {MAX_DEPTH}, got {depth}")
    return depth


def _check_dep_types(dep_types: Iterable[str]) -> tuple[str, ...]:
    kinds = tuple(dict.fromkeys(dep_types)) or DEP_TYPES
    unknown = [k for k in kinds if k not in DEP_TYPES]
    if unknown:
        raise UsageError(f"unknown dep_type {unknown}; use {', '.join(DEP_TYPES)}")
    return kinds


def _relative(root: Path, path: str) -> str:
    """A file path as the index knows it: relative to the root (as results print it), else to the
    working directory, else absolute; never outside the root."""
    candidate = Path(path).expanduser()
    if not candidate.is_absolute() and not (root / candidate).exists() and (Path.cwd() / candidate).exists():
        candidate = Path.cwd() / candidate
    return inside_root(root, candidate).relative_to(root).as_posix()
