"""The MCP tools: search_code, index_status, index_codebase, list_indexes, clear_index; the code graph:
find_symbol, find_references, call_hierarchy, file_dependencies, change_impact; code health (dead code,
duplicates, conventions): code_health; and context for agents: outline, file_brief, find_tests, co_change.

Each is one service call in a worker thread, on paths inside the directories the server serves (`Scope`).
The two that write, index_codebase and clear_index, first check the role of the request's token
(`mcp/access.py`): a read-only token is refused them.
Descriptions and parameter texts are short on purpose: a client loads all of them at every session
(tests/test_mcp_stdio.py holds `tools/list` under 8,000 characters).

Replies carry the dicts `codefathom.service.render` makes, the ones `--json` prints, as structured content.
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
from mcp.types import CallToolResult, ListRootsRequest, ListRootsResult, TextContent
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BeforeValidator, Field

from codefathom.errors import NotFound, UsageError, input_error, shown
from codefathom.mcp.access import request_role
from codefathom.search import MAX_LIMIT
from codefathom.service import Codefathom, SearchResponse, render
from codefathom.service.changes import DEFAULT_DEPTH, DEFAULT_MAX_RESULTS, MAX_RESULTS
from codefathom.service.context import MAX_TOKENS, MIN_TOKENS, FileBriefResponse, OutlineResponse
from codefathom.service.graph import (
    DEAD_LIMIT,
    MAX_DEPTH,
    MAX_NODES,
    REFS_LIMIT,
    SYMBOLS_LIMIT,
    TREE_LIMIT,
    DepsResponse,
)
from codefathom.service.health import CONVENTIONS_LIMIT, DUPLICATES_LIMIT
from codefathom.service.indexer import Progress
from codefathom.service.lookups import LOOKUP_MODES, exists_json, exists_text, found_of, lookup
from codefathom.service.multi import resolve_index_name, search_several
from codefathom.service.project import inside_root
from codefathom.service.related import DEFAULT_COMMITS, MAX_COMMITS, CoChangeResponse, TestsResponse
from codefathom.service.snippets import MAX_CONTEXT

if TYPE_CHECKING:
    from codefathom.mcp.server import Served, ServiceCache

__all__ = [
    "search_code", "index_status", "index_codebase", "list_indexes", "clear_index", "client_roots",
    "all_client_roots", "Scope", "Kind", "find_symbol", "find_references", "call_hierarchy", "file_dependencies",
    "code_health", "SymbolKind", "RefKind", "DepType", "outline", "file_brief", "find_tests", "co_change",
    "change_impact",
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

# Described once, in the instructions: it is in every tool.
ProjectPath = Annotated[str | None, Field()]


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

    def call(self, path: Path, action: Callable[[Codefathom], T], *, writes: bool = False) -> T:
        """`ServiceCache.call` within this call's served roots (blocking); `writes`: on the project's own service."""
        return self.cache.call(path, action, self.served, writes=writes)

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


def _reply(data: dict[str, Any], text: str) -> CallToolResult:
    """The reply: `data` (what `--json` prints) as structured content, and `text` (what the CLI prints)
    for the model to read: the same answer, written for reading rather than repeated as JSON."""
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _rendered(
    response: T, to_json: Callable[[T], dict[str, Any]], to_text: Callable[[T], str]
) -> CallToolResult:
    return _reply(to_json(response), to_text(response))


def _listed(value: object) -> object:
    """One string where a list is asked for: a list of it."""
    return [value] if isinstance(value, str) else value


Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT)]
Languages = Annotated[list[str] | None, BeforeValidator(_listed), Field(description="['python', 'ts'].")]
Kinds = Annotated[
    list[Kind] | None, BeforeValidator(_listed), Field(description="['directory']: area summaries.")
]
Globs = Annotated[
    list[str] | None, BeforeValidator(_listed), Field(description="'src/**/*.py', 'tests/'.")
]


async def search_code(
    query: Annotated[str, Field(description="A name (`Store.replace_file`), words, `a.py:120`, a pattern.")],
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    mode: Annotated[
        Literal["hybrid", "lexical", "vector", "literal", "regex", "path", "read"],
        Field(description="literal|regex: grep; path: files; read: 'a.py:10-40' or a name; others rank."),
    ] = "hybrid",
    limit: Limit = 10,
    languages: Languages = None,
    kinds: Kinds = None,
    path_glob: Globs = None,
    exclude_glob: Annotated[list[str] | None, BeforeValidator(_listed)] = None,
    symbol_name: Annotated[str | None, Field(description="'parse_*', 'store.*'.")] = None,
    index_names: Annotated[list[str] | None, Field(description="Other projects too.")] = None,
    expand: Annotated[bool, Field(description="Add top hits' graph neighbours.")] = False,
    include_deps: Annotated[bool, Field(description="Each hit's callers, callees, imports.")] = False,
    include_debug: Annotated[bool, Field(description="Timings, channel counts.")] = False,
    explain: Annotated[bool, Field(description="Take the ranking apart instead.")] = False,
    detail: Annotated[
        Literal["compact", "full", "unit", "exists"],
        Field(description="full: bodies; unit: each hit's whole function/section; exists: found, count, top file."),
    ] = "compact",
    context_before: Annotated[int, Field(ge=0, le=MAX_CONTEXT)] = 0,
    context_after: Annotated[int, Field(ge=0, le=MAX_CONTEXT)] = 0,
) -> CallToolResult:
    """Find code or directories by name or meaning, a stack trace's path:line; grep; find files; read lines."""
    scope = _scope(ctx, roots)
    base = scope.project(project_path)
    filters: dict[str, Any] = {
        "languages": languages or (), "kinds": tuple(kinds or ()), "path_glob": path_glob or (),
        "exclude_glob": exclude_glob or (),
    }
    if mode in LOOKUP_MODES:
        del filters["kinds"]
        found = await _call(
            scope, base,
            lambda service: lookup(
                service, mode, query, limit=limit, context_before=context_before, context_after=context_after,
                kinds=kinds, symbol_name=symbol_name, index_names=index_names, expand=expand,
                include_deps=include_deps, include_debug=include_debug, explain=explain, **filters,
            ),
        )
        if detail == "exists":
            said = found_of(found)
            return _reply(exists_json(*said), exists_text(*said))
        return _reply(found.to_json(), found.to_text())
    if explain:
        response = await _call(
            scope, base,
            lambda service: service.search(
                query, limit=limit, symbol_name=symbol_name, explain=True, channel=mode, **filters
            ),
        )
        return _rendered(response, render.explain_json, render.explain_text)

    def run() -> SearchResponse:
        # A name's own path is checked before its index is read; the project it names, when it is used.
        others = [resolve_index_name(name, base, confine=scope.served.check) for name in index_names or ()]
        return search_several(
            scope.call, base, others,
            lambda service: service.search(
                query, limit=limit, symbol_name=symbol_name, include_debug=include_debug, expand=expand,
                include_deps=include_deps, channel=mode, grow=detail == "unit", **filters,
            ),
            limit,
        )

    response = await _blocking(run)
    if detail == "exists":
        said = render.search_found(response)
        return _reply(exists_json(*said), exists_text(*said))
    view = render.SearchView(detail, context_before, context_after)
    return _reply(render.search_json(response, view), render.search_text(response, view))


