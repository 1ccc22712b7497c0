"""The MCP tools: search_code, index_status, index_codebase, list_indexes, clear_index, and the code
graph: find_symbol, find_references, call_hierarchy, get_file_dependencies, get_file_impact,
get_batch_dependencies, get_batch_impact, find_dead_code, change_impact; and context for agents: outline,
file_brief, find_tests, co_change.

Each is one service call in a worker thread, on paths inside the directories the server serves (`Scope`).

Replies are the dicts `codefathom.service.render` makes, the ones `--json` prints, so they cannot drift.
A `CodefathomError` (bad glob, unknown language, no such directory), or an error Python raises on bad
input (`errors.input_error`), becomes a tool error the model reads (`reported`, around every tool).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, ParamSpec, TypeAlias, TypeVar
from urllib.parse import urlparse
from urllib.request import url2pathname

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context, ListRoots, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ListRootsRequest, ListRootsResult
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from codefathom.errors import input_error
from codefathom.search import MAX_LIMIT
from codefathom.service import Codefathom, SearchResponse, render
from codefathom.service.changes import DEFAULT_DEPTH, DEFAULT_MAX_RESULTS, MAX_RESULTS
from codefathom.service.context import MAX_TOKENS, MIN_TOKENS, FileBriefResponse, OutlineResponse
from codefathom.service.graph import MAX_DEPTH, MAX_REFS_LIMIT, REFS_LIMIT, DepsResponse
from codefathom.service.indexer import Progress
from codefathom.service.multi import resolve_index_name, search_several
from codefathom.service.project import inside_root
from codefathom.service.related import DEFAULT_COMMITS, MAX_COMMITS, CoChangeResponse, TestsResponse

if TYPE_CHECKING:
    from codefathom.mcp.server import Served, ServiceCache

__all__ = [
    "search_code", "index_status", "index_codebase", "list_indexes", "clear_index", "client_roots",
    "all_client_roots", "Scope", "Kind", "find_symbol", "find_references", "call_hierarchy", "get_file_dependencies",
    "get_file_impact", "get_batch_dependencies", "get_batch_impact", "find_dead_code", "SymbolKind", "RefKind",
    "DepType", "outline", "file_brief", "find_tests", "co_change", "change_impact",
]

log = logging.getLogger("codefathom.mcp")

ROOTS_TIMEOUT = 10  # seconds a client may take to answer roots/list

T = TypeVar("T")
P = ParamSpec("P")

# The unit kinds of codefathom.model.UNIT_KINDS, spelled out so the tool schema lists them.
Kind: TypeAlias = Literal["module", "class", "function", "method", "section", "chunk", "directory"]

# The lifespan state is the server's ServiceCache; Any keeps the runtime free of a server import cycle.
Ctx: TypeAlias = Context[Any, Any]


async def client_roots(project_path: str | None, ctx: Ctx) -> ListRoots | ListRootsResult | None:
    """The client's roots, when it has them: without `serve --root` they are served (with the working
    directory); with it they only give project_path its default, so an absolute one needs none.
    """
    if _cache(ctx).roots and project_path and Path(project_path).expanduser().is_absolute():
        return None
    return await _ask_roots(ctx)


async def all_client_roots(ctx: Ctx) -> ListRoots | ListRootsResult | None:
    """The client's roots for a tool without project_path (list_indexes): served without `serve --root`."""
    return None if _cache(ctx).roots else await _ask_roots(ctx)


async def _ask_roots(ctx: Ctx) -> ListRoots | ListRootsResult | None:
    """roots/list, asked on every call, so roots a client changes (notifications/roots/list_changed) count
    from its next call on.

    On 2026-07-28 connections the SDK asks through an input-required round; on earlier ones the
    roots/list request is sent here, so a client that fails to answer leaves the working directory.
    """
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return None
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS or not ctx.session.can_send_request:
        return ListRoots()
    with anyio.move_on_after(ROOTS_TIMEOUT):
        try:
            # send_request, not the deprecated session.list_roots(): roots are deprecated as of 2026-07-28.
            roots: ListRootsResult = await ctx.session.send_request(ListRootsRequest(), ListRootsResult)
            return roots
        except Exception as exc:  # noqa: BLE001 - no roots is an answer too
            log.warning("the client declares roots but roots/list failed: %s", exc)
            return None
    log.warning("the client declares roots but did not answer roots/list in %ss", ROOTS_TIMEOUT)
    return None


