"""The service layer: one method per CLI verb and MCP tool, returning result dataclasses.

Both shells call `Codefathom`; neither talks to the stages directly, so they cannot drift apart.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from codefathom.config import Settings, configured_store, default_home, index_dir_for, load_settings, redacted_uri
from codefathom.discover import read_inside, real_root
from codefathom.errors import IndexUnusable, NotIndexed, UsageError
from codefathom.model import UNIT_KINDS, Hit
from codefathom.search import (
    CONTENT_LINES,
    DEFAULT_RANKING,
    MAX_LIMIT,
    MAX_PER_FILE,
    RankingConfig,
    SearchOutcome,
    SearchRequest,
    channel_weights,
    plan_query,
    search,
    validate_request,
)
from codefathom.search.members import line_terms
from codefathom.service import arguments
from codefathom.service.changes import ChangeVerbs
from codefathom.service.context import ContextVerbs
from codefathom.service.embedding import Embedding, EmbedProgress, EmbedReport
from codefathom.service.enclosing import GROWN_LINES, grown
from codefathom.service.fingerprint import index_fingerprint
from codefathom.service.freshness import Freshness, WatchState, remove_index_files
from codefathom.service.graph import GraphVerbs
from codefathom.service.health import HealthVerbs
from codefathom.service.indexer import Progress, SyncReport
from codefathom.service.languages import resolve_languages
from codefathom.service.locking import IndexLock
from codefathom.service.lookups import LookupVerbs, located
from codefathom.service.project import Project, resolve_project
from codefathom.service.related import RelatedVerbs
from codefathom.service.summaries import SummaryVerbs
from codefathom.store import ProjectMissing, Store, database_projects, open_store

CHANNELS = ("hybrid", "lexical", "vector")  # what a ranked search reads: all channels, words and names, vectors

__all__ = [
    "CHANNELS", "Codefathom", "SearchResponse", "IndexStatus", "IndexInfo", "SyncReport", "list_indexes", "MAX_LIMIT",
    "UNIT_KINDS", "WatchState", "EmbedReport", "EmbedProgress", "clear_index",
    "configured_database", "clear_database_project",
]


@dataclass
class SearchResponse:
    project_root: str
    within: str
    results: list[Hit]
    notices: list[str] = field(default_factory=list)
    debug: dict[str, object] | None = None
    partial: bool = False  # the index is still being built: results come from part of the project
    indexing: dict[str, object] | None = None  # that indexing's progress
    result_indexes: list[str] | None = None  # per result, the project root of its index (several searched)
    query: str = ""  # as asked: a compact reply shows the lines holding its words
    focus: tuple[str, int, int] | None = None  # a `path:line` query: the lines a compact reply shows


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
    complete: bool = False  # a first index ran to its end
    indexing: dict[str, object] | None = None  # progress of the indexing running now
    watch: dict[str, object] | None = None  # the server's file watcher on this project
    vectors: dict[str, object] | None = None  # the embedder and how much of the index has vectors
    summaries: dict[str, object] | None = None  # unit summaries: model and coverage (when on, or any exist)
    notices: list[str] = field(default_factory=list)  # what is not done yet (references to bind)
    running: list[dict[str, object]] = field(default_factory=list)  # processes indexing or embedding it now
    store: str = "sqlite"  # or the PostgreSQL database (no password) holding the index
    store_source: str = ""  # where that store was chosen: $CODEFATHOM_STORE or the config file
    store_read: str = ""  # the replica answering reads (no password), when `store_read` names one


@dataclass
class IndexInfo:
    project_root: str
    index_path: str
    files: int
    units: int
    last_sync: float | None
    index_bytes: int
    missing: bool = False  # the project's folder is gone (`clear` with its path deletes the index)
    project: str | None = None  # its name in a database store (None: a SQLite index)


class Codefathom(
    GraphVerbs, ContextVerbs, RelatedVerbs, ChangeVerbs, LookupVerbs, HealthVerbs, SummaryVerbs, Freshness, Embedding
):
    """One project's index and every question asked of it (graph verbs: service/graph.py; tests and
    co-change: service/related.py; change impact of a diff: service/changes.py; syncing before an
    answer: service/freshness.py; vectors: service/embedding.py; grep, files by path and reads:
    service/lookups.py)."""

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
    def within(self) -> str:
        """The directory inside the project that answers keep to ("" for all of it)."""
        return self.project.within

    @property
    def indexed(self) -> bool:
        if self.settings.store is None:
            return self.settings.db_path.exists()
        with self._lock:
            try:
                self._open(create=False)
            except NotIndexed:
                return False
            return True

    def close(self) -> None:
        self.stop_background_embedding()  # first: its batch in flight writes through the store
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> Codefathom:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def index(self, progress: Progress | None = None, *, full: bool = False) -> SyncReport:
        """Index the project, or bring its index up to date (only changed files are parsed).

        Waits for another process indexing the same project, then does what is left."""
        with self._lock:
            report = self._locked_sync(progress, full=full)
            assert report is not None  # waited as long as it took
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
        max_per_file: int | None = MAX_PER_FILE,
        include_debug: bool = False,
        fresh: bool = True,
        ranking: RankingConfig = DEFAULT_RANKING,
        explain: bool = False,
        expand: bool = False,
        include_deps: bool = False,
        channel: str = "hybrid",
        grow: bool = False,
    ) -> SearchResponse:
        """Ranked units for `query`; the index is re-synced with the files first when `fresh`.

        `explain` adds every stage to the debug: query analysis, each channel's candidates, and the
        top results' scores taken apart (what `codefathom explain` and search_code's `explain` show).
        `expand` adds the graph neighbours of the first results below them (search/expand.py).
        `channel`: "hybrid" (every channel), "lexical" (words and names only) or "vector" (meaning only).
        A query that is a path of the index (`src/app/models.py:120`) brings that file's units, the one
        around the line first (service/lookups.py). `grow` makes each result the whole unit holding its
        matching lines (service/enclosing.py: what `detail: "unit"` shows)."""
        if channel not in CHANNELS:
            said = arguments.text("channel", channel)
            raise UsageError(f"channel must be one of {', '.join(CHANNELS)}, got {said!r}")
        if channel == "lexical":
            ranking = replace(ranking, vectors=False)
        elif channel == "vector":
            ranking = replace(ranking, lexical=False, names=False, rerank=False)
        # Refuse a bad request before any indexing work: a typo must not cost a full index.
        request = SearchRequest(
            query=arguments.text("query", query), limit=arguments.integer("limit", limit, 1, MAX_LIMIT),
            languages=resolve_languages(arguments.names("languages", languages)),
            kinds=arguments.texts("kinds", kinds), path_glob=arguments.texts("path_glob", path_glob),
            exclude_glob=arguments.texts("exclude_glob", exclude_glob),
            symbol_name=arguments.text("symbol_name", symbol_name) if symbol_name else None,
            within=self.project.within,
            max_per_file=None if max_per_file is None else arguments.integer("max_per_file", max_per_file, 1),
            include_debug=arguments.flag("include_debug", include_debug) or explain, ranking=ranking,
            explain=explain, expand=arguments.flag("expand", expand),
            include_deps=arguments.flag("include_deps", include_deps),
            content_lines=GROWN_LINES if arguments.flag("grow", grow) else CONTENT_LINES,
        )
        validate_request(request)
        notices: list[str] = []
        started = time.perf_counter()
        with self._lock:
            how, progress = self._refresh(fresh, notices)
            if how != "partial":  # (a first index under way says so already)
                notices.extend(self._state_notices())
            sync_ms = (time.perf_counter() - started) * 1000
            try:
                outcome = self._checked(lambda: self._search(request, notices), fresh, notices, how)
            except (IndexUnusable, NotIndexed):
                if how != "partial":
                    raise
                outcome = SearchOutcome([])  # the background index has not written anything yet
        debug = None
        if include_debug or explain:
            debug = dict(outcome.debug)
            timings = dict(debug.get("timings", {}))  # type: ignore[call-overload]
            timings["sync_ms"] = round(sync_ms, 2)
            debug["timings"] = timings
            debug["freshness"] = how  # indexed, synced, watcher (sweep skipped), as is, busy, partial
            if explain:
                debug["vectors"] = self.vector_status()
        hits = [_numbered(hit, self.root) for hit in outcome.hits]
        if grow and hits:
            with self._lock:
                store, terms = self._open(create=False), line_terms(request.query)
                hits = [grown(store, self.root, hit, terms) for hit in hits]
        return SearchResponse(
            str(self.root), self.project.within, hits, notices, debug, partial=how == "partial",
            indexing=progress, query=request.query, focus=outcome.focus,
        )

    def _search(self, request: SearchRequest, notices: list[str]) -> SearchOutcome:
        store = self._open(create=False)
        if not request.explain:
            found = located(store, request.query, request.limit, request.within)
            if found is not None:
                hits, where = found
                focus = (where.path, where.start, where.end or where.start) if where.start else None
                return SearchOutcome(hits, focus=focus)
        timings: dict[str, float] = {}
        if request.ranking.vectors and channel_weights(plan_query(request.query), request.ranking)["vectors"] > 0:
            said: list[str] = []
            request = replace(request, query_vector=self._query_vector(store, request.query, said, timings))
            notices.extend(n for n in said if n not in notices)  # a re-run after a re-sync says it once
        outcome = search(store, request)
        if request.include_debug:
            outcome.debug.setdefault("timings", {}).update(timings)  # type: ignore[attr-defined]
        return outcome

    def status(self) -> IndexStatus:
        """What the index holds: files, units, languages, parse health, last sync."""
        status = IndexStatus(str(self.root), self.settings.location, self.indexed)
        if self.settings.store is not None:
            status.store, status.store_source = redacted_uri(self.settings.store), self.settings.store_source
            status.store_read = redacted_uri(self.settings.store_read) if self.settings.store_read else ""
        status.running = self.running()
        if status.indexed:
            with self._lock:
                store = self._open(create=False)
                counts = store.counts()
                last = store.get_meta("last_sync")
                status.files, status.units = counts.files, counts.units
                status.languages, status.parse_health = counts.by_language, counts.by_status
                status.problems = [{"path": p, "status": s, "error": e} for p, s, e in counts.problems]
                status.last_sync = float(last) if last else None
                status.notices = self._state_notices()
                # Complete: a first index ran to its end, and no sync since stopped before binding.
                status.complete = bool(last) and not status.notices
                status.index_bytes = store.size_bytes()
        # After the sync state: a run that committed in between is seen done, not both at once.
        extra = self._status_extra()
        status.indexing, status.watch = extra.get("indexing"), extra.get("watch")
        if status.indexed:
            status.vectors = self.vector_status()
            status.summaries = self.summary_status()
        return status

    def digest(self, parts: tuple[str, ...] | None = None) -> dict[str, str]:
        """{part: "<rows>:<hash>"} of what the index holds, independent of row ids: two indexes of
        the same files are equal part by part however they were built (see store/sqlite/digest.py)."""
        if not self.indexed:
            raise NotIndexed(f"{self.root} has no index yet: run `codefathom index {self.root}`")
        with self._lock:
            store = self._open(create=False)
            return store.digest() if parts is None else store.digest(parts)

    def clear(self) -> bool:
        """Delete this project's index; returns whether there was one."""
        if self.settings.store is not None:
            return self._clear_in_database()
        with self._lock:
            self.close()
            existed = self.indexed
            lock = self._writer()
            lock.acquire(timeout=10)  # an indexer at work: let it finish a batch, but do not wait forever
            try:
                remove_index_files(self.settings.index_dir)
            finally:
                lock.release()
            return existed

    def _clear_in_database(self) -> bool:
        """Delete the project's rows from the database, once no sync of it runs on any machine."""
        with self._lock:
            if not self.indexed:
                return False
            store = self._open(create=False)
            lock = self._writer()
            lock.acquire(timeout=10)  # as for SQLite: let an indexer here finish a batch
            try:
                if not store.hold("sync", 10):
                    by = store.holder("sync")
                    raise IndexUnusable(
                        f"another indexer is syncing this project{f' ({by})' if by else ''}; clear it once that is done"
                    )
                self._store = None  # delete_project closes the handle
                # (The index folder here is left: it may hold a SQLite index of the same project.)
                store.delete_project()
            finally:
                lock.release()
            return True

    def _graph_store(self, fresh: bool) -> Store:
        """The index, brought up to date first when `fresh` (built when there is none yet)."""
        with self._lock:
            if fresh or not self.indexed:
                self.index(self.inline_progress)
            return self._open(create=False)

    def _open(self, *, create: bool) -> Store:
        if self._store is None:
            if self.settings.store is not None:
                try:
                    self._store = open_store(
                        self.settings.store, index_fingerprint(), create=create, project=self.settings.project_name,
                        root=str(self.root), read=self.settings.store_read,
                    )
                except ProjectMissing as exc:
                    raise NotIndexed(
                        f"{self.root} is not indexed in {self.settings.location}; run `codefathom index {self.root}`"
                    ) from exc
                return self._store
            if not create and not self.indexed:
                raise NotIndexed(f"{self.root} is not indexed; run `codefathom index {self.root}`")
            self._store = open_store(self.settings.db_path, index_fingerprint(), create=create)
        return self._store


