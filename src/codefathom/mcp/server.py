"""Builds the MCP server: its instructions, its tools, and a cache of open project services.

Services block (SQLite, parsing), so tools call them in worker threads through `ServiceCache.call`.
Every call names the directories it may touch (`Served`): `serve --root`, else the client's roots
and the server's working directory; paths outside them are refused.
"""

from __future__ import annotations

import inspect
import logging
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from codefathom import __version__
from codefathom.config import default_home
from codefathom.errors import CodefathomError, PathOutsideRoot, UsageError
from codefathom.mcp import tools
from codefathom.mcp.watch import Watchers
from codefathom.service import Codefathom, IndexInfo, list_indexes
from codefathom.service.project import resolve_project

__all__ = ["build_server", "run_stdio", "served_roots", "Served", "ServiceCache", "INSTRUCTIONS"]

log = logging.getLogger("codefathom.mcp")

T = TypeVar("T")

OPEN_PROJECTS = 8

# Directories a server is started in when the client knows no project: too wide to be meant.
_TOO_WIDE = {Path("/").resolve()}
with suppress(RuntimeError):  # no home directory to find
    _TOO_WIDE.add(Path.home().resolve())

INSTRUCTIONS = """\
codefathom searches a codebase by name and by the words its code uses, from a local index kept in step with the files.

Use search_code before opening files to find where something is defined or implemented:
- a name as the code writes it (`parse_config`, `Store.replace_file`) brings its definition first;
- otherwise describe what the code does ("retry failed uploads"): words are matched by meaning once the
  index has vectors (embedded in the background; index_status shows how far), and by the code's own words.
Results carry path and line range with the source, so read only those lines next.
Narrow with path_glob / exclude_glob (gitignore style, e.g. 'src/**/*.py', 'tests/'), languages, kinds.
Use grep instead when you need every occurrence of an exact string (all callers, a log message).
project_path defaults to the client's first root, else the server's working directory. Only the client's
roots and the server's working directory are served (or the directories the server was started with):
any other path is refused.
analyze_query shows why a query ranks what it ranks. index_status tells what a project's index holds
(and how much of it has vectors); index_codebase indexes ahead of time (searches do it themselves).
list_indexes lists the indexed projects served; clear_index deletes a project's index (never its files).
search_code with index_names searches other indexed projects too. A reply marked partial comes from a project
still being indexed in the background: index_status shows the progress.

The code graph answers from bound references, not text (references are extracted for Python,
JavaScript, TypeScript, Go, Java, Kotlin, Scala, Rust, C#, C, C++, Ruby, PHP, Swift and Bash):
- find_symbol: where a name is defined, with signature and doc, without reading files.
- find_references before renaming or changing a signature: every use, labelled exact, high, likely or
  possible; unbound_elsewhere counts uses of the name that could not be pinned to one definition.
- call_hierarchy: who calls a function (callers) or what it calls (callees), depth levels deep.
- get_file_impact before editing a file: what depends on it, transitively (the blast radius);
  get_file_dependencies: what it depends on. get_batch_impact / get_batch_dependencies take several files.
- find_dead_code: definitions nothing uses, with a confidence and the reason.
- change_impact after editing or before committing: from a git diff (or diff_text), the definitions it
  changes, the references to them, the files depending on them and the tests to run, ranked.

Context in few tokens:
- outline when entering an unfamiliar repository (or with focus= before a task): directories, files and their
  most important definitions, ranked by PageRank, cut to a token budget.
- file_brief before editing a file: its definitions, imports, dependents, tests and parse health in one call.
- find_tests before changing a function or file: the tests that exercise it (direct, through a helper, by name).
- co_change: the files git history says usually change together with a file (what a change may also need).
"""


@dataclass
class _Entry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    service: Codefathom | None = None
    closed: bool = False