Roots: TypeAlias = Annotated[ListRootsResult | None, Resolve(client_roots)]
AllRoots: TypeAlias = Annotated[ListRootsResult | None, Resolve(all_client_roots)]

ProjectPath = Annotated[
    str | None,
    Field(
        description="Directory of the project, or a directory inside it to keep to. Default: the client's"
        " first root, else the server's working directory. Relative paths read from that default."
        " Paths outside the client's roots and the server's working directory are refused."
    ),
]


@dataclass(frozen=True)
class Scope:
    """What one call may touch (`served`) and where project_path is read from (`base`): the client's
    first file:// root, else the first served root (`serve --root`, else the working directory)."""

    cache: ServiceCache
    served: Served
    base: Path

    def project(self, project_path: str | None) -> Path:
        """The directory a call is about; whether it is served is checked when it is used."""
        if not project_path:
            return self.base
        path = Path(project_path).expanduser()
        return path if path.is_absolute() else self.base / path

    def call(self, path: Path, action: Callable[[Codefathom], T]) -> T:
        """`ServiceCache.call` within this call's served roots (blocking)."""
        return self.cache.call(path, action, self.served)

    def file(self, service: Codefathom, path: str) -> str:
        """A file or directory a tool names, read from the project root, resolved; refused outside the
        project (as the CLI refuses it) or outside the served roots."""
        if not path.strip():
            return path  # the service says what is missing
        return str(self.served.check(inside_root(service.root, path)))


def _scope(ctx: Ctx, roots: ListRootsResult | None) -> Scope:
    cache = _cache(ctx)
    client = _file_roots(roots)
    served = cache.served(client)  # nothing to serve: a usage error, reported by `reported`
    return Scope(cache, served, client[0] if client else served.roots[0])


async def search_code(
    query: Annotated[
        str,
        Field(
            description="An identifier or qualified name as the code writes it (`parse_config`,"
            " `Store.replace_file`), or the words the code would use ('retry failed upload')."
        ),
    ],
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    index_names: Annotated[
        list[str] | None,
        Field(
            description="Search these indexes too, merged by score, each result tagged with its index: project"
            " roots (or index names) as list_indexes shows them, in the directories the server serves."
        ),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="How many results.")] = 10,
    languages: Annotated[
        list[str] | None,
        Field(description="Only these languages: python, typescript (ts), javascript, go, rust, java, markdown, ..."),
    ] = None,
    kinds: Annotated[
        list[Kind] | None,
        Field(
            description="Only these kinds of result, e.g. ['function', 'method'] or ['class'];"
            " ['directory'] for directory summaries only."
        ),
    ] = None,
    path_glob: Annotated[
        str | list[str] | None,
        Field(
            description="Only files these gitignore-style globs name, relative to the project:"
            " 'src/**/*.py', 'src/', '*.go'."
        ),
    ] = None,
    exclude_glob: Annotated[
        str | list[str] | None,
        Field(description="Leave out files these gitignore-style globs name, e.g. 'tests/' or '*_test.go'."),
    ] = None,
    symbol_name: Annotated[
        str | None,
        Field(description="Only units whose name or qualified name matches this glob: 'parse_*', 'Store.*'."),
    ] = None,
    expand: Annotated[
        bool,
        Field(
            description="Also return the code graph's neighbours of the top 3 definitions found, to see what a"
            " found function calls and what calls it (a class's bases and subclasses, a module's imports) in"
            " the same round trip. Each such result has `expanded`: {from: the result it neighbours, via:"
            " calls | called by | inherits | inherited by | imports} and comes right after it, on top of the"
            " limit (at most 6 more)."
            " For the full call tree use call_hierarchy."
        ),
    ] = False,
    include_debug: Annotated[
        bool, Field(description="Add timings and candidate counts per channel; analyze_query shows every stage.")
    ] = False,
) -> dict[str, Any]:
    """Search the codebase by name or by the words its code uses; returns ranked functions, classes,
    methods and doc sections with path, line range and source, and directories for questions about an area.

    - A name (`parse_config`, `Store.replace_file`, `UserService.find`) brings its definition first.
    - A question about an area ("what does auth/ do", "where are payments and refunds handled") can
      also return a result of kind `directory`: its path is the directory, `files` its top files,
      and `content` a summary (what it holds, its top files with their docs and definitions).
    - Words and questions ("where do we retry failed uploads") are matched by meaning as well as by
      the words the code uses, once the index has vectors (a reply says how much of it has them).
    - Narrow with path_glob / exclude_glob (gitignore style: 'src/**/*.py', 'tests/'), languages,
      kinds or symbol_name ('Store.*') rather than by adding words.
    - Changed files are re-indexed first; the first call on a project indexes it (a large one in
      the background: the reply is then marked partial, with the indexing's progress).
    - Projects the config links to, and those in index_names, are searched too.
    Use grep instead for every occurrence of an exact string (all call sites, a log message):
    this returns the best matching units, not every line.
    """
    scope = _scope(ctx, roots)
    base = scope.project(project_path)

    def run() -> SearchResponse:
        # A name's own path is checked before its index is read; the project it names, when it is used.
        others = [resolve_index_name(name, base, confine=scope.served.check) for name in index_names or ()]
        return search_several(
            scope.call, base, others,
            lambda service: service.search(
                query, limit=limit, languages=languages or (), kinds=tuple(kinds or ()), path_glob=path_glob or (),
                exclude_glob=exclude_glob or (), symbol_name=symbol_name, include_debug=include_debug, expand=expand,
            ),
            limit,
        )

    return render.search_json(await _blocking(run))