def list_indexes(home: Path | None = None, store: str | None = None) -> list[IndexInfo]:
    """Every index under the codefathom home directory, with the project it belongs to, then every
    project of the database `store` names."""
    base = home or default_home()
    found = []
    locations: list[tuple[Path | str, str | None, str]] = [(p, None, str(p)) for p in sorted(base.glob("*/index.db"))]
    if store is not None:
        shown = redacted_uri(store)
        locations += [(store, name, f"{shown}#{name}") for name in database_projects(store)]
    for location, project, db_path in locations:
        try:
            with open_store(location, index_fingerprint(), create=False, project=project) as index:
                counts = index.counts()
                last = index.get_meta("last_sync")
                root = index.get_meta("root")
                found.append(
                    IndexInfo(
                        project_root=root or "?", index_path=db_path, files=counts.files,
                        units=counts.units, last_sync=float(last) if last else None, index_bytes=index.size_bytes(),
                        missing=_gone(root, project, base), project=project,
                    )
                )
        except Exception:  # noqa: BLE001 - a broken index is listed, not fatal
            found.append(IndexInfo("? (unreadable index)", db_path, 0, 0, None, 0, project=project))
    return found


def _gone(root: str | None, project: str | None, home: Path) -> bool:
    """Whether the folder an index belongs to is gone. A database's project may be another machine's
    checkout: absent here is gone only when this machine synced it there (its local index folder)."""
    if root is None or Path(root).is_dir():
        return False
    return project is None or index_dir_for(Path(root), home).is_dir()


