"""Builds the MCP server: its instructions, the three tools, and a cache of open project services.

Services block (SQLite, parsing), so tools call them in worker threads through `ServiceCache.call`.
"""

from __future__ import annotations

import inspect
import logging
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from codefathom import __version__
from codefathom.config import default_home
from codefathom.errors import CodefathomError
from codefathom.mcp import tools
from codefathom.service import Codefathom
from codefathom.service.project import resolve_project

__all__ = ["build_server", "run_stdio", "ServiceCache", "INSTRUCTIONS"]

log = logging.getLogger("codefathom.mcp")

T = TypeVar("T")

OPEN_PROJECTS = 8

INSTRUCTIONS = """\
codefathom searches a codebase by name and by the words its code uses, from a local index kept in step with the files.

Use search_code before opening files to find where something is defined or implemented:
- a name as the code writes it (`parse_config`, `Store.replace_file`) brings its definition first;
- otherwise give the words the code itself would use ("retry upload backoff"), not a question.
Results carry path and line range with the source, so read only those lines next.
Narrow with path_glob / exclude_glob (gitignore style, e.g. 'src/**/*.py', 'tests/'), languages, kinds.
Use grep instead when you need every occurrence of an exact string (all callers, a log message).
project_path defaults to the client's first root, else the server's working directory.
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

    def __init__(self, index_dir: Path | None = None, size: int = OPEN_PROJECTS) -> None:
        self._index_dir = index_dir
        self._index_dir_root: Path | None = None
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[Path, _Entry] = OrderedDict()
        if index_dir is not None:
            # --index-dir belongs to the working directory's project only.
            try:
                self._index_dir_root = resolve_project(Path.cwd()).root
            except CodefathomError:
                self._index_dir_root = None

    def call(self, path: str | Path, action: Callable[[Codefathom], T]) -> T:
        """Run `action` on the service of the project `path` belongs to (blocking)."""
        project = resolve_project(path)
        while True:
            entry = self._entry(project.root)
            with entry.lock:
                if entry.closed:  # evicted between lookup and lock: look it up again
                    continue
                if entry.service is None:
                    index_dir = self._index_dir if project.root == self._index_dir_root else None
                    entry.service = Codefathom(project.root, index_dir)
                # One service per root serves every directory inside it; the entry lock makes
                # setting the requested directory and using it one step.
                entry.service.project = project
                return action(entry.service)

    def close(self) -> None:
        """Close every open service."""
        with self._lock:
            entries = list(self._entries.values())
            self._entries.clear()
        for entry in entries:
            self._close(entry)

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

    @staticmethod
    def _close(entry: _Entry) -> None:
        with entry.lock:
            entry.closed = True
            if entry.service is not None:
                entry.service.close()
                entry.service = None


def build_server(index_dir: Path | None = None) -> MCPServer[ServiceCache]:
    """An MCP server whose tools search and index local projects; `index_dir` as `serve --index-dir`."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[ServiceCache]) -> AsyncIterator[ServiceCache]:
        cache = ServiceCache(index_dir)
        log.info("codefathom %s MCP server ready; indexes in %s", __version__, index_dir or default_home())
        try:
            yield cache
        finally:
            await anyio.to_thread.run_sync(cache.close)

    server: MCPServer[ServiceCache] = MCPServer(
        "codefathom", title="codefathom code search", version=__version__, instructions=INSTRUCTIONS,
        lifespan=lifespan, log_level="WARNING",
    )
    read_only = ToolAnnotations(
        read_only_hint=True, idempotent_hint=True, destructive_hint=False, open_world_hint=False
    )
    server.add_tool(
        tools.search_code, title="Search code", description=_doc(tools.search_code), annotations=read_only
    )
    server.add_tool(
        tools.index_status, title="Index status", description=_doc(tools.index_status), annotations=read_only
    )
    server.add_tool(
        tools.index_codebase, title="Index codebase", description=_doc(tools.index_codebase),
        annotations=ToolAnnotations(
            read_only_hint=False, idempotent_hint=True, destructive_hint=False, open_world_hint=False
        ),
    )
    return server


def _doc(function: Callable[..., object]) -> str:
    return inspect.cleandoc(function.__doc__ or "")


def run_stdio(index_dir: Path | None = None) -> None:
    """Serve MCP over stdin/stdout until the client disconnects; logs go to stderr."""
    configure_logging()
    build_server(index_dir).run("stdio")


def configure_logging() -> None:
    """Log to stderr (stdout carries the protocol); $CODEFATHOM_LOG_LEVEL sets the level."""
    level = os.environ.get("CODEFATHOM_LOG_LEVEL", "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr, level=level if level in logging.getLevelNamesMapping() else "WARNING",
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