async def analyze_query(
    query: Annotated[str, Field(description="The query to take apart, as it would be given to search_code.")],
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="How many results to take apart.")] = 5,
    languages: Annotated[list[str] | None, Field(description="Only these languages, as for search_code.")] = None,
    kinds: Annotated[list[Kind] | None, Field(description="Only these kinds of result.")] = None,
    path_glob: Annotated[str | list[str] | None, Field(description="Only files these globs name.")] = None,
    exclude_glob: Annotated[str | list[str] | None, Field(description="Leave out files these globs name.")] = None,
) -> dict[str, Any]:
    """Why search_code ranks what it ranks for a query: the query analysis (identifier or prose, its words),
    the mode (names lead for identifiers; prose with vectors is reranked), each channel's top candidates
    (BM25F, names, vectors) with ranks and scores, and for the top results their score taken apart: for
    identifiers each channel's contribution, the name bonus and kind/role/PageRank priors; for reranked
    prose each feature's value and weight (similarity, ranks, the query's words in name, signature, owner
    and path, test/example roles). Also the filters, vector coverage and timings. For tuning a query or
    reporting a bad ranking; use search_code to search.
    """
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(
        scope, where,
        lambda service: service.search(
            query, limit=limit, languages=languages or (), kinds=tuple(kinds or ()), path_glob=path_glob or (),
            exclude_glob=exclude_glob or (), explain=True,
        ),
    )
    return render.explain_json(response)


async def index_status(ctx: Ctx, roots: Roots, project_path: ProjectPath = None) -> dict[str, Any]:
    """What the project's index holds: files, units, languages, parse health (files that failed to
    parse, with the error), last sync time, index size, and vectors (the embedder, how many units have
    one, and the background embedding's progress). Does not index; search_code does that itself.
    """
    scope = _scope(ctx, roots)
    status = await _call(scope, scope.project(project_path), lambda service: service.status())
    return render.status_json(status)


async def index_codebase(
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    full: Annotated[bool, Field(description="Re-parse every file, not only the changed ones.")] = False,
) -> dict[str, Any]:
    """Index the project, or bring its index up to date: only changed files are parsed, deleted ones
    dropped. search_code does this before every search, so call it only to index a large project
    ahead of time, or with full=true after changing .codefathom.toml. Reports progress while it runs.
    """
    progress = _progress_reporter(ctx)
    scope = _scope(ctx, roots)
    report, root = await _call(
        scope, scope.project(project_path),
        lambda service: (service.index(progress, full=full), str(service.root)),
    )
    return render.sync_json(report, root)


async def list_indexes(ctx: Ctx, roots: AllRoots) -> dict[str, Any]:
    """Every indexed project in the directories the server serves: its root, index path, files, units,
    last sync time and index size.
    """
    scope = _scope(ctx, roots)
    return render.indexes_json(await _blocking(lambda: scope.cache.list_indexes(scope.served)))


