"""Graph verbs of the service: symbol, refs, call hierarchy, file dependencies and impact, dead code.

`GraphVerbs` is mixed into `Codefathom`; each verb syncs the index, then reads bound references.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from codefathom.discover.inside import read_inside, real_root
from codefathom.errors import NotFound, UsageError, path_error, shown
from codefathom.graph.cfamily import other_platform
from codefathom.graph.conditions import compiled_under
from codefathom.graph.gointerfaces import Interfaces
from codefathom.parse import graph_languages, language_name
from codefathom.search.rank import path_role
from codefathom.service.languages import wanted_languages
from codefathom.service.project import inside_root
from codefathom.store import RefInfo, Store, SymbolInfo
from codefathom.store import records as g

__all__ = [
    "GraphVerbs", "SymbolsResponse", "RefsResponse", "HierarchyNode", "HierarchyResponse", "DepNode",
    "DepsResponse", "DeadItem", "DeadResponse", "DeadRules", "DEAD_RULES", "DEP_TYPES", "MAX_DEPTH", "SYMBOL_KINDS",
    "REFS_LIMIT", "MAX_REFS_LIMIT", "DEAD_LIMIT", "TREE_LIMIT", "MAX_NODES", "SYMBOLS_LIMIT",
    "REF_KINDS", "states_binding",
]

DEP_TYPES = ("import", "call", "reference", "inherit")
SYMBOL_KINDS = ("module", "class", "function", "method", "field", "constant")  # model.Symbol.kind
REF_KINDS = ("call", "inherit", "decorator", "type", "read")  # model.RefSite.kind
MAX_DEPTH = 10
MAX_NODES = 500  # a tree stops growing here and says it was cut
TREE_LIMIT = 100  # nodes of a tree, unless asked for more (up to MAX_NODES)
SYMBOLS_LIMIT = 20  # definitions find_symbol lists
# References a `refs` reply lists unless asked for more: a definition used everywhere (`String`) has
# tens of thousands, which no reader wants at once; the reply says how many there are.
REFS_LIMIT = 50
DEAD_LIMIT = 25  # per list of `dead` (code_health's report)
MAX_REFS_LIMIT = 1_000_000  # a larger limit is a mistake (0 lists them all), and past 2**63 SQLite's overflow
CALLABLE = ("function", "method", "class")


@dataclass
class SymbolsResponse:
    project_root: str
    query: str
    symbols: list[SymbolInfo]  # the first `limit`
    total: int = 0  # before the limit


@dataclass
class RefsResponse:
    project_root: str
    query: str
    symbols: list[SymbolInfo]
    references: list[RefInfo]  # the first `limit` by path and line (all when limit is 0)
    unbound_elsewhere: int  # references of the same name left unbound because they could mean several
    counts: dict[int, int] = field(default_factory=dict)  # symbol id -> all its references, listed or not
    limit: int = 0
    notices: list[str] = field(default_factory=list)  # what the index has not done yet

    @property
    def total(self) -> int:
        return sum(self.counts.values())


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
    notices: list[str] = field(default_factory=list)  # what the index has not done yet
    limit: int = 0  # nodes the tree may hold
    more: int = 0  # nodes left out at the level where it was cut (more may lie deeper)


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
    notices: list[str] = field(default_factory=list)  # what the index has not done yet
    limit: int = 0  # files the trees may reach
    more: int = 0  # files left out at the level where they were cut (more may lie deeper)


@dataclass
class DeadItem:
    symbol: SymbolInfo
    confidence: float
    reason: str


@dataclass(frozen=True)
class Coupling:
    path: str
    fan_in: int  # other directories whose files use it
    fan_out: int  # other directories whose files it uses


@dataclass
class DeadResponse:
    project_root: str
    unused: list[DeadItem]  # the first `limit`, most certain first
    public_api: list[DeadItem]  # unused inside the project but public: possibly used from outside
    notices: list[str] = field(default_factory=list)  # what the index has not done yet
    total_unused: int = 0  # before the limit
    total_public_api: int = 0
    limit: int = 0  # per list; 0: none
    # Files that define something nothing in another file uses or imports, and are no entry point.
    orphan_files: list[str] = field(default_factory=list)
    total_orphan_files: int = 0
    coupling: list[Coupling] = field(default_factory=list)  # the files tied to the most other directories


class ServiceBase(Protocol):
    """What the verb mixins (graph, context, related, changes) use of `Codefathom`."""

    @property
    def root(self) -> Path: ...  # read-only on Codefathom, so a property here too

    @property
    def within(self) -> str: ...  # the directory answers keep to ("" for the whole project)

    def _graph_store(self, fresh: bool) -> Store: ...

    def _state_notices(self) -> list[str]: ...  # service/freshness.py: references not bound yet


class _Noticed(Protocol):
    notices: list[str]


Args = ParamSpec("Args")
N = TypeVar("N", bound=_Noticed)


def states_binding(verb: Callable[Concatenate[Any, Args], N]) -> Callable[Concatenate[Any, Args], N]:
    """For a verb that reads bound references or ranks: its reply says so when the index it read
    has references not bound yet (a sync stopped before binding, or --no-sync over one)."""

    @functools.wraps(verb)
    def noticed(self: Any, /, *args: Args.args, **kwargs: Args.kwargs) -> N:
        response = verb(self, *args, **kwargs)
        response.notices = self._state_notices() + response.notices  # a new list: replies may be cached
        return response

    return noticed


class GraphVerbs:
    """The graph half of `Codefathom` (see service/__init__.py for `_graph_store`)."""

    def symbol(
        self: ServiceBase, name: str, *, kinds: Iterable[str] = (), limit: int = SYMBOLS_LIMIT, fresh: bool = True
    ) -> SymbolsResponse:
        """Definitions named `name` (simple, qualified tail or full): location, signature, doc; the
        first `limit` (0: all), and how many there are."""
        if not 0 <= limit <= MAX_REFS_LIMIT:
            raise UsageError(f"limit must be between 0 (all) and {MAX_REFS_LIMIT:,}, got {shown(limit)}")
        store = self._graph_store(fresh)
        found = _keep(store.graph.find_symbols(_check_name(name), kinds), self.within)
        return SymbolsResponse(str(self.root), name, found[: limit or None], total=len(found))

    @states_binding
    def refs(
        self: ServiceBase, name: str, *, kinds: Iterable[str] = (), limit: int = REFS_LIMIT, fresh: bool = True
    ) -> RefsResponse:
        """The references bound to the definitions named `name`, with confidence labels: the first
        `limit` by path and line (0: all), and how many each definition has in all."""
        if not 0 <= limit <= MAX_REFS_LIMIT:
            raise UsageError(f"limit must be between 0 (all) and {MAX_REFS_LIMIT:,}, got {shown(limit)}")
        store = self._graph_store(fresh)
        symbols = store.graph.find_symbols(_check_name(name))
        ids, kinds = [s.id for s in symbols], tuple(kinds)
        references = store.graph.references_to(ids, kinds, self.within, limit)
        counts = store.graph.reference_counts(ids, kinds, self.within) if limit else {}
        if not limit:
            for ref in references:
                counts[ref.target_id or -1] = counts.get(ref.target_id or -1, 0) + 1
        last = name.replace("::", ".").rsplit(".", 1)[-1]
        unbound = store.graph.unbound_count(last, kinds)
        return RefsResponse(str(self.root), name, _keep(symbols, self.within), references, unbound, counts, limit)

    @states_binding
    def call_hierarchy(
        self: ServiceBase, name: str, *, direction: str = "callers", depth: int = 1, limit: int = TREE_LIMIT,
        fresh: bool = True,
    ) -> HierarchyResponse:
        """Who calls `name` (callers), or what it calls (callees), `depth` levels deep, in at most
        `limit` nodes."""
        if direction not in ("callers", "callees"):
            raise UsageError("direction must be 'callers' or 'callees'")
        depth = _check_depth(depth)
        limit = _check_tree_limit(limit)
        store = self._graph_store(fresh)
        symbols = _keep(store.graph.find_symbols(_check_name(name), CALLABLE), self.within)
        walker = _Hierarchy(store, direction, self.within, limit)
        roots = [walker.expand(HierarchyNode(s, s.path, s.start_line, "definition"), depth) for s in symbols]
        return HierarchyResponse(
            str(self.root), name, direction, depth, roots, walker.truncated, limit=limit, more=walker.more
        )

    @states_binding
    def deps(
        self: ServiceBase, paths: str | Iterable[str], *, depth: int = 1, dep_types: Iterable[str] = (),
        reverse: bool = False, limit: int = TREE_LIMIT, fresh: bool = True,
    ) -> DepsResponse:
        """What the files depend on (or, reverse, what depends on them), as trees sharing one visited set
        that reach at most `limit` files."""
        depth = _check_depth(depth)
        limit = _check_tree_limit(limit)
        kinds = _check_dep_types(dep_types)
        store = self._graph_store(fresh)
        wanted = [paths] if isinstance(paths, str) else list(paths)
        if not wanted:
            raise UsageError("give at least one file")
        relative = [_relative(self.root, p) for p in wanted]
        ids = {}
        for path in relative:
            file_id = store.graph.file_id_of(path)
            if file_id is None:
                raise NotFound(f"{shown(path)} is not in the index (not a file of the project, or left out)")
            ids[path] = file_id
        walker = _Deps(store, reverse, set(kinds), limit)
        roots = [walker.expand(DepNode(path, {}), ids[path], depth) for path in relative]
        external = {} if reverse else {p: store.graph.external_imports(ids[p]) for p in relative}
        return DepsResponse(
            str(self.root), relative, "dependents" if reverse else "dependencies", depth, list(kinds), roots,
            external, len(walker.visited) - len(relative), walker.truncated, limit=limit, more=walker.more,
        )

    @states_binding
    def dead(
        self: ServiceBase, *, include_tests: bool = False, limit: int = DEAD_LIMIT, languages: object = (),
        fresh: bool = True,
    ) -> DeadResponse:
        """Definitions nothing references, with a confidence and the reason for it: the first `limit`
        of each list (0: all), most certain first, and how many there are; only of `languages` when given."""
        if not 0 <= limit <= MAX_REFS_LIMIT:
            raise UsageError(f"limit must be between 0 (all) and {MAX_REFS_LIMIT:,}, got {shown(limit)}")
        wanted = wanted_languages(languages)
        store = self._graph_store(fresh)
        context = _DeadContext(store, include_tests, self.root)
        through_members = store.graph.classes_used_through_members()
        unused: list[DeadItem] = []
        public: list[DeadItem] = []
        for symbol in _keep(store.graph.unreferenced_symbols(CALLABLE), self.within):
            language = context.languages.get(symbol.path) or language_name(symbol.path)
            if language not in graph_languages():
                continue  # no references are extracted for it yet: silence is not evidence
            if wanted and language not in wanted:
                continue
            if symbol.id in through_members:
                continue  # a class used through its members (`Strings.Pad(x)`) is used
            verdict = _dead_verdict(symbol, DEAD_RULES.get(language, _DEFAULT_RULES), context)
            if verdict is None:
                continue
            confidence, reason, is_public = verdict
            (public if is_public else unused).append(DeadItem(symbol, confidence, reason))
        unused = _built_names(store, unused)
        unused.sort(key=lambda d: (-d.confidence, d.symbol.path, d.symbol.start_line))
        links = store.graph.file_links()
        orphans = [p for p in _orphan_files(store, links, wanted, context.is_library) if _inside(p, self.within)]
        cut = limit or None
        return DeadResponse(
            str(self.root), unused[:cut], public[:cut], total_unused=len(unused), total_public_api=len(public),
            limit=limit, orphan_files=orphans[:cut], total_orphan_files=len(orphans),
            coupling=[c for c in _coupling(links) if _inside(c.path, self.within)][:COUPLING_LIMIT],
        )


class _Hierarchy:
    def __init__(self, store: Store, direction: str, within: str, limit: int = MAX_NODES) -> None:
        self.store = store
        self.direction = direction
        self.within = within
        self.limit = limit
        self.expanded: set[int] = set()
        self.nodes = 0
        self.truncated = False
        self.more = 0  # children found but left out, at the level where the tree was cut

    def expand(self, root: HierarchyNode, depth: int) -> HierarchyNode:
        """Level by level, so that every direct caller (or callee) comes before the next level's;
        a definition met again keeps no children of its own (`seen_before`)."""
        level = [root]
        for _ in range(depth):
            fresh = []
            for node in level:
                if node.symbol is None:
                    continue
                if node.symbol.id in self.expanded:
                    node.seen_before = True
                    continue
                self.expanded.add(node.symbol.id)
                fresh.append(node)
            if not fresh:
                break
            found = self._neighbours([node.symbol for node in fresh if node.symbol is not None])
            level = []
            for node in fresh:
                assert node.symbol is not None
                for child in found.get(node.symbol.id, ()):
                    if self.nodes >= self.limit:
                        self.truncated = True
                        self.more += 1
                        continue
                    self.nodes += 1
                    node.children.append(child)
                    level.append(child)
            if self.truncated:
                return root
        return root

    def _neighbours(self, symbols: list[SymbolInfo]) -> dict[int, list[HierarchyNode]]:
        """The children of these definitions, in the directory the request keeps to; callers of
        all of them in one query, each no more than the tree has room for (and one more, so that
        it knows it was cut)."""
        room = self.limit - self.nodes + 1
        if self.direction == "callees":
            return {symbol.id: self._callees(symbol) for symbol in symbols}
        first: dict[int, dict[tuple[str, str | None], RefInfo]] = {}
        for ref in self.store.graph.references_to([s.id for s in symbols], ("call",), self.within):
            calls = first.setdefault(ref.target_id or -1, {})
            if len(calls) < room:
                calls.setdefault((ref.path, ref.scope), ref)  # one node per calling definition
        scopes = [(path, scope) for calls in first.values() for path, scope in calls if scope]
        callers = self.store.graph.symbols_in_scopes(scopes) if scopes else {}
        return {
            target: [
                HierarchyNode(callers.get((path, scope)) if scope else None, path, ref.line, ref.label)
                for (path, scope), ref in calls.items()
            ]
            for target, calls in first.items()
        }

    def _callees(self, symbol: SymbolInfo) -> list[HierarchyNode]:
        refs = [r for r in self.store.graph.references_from(symbol, ("call",)) if r.target_id is not None]
        targets = self.store.graph.symbols_by_ids([r.target_id for r in refs if r.target_id is not None])
        seen: set[int] = set()
        callees = []
        for ref in refs:
            target = targets.get(ref.target_id or -1)
            if target is None or target.id in seen:
                continue
            seen.add(target.id)
            callees.append(HierarchyNode(target, target.path, target.start_line, ref.label))
        return _keep(callees, self.within)


class _Deps:
    def __init__(self, store: Store, reverse: bool, kinds: set[str], limit: int = MAX_NODES) -> None:
        self.store = store
        self.reverse = reverse
        self.kinds = kinds
        self.limit = limit  # files reached from the roots
        self.reached = 0
        self.visited: set[int] = set()
        self.truncated = False
        self.more = 0  # files found but left out, at the level where the trees were cut

    def expand(self, root: DepNode, file_id: int, depth: int) -> DepNode:
        """Breadth first, so a file appears at its shortest distance; one visited set for all roots.
        The edges of a whole level are read at once; once the tree is full, the files left in the
        level keep no children (it says it was cut)."""
        self.visited.add(file_id)
        level: list[tuple[DepNode, int]] = [(root, file_id)]
        for _ in range(depth):
            if not level or self.truncated:
                break
            edges = self.store.graph.file_edges_of([current for _, current in level], reverse=self.reverse)
            paths = self.store.graph.paths_of({other for found in edges.values() for other, _, _ in found})
            following: list[tuple[DepNode, int]] = []
            for node, current in level:
                kinds: dict[int, dict[str, int]] = {}
                for other, kind, count in edges.get(current, ()):
                    if kind in self.kinds:
                        kinds.setdefault(other, {})[kind] = count
                for other in sorted(kinds, key=lambda i: paths.get(i, "")):
                    child = DepNode(paths.get(other, "?"), kinds[other])
                    if other in self.visited:
                        child.seen_before = True
                    elif self.reached >= self.limit:
                        self.truncated = True
                        self.more += 1
                        continue
                    else:
                        self.visited.add(other)
                        self.reached += 1
                        following.append((child, other))
                    node.children.append(child)
            level = following
        return root


@dataclass(frozen=True)
class DeadRules:
    """How a language reaches a definition that no reference binds to: what runs it (the runtime, a
    test runner, a framework that reads its annotations) and what calls it through dispatch. A rule
    that finds an entry point leaves the definition out of `dead`; the reason for each is the comment
    beside it."""

    # Names the runtime calls (`main`), and a pattern of them (Python's `__init__`, `__eq__`).
    entry_names: frozenset[str]
    entry_pattern: str = ""
    # Annotations or attributes of tests (`@Test`, `[Fact]`, `#[test]`): their runner calls them.
    test_markers: frozenset[str] = frozenset()
    # Annotations that say the method overrides another (`@Override`): called through the base.
    override_markers: frozenset[str] = frozenset()
    # What in a signature says so, before the parameters (C#'s `override`, or an explicit interface
    # member `IEnumerable.GetEnumerator`).
    override_pattern: str = ""
    # Annotations that say nothing of how a definition is used (`@Deprecated`, `[Obsolete]`); any
    # other registers it with a framework (routes, handlers, fixtures, exports), which then calls it.
    inert_markers: frozenset[str] = frozenset()
    marker_suffix: str = ""  # written or not (`[Obsolete]` is `ObsoleteAttribute`)
    # Annotations are part of the signature (Java, C#): one found in a class's first lines but not in
    # its signature belongs to a member.
    markers_in_signature: bool = False
    # A method named like its class is a constructor: it runs when the class is instantiated
    # (`new Foo()`, a subclass's constructor), so the class's own entry says whether it is used.
    constructors: bool = False
    # What makes a definition public API, in its signature before the parameters (`public`, Rust's
    # `pub` but not `pub(crate)`); without one, a name not starting with `_`.
    public_pattern: str = ""
    # What makes a definition private to its file, in its signature before the parameters (C's
    # `static`): unused, it is dead for certain; one without it may still be linked from outside.
    private_pattern: str = ""
    # Files whose declarations are public API (C and C++: headers under `include/`): a function
    # they declare (a prototype) or define is public; when set, nothing else is.
    public_paths: str = ""
    # What after the parameters says a method overrides another (C++ `override`, `final`).
    override_tail_pattern: str = ""
    # Bases outside the project whose members a method may implement without saying so: all of them
    # (Java), or only interfaces (C#, where overriding a class's method takes `override`).
    outside_base_pattern: str = ""
    # How a method is reached through dispatch: "bases" (Java, C#: it overrides or implements a
    # method of a base the class names; a base outside the project may declare it), "impl" (Rust:
    # every method of an `impl Trait for T` block is the trait's, called through it), "" none.
    dispatch: str = ""
    # Shell: a function of a script (a file run as a program, graph.script_paths) is its own, one of a
    # library (a file something sources, or without `#!`) public; either may be called by a name built
    # when the code runs (`"$cmd" args`, `eval`, `"${action}_handler"`), so neither is dead for certain.
    scripts: bool = False
    # Go: a name starting with a capital letter is exported (a method, when its type's is too), and
    # nothing of a `main` package is: it is a program.
    exported_by_case: bool = False
    # Go: files for other builds (`//go:build nomsgpack`, `_windows.go`) define the same name again
    # (Python: branches of an `if`); when a namesake of the same qualified name is used, this one is
    # used in its own build.
    build_variants: bool = False
    # Files at the project's root that make it a library (Python's `pyproject.toml`): then a method
    # is public API when it and its class are (no leading `_`), as functions and classes are; in an
    # application, what nothing calls is unused, method or not.
    library_markers: tuple[str, ...] = ()
    # Bases that make a class a declaration of methods for others to write (Python's `Protocol`):
    # its methods are never called as written.
    declaration_bases: frozenset[str] = frozenset()
    # Methods a standard library calls on any object that has them (Python's file protocol:
    # `readable`, `read1`; `http.cookiejar`'s request): no base names them, so they are listed lower.
    protocol_methods: frozenset[str] = frozenset()
    # What before the parameters makes a method an accessor (TypeScript's `get size()`): it is read as
    # a property, which the graph does not follow, so it is never listed as certainly unused.
    accessor_pattern: str = ""
    # The language calls methods by names held in strings (`getattr(x, "_print_" + kind)`): a method
    # whose name, or a head of it, is written in quotes is listed lower.
    built_names: bool = False
    # The files of one directory are one package, imported and built together (Go): a file is used
    # when its package is used from another directory.
    package_files: bool = False
    # Files of tests by a name the language's convention gives them, beyond what path_role knows
    # (Rust's `mod tests;` in `tests.rs`).
    test_files: str = ""
    # Modules of tests written inline, by their qualified name (Rust's `#[cfg(test)] mod tests { ... }`):
    # what they define serves the tests, as a `tests.rs` file's does.
    test_modules: str = ""


_DEFAULT_RULES = DeadRules(
    entry_names=frozenset({"main", "setup", "teardown", "setUp", "tearDown", "setUpClass", "tearDownClass"}),
    entry_pattern=r"^__\w+__$",  # called by the language (constructors, operators, protocols)
)
# Go: `init` runs; a method an interface asks for (the project's or the standard library's) is
# called through it once its type has all of that interface's methods.
_GO_RULES = replace(
    _DEFAULT_RULES, entry_names=_DEFAULT_RULES.entry_names | {"init"}, dispatch="interfaces", exported_by_case=True,
    build_variants=True, package_files=True,
)
# C and C++ (a `.h` may be either): `main` runs; constructors, destructors and operators are called
# by the language; a `virtual` method or an `override` is reached through its base.
_C_RULES = DeadRules(
    entry_names=frozenset({"main", "wmain", "WinMain", "DllMain"}),
    entry_pattern=r"^(?:~|operator\b)",
    override_pattern=r"\bvirtual\b",
    override_tail_pattern=r"\b(?:override|final)\b",
    constructors=True,
    private_pattern=r"\bstatic\b",
    public_paths=r"(?:^|/)include/",
    dispatch="bases",
)
LINKED = 0.7  # a function without `static` nothing in the project calls: another program may link it
SCRIPT_FUNCTION = 0.7  # a shell script's function nothing calls by name: it may still be called by a built name
LIBRARY_FUNCTION = 0.4  # a shell library's: scripts outside the project may source it and call it
DEAD_RULES: dict[str, DeadRules] = {
    "go": _GO_RULES,
    "java": DeadRules(
        entry_names=frozenset({"main"}),
        test_markers=frozenset(
            "Test ParameterizedTest RepeatedTest TestFactory TestTemplate BeforeEach AfterEach BeforeAll AfterAll "
            "Before After BeforeClass AfterClass".split()
        ),
        override_markers=frozenset({"Override"}),
        inert_markers=frozenset(
            "Deprecated SuppressWarnings SafeVarargs Nullable NonNull Nonnull NotNull CheckReturnValue "
            "CanIgnoreReturnValue VisibleForTesting Contract Pure SuppressFBWarnings Generated Serial".split()
        ),
        markers_in_signature=True,
        constructors=True,
        public_pattern=r"\b(?:public|protected)\b",
        dispatch="bases",
        # what serialization calls on a Serializable object, found by name
        protocol_methods=frozenset("writeObject readObject readObjectNoData writeReplace readResolve".split()),
    ),
    "csharp": DeadRules(
        entry_names=frozenset({"Main"}),
        test_markers=frozenset(
            "Test TestCase TestCaseSource Theory Fact TestMethod DataTestMethod SetUp TearDown OneTimeSetUp "
            "OneTimeTearDown TestInitialize TestCleanup ClassInitialize ClassCleanup AssemblyInitialize "
            "AssemblyCleanup Benchmark GlobalSetup GlobalCleanup TestFixture TestClass".split()
        ),
        override_pattern=r"\boverride\b|[\w>]\.\w+$",
        inert_markers=frozenset(
            "Obsolete MethodImpl Pure DebuggerStepThrough DebuggerHidden DebuggerNonUserCode DebuggerDisplay "
            "Conditional SuppressMessage CLSCompliant EditorBrowsable ExcludeFromCodeCoverage MemberNotNull "
            "MemberNotNullWhen DoesNotReturn DoesNotReturnIf MaybeNull MaybeNullWhen NotNull NotNullWhen "
            "NotNullIfNotNull AllowNull DisallowNull SkipLocalsInit Serializable Flags StructLayout DllImport "
            "LibraryImport UnscopedRef CallerMemberName CallerFilePath CallerLineNumber CallerArgumentExpression "
            "In Out Optional DefaultValue Description Browsable Category MarshalAs NonSerialized "
            "AttributeUsage".split()
        ),
        marker_suffix="Attribute",
        markers_in_signature=True,
        constructors=True,
        public_pattern=r"\b(?:public|protected)\b",
        outside_base_pattern=r"^I[A-Z]",  # an interface, by the naming convention
        dispatch="bases",
    ),
    "ruby": DeadRules(
        # The runtime calls these: construction, dynamic dispatch, conversions and the protocols of
        # printing, comparison, hashing and iteration, the hooks of `include`/`extend`/subclassing.
        entry_names=frozenset(
            "initialize initialize_copy method_missing respond_to_missing? to_s inspect to_str to_proc to_h to_a "
            "to_ary to_hash to_json as_json hash eql? each call coerce included extended prepended inherited "
            "setup teardown".split()
        ),
        entry_pattern=r"^(?:test_\w*|[^\w]+)$",  # Minitest's `test_*` methods; operators (`==`, `<=>`, `[]`)
        dispatch="bases",  # a method a superclass or an included module of the project declares
    ),
    "php": DeadRules(
        entry_names=frozenset({"setUp", "tearDown", "setUpBeforeClass", "tearDownAfterClass"}),
        entry_pattern=r"^(?:__\w+|test\w*)$",  # magic methods (`__construct`, `__toString`); PHPUnit's `test*`
        test_markers=frozenset({"Test", "DataProvider", "Before", "After", "BeforeClass", "AfterClass", "TestWith"}),
        override_markers=frozenset({"Override"}),
        inert_markers=frozenset({"Deprecated", "ReturnTypeWillChange", "SensitiveParameter", "AllowDynamicProperties"}),
        markers_in_signature=True,
        # A class, interface, trait, enum or function is autoloadable by any code; a method needs `public`.
        public_pattern=r"\b(?:public|protected)\b|^(?:(?:abstract|final|readonly)\s+)*(?:class|interface|trait|enum"
        r"|function)\b",
        dispatch="bases",  # it implements or overrides a method of an interface, class or trait of the project
    ),
    "c": _C_RULES,
    "cpp": _C_RULES,
    # A script's `main` runs (`main "$@"`, usually a call the graph sees); `_name` is private by convention.
    "bash": DeadRules(entry_names=frozenset({"main"}), scripts=True),
    "kotlin": DeadRules(
        entry_names=frozenset({"main", "constructor"}),  # a secondary constructor runs when its class is built
        test_markers=frozenset(
            "Test ParameterizedTest RepeatedTest TestFactory TestTemplate BeforeEach AfterEach BeforeAll AfterAll "
            "Before After BeforeClass AfterClass BeforeTest AfterTest".split()
        ),
        override_pattern=r"\boverride\b",
        inert_markers=frozenset(
            "Deprecated Suppress JvmStatic JvmOverloads JvmName JvmField JvmSynthetic Throws Synchronized "
            "PublishedApi VisibleForTesting CheckResult CanIgnoreReturnValue OptIn Nullable NonNull "
            "DelicateCoroutinesApi ExperimentalStdlibApi Contract Volatile Transient Strictfp".split()
        ),
        markers_in_signature=True,
        # Kotlin is public unless it says otherwise.
        public_pattern=r"^(?!.*\b(?:private|internal)\b)",
        dispatch="bases",
    ),
    "scala": DeadRules(
        # `main` of an object, a Scala 3 `@main` def (a marker: the runner calls it); the runtime calls
        # a companion's `apply`/`unapply` for `Foo(x)` and `case Foo(a)`.
        entry_names=frozenset({"main", "apply", "unapply", "unapplySeq"}),
        test_markers=frozenset(
            "Test ParameterizedTest RepeatedTest TestFactory BeforeEach AfterEach BeforeAll AfterAll Before After "
            "BeforeClass AfterClass".split()
        ),
        override_pattern=r"\boverride\b",
        inert_markers=frozenset(
            "deprecated tailrec inline specialized transient volatile throws unchecked nowarn "
            "implicitNotFound varargs static SerialVersionUID uncheckedVariance Deprecated".split()
        ),
        markers_in_signature=True,
        # Scala is public unless it says otherwise (`private[pkg]` is private to a package).
        public_pattern=r"^(?!.*\b(?:private|protected)\b)",
        dispatch="bases",
    ),
    "swift": DeadRules(
        # The runtime calls these: construction and destruction, `@main`'s entry, XCTest's set-up.
        entry_names=frozenset({"main", "init", "deinit", "setUp", "tearDown", "setUpWithError", "tearDownWithError"}),
        entry_pattern=r"^test\w*$",  # XCTest runs a test case's `test*` methods
        # Overrides, and what the Objective-C runtime or Interface Builder calls (selectors, actions).
        override_pattern=r"\boverride\b|@(?:objc|IBAction|IBOutlet|IBInspectable|NSManaged)\b",
        public_pattern=r"\b(?:public|open)\b",
        dispatch="bases",  # a method a superclass or a protocol of the project declares
    ),
    # Python: a method overriding a base's (the project's, or one outside it) is called through it.
    "python": replace(
        _DEFAULT_RULES, dispatch="bases", library_markers=("pyproject.toml", "setup.py", "setup.cfg"),
        build_variants=True,  # `if WIN: def f(): ... else: def f(): ...`
        built_names=True,
        protocol_methods=frozenset(
            # io's file objects, and what wraps them
            "read read1 readinto readinto1 readline readlines readall write writelines flush close closed "
            "readable writable seekable seek tell truncate fileno isatty detach "
            # http.cookiejar's request and response, logging, json, pickle, socketserver, html.parser
            "get_full_url get_host get_type get_origin_req_host is_unverifiable has_header get_header "
            "header_items add_unredirected_header info getheaders get_all emit handle filter format "
            "default setup finish handle_starttag handle_endtag handle_data handle_startendtag "
            # asyncio's protocols
            "connection_made connection_lost data_received eof_received datagram_received error_received "
            "pause_writing resume_writing".split()
        ),
        declaration_bases=frozenset({"Protocol", "typing.Protocol", "typing_extensions.Protocol"}),
    ),
    **{
        language: replace(
            _DEFAULT_RULES, entry_names=_DEFAULT_RULES.entry_names | {"constructor"},
            accessor_pattern=r"^(?:(?:public|private|protected|static|override|readonly)\s+)*[gs]et\s",
            dispatch="bases",  # a method of `class X extends Base` or `implements Set<T>` may be the base's
            built_names=True,  # `obj[\`on${event}\`]()`
            protocol_methods=frozenset({"toJSON", "toString", "valueOf", "then", "inspect"}),
        )
        for language in ("javascript", "typescript", "tsx")
    },
    "rust": DeadRules(
        entry_names=frozenset({"main"}),
        test_markers=frozenset({"test", "bench", "rstest", "test_case", "quickcheck"}),
        inert_markers=frozenset({"no_coverage", "coverage"}),  # (lints and `should_panic` are not captured)
        public_pattern=r"\bpub\b(?!\s*\()",
        dispatch="impl",
        test_files=r"(^|/)tests?\.rs$",
        test_modules=r"\.tests?\.",
        build_variants=True,  # `#[cfg(unix)] fn f()` and `#[cfg(windows)] fn f()`: one is built, the other elsewhere
    ),
}
DISPATCH_OUTSIDE = 0.3  # a method that may implement or override a member of a base outside the project
COUPLING_LIMIT = 10  # files of the coupling list
# Files a runtime or a tool starts from, by name: nothing imports them, and they are not orphaned.
ENTRY_FILES = frozenset(
    """__init__.py __main__.py conftest.py setup.py manage.py wsgi.py asgi.py noxfile.py fabfile.py
    main.go main.rs lib.rs build.rs mod.rs main.c main.cpp Program.cs Startup.cs index.js index.ts index.tsx
    index.mjs main.js main.ts cli.js server.js app.js vite.config.ts vite.config.js webpack.config.js
    rollup.config.js jest.config.js jest.config.ts eslint.config.js Main.java Main.kt Rakefile""".split()
)
GENERATED_BYTES = 20_000_000  # of the generated files read for the names they use
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# Languages whose non-static functions link by name, once per build: a namesake that is used
# (another platform's file, another `#if` branch) means this one is used where it is built.
LINKED_LANGUAGES = ("c", "cpp")


class _DeadContext:
    """What every verdict reads: decorators, names with ambiguous references, classes of tests, and
    the bases of classes (for dispatch)."""

    def __init__(self, store: Store, include_tests: bool, root: Path) -> None:
        self.include_tests = include_tests
        self.root = root
        self.languages = store.graph.file_languages()
        self.ambiguous = store.graph.ambiguous_names()
        # C and C++ functions one of whose namesakes is used: another platform's copy of a used one
        self.linked_used = store.graph.referenced_names(LINKED_LANGUAGES)
        self.conditions = store.graph.condition_hints()  # of C and C++ definitions under `#if`
        variants = [name for name, rules in DEAD_RULES.items() if rules.build_variants]
        self.used_qualified = store.graph.referenced_names(variants, qualified=True)  # another build's, maybe
        self.markers = store.graph.decorators_of_symbols()
        self.dispatch = _Dispatch(store)
        self.test_classes: set[str] = set()  # classes holding a method a test runner calls
        for marked in store.graph.symbols_by_ids(self.markers).values():
            rules = DEAD_RULES.get(self.languages.get(marked.path) or language_name(marked.path), _DEFAULT_RULES)
            if marked.parent is not None and self.written(marked, rules) & rules.test_markers:
                self.test_classes.add(marked.parent)

        self._store = store
        self._generated: dict[str, str] | None = None  # word -> a generated file writing it
        self._library: dict[tuple[str, ...], bool] = {}  # library markers -> whether the root has one
        self._declared: dict[str, set[str]] = {}  # public_paths -> the names files matching it declare
        self._scripts: set[str] | None = None

    def generated_mention(self, name: str) -> str:
        """A file left out as generated code that writes the name (its uses are not indexed), if any."""
        if self._generated is None:
            self._generated = {}
            root, budget = real_root(self.root), GENERATED_BYTES
            for path in self._store.graph.generated_paths():
                try:
                    text = read_inside(self.root / path, root)[:budget].decode("utf-8", "replace")
                except OSError:
                    continue
                budget -= len(text)
                for word in set(_IDENTIFIER.findall(text)):
                    self._generated.setdefault(word, path)
                if budget <= 0:
                    break
        return self._generated.get(name, "")

    def is_library(self, rules: DeadRules) -> bool:
        """Whether the project is packaged as a library, by the rules' marker files at its root
        (looked at once per set of markers, not once per definition)."""
        if rules.library_markers not in self._library:
            self._library[rules.library_markers] = any(
                (self.root / marker).is_file() for marker in rules.library_markers
            )
        return self._library[rules.library_markers]

    def language(self, symbol: SymbolInfo) -> str:
        return self.languages.get(symbol.path) or language_name(symbol.path)

    def compiled(self, symbol: SymbolInfo) -> bool:
        """False for a C or C++ definition in an `#if` branch this platform does not compile."""
        written = self.conditions.get((symbol.path, symbol.name, symbol.start_line), ())
        return compiled_under(written, self.language(symbol) == "cpp")

    def is_script(self, path: str) -> bool:
        """Whether a shell file is run as a program rather than sourced (GraphReads.script_paths)."""
        if self._scripts is None:
            self._scripts = self._store.graph.script_paths(
                [name for name, rules in DEAD_RULES.items() if rules.scripts]
            )
        return path in self._scripts

    def declared_public(self, symbol: SymbolInfo, public_paths: str) -> bool:
        """Whether a file of the public API declares the definition, or holds it."""
        if public_paths not in self._declared:
            self._declared[public_paths] = {
                name for path, name in self._store.graph.prototypes() if re.search(public_paths, path)
            }
        return bool(re.search(public_paths, symbol.path)) or symbol.name in self._declared[public_paths]

    def written(self, symbol: SymbolInfo, rules: DeadRules) -> set[str]:
        """The decorators written on a definition, without the suffix the language lets one leave out."""
        found = {m for m in self.markers.get(symbol.id, ()) if not rules.markers_in_signature or m in symbol.signature}
        suffix = rules.marker_suffix
        return {m[: -len(suffix)] if suffix and m.endswith(suffix) and m != suffix else m for m in found}


def _dead_verdict(symbol: SymbolInfo, rules: DeadRules, context: _DeadContext) -> tuple[float, str, bool] | None:
    """(confidence, reason, public) for an unreferenced definition, or None when it is an entry point."""
    name = symbol.name
    is_test_file = (
        _is_test_path(symbol.path) or bool(rules.test_files and re.search(rules.test_files, symbol.path))
        or bool(rules.test_modules and re.search(rules.test_modules, symbol.qualified_name))
    )
    written = context.written(symbol, rules)
    dispatch = context.dispatch
    if name in rules.entry_names or (rules.entry_pattern and re.match(rules.entry_pattern, name)):
        return None
    if written & rules.test_markers or symbol.qualified_name in context.test_classes:
        return None  # a test, or a class of tests: their runner calls them
    if is_test_file and not context.include_tests:
        return None  # tests are run by their runner, not called
    if written - rules.inert_markers - rules.override_markers:
        return None  # registered by a decorator (routes, CLI commands, fixtures, plugins)
    if symbol.kind == "method" and rules.constructors and _is_constructor(symbol):
        return None
    if rules.build_variants and symbol.qualified_name in context.used_qualified:
        return None  # another build's copy of it is used (`//go:build`): so is this one, in its build
    if symbol.kind == "class" and any(dispatch.declares(symbol.qualified_name, entry) for entry in rules.entry_names):
        return None  # it holds the program's entry point (`class App { static void Main() }`)
    head = symbol.signature.split("(", 1)[0].strip()
    tail = symbol.signature.rpartition(")")[2]
    overrides = (rules.override_pattern and re.search(rules.override_pattern, head)) or (
        rules.override_tail_pattern and re.search(rules.override_tail_pattern, tail))
    if symbol.kind == "method" and (written & rules.override_markers or overrides):
        return None  # it overrides a method: called through the base's
    if rules.scripts:
        private = name.startswith("_") or context.is_script(symbol.path)
    elif rules.exported_by_case:
        private = not _exported(symbol)
    elif rules.private_pattern:
        private = bool(re.search(rules.private_pattern, head)) and symbol.kind != "method"
    else:
        private = not re.search(rules.public_pattern, head) if rules.public_pattern else name.startswith("_")
    if context.language(symbol) in LINKED_LANGUAGES and (
        other_platform(symbol.path) or not context.compiled(symbol)
        or (not private and symbol.qualified_name == name and name in context.linked_used)
    ):
        # built for another platform (src/win/, `#ifdef _WIN32`), or another platform's copy of a
        # used function (`uv__io_poll` of kqueue.c, when linux.c's is called): what uses it is not
        # built here
        return None
    if symbol.kind == "method" and rules.declaration_bases and dispatch.declared_for_others(symbol, rules):
        return None  # a Protocol's member: the shape other classes give, not code that runs
    outside = ""
    if symbol.kind == "method" and rules.dispatch:
        reached, outside = dispatch.reached(symbol, rules.dispatch, rules.outside_base_pattern)
        if reached:
            return None  # it implements or overrides a project method: called through that one
        # a private method implements and overrides nothing, where privacy is a keyword (Java's
        # `private`); Python's `_hook` is a base's hook as often as not
        outside = "" if private and rules.public_pattern else outside
    confidence = 0.9
    reasons = ["no reference in the project binds to it"]
    member_public = rules.exported_by_case or (context.is_library(rules) and _owners_public(symbol))
    public = not private and (symbol.kind != "method" or member_public) and not is_test_file
    if rules.public_paths:
        public = public and context.declared_public(symbol, rules.public_paths)
    if symbol.kind == "method" and not public:
        confidence = 0.6
        reasons.append("a method may still be called through a subclass or dynamically")
    elif rules.scripts and public:
        confidence = LIBRARY_FUNCTION
        reasons.append("it is in a library, which scripts outside the project may source and call it from")
    elif rules.scripts:
        confidence = SCRIPT_FUNCTION
        reasons.append("a shell function may still be called by a name built when the code runs")
    elif public:
        confidence = 0.5
        reasons.append("it is public and may be used by other projects")
    elif rules.private_pattern and not private:
        confidence = LINKED
        reasons.append("it is not `static`: code outside the project may link to it")
    if outside:
        confidence = min(confidence, DISPATCH_OUTSIDE)
        reasons.append(f"it may implement or override a member of `{outside}`, which is outside the project")
    elif symbol.kind == "method" and rules.accessor_pattern and re.match(rules.accessor_pattern, head):
        confidence = min(confidence, DISPATCH_OUTSIDE)
        reasons.append("an accessor is read as a property, which references here do not follow")
    elif symbol.kind == "method" and name in rules.protocol_methods:
        confidence = min(confidence, DISPATCH_OUTSIDE)
        reasons.append(f"`{name}` is a method the standard library calls on objects that have it")
    generated = context.generated_mention(name)
    if generated:
        confidence = min(confidence, DISPATCH_OUTSIDE)
        reasons.append(f"`{generated}`, generated code left out of the index, writes its name")
    others = context.ambiguous.get(name, 0)
    if others:
        confidence *= 0.5
        reasons.append(f"{others} unbound reference(s) to `{name}` could mean it")
    return round(confidence, 2), "; ".join(reasons), public


def _orphan_files(
    store: Store, links: set[tuple[str, str]], wanted: frozenset[str] | set[str],
    is_library: Callable[[DeadRules], bool],
) -> list[str]:
    """Files of the graph's languages that define something, that no other file imports or uses,
    and that are no entry point: not a test, example or vendored copy, no file a runtime starts from
    (`__init__.py`, `main.go`, `index.ts`: ENTRY_FILES), none defining an entry point of its language
    (`main`, Go's `init`), none run as a script (`if __name__ == "__main__"`, a `#!` line), none
    another build's copy of files that define the same names (`//go:build`)."""
    languages = [language for language in graph_languages() if not wanted or language in wanted]
    defined = store.graph.defining_files(languages)
    used = {to for source, to in links} | _python_modules_imported(store, defined)
    used_packages = {to.rpartition("/")[0] for source, to in links
                     if source.rpartition("/")[0] != to.rpartition("/")[0]}
    started = store.graph.files_containing("__main__") | store.graph.script_paths(languages)
    defined_in = Counter(qualified for _, names in defined.values() for _, qualified in names)
    found = []
    for path, (language, names) in defined.items():
        if path in used or path in started or path_role(path) != "source" or path.rsplit("/", 1)[-1] in ENTRY_FILES:
            continue
        rules = DEAD_RULES.get(language, _DEFAULT_RULES)
        if {name for name, _ in names} & rules.entry_names:
            continue
        if rules.package_files and path.rpartition("/")[0] in used_packages:
            continue  # its package is used from elsewhere, and it is built with it
        if _public_module(names, rules, is_library(rules)):
            continue  # a library's public names: other projects import them
        if all(defined_in[qualified] > 1 for _, qualified in names):
            continue  # every name it defines is defined again elsewhere: a build's copy
        found.append(path)
    return sorted(found)


def _public_module(names: set[tuple[str, str]], rules: DeadRules, library: bool) -> bool:
    """Whether a file defines public API another project may import: an exported Go name outside a
    `main` package, a public name of a Python library's module."""
    if rules.exported_by_case:
        return any(name[:1].isupper() and not qualified.startswith("main.") for name, qualified in names)
    return library and any(not name.startswith("_") for name, _ in names)


def _python_modules_imported(store: Store, defined: dict[str, tuple[str, set[tuple[str, str]]]]) -> set[str]:
    """Python files some import names as a module (`from .handlers.calculus import X` runs
    handlers/calculus.py even when X is defined elsewhere and the binding follows it there)."""
    paths = {path for path, (language, _) in defined.items() if language == "python"}
    by_suffix: dict[str, list[str]] = {}
    for path in paths:
        stem = path[: -len("/__init__.py")] if path.endswith("/__init__.py") else path.rsplit(".", 1)[0]
        parts = stem.split("/")
        for start in range(len(parts)):
            by_suffix.setdefault("/".join(parts[start:]), []).append(path)
    found: set[str] = set()
    for importer, _, module, level, _, language in store.graph.import_modules():
        if language != "python" or not module:
            continue
        written = module.replace(".", "/")
        if level:
            base = importer.split("/")[:-level]
            found.update(p for p in by_suffix.get("/".join([*base, written]), ()) if p != importer)
        else:
            found.update(p for p in by_suffix.get(written, ()) if p != importer)
    return found


def _coupling(links: set[tuple[str, str]]) -> list[Coupling]:
    """Files by how many other directories use them and they use, the most tied first; only those
    that cross into another directory at all, tests and examples left out."""
    fan_in: dict[str, set[str]] = {}
    fan_out: dict[str, set[str]] = {}
    for source, target in links:
        here, there = source.rpartition("/")[0], target.rpartition("/")[0]
        if here == there or path_role(source) != "source" or path_role(target) != "source":
            continue
        fan_in.setdefault(target, set()).add(here)
        fan_out.setdefault(source, set()).add(there)
    found = [Coupling(p, len(fan_in.get(p, ())), len(fan_out.get(p, ()))) for p in fan_in.keys() | fan_out.keys()]
    return sorted(found, key=lambda c: (-(c.fan_in + c.fan_out), -c.fan_in, c.path))


def _inside(path: str, within: str) -> bool:
    """Whether a path is in the directory a request keeps to (every path when it keeps to none)."""
    return not within or path.startswith(within.rstrip("/") + "/")


def _built_names(store: Store, items: list[DeadItem]) -> list[DeadItem]:
    """The items, methods the code may call by a name written in a string listed lower: the whole
    name in quotes (`printmethod = "_latex"`), or a head of it that the code builds names from
    (`'_print_' + cls.__name__`, `f"visit_{node}"`, `"_eval_is_%s"`), as a dispatcher by name does."""
    languages = [name for name, rules in DEAD_RULES.items() if rules.built_names]
    methods = [item for item in items if item.symbol.kind == "method"]
    if not methods:
        return items
    quoted = store.graph.quoted_names(languages)
    out = []
    for item in items:
        name = item.symbol.name
        written = name if name in quoted else next((p for p in _prefixes(name) if p in quoted), None)
        if item.symbol.kind == "method" and written is not None and item.confidence > DISPATCH_OUTSIDE:
            how = "its name" if written == name else f"names built from `{written}`"
            reason = f"{item.reason}; the code writes {how} in a string, as a call by name does"
            item = DeadItem(item.symbol, DISPATCH_OUTSIDE, reason)
        out.append(item)
    return out


def _prefixes(name: str) -> list[str]:
    """The heads of a name up to each `_` inside it, with it and without (`_eval_is_real` ->
    `_eval_`, `_eval`, `_eval_is_`, `_eval_is`): what a call by a built name may start from
    (`'_print_' + kind`, `dispatch(self, '_eval_commutator', other)`)."""
    heads = []
    for i, c in enumerate(name):
        if c == "_" and i < len(name) - 1 and len(name[:i].strip("_")) >= 2:
            heads += [name[: i + 1], name[:i]]
    return heads


def _owners_public(symbol: SymbolInfo) -> bool:
    """Whether no class holding a method is private by its name (`_Helper.run` is not public)."""
    owner = (symbol.parent or "").rsplit(".", 1)[-1]
    return not owner.startswith("_")


def _exported(symbol: SymbolInfo) -> bool:
    """Go: whether other packages can use a definition: its name and its type's start with a
    capital letter, outside a `main` package."""
    package, *owners = symbol.qualified_name.split(".")[:-1] or [""]
    return package != "main" and all(part[:1].isupper() for part in (*owners, symbol.name))


def _is_constructor(symbol: SymbolInfo) -> bool:
    return symbol.parent is not None and symbol.parent.rsplit(".", 1)[-1] == symbol.name


class _Dispatch:
    """Whether a method is reached through dispatch, from the bases its class names; reads the
    bases once and the members of each base class as they are needed."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._bases: dict[str, list[g.BaseRef]] | None = None
        self._classes: dict[int, SymbolInfo] = {}
        self._defines: dict[tuple[str, str], bool] = {}
        self._interfaces: Interfaces | None = None
        self._methods: dict[str, frozenset[str]] = {}

    def reached(self, method: SymbolInfo, how: str, outside_pattern: str = "") -> tuple[bool, str]:
        """(reached through dispatch, the name of a base outside the project that may declare it,
        among those `outside_pattern` matches)."""
        if method.parent is None:
            return False, ""
        if how == "impl":
            return self._in_trait_impl(method), ""
        if how == "interfaces":
            return self._satisfies(method), ""
        return self._overrides(method.parent, method.name, outside_pattern, set())

    def declared_for_others(self, method: SymbolInfo, rules: DeadRules) -> bool:
        """Whether the method's class names one of the rules' declaration bases (`Protocol`)."""
        return any(b.name in rules.declaration_bases for b in self.bases().get(method.parent or "", []))

    def _satisfies(self, method: SymbolInfo) -> bool:
        """Go: whether the method's type has every method of an interface that asks for this one."""
        if self._interfaces is None:
            self._interfaces = Interfaces(self.store.graph.interface_sources("go"))
            self._methods = self.store.graph.methods_by_owner("go")
        owned, open_ended = self._method_set(method.parent or "", set())
        if open_ended:  # it embeds a type from outside the project, whose methods are its own too
            return any(method.name in methods for _, methods in self._interfaces.method_sets())
        return self._interfaces.satisfied(method.name, owned) is not None

    def _method_set(self, owner: str, seen: set[str]) -> tuple[frozenset[str], bool]:
        """A Go type's methods, those its embedded project types promote included, and whether it
        embeds a type from outside the project (whose methods are unknown here)."""
        seen.add(owner)
        methods, open_ended = set(self._methods.get(owner, frozenset())), False
        for embedded in self.bases().get(owner, []):
            target = self._classes.get(embedded.target_id) if embedded.target_id is not None else None
            if target is None:
                open_ended = True
            elif target.qualified_name not in seen:
                promoted, further = self._method_set(target.qualified_name, seen)
                methods |= promoted
                open_ended = open_ended or further
        return frozenset(methods), open_ended

    def bases(self) -> dict[str, list[g.BaseRef]]:
        if self._bases is None:
            self._bases = self.store.graph.base_refs()
            ids = [b.target_id for refs in self._bases.values() for b in refs if b.target_id is not None]
            self._classes = self.store.graph.symbols_by_ids(ids)
        return self._bases

    def _overrides(self, cls: str, name: str, outside_pattern: str, seen: set[str]) -> tuple[bool, str]:
        """Whether a base of `cls` (or one of theirs) in the project declares `name`, else the name of
        a base outside the project, if any."""
        seen.add(cls)
        outside = ""
        for base in self.bases().get(cls, []):
            target = self._classes.get(base.target_id) if base.target_id is not None else None
            if target is None or target.kind != "class":
                if not outside_pattern or re.search(outside_pattern, base.name):
                    outside = outside or base.name
                continue
            if self.declares(target.qualified_name, name):
                return True, ""
            if target.qualified_name not in seen:
                reached, further = self._overrides(target.qualified_name, name, outside_pattern, seen)
                if reached:
                    return True, ""
                outside = outside or further
        return False, outside

    def declares(self, cls: str, name: str) -> bool:
        """Whether the class defines a method or function of that name itself."""
        key = (cls, name)
        if key not in self._defines:
            found = self.store.graph.find_symbols(f"{cls}.{name}", ("method", "function"))
            self._defines[key] = any(s.parent == cls for s in found)
        return self._defines[key]

    def _in_trait_impl(self, method: SymbolInfo) -> bool:
        """Whether the block a method is written in implements a trait (`impl Display for X`): a base
        named inside the block, before the method, in a block that is no type of its own."""
        assert method.parent is not None
        blocks = [b for b in self.store.graph.class_blocks(method.path, method.parent)
                  if b[0] <= method.start_line and method.end_line <= b[1]]
        if not blocks:
            return False
        start, _ = max(blocks)
        owner = self.store.graph.symbol_in_scope(method.path, method.parent)
        if owner is not None and owner.kind == "class" and owner.start_line == start:
            return False  # a trait's (or a type's) own body: its bases are supertraits
        return any(
            b.path == method.path and start <= b.line < method.start_line for b in self.bases().get(method.parent, [])
        )


class _HasPath(Protocol):
    @property
    def path(self) -> str: ...


P = TypeVar("P", bound=_HasPath)


def _keep(items: list[P], within: str) -> list[P]:
    """The items in the directory a request keeps to (all when it keeps to none)."""
    return [item for item in items if _inside(item.path, within)]


def _is_test_path(path: str) -> bool:
    return path_role(path) == "test"


def _check_name(name: str) -> str:
    text = name.strip()
    if not text:
        raise UsageError("give a symbol name, e.g. `parse_config` or `UserService.find`")
    return text


def _check_tree_limit(limit: int) -> int:
    if not 1 <= limit <= MAX_NODES:
        raise UsageError(f"limit must be between 1 and {MAX_NODES}, got {shown(limit)}")
    return limit


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
    try:
        candidate = Path(path).expanduser()
        if not candidate.is_absolute() and not (root / candidate).exists() and (Path.cwd() / candidate).exists():
            candidate = Path.cwd() / candidate
    except (OSError, RuntimeError, ValueError) as exc:  # a name too long, `~nobody`, a NUL
        raise path_error(path, exc) from exc
    return inside_root(root, candidate).relative_to(root).as_posix()