async def index_status(ctx: Ctx, roots: Roots, project_path: ProjectPath = None) -> CallToolResult:
    """What the index holds: files, languages, parse health, vectors."""
    scope = _scope(ctx, roots)
    status = await _call(scope, scope.project(project_path), lambda service: service.status())
    return _rendered(status, render.status_json, render.status_text)


async def index_codebase(
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    full: Annotated[bool, Field(description="Re-parse all.")] = False,
) -> CallToolResult:
    """Index ahead of time (each call syncs changed files itself)."""
    _may_write(ctx)
    progress = _progress_reporter(ctx)
    scope = _scope(ctx, roots)
    report, status = await _blocking(lambda: scope.call(
        scope.project(project_path), lambda service: (service.index(progress, full=full), service.status()),
        writes=True,
    ))
    return _reply(render.sync_json(report, status.project_root), render.sync_text(report, status))


async def list_indexes(ctx: Ctx, roots: AllRoots) -> CallToolResult:
    """The indexed projects served, and the projects of the server's database."""
    scope = _scope(ctx, roots)
    return _rendered(
        await _blocking(lambda: scope.cache.list_indexes(scope.served)), render.indexes_json, render.indexes_text
    )


async def clear_index(
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    name: Annotated[str | None, Field(description="A database project, as list_indexes names it.")] = None,
) -> CallToolResult:
    """Delete the index (never the files)."""
    _may_write(ctx)
    scope = _scope(ctx, roots)
    if name is not None:
        if project_path:
            raise UsageError("give project_path or name, not both")
        where, cleared = await _blocking(lambda: scope.cache.clear_project(name))
        said = f"Deleted the project {where}." if cleared else f"There is no project {where} to delete."
        return _reply({"project": name, "index_path": where, "cleared": cleared}, said)
    path = scope.project(project_path)
    root, cleared = await _blocking(lambda: scope.cache.clear(path, scope.served))
    said = f"Deleted the index of {root}." if cleared else f"{root} had no index to delete."
    return _reply({"project_root": str(root), "cleared": cleared}, said)