async def clear_index(ctx: Ctx, roots: Roots, project_path: ProjectPath = None) -> dict[str, Any]:
    """Delete the project's index (its source files are not touched); the next search_code or
    index_codebase indexes it again from scratch. Returns whether there was an index to delete.
    """
    scope = _scope(ctx, roots)
    path = scope.project(project_path)
    root, cleared = await _blocking(lambda: scope.cache.clear(path, scope.served))
    return {"project_root": str(root), "cleared": cleared}


# -- code graph ----------------------------------------------------------------------------------

# The kinds of codefathom.service.graph (SYMBOL_KINDS, REF_KINDS, DEP_TYPES), spelled out for the schema.
SymbolKind: TypeAlias = Literal["module", "class", "function", "method", "field", "constant"]
RefKind: TypeAlias = Literal["call", "inherit", "decorator", "type", "read"]
DepType: TypeAlias = Literal["import", "call", "reference", "inherit"]

SymbolName = Annotated[
    str,
    Field(
        description="A name as the code writes it: `find`, a qualified tail `UserService.find`, or the whole"
        " qualified name `shop.users.UserService.find`."
    ),
]
FilePath = Annotated[
    str,
    Field(
        description="A file of the project, relative to its root as results print it (`src/auth/jwt.py`),"
        " or absolute."
    ),
]
FilePaths = Annotated[
    list[str],
    Field(min_length=1, description="Files of the project, relative to its root as results print them, or absolute."),
]
Depth = Annotated[int, Field(ge=1, le=MAX_DEPTH, description="How many levels to follow (1 = direct only).")]
DepTypes = Annotated[
    DepType | list[DepType] | None,
    Field(
        description="Only links of these types: import, call, reference (decorators, type hints, reads of a"
        " name), inherit. Default: all."
    ),
]

async def find_symbol(
    name: SymbolName,
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    kinds: Annotated[
        list[SymbolKind] | None, Field(description="Only definitions of these kinds, e.g. ['class'] or ['method'].")
    ] = None,
) -> dict[str, Any]:
    """Where a name is defined: path, line range, kind, qualified name, signature and doc of every
    definition it matches. Cheaper than search_code or reading files when you know the name and
    want its signature or location; for words rather than a name, use search_code.
    """
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(scope, where, lambda service: service.symbol(name, kinds=tuple(kinds or ())))
    return render.symbols_json(response)


async def find_references(
    name: SymbolName,
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    kinds: Annotated[
        list[RefKind] | None,
        Field(description="Only references of these kinds: call, inherit, decorator, type, read. Default: all."),
    ] = None,
    limit: Annotated[
        int,
        Field(ge=0, le=MAX_REFS_LIMIT,
              description=f"List at most this many references, by path and line (0: all). Default:"
              f" {REFS_LIMIT}; `total_references` and each symbol's `references` count them all."),
    ] = REFS_LIMIT,
) -> dict[str, Any]:
    """Every place that uses a definition (calls, subclasses, decorators, type hints, reads), bound by
    the code graph rather than by matching text. Call it before renaming a function, class or method,
    or changing its signature, to find every caller to update; unlike grep it tells
    `UserService.find` from other `find`s. With several definitions of the name, each reference
    says which one it binds to (`target`). References are extracted for Python, JavaScript,
    TypeScript, Go, Java, Kotlin, Scala, Rust, C#, C, C++, Ruby, PHP, Swift and Bash.

    Each reference's label says how sure its binding is: exact (scope, an import or `self` decide
    it), high (a type hint or a constructor says it), likely, possible (a guess from the name).
    unbound_elsewhere counts other references of the same name that could mean several definitions
    and were bound to none; when above 0, `note` says so: check those with search_code or grep too.
    """
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(scope, where, lambda service: service.refs(name, kinds=tuple(kinds or ()), limit=limit))
    return render.refs_json(response)


async def call_hierarchy(
    name: SymbolName,
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    direction: Annotated[
        Literal["callers", "callees"],
        Field(description="callers: what calls it (up); callees: what it calls (down)."),
    ] = "callers",
    depth: Depth = 1,
) -> dict[str, Any]:
    """The call tree of a function, method or class: who calls it (callers), or what it calls
    (callees), `depth` levels deep. Use it to trace how a code path is reached, or what a function
    relies on, without opening each file. Each node has qualified_name, kind, path, line (the call
    site for callers, the definition for callees), the label of the binding and its `children`
    (left out when none); `seen_before: true` marks a node already expanded elsewhere in the tree.
    A caller with qualified_name null is code at module level.
    """
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(
        scope, where, lambda service: service.call_hierarchy(name, direction=direction, depth=depth)
    )
    return render.hierarchy_json(response)