class ServiceCache:
    """Open `Codefathom` services, one per project root, reused across calls; thread-safe.

    Calls on one project run one at a time (the service serialises them anyway). The least
    recently used project is closed when more than `size` are open.
    """

    def __init__(
        self, index_dir: Path | None = None, size: int = OPEN_PROJECTS, roots: Sequence[Path] = ()
    ) -> None:
        self.roots = served_roots(roots)  # `serve --root`; empty: the client's roots and the working directory
        self.workdir: Path | None = None  # served unless / or the home directory
        with suppress(OSError):  # a working directory deleted under the server serves nothing
            self.workdir = Path.cwd().resolve()
        self._index_dir = index_dir
        self._index_dir_root: Path | None = None
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[Path, _Entry] = OrderedDict()
        self.watchers = Watchers(self._warm)  # keep open projects' indexes warm ($CODEFATHOM_WATCH=0: off)
        if index_dir is not None:
            # --index-dir belongs to the working directory's project only.
            try:
                self._index_dir_root = resolve_project(Path.cwd()).root
            except CodefathomError:
                self._index_dir_root = None

    def served(self, client_roots: Sequence[Path] = ()) -> Served:
        """What one call may touch: the `serve --root` directories; without them the client's roots and
        the working directory, unless that is / or the home directory (too wide to be meant).

        Nothing to serve is a usage error that says how to name a project.
        """
        if self.roots:
            return Served(self.roots, given=True)
        found = [*client_roots] + ([self.workdir] if self.workdir and self.workdir not in _TOO_WIDE else [])
        roots = tuple(dict.fromkeys(path.resolve() for path in found))
        if not roots:
            where = f"runs in {self.workdir}, too wide to search whole," if self.workdir else "has no working directory"
            raise UsageError(
                f"no project to serve: the server {where} and the client declares no roots;"
                " pass --root DIR to `codefathom serve`, or open a project in the client"
            )
        return Served(roots, given=False)

    def call(self, path: str | Path, action: Callable[[Codefathom], T], served: Served) -> T:
        """Run `action` on the service of the project `path` belongs to (blocking); `path` must be served."""
        # The path checked is the path used, so a symlink changed in between cannot lead elsewhere.
        project = resolve_project(served.check(path), served.covers)
        with self._held(project.root) as entry:
            if entry.service is None:
                entry.service = self._open(project.root)
            # One service per root serves every directory inside it; the entry lock makes
            # setting the requested directory and using it one step.
            entry.service.project = project
            return action(entry.service)

    def clear(self, path: str | Path, served: Served) -> tuple[Path, bool]:
        """Delete the index of the project `path` belongs to: (project root, whether there was one).

        The cached service is closed first, and calls on the project wait until the files are gone.
        """
        root = resolve_project(served.check(path), served.covers).root
        if not served.covers(root):
            raise PathOutsideRoot(
                f"{path} belongs to the project {root}, whose index covers files outside the roots this server"
                f" serves ({_listed(served.roots)}); clear it with `codefathom clear {root}`"
            )
        with self._held(root) as entry:
            service, entry.service = entry.service, None
            if service is not None:
                service.close()
            with self._open(root, watch=False) as fresh:
                return root, fresh.clear()

    def list_indexes(self, served: Served) -> list[IndexInfo]:
        """The indexes in the home directory of projects that overlap the served roots."""
        return [info for info in list_indexes() if served.overlaps(Path(info.project_root))]

    def close(self) -> None:
        """Close every open service."""
        self.watchers.close()
        with self._lock:
            entries = list(self._entries.values())
            self._entries.clear()
        for entry in entries:
            self._close(entry)

    def _open(self, root: Path, *, watch: bool = True) -> Codefathom:
        service = Codefathom(root, self._index_dir if root == self._index_dir_root else None)
        if watch:
            service.watch = self.watchers.watch(service.root, service.settings.index_dir)
            service.embed_in_background()  # vectors come while the lexical index already answers
        return service

    def _warm(self, root: Path) -> None:
        """A watcher saw changes: sync the project's index now, if it is still open (see mcp/watch.py)."""
        with self._lock:
            entry = self._entries.get(root)
        if entry is None:
            return
        with entry.lock:
            if not entry.closed and entry.service is not None:
                entry.service.refresh_in_background()
                entry.service.embed_in_background()

    @contextmanager
    def _held(self, root: Path) -> Iterator[_Entry]:
        """The project's entry, locked for one call."""
        while True:
            entry = self._entry(root)
            with entry.lock:
                if entry.closed:  # evicted between lookup and lock: look it up again
                    continue
                yield entry
                return

    def _entry(self, root: Path) -> _Entry:
        with self._lock:
            entry = self._entries.get(root)
            if entry is None:
                entry = self._entries[root] = _Entry()
            self._entries.move_to_end(root)
            evicted = []
            while len(self._entries) > self._size:
                evicted.append(self._entries.popitem(last=False)[1])
        for old in evicted:  # closed once its current call ends, without making this one wait
            threading.Thread(target=self._close, args=(old,), name="codefathom-close", daemon=True).start()
        return entry

    def _close(self, entry: _Entry) -> None:
        with entry.lock:
            entry.closed = True
            service, entry.service = entry.service, None
            if service is not None:
                service.close()
        if service is not None:
            self.watchers.unwatch(service.root)  # outside the lock: its warmer may be waiting for it


