"""The service layer: one method per CLI verb and MCP tool, returning result dataclasses.

Both shells call `Codefathom`; neither talks to the stages directly, so they cannot drift apart.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from codefathom.config import Settings, default_home, load_settings
from codefathom.errors import NotIndexed
from codefathom.model import UNIT_KINDS, Hit
from codefathom.search import DEFAULT_RANKING, MAX_LIMIT, RankingConfig, SearchRequest, search, validate_request
from codefathom.service.fingerprint import index_fingerprint
from codefathom.service.graph import GraphVerbs
from codefathom.service.indexer import Progress, SyncReport, sync
from codefathom.service.languages import resolve_languages
from codefathom.service.project import Project, resolve_project
from codefathom.store import Store

__all__ = [
    "Codefathom", "SearchResponse", "IndexStatus", "IndexInfo", "SyncReport", "list_indexes", "MAX_LIMIT",
    "UNIT_KINDS",
]


@dataclass
class SearchResponse:
    project_root: str
    within: str
    results: list[Hit]
    notices: list[str] = field(default_factory=list)
    debug: dict[str, object] | None = None


@dataclass
class IndexStatus:
    project_root: str
    index_path: str
    indexed: bool
    files: int = 0
    units: int = 0
    languages: dict[str, int] = field(default_factory=dict)
    parse_health: dict[str, int] = field(default_factory=dict)
    problems: list[dict[str, str]] = field(default_factory=list)
    last_sync: float | None = None
    index_bytes: int = 0


@dataclass
class IndexInfo:
    project_root: str
    index_path: str
    files: int
    units: int
    last_sync: float | None
    index_bytes: int


class Codefathom(GraphVerbs):
    """One project's index and every question asked of it (graph verbs: service/graph.py)."""

    def __init__(self, path: str | Path | None = None, index_dir: str | Path | None = None) -> None:
        self.project: Project = resolve_project(path)
        self.settings: Settings = load_settings(
            self.project.root, Path(index_dir).expanduser() if index_dir else None
        )
        self._store: Store | None = None
        self._lock = threading.RLock()

    @property
    def root(self) -> Path:
        return self.project.root

    @property
    def indexed(self) -> bool:
        return self.settings.db_path.exists()

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> Codefathom:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def index(self, progress: Progress | None = None, *, full: bool = False) -> SyncReport:
        """Index the project, or bring its index up to date (only changed files are parsed)."""
        with self._lock:
            store = self._open(create=True)
            report = sync(store, self.settings, progress, full=full)
            store.set_meta("root", str(self.root))
            return report

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        languages: list[str] | tuple[str, ...] = (),
        kinds: list[str] | tuple[str, ...] = (),
        path_glob: list[str] | tuple[str, ...] | str = (),
        exclude_glob: list[str] | tuple[str, ...] | str = (),
        symbol_name: str | None = None,
        max_per_file: int | None = 3,
        include_debug: bool = False,
        fresh: bool = True,
        ranking: RankingConfig = DEFAULT_RANKING,
    ) -> SearchResponse:
        """Ranked units for `query`; the index is re-synced with the files first when `fresh`."""
        # Refuse a bad request before any indexing work: a typo must not cost a full index.
        request = SearchRequest(
            query=query, limit=limit, languages=resolve_languages(languages), kinds=tuple(kinds),
            path_glob=_as_tuple(path_glob), exclude_glob=_as_tuple(exclude_glob),
            symbol_name=symbol_name or None, within=self.project.within, max_per_file=max_per_file,
            include_debug=include_debug, ranking=ranking,
        )
        validate_request(request)
        notices: list[str] = []
        started = time.perf_counter()
        with self._lock:
            if not self.indexed:
                report = self.index()
                notices.append(f"indexed the project first: {report.discovered} files in {report.seconds:.1f}s")
            elif fresh:
                report = self.index()
                if report.changed:
                    notices.append(
                        f"re-indexed {report.added + report.updated} changed and {report.removed} removed files"
                    )
            sync_ms = (time.perf_counter() - started) * 1000
            outcome = search(self._open(create=False), request)
        debug = None
        if include_debug:
            debug = dict(outcome.debug)
            timings = dict(debug.get("timings", {}))  # type: ignore[call-overload]
            timings["sync_ms"] = round(sync_ms, 2)
            debug["timings"] = timings
        return SearchResponse(str(self.root), self.project.within, outcome.hits, notices, debug)

    def status(self) -> IndexStatus:
        """What the index holds: files, units, languages, parse health, last sync."""
        status = IndexStatus(str(self.root), str(self.settings.db_path), self.indexed)
        if not self.indexed:
            return status
        with self._lock:
            store = self._open(create=False)
            counts = store.counts()
            last = store.get_meta("last_sync")
            status.files, status.units = counts.files, counts.units
            status.languages, status.parse_health = counts.by_language, counts.by_status
            status.problems = [{"path": p, "status": s, "error": e} for p, s, e in counts.problems]
            status.last_sync = float(last) if last else None
            status.index_bytes = store.size_bytes()
        return status

    def clear(self) -> bool:
        """Delete this project's index; returns whether there was one."""
        with self._lock:
            self.close()
            existed = self.indexed
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.settings.db_path}{suffix}").unlink(missing_ok=True)
            try:
                self.settings.index_dir.rmdir()
            except OSError:
                pass
            return existed

    def _graph_store(self, fresh: bool) -> Store:
        """The index, brought up to date first when `fresh` (built when there is none yet)."""
        with self._lock:
            if fresh or not self.indexed:
                self.index()
            return self._open(create=False)

    def _open(self, *, create: bool) -> Store:
        if self._store is None:
            if not create and not self.indexed:
                raise NotIndexed(f"{self.root} is not indexed; run `codefathom index {self.root}`")
            self._store = Store.open(self.settings.db_path, index_fingerprint(), create=create)
        return self._store


def list_indexes(home: Path | None = None) -> list[IndexInfo]:
    """Every index under the codefathom home directory, with the project it belongs to."""
    base = home or default_home()
    found = []
    for db_path in sorted(base.glob("*/index.db")):
        try:
            with Store.open(db_path, index_fingerprint(), create=False) as store:
                counts = store.counts()
                last = store.get_meta("last_sync")
                found.append(
                    IndexInfo(
                        project_root=store.get_meta("root") or "?", index_path=str(db_path), files=counts.files,
                        units=counts.units, last_sync=float(last) if last else None, index_bytes=store.size_bytes(),
                    )
                )
        except Exception:  # noqa: BLE001 - a broken index is listed, not fatal
            found.append(IndexInfo("? (unreadable index)", str(db_path), 0, 0, None, 0))
    return found


def _as_tuple(value: list[str] | tuple[str, ...] | str | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value else ()
    return tuple(value)