async def get_file_dependencies(
    path: FilePath, ctx: Ctx, roots: Roots, project_path: ProjectPath = None, depth: Depth = 1,
    dep_type: DepTypes = None,
) -> dict[str, Any]:
    """What a file depends on: the project files it imports, calls, references or inherits from,
    as a tree `depth` levels deep, plus the third-party modules it imports (`external`). Use it to
    learn what to read to understand a file. Each node has its path, `via` (link type -> count),
    `children` (left out when none) and `seen_before: true` when it appears earlier in the tree.
    """
    return await _file_deps(ctx, roots, project_path, [path], depth, dep_type, reverse=False)


async def get_file_impact(
    path: FilePath, ctx: Ctx, roots: Roots, project_path: ProjectPath = None, depth: Depth = 1,
    dep_type: DepTypes = None,
) -> dict[str, Any]:
    """What depends on a file, transitively: the files that import, call, reference or subclass
    something in it, and the files that depend on those, `depth` levels out. Call it before editing
    a file to see the blast radius of the change and which files (and tests) to check after.
    Same tree as get_file_dependencies, in the other direction.
    """
    return await _file_deps(ctx, roots, project_path, [path], depth, dep_type, reverse=True)


async def get_batch_dependencies(
    paths: FilePaths, ctx: Ctx, roots: Roots, project_path: ProjectPath = None, depth: Depth = 1,
    dep_type: DepTypes = None,
) -> dict[str, Any]:
    """get_file_dependencies for several files in one call: one tree per file, sharing one visited
    set, so a file reached from several of them appears once (elsewhere `seen_before: true`).
    """
    return await _file_deps(ctx, roots, project_path, paths, depth, dep_type, reverse=False)


async def get_batch_impact(
    paths: FilePaths, ctx: Ctx, roots: Roots, project_path: ProjectPath = None, depth: Depth = 1,
    dep_type: DepTypes = None,
) -> dict[str, Any]:
    """get_file_impact for several files in one call (e.g. every file a change touches): one tree
    per file, sharing one visited set, so each dependent file appears once; `files` counts them.
    """
    return await _file_deps(ctx, roots, project_path, paths, depth, dep_type, reverse=True)


async def find_dead_code(
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    include_tests: Annotated[bool, Field(description="Also list unused definitions in test files.")] = False,
) -> dict[str, Any]:
    """Functions, methods and classes nothing in the project uses, each with a confidence (0-1) and
    the reason. `unused` lists likely dead code; `public_api` lists public definitions unused inside
    the project that other projects may still use. Entry points (dunder methods, main, constructors,
    test methods by their annotations or attributes, trait implementations and overrides, decorated
    functions such as routes or CLI commands) and tests are left out; a method that may implement a
    member of a base outside the project stays, at a lower confidence. Only the languages in
    `languages_checked` are examined. Confirm with find_references before deleting anything.
    """
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(scope, where, lambda service: service.dead(include_tests=include_tests))
    return render.dead_json(response)