@dataclass(frozen=True)
class Served:
    """The directories one tool call may read and index (resolved), and whether `serve --root` gave them."""

    roots: tuple[Path, ...]
    given: bool

    def check(self, path: str | Path) -> Path:
        """`path` resolved (symlinks, `..`), refused unless it lies inside a served root."""
        resolved = Path(path).expanduser().resolve()
        if not self.covers(resolved):
            shown = str(path) if Path(path) == resolved else f"{path} (resolved: {resolved})"
            how = "" if self.given else (
                " (the client's roots and the server's working directory; `codefathom serve --root DIR` serves others)"
            )
            raise PathOutsideRoot(f"{shown} is outside the roots this server serves: {_listed(self.roots)}{how}")
        return resolved

    def covers(self, path: Path) -> bool:
        return any(path.is_relative_to(root) for root in self.roots)

    def overlaps(self, path: Path) -> bool:
        return any(path.is_relative_to(root) or root.is_relative_to(path) for root in self.roots)


def served_roots(roots: Sequence[str | Path]) -> tuple[Path, ...]:
    """The directories `serve --root` names, resolved; a missing one is a usage error."""
    resolved = []
    for root in roots:
        try:
            path = Path(root).expanduser().resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise UsageError(f"no such directory: {root}") from exc
        if not path.is_dir():
            raise UsageError(f"not a directory: {root}")
        resolved.append(path)
    return tuple(dict.fromkeys(resolved))


def _listed(paths: Sequence[Path]) -> str:
    return ", ".join(str(path) for path in paths)


def build_server(index_dir: Path | None = None, roots: Sequence[Path] = ()) -> MCPServer[ServiceCache]:
    """An MCP server whose tools search and index local projects.

    `index_dir` as `serve --index-dir`; `roots` as `serve --root`: when given, every tool call must be
    about a directory inside one of them; else inside the client's roots or the working directory.
    """
    cache = ServiceCache(index_dir, roots=roots)
    users = 0  # SSE enters the lifespan once per connection; they share the cache, closed after the last

    @asynccontextmanager
    async def lifespan(_: MCPServer[ServiceCache]) -> AsyncIterator[ServiceCache]:
        nonlocal users
        users += 1
        log.info("codefathom %s MCP server ready; indexes in %s", __version__, index_dir or default_home())
        try:
            yield cache
        finally:
            users -= 1
            if users == 0:
                await anyio.to_thread.run_sync(cache.close)

    server: MCPServer[ServiceCache] = MCPServer(
        "codefathom", title="codefathom code search", version=__version__, instructions=INSTRUCTIONS,
        lifespan=lifespan, log_level="WARNING",
    )
    read_only = ToolAnnotations(
        read_only_hint=True, idempotent_hint=True, destructive_hint=False, open_world_hint=False
    )
    def add(tool: Callable[..., Awaitable[Any]], title: str, annotations: ToolAnnotations = read_only) -> None:
        # Every tool through tools.reported: bad input comes back as a tool error naming its cause.
        server.add_tool(tools.reported(tool), title=title, description=_doc(tool), annotations=annotations)

    add(tools.search_code, "Search code")
    add(tools.analyze_query, "Analyze query")
    add(tools.index_status, "Index status")
    add(
        tools.index_codebase, "Index codebase",
        ToolAnnotations(read_only_hint=False, idempotent_hint=True, destructive_hint=False, open_world_hint=False),
    )
    add(tools.list_indexes, "List indexes")
    add(
        tools.clear_index, "Clear index",
        ToolAnnotations(read_only_hint=False, idempotent_hint=True, destructive_hint=True, open_world_hint=False),
    )
    graph_tools: tuple[tuple[Callable[..., Awaitable[Any]], str], ...] = (
        (tools.find_symbol, "Find symbol"), (tools.find_references, "Find references"),
        (tools.call_hierarchy, "Call hierarchy"), (tools.get_file_dependencies, "File dependencies"),
        (tools.get_file_impact, "File impact"), (tools.get_batch_dependencies, "Batch dependencies"),
        (tools.get_batch_impact, "Batch impact"), (tools.find_dead_code, "Find dead code"),
        (tools.change_impact, "Change impact"),
        (tools.outline, "Repository outline"), (tools.file_brief, "File brief"),
        (tools.find_tests, "Find tests"), (tools.co_change, "Co-changed files"),
    )
    for tool, title in graph_tools:
        add(tool, title)
    return server


def _doc(function: Callable[..., object]) -> str:
    return inspect.cleandoc(function.__doc__ or "")


def run_stdio(index_dir: Path | None = None, roots: Sequence[Path] = ()) -> None:
    """Serve MCP over stdin/stdout until the client disconnects; logs go to stderr."""
    configure_logging()
    build_server(index_dir, roots).run("stdio")


def configure_logging() -> None:
    """Log to stderr (stdout carries the protocol); $CODEFATHOM_LOG_LEVEL sets the level."""
    level = os.environ.get("CODEFATHOM_LOG_LEVEL", "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr, level=level if level in logging.getLevelNamesMapping() else "WARNING",
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