# -- code graph ----------------------------------------------------------------------------------

# The kinds of codefathom.service.graph (SYMBOL_KINDS, REF_KINDS, DEP_TYPES), spelled out for the schema.
SymbolKind: TypeAlias = Literal["module", "class", "function", "method", "field", "constant"]
RefKind: TypeAlias = Literal["call", "inherit", "decorator", "type", "read"]
DepType: TypeAlias = Literal["import", "call", "reference", "inherit"]

SymbolName = Annotated[str, Field(description="`find` or `UserService.find`.")]
FilePath = str
Depth = Annotated[int, Field(ge=1, le=MAX_DEPTH)]
TreeLimit = Annotated[int, Field(ge=1, le=MAX_NODES)]


async def find_symbol(
    name: SymbolName,
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    kinds: Annotated[list[SymbolKind] | None, BeforeValidator(_listed)] = None,
    limit: Annotated[int, Field(ge=0)] = SYMBOLS_LIMIT,  # the service refuses more than MAX_REFS_LIMIT
) -> CallToolResult:
    """Where a name is defined, with signature and doc."""
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(scope, where, lambda service: service.symbol(name, kinds=tuple(kinds or ()), limit=limit))
    return _rendered(response, render.symbols_json, render.symbols_text)


async def find_references(
    name: str,
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    ref_kinds: Annotated[list[RefKind] | None, BeforeValidator(_listed)] = None,
    limit: Annotated[int, Field(ge=0)] = REFS_LIMIT,  # 0: all; the service refuses more than MAX_REFS_LIMIT
) -> CallToolResult:
    """Every use of a definition: before renaming or changing it."""
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(
        scope, where, lambda service: service.refs(name, kinds=tuple(ref_kinds or ()), limit=limit)
    )
    return _rendered(response, render.refs_json, render.refs_text)


async def call_hierarchy(
    name: str,
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    direction: Literal["callers", "callees"] = "callers",
    depth: Depth = 1,
    limit: TreeLimit = TREE_LIMIT,
) -> CallToolResult:
    """Callers or callees of a function as a tree: to trace a code path."""
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(
        scope, where, lambda service: service.call_hierarchy(name, direction=direction, depth=depth, limit=limit)
    )
    return _rendered(response, render.hierarchy_json, render.hierarchy_text)


async def file_dependencies(
    path: str | list[str],
    direction: Annotated[
        Literal["dependents", "dependencies"],
        Field(),
    ],
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    depth: Depth = 1,
    dep_types: Annotated[list[DepType] | None, BeforeValidator(_listed)] = None,
    limit: TreeLimit = TREE_LIMIT,
) -> CallToolResult:
    """What depends on files (an edit's blast radius), or what they depend on."""
    scope = _scope(ctx, roots)
    paths = [path] if isinstance(path, str) else path

    def action(service: Codefathom) -> DepsResponse:
        files = [scope.file(service, p) for p in paths]
        return service.deps(
            files, depth=depth, dep_types=list(dep_types or ()), reverse=direction == "dependents", limit=limit
        )

    return _rendered(
        await _call(scope, scope.project(project_path), action), render.deps_json, render.deps_text
    )


async def code_health(
    report: Literal["dead", "duplicates", "conventions"],
    ctx: Ctx,
    roots: Roots,
    project_path: ProjectPath = None,
    languages: Annotated[list[str] | None, BeforeValidator(_listed)] = None,
    include_tests: bool = False,
    limit: int | None = None,  # per report: as the commands' --limit
    similarity: float = 0.9,  # (the services check these ranges and say what is wrong)
    min_lines: int = 6,
    detail: Literal["compact", "full"] = "compact",  # conventions: every choice with two examples
) -> CallToolResult:
    """Dead code, duplicates, or conventions to follow in new code."""
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    langs = languages or ()
    if report == "dead":
        dead = await _call(scope, where, lambda service: service.dead(
            include_tests=include_tests, limit=DEAD_LIMIT if limit is None else limit, languages=langs))
        return _rendered(dead, render.dead_json, render.dead_text)
    if report == "duplicates":
        copies = await _call(scope, where, lambda service: service.duplicates(
            min_lines=min_lines, min_similarity=similarity, include_tests=include_tests, languages=langs,
            limit=DUPLICATES_LIMIT if limit is None else limit))
        return _reply(copies.to_json(), copies.to_text())
    found = await _call(scope, where, lambda service: service.conventions(
        languages=langs, include_tests=include_tests, limit=CONVENTIONS_LIMIT if limit is None else limit,
        detail=detail))
    return _reply(found.to_json(), found.to_text())