async def change_impact(
    ctx: Ctx,
    roots: Roots,
    diff_ref: Annotated[
        str,
        Field(description="The revision the working tree is compared with: HEAD (uncommitted changes), HEAD~1"
                          " (the last commit too), a branch such as main (the whole branch), a commit hash."),
    ] = "HEAD",
    staged: Annotated[
        bool, Field(description="Compare the staged changes (git's index) with diff_ref instead of the working tree.")
    ] = False,
    diff_text: Annotated[
        str | None,
        Field(description="A unified diff (`git diff` output, a patch) to read instead of asking git; its new side"
                          " is read against the files as they are now. diff_ref and staged are then ignored."),
    ] = None,
    depth: Annotated[
        int, Field(ge=1, le=MAX_DEPTH, description="How many levels of files depending on the changed files to follow.")
    ] = DEFAULT_DEPTH,
    max_results: Annotated[
        int,
        Field(ge=1, le=MAX_RESULTS,
              description="At most this many references per changed definition, impacted files and tests."),
    ] = DEFAULT_MAX_RESULTS,
    project_path: ProjectPath = None,
) -> dict[str, Any]:
    """What a git diff changes and what that can break, in one call: call it after editing (or before
    committing) to know what to check and which tests to run. From `git diff diff_ref` (the working
    tree, new untracked files included; with staged, the staged changes) or from diff_text:
    `changed_files` (status added/modified/deleted/renamed, lines +/-); `changed_symbols`, the
    functions, classes and methods the diff touches (change: added, modified, removed; removed ones
    come from the old version git keeps); `dependents`, per changed definition the references to it
    (path, line, label exact/high/likely/possible, scope = the calling definition), or for a removed
    one the references still using its name (`by_name`: likely broken); `impacted_files`, files that
    depend on the changed files (`distance`, `via`); `tests`, the test files to run, strongest tie
    first (`rank` changed > direct > helper > depends > named, `why`, `functions`). `counts` sums it up;
    `truncated` says what was cut. A bad revision or a directory outside git comes back as an error.
    """
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(
        scope, where,
        lambda service: service.change_impact(
            diff_ref, staged=staged, diff_text=diff_text, depth=depth, max_results=max_results
        ),
    )
    return render.change_impact_json(response)


# -- context for agents ---------------------------------------------------------------------------


async def outline(
    ctx: Ctx,
    roots: Roots,
    path: Annotated[
        str | None,
        Field(description="A directory of the project to outline, relative to its root ('src/auth'). Default:"
                          " the whole project (or the directory project_path names)."),
    ] = None,
    tokens: Annotated[
        int,
        Field(ge=MIN_TOKENS, le=MAX_TOKENS,
              description="Budget of the reply in estimated tokens (characters / 3); the reply never exceeds it."),
    ] = 1500,
    focus: Annotated[
        str | None,
        Field(description="What you are about to work on: words, names or paths ('token refresh', 'shop/users.py')."
                          " Files and definitions they match come first."),
    ] = None,
    project_path: ProjectPath = None,
) -> dict[str, Any]:
    """A map of the repository or of one directory: directories > files > their most important
    definitions (`sig`, `line`), ranked by PageRank over the code graph (what much of the project
    depends on comes first) and by `focus`, cut to fit `tokens`. What is cut is counted in `more`
    (per file by kind, `more_files` per directory, and files in directories not shown). Call it first
    when entering an unfamiliar repository, or with a focus before a task, instead of listing and
    opening files; then file_brief or find_symbol for detail.
    """
    scope = _scope(ctx, roots)

    def action(service: Codefathom) -> OutlineResponse:
        directory = scope.file(service, path) if path else None
        return service.outline(directory, tokens=tokens, focus=focus)

    return render.outline_json(await _call(scope, scope.project(project_path), action))


async def file_brief(
    path: FilePath, ctx: Ctx, roots: Roots, project_path: ProjectPath = None
) -> dict[str, Any]:
    """Everything to know about a file before editing it, in one call: its definitions (line, kind,
    qualified name, signature, first line of doc), its imports (project files with the names taken
    from them, `external` modules, `unresolved` ones), its `dependents` (files that depend on it,
    `via` import/call/reference/inherit counts: what a change can break), its `tests` (test files that
    depend on it or are named like it: test_x.py, x_test.go, x.test.ts, XTest.java), its language,
    parse `status` (ok, partial, failed, text) and `error`, and its PageRank `rank`.
    """
    scope = _scope(ctx, roots)

    def action(service: Codefathom) -> FileBriefResponse:
        return service.brief(scope.file(service, path))

    return render.brief_json(await _call(scope, scope.project(project_path), action))


async def find_tests(
    target: Annotated[
        str,
        Field(description="A file of the project, relative to its root ('src/auth/jwt.py'), or a symbol name as"
                          " find_symbol takes it ('UserService.find')."),
    ],
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
) -> dict[str, Any]:
    """The tests that exercise a function, class, method or file, strongest evidence first: `rank`
    direct (a test references it, or imports the file), helper (a test calls a non-test function
    that references it) or named (only the file name says so: test_x.py, x_test.go, x.test.ts,
    x.spec.ts, XTest.java); `why` gives the reasons and `functions` the test definitions that reach
    it. Call it before changing code to know which tests to run after (and which to update); cheaper
    than searching for test files by hand. A target naming an indexed file is a file, else a symbol.
    """
    scope = _scope(ctx, roots)

    def action(service: Codefathom) -> TestsResponse:
        try:
            is_file = (service.root / target).is_file()
        except (OSError, ValueError):  # a name too long, a NUL: no file, so a symbol's name (as the CLI reads it)
            is_file = False
        if is_file:
            scope.served.check(service.root / target)  # a file outside the served roots is refused
        return service.find_tests(target)

    return render.tests_json(await _call(scope, scope.project(project_path), action))


