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
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations

from codefathom import __version__
from codefathom.config import default_home, redacted_uri
from codefathom.errors import CodefathomError, PathOutsideRoot, UsageError
from codefathom.mcp import tools
from codefathom.mcp.watch import Watchers
from codefathom.service import Codefathom, IndexInfo, clear_database_project, configured_database, list_indexes
from codefathom.service.project import resolve_project
from codefathom.service.verbs import VERBS

__all__ = [
    "build_server", "run_stdio", "served_roots", "Served", "ServiceCache", "INSTRUCTIONS", "compact_schema",
]

log = logging.getLogger("codefathom.mcp")

T = TypeVar("T")

OPEN_PROJECTS = 8
# Services a project's read calls may run on besides its own while that one is busy, each with its
# own connection to the index, so one agent's search does not queue behind another's
# ($CODEFATHOM_SERVE_READERS; 0: every call on a project waits for the one before it).
READERS = 4

# Directories a server is started in when the client knows no project: too wide to be meant.
_TOO_WIDE = {Path("/").resolve()}
with suppress(RuntimeError):  # no home directory to find
    _TOO_WIDE.add(Path.home().resolve())

INSTRUCTIONS = """\
codefathom answers from a local index of the project, kept in step with its files.
- search_code first, instead of opening files: a name (`Store.replace_file`) or what the code does.
- Before an edit: file_brief, find_references, file_dependencies (dependents), find_tests.
- After one: change_impact. In a new repository: outline; before writing code: code_health (conventions).
- search_code also takes a stack trace's `path:line`; its modes grep (literal, regex), find files (path)
  and read lines (read).
project_path defaults to the client's first root; paths outside the served roots are refused.
A reply marked partial comes from an index still being built.
"""


@dataclass
class _Entry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    service: Codefathom | None = None
    closed: bool = False
    # Read services (see READERS), guarded by `spare`: idle ones, and how many are open and lent.
    readers: list[Codefathom] = field(default_factory=list)
    opened: int = 0
    lent: int = 0
    draining: bool = False  # a clear or a close waits for the lent ones: none is lent meanwhile
    spare: threading.Condition = field(default_factory=threading.Condition)


class ServiceCache:
    """Open `Codefathom` services, one per project root, reused across calls; thread-safe.

    Calls on one project run one at a time on its service (which serialises them anyway). With
    `readers`, calls that only read run instead on up to that many more services of the project,
    each with its own connection to the index, opened when first needed and kept; the project's own
    service keeps the writes (index, clear), the watcher's re-index and the background embedding.
    The least recently used project is closed when more than `size` are open.
    """

    def __init__(
        self, index_dir: Path | None = None, size: int = OPEN_PROJECTS, roots: Sequence[Path] = (), readers: int = 0
    ) -> None:
        self._readers = readers
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

    def call(
        self, path: str | Path, action: Callable[[Codefathom], T], served: Served, *, writes: bool = False
    ) -> T:
        """Run `action` on the service of the project `path` belongs to (blocking); `path` must be served.
        An action that only reads runs on a read service when the cache has them."""
        # The path checked is the path used, so a symlink changed in between cannot lead elsewhere.
        project = resolve_project(served.check(path), served.covers)
        lent = None if writes else self._lend(project.root)
        if lent is not None:
            entry, reader = lent
            try:
                reader.project = project
                return action(reader)
            finally:
                self._give_back(entry, reader)
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
            self._drain(entry)
            try:
                with self._open(root, watch=False) as fresh:
                    return root, fresh.clear()
            finally:
                with entry.spare:
                    entry.draining = False

    def list_indexes(self, served: Served) -> list[IndexInfo]:
        """The indexes of projects that overlap the served roots: those in the home directory, then
        those of the PostgreSQL database the server's $CODEFATHOM_STORE (or working directory's config)
        names. A database project whose root is not on this machine is another machine's checkout (an
        indexer in CI) and is listed too; one whose folder is here but outside the roots is not."""
        return [
            info for info in list_indexes(store=configured_database())
            if served.overlaps(Path(info.project_root))
            or (info.project is not None and not Path(info.project_root).exists())
        ]

    def clear_project(self, name: str) -> tuple[str, bool]:
        """Delete the project `name` of the server's database: (the database and project, whether it was
        there). Open services of it are closed first, so none writes it again from what it held."""
        database = configured_database()
        if database is None:
            raise UsageError(
                "name is a project of the server's PostgreSQL store, and this server has none ($CODEFATHOM_STORE);"
                " give project_path instead"
            )
        with self._lock:
            entries = list(self._entries.items())
        for root, entry in entries:
            with entry.lock:
                service = entry.service
                if service is None or (service.settings.store, service.settings.project_name) != (database, name):
                    continue
                entry.service = None
                service.close()
                self._drain(entry)
                with entry.spare:
                    entry.draining = False
            self.watchers.unwatch(root)  # (outside the lock: its warmer may be waiting for it)
        return f"{redacted_uri(database)}#{name}", clear_database_project(database, name)

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

    def _lend(self, root: Path) -> tuple[_Entry, Codefathom] | None:
        """A read service of the project, waiting for one while all are lent (first come, first served);
        None without readers, or while the project is being cleared or closed (the caller then waits
        for the project's own service). The project's own service is opened first when it is not: it
        holds the watcher's warmer and the background embedding."""
        if not self._readers:
            return None
        entry = self._entry(root)
        if entry.service is None:  # (looked at without its lock, which a long sync may hold: taken only to open it)
            with self._held(root) as entry:
                if entry.service is None:
                    entry.service = self._open(root)
        with entry.spare:
            while not (entry.closed or entry.draining):
                if entry.readers:
                    reader: Codefathom | None = entry.readers.pop()
                    break
                if entry.opened < self._readers:
                    entry.opened += 1
                    reader = None
                    break
                entry.spare.wait()  # (Condition wakes its waiters in the order they came)
            else:
                return None
            entry.lent += 1
        if reader is None:
            try:
                reader = self._open(root, watch=False)
                # It shares the project's watch state (one watcher a project): a sync on any service counts.
                reader.watch = self.watchers.watch(reader.root, reader.settings.index_dir)
                reader.embeds_elsewhere = partial(_embed_on_own_service, entry)
            except BaseException:
                with entry.spare:
                    entry.opened -= 1
                    entry.lent -= 1
                    entry.spare.notify()
                raise
        return entry, reader

    def _give_back(self, entry: _Entry, reader: Codefathom) -> None:
        with entry.spare:
            entry.lent -= 1
            keep = not (entry.closed or entry.draining)
            if keep:
                entry.readers.append(reader)
                entry.spare.notify()  # the call that has waited longest
            else:
                entry.opened -= 1
                entry.spare.notify_all()  # a drain waits for none to be lent
        if not keep:
            reader.close()

    def _drain(self, entry: _Entry) -> None:
        """Close the entry's read services once none is lent; lend none meanwhile (until `draining` is reset)."""
        with entry.spare:
            entry.draining = True
            entry.spare.notify_all()  # calls waiting for a reader go to the project's own service instead
            while entry.lent:
                entry.spare.wait()
            idle, entry.readers = entry.readers, []
            entry.opened -= len(idle)
        for reader in idle:
            reader.close()

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
            self._drain(entry)
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