def configured_database() -> str | None:
    """The PostgreSQL store `list` and `clear` of a folder that is gone look into: $CODEFATHOM_STORE's,
    else the one the project at the working directory is configured with."""
    store, _ = configured_store()
    if store is not None:
        return store
    try:
        return load_settings(resolve_project(None).root).store
    except (UsageError, OSError):
        return None  # the working directory is no project, or its config is broken: SQLite only


def clear_index(path: str | Path | None, index_dir: str | Path | None = None) -> tuple[str, bool]:
    """Delete the index of the project at `path`, or the index in `index_dir`: (the project it belongs
    to, whether there was one). A folder that is gone is found by its path among the indexes."""
    if index_dir is not None:
        folder = Path(index_dir).expanduser().resolve()
        database = configured_database()
        if database is not None:  # the index went to the database, as the project named after the folder
            found = _database_root(database, folder.name)
            if found is not None:
                return found, clear_database_project(database, folder.name)
        root = _root_of(folder / "index.db") or str(Path(path or ".").expanduser().resolve())
        return root, _remove_index(folder)
    requested = Path(path or ".").expanduser()
    if requested.is_dir():
        with Codefathom(requested) as service:
            return str(service.root), service.clear()
    absolute = Path(os.path.abspath(requested))
    database = configured_database()
    for info in list_indexes(store=database):
        if info.project_root != str(absolute):
            continue
        if info.project is None:
            return info.project_root, _remove_index(Path(info.index_path).parent)
        if database is not None:
            return info.project_root, clear_database_project(database, info.project)
    raise UsageError(f"no such directory: {requested}, and no index of it in {default_home()}")