async def co_change(
    path: FilePath,
    ctx: Ctx,
    roots: Roots,
    limit: Annotated[int, Field(ge=1, le=1000, description="How many files to list.")] = 10,
    commits: Annotated[
        int, Field(ge=1, le=MAX_COMMITS, description="How many of the latest commits of HEAD to read.")
    ] = DEFAULT_COMMITS,
    project_path: ProjectPath = None,
) -> dict[str, Any]:
    """The files most often committed together with a file in git history (local `git log`, last
    `commits` commits, commits of over 50 files ignored): per file `together` (commits changing
    both), `confidence` (together / `file_commits`, the commits changing the file) and `support`
    (together / `commits` read). Call it before or after editing a file to find the other files a
    change usually needs (a schema and its migration, code and its docs or config) that imports do
    not reveal. Needs a git repository.
    """
    scope = _scope(ctx, roots)

    def action(service: Codefathom) -> CoChangeResponse:
        return service.co_change(scope.file(service, path), limit=limit, commits=commits)

    return render.cochange_json(await _call(scope, scope.project(project_path), action))


async def _file_deps(
    ctx: Ctx, roots: ListRootsResult | None, project_path: str | None, paths: list[str], depth: int,
    dep_type: DepType | list[DepType] | None, *, reverse: bool,
) -> dict[str, Any]:
    """Dependencies (or dependents) of `paths`, read relative to the project root; a file outside the
    roots the server serves is refused like any other path."""
    scope = _scope(ctx, roots)
    dep_types = [dep_type] if isinstance(dep_type, str) else list(dep_type or ())

    def action(service: Codefathom) -> DepsResponse:
        files = [scope.file(service, p) for p in paths]
        return service.deps(files, depth=depth, dep_types=dep_types, reverse=reverse)

    return render.deps_json(await _call(scope, scope.project(project_path), action))


def _cache(ctx: Ctx) -> ServiceCache:
    cache: ServiceCache = ctx.request_context.lifespan_context
    return cache


async def _call(scope: Scope, path: Path, action: Callable[[Codefathom], T]) -> T:
    """Run `action` on the project's service in a worker thread; codefathom errors become tool errors."""
    return await _blocking(lambda: scope.call(path, action))


async def _blocking(work: Callable[[], T]) -> T:
    """Run `work` in a worker thread; codefathom errors become tool errors (see `reported`)."""
    result: T = await anyio.to_thread.run_sync(work)
    return result


def reported(tool: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """The tool, with codefathom's errors and those Python raises on bad input (a path in a link
    loop, a number too large for SQLite: `errors.input_error`) turned into tool errors that name
    their cause. Anything else is a bug, which the SDK reports as one."""

    @functools.wraps(tool)
    async def call(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await tool(*args, **kwargs)
        except ToolError:
            raise
        except Exception as exc:
            error = input_error(exc)
            if error is None:
                raise
            raise ToolError(str(error)) from exc

    return call


def _progress_reporter(ctx: Ctx) -> Progress:
    """A service progress callback (called in the worker thread) that reports through the context."""

    def report(done: int, total: int, path: str) -> None:
        try:
            anyio.from_thread.run(ctx.report_progress, done, total, f"parsed {done} of {total} files: {path}")
        except Exception:  # noqa: BLE001 - a lost progress message must not stop the indexing
            log.debug("progress report not delivered", exc_info=True)

    return report


def _file_roots(roots: ListRootsResult | None) -> list[Path]:
    """The client's file:// roots on this machine, resolved, in the client's order."""
    found = []
    for root in roots.roots if roots is not None else ():
        parsed = urlparse(str(root.uri))
        if parsed.scheme == "file" and parsed.netloc in ("", "localhost"):
            path = Path(url2pathname(parsed.path))
            if path.is_absolute():
                found.append(path.resolve())
    return found