def _embed_on_own_service(entry: _Entry) -> None:
    """A read service synced the project's index: the thread of the project's own service embeds what
    it wrote. (Looked at without the entry's lock, which a long call may hold; a closed service starts
    no thread.)"""
    service = entry.service
    if service is not None and not entry.closed:
        service.embed_in_background()


def _listed(paths: Sequence[Path]) -> str:
    return ", ".join(str(path) for path in paths)


def build_server(index_dir: Path | None = None, roots: Sequence[Path] = ()) -> MCPServer[ServiceCache]:
    """An MCP server whose tools search and index local projects.

    `index_dir` as `serve --index-dir`; `roots` as `serve --root`: when given, every tool call must be
    about a directory inside one of them; else inside the client's roots or the working directory.
    """
    cache = ServiceCache(index_dir, roots=roots, readers=_readers())
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
        lifespan=lifespan, log_level="WARNING", tools=_tools(),
    )
    return server


_READ_ONLY = ToolAnnotations(read_only_hint=True)
# (readOnlyHint is false unless said: the protocol's default)
_WRITES = ToolAnnotations(destructive_hint=False, idempotent_hint=True)
_DELETES = ToolAnnotations(destructive_hint=True, idempotent_hint=True)


def _tools() -> list[Tool]:
    """Every tool, through `tools.reported` (bad input comes back as a tool error naming its cause),
    with its schema made compact (`compact_schema`)."""
    table: tuple[tuple[Callable[..., Awaitable[Any]], ToolAnnotations], ...] = (
        (tools.search_code, _READ_ONLY), (tools.index_status, _READ_ONLY), (tools.index_codebase, _WRITES),
        (tools.list_indexes, _READ_ONLY), (tools.clear_index, _DELETES), (tools.find_symbol, _READ_ONLY),
        (tools.find_references, _READ_ONLY), (tools.call_hierarchy, _READ_ONLY),
        (tools.file_dependencies, _READ_ONLY), (tools.change_impact, _READ_ONLY), (tools.code_health, _READ_ONLY),
        (tools.outline, _READ_ONLY), (tools.file_brief, _READ_ONLY), (tools.find_tests, _READ_ONLY),
        (tools.co_change, _READ_ONLY),
    )
    assert [function.__name__ for function, _ in table] == list(VERBS), "every verb of service/verbs.py, in order"
    built = []
    for function, hints in table:
        tool = Tool.from_function(
            tools.reported(function), description=_doc(function), annotations=hints, structured_output=False
        )
        built.append(tool.model_copy(update={"parameters": compact_schema(tool.parameters)}))
    return built


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema without what a client does not need: titles, a flag's default false, a number's
    default 0, a count's floor of 0 or 1 (the server still refuses less), and `anyOf [X, null]` with a
    null default for an optional X (leaving the parameter out means null)."""
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        prop = {key: value for key, value in prop.items() if key != "title"}
        if prop.get("type") == "boolean" and prop.get("default") is False:
            del prop["default"]
        if prop.get("type") == "integer":
            if prop.get("minimum") in (0, 1):
                del prop["minimum"]
            if prop.get("default") == 0:
                del prop["default"]
        options = prop.get("anyOf")
        if options and prop.get("default", ...) is None:
            kept = [option for option in options if option != {"type": "null"}]
            del prop["anyOf"], prop["default"]
            prop = {**(kept[0] if len(kept) == 1 else {"anyOf": kept}), **prop}
        properties[name] = prop
    compact: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        compact["required"] = schema["required"]
    return compact


def _readers() -> int:
    """READERS, or $CODEFATHOM_SERVE_READERS (a count, 0 or more)."""
    value = os.environ.get("CODEFATHOM_SERVE_READERS", "").strip()
    if not value:
        return READERS
    if not value.isdigit():
        raise UsageError(f"$CODEFATHOM_SERVE_READERS must be a count (0 or more), got {value!r}")
    return int(value)


def _doc(function: Callable[..., object]) -> str:
    return " ".join(inspect.cleandoc(function.__doc__ or "").split())


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