def clear_database_project(store: str, name: str) -> bool:
    """Delete the project `name` of the database `store` once no sync of it runs on any machine;
    returns whether it was there. (`clear` of a folder that is gone; the MCP clear_index by name.)"""
    try:
        index = open_store(store, index_fingerprint(), create=False, project=name)
    except ProjectMissing:
        return False
    with index:
        if not index.hold("sync", 10):
            by = index.holder("sync")
            raise IndexUnusable(
                f"another indexer is syncing the project {name}{f' ({by})' if by else ''}; clear it once that is done"
            )
        index.delete_project()
    return True


def _database_root(store: str, name: str) -> str | None:
    """The folder the project `name` of the database `store` was indexed from (None: no such project)."""
    try:
        with open_store(store, index_fingerprint(), create=False, project=name) as index:
            return index.get_meta("root") or "?"
    except ProjectMissing:
        return None


def _root_of(db_path: Path) -> str | None:
    """The project root an index file names, if it can be read."""
    if not db_path.is_file():
        return None
    try:
        with open_store(db_path, index_fingerprint(), create=False) as store:
            return store.get_meta("root")
    except Exception:  # noqa: BLE001 - an unreadable index names no project; it is deleted all the same
        return None


def _remove_index(index_dir: Path) -> bool:
    existed = (index_dir / "index.db").exists()
    lock = IndexLock(index_dir)
    lock.acquire(timeout=10)  # an indexer at work: let it finish a batch, but do not wait forever
    try:
        remove_index_files(index_dir)
    finally:
        lock.release()
    return existed




def _numbered(hit: Hit, root: Path) -> Hit:
    """The hit with the file line of each line of its content when the content skips lines (a class
    stored as its members' headers), found by reading the file: a snippet then numbers its lines right."""
    if hit.kind == "directory" or hit.truncated or hit.content.count("\n") == hit.end_line - hit.start_line:
        return hit
    lines = hit.content.split("\n")
    try:
        text = read_inside(root / hit.path, real_root(root)).decode("utf-8", errors="replace")
    except OSError:
        return hit
    source = text.split("\n")[hit.start_line - 1 : hit.end_line]
    numbers, at = [], 0
    for line in lines:
        while at < len(source) and source[at].rstrip() != line.rstrip():
            at += 1
        if at == len(source):
            return hit  # the file changed since: better no numbers than wrong ones
        numbers.append(hit.start_line + at)
        at += 1
    return replace(hit, line_numbers=tuple(numbers))