async def change_impact(
    ctx: Ctx,
    roots: Roots,
    diff_ref: str = "HEAD",
    staged: Annotated[bool, Field(description="Staged, not the work tree.")] = False,
    diff_text: Annotated[str | None, Field(description="A unified diff, not git's.")] = None,
    depth: Annotated[int, Field(ge=1, le=MAX_DEPTH)] = DEFAULT_DEPTH,
    limit: Annotated[
        int, Field(ge=1, le=MAX_RESULTS, description="Per list.")
    ] = DEFAULT_MAX_RESULTS,
    project_path: ProjectPath = None,
) -> CallToolResult:
    """Before a commit: what a git diff changes, what uses it, the tests to run."""
    scope = _scope(ctx, roots)
    where = scope.project(project_path)
    response = await _call(
        scope, where,
        lambda service: service.change_impact(
            diff_ref, staged=staged, diff_text=diff_text, depth=depth, max_results=limit
        ),
    )
    return _rendered(response, render.change_impact_json, render.change_impact_text)


# -- context for agents ---------------------------------------------------------------------------


async def outline(
    ctx: Ctx,
    roots: Roots,
    path: Annotated[str | None, Field(description="A directory.")] = None,
    tokens: Annotated[int, Field(ge=MIN_TOKENS, le=MAX_TOKENS)] = 1500,
    focus: Annotated[str | None, Field(description="Words, names or paths to put first.")] = None,
    project_path: ProjectPath = None,
) -> CallToolResult:
    """Key files and definitions in a token budget: first thing in a new repository."""
    scope = _scope(ctx, roots)

    def action(service: Codefathom) -> OutlineResponse:
        directory = scope.file(service, path) if path else None
        return service.outline(directory, tokens=tokens, focus=focus)

    return _rendered(
        await _call(scope, scope.project(project_path), action), render.outline_json, render.outline_text
    )


async def file_brief(path: FilePath, ctx: Ctx, roots: Roots, project_path: ProjectPath = None) -> CallToolResult:
    """Before editing a file: its definitions, imports, dependents and tests."""
    scope = _scope(ctx, roots)

    def action(service: Codefathom) -> FileBriefResponse:
        return service.brief(scope.file(service, path))

    return _rendered(
        await _call(scope, scope.project(project_path), action), render.brief_json, render.brief_text
    )


async def find_tests(
    ctx: Ctx,
    roots: Roots,
    name: Annotated[str | None, Field(description="A definition, or give path.")] = None,
    path: str | None = None,
    project_path: ProjectPath = None,
) -> CallToolResult:
    """Tests exercising a definition or file: which to run after a change."""
    if (name is None) == (path is None):
        raise UsageError("give name or path, not both")
    scope = _scope(ctx, roots)

    def action(service: Codefathom) -> TestsResponse:
        if path is not None:
            target = scope.file(service, path)
            found = service.find_tests(target)
            if found.target_kind != "file":
                raise NotFound(f"{shown(path)} is not in the index (not a file of the project, or left out)")
            return found
        return service.find_tests(str(name))

    return _rendered(
        await _call(scope, scope.project(project_path), action), render.tests_json, render.tests_text
    )


async def co_change(
    path: FilePath,
    ctx: Ctx,
    roots: Roots,
    limit: Annotated[int, Field(ge=1, le=1000)] = 10,
    commits: Annotated[int, Field(ge=1, le=MAX_COMMITS)] = DEFAULT_COMMITS,
    project_path: ProjectPath = None,
) -> CallToolResult:
    """Files often committed with a file: what changing it may also need."""
    scope = _scope(ctx, roots)

    def action(service: Codefathom) -> CoChangeResponse:
        return service.co_change(scope.file(service, path), limit=limit, commits=commits)

    return _rendered(
        await _call(scope, scope.project(project_path), action), render.cochange_json, render.cochange_text
    )


def _may_write(ctx: Ctx) -> None:
    """Refuse a tool that writes the index to a request whose token is read-only (`serve --token-file`).
    (The SDK puts the tool's name before the message.)"""
    if request_role(ctx.request_context.request) != "write":
        raise ToolError(
            "refused: this server gave your token read-only access (search and the read tools);"
            " the index is kept up to date by the server and whoever holds a read-write token"
        )


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
