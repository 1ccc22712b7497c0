"""Keeping answers in step with the files: sync before a query, first contact, staleness checks.

`Freshness` is mixed into `Codefathom`. Before every answer the index is brought up to date:

- a project never indexed (or whose first index never finished) is indexed inline when that
  should take about `INLINE_INDEX_S` seconds or less, judged from the listing's file count and
  bytes; a larger one is indexed by a background `codefathom index` process, and the answer comes
  from what that process has committed so far, marked partial, with its progress;
- otherwise a sync runs (a sweep by stat, see `sweep`), holding the index's write lock (see
  `locking`): a second process waits for it, then finds nothing left to do; a search that waits
  longer than `SEARCH_WAIT_S` answers from the index as it is and says so;
- under `codefathom serve`, a file watcher (`WatchState`, driven by `mcp/watch.py`) tells when
  nothing changed since the last sync, and the sweep is skipped.

After the query, the files the results cite are checked against the index by stat: one that
changed or vanished meanwhile is re-synced and the query run again, so a reply never cites a file
or a line that is gone. A damaged index file is deleted and built again, with a notice.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codefathom.config import Settings, load_settings
from codefathom.discover import read_inside, real_root
from codefathom.discover.walk import list_files
from codefathom.errors import IndexUnusable, NotIndexed
from codefathom.service.indexer import BINDING_DUE, Progress, SyncReport, sync
from codefathom.service.locking import EMBED_LOCK_NAME, LOCK_NAME, IndexLock
from codefathom.service.sweep import SNAPSHOT_NAME
from codefathom.store.errors import StoreError

if TYPE_CHECKING:
    from codefathom.search import SearchOutcome
    from codefathom.service.project import Project
    from codefathom.store import Store

__all__ = ["Freshness", "WatchState", "Estimate", "INLINE_INDEX_S", "SEARCH_WAIT_S"]

# A first index expected to take longer than this runs in the background ($CODEFATHOM_INLINE_INDEX_S).
INLINE_INDEX_S = 2.0
# How long a search waits for another process's sync before answering from the index as it is.
SEARCH_WAIT_S = 5.0
# What a first index costs, roughly, on a 2-core machine (docs/benchmarks.md): the estimate is
# files / FILES_PER_S + bytes / BYTES_PER_S seconds. Erring high only sends more to the background.
FILES_PER_S = 500.0
BYTES_PER_S = 3_000_000.0
# Meta keys: the progress of the sync running now (JSON), and the end of the last complete one.
PROGRESS_KEY = "progress"
# A sync writing this many units lets the database settle after it (`Store.settle`).
SETTLE_MIN_UNITS = 500
# How long a sync waits for a replica (`store_read`) to replay it, so that its own answers follow it.
REPLICA_WAIT_S = 10.0
LAST_SYNC_KEY = "last_sync"
# The watcher's word is trusted this long after a sync; then a sweep runs anyway, in case it
# missed something (an inotify queue overflow is not reported to us).
WATCH_TRUST_S = 60.0
INDEX_FILES = ("index.db", "index.db-wal", "index.db-shm", SNAPSHOT_NAME)
# What a `codefathom index` process writes into the locks it holds (`stop` ends those only); a
# background index adds " (background)".
INDEX_ROLE = "codefathom index"
STOP_PATIENCE_S = 5.0  # how long `stop` waits for SIGTERM before SIGKILL
# Said by every answer (and `status`) from an index some of whose files another version's parsers
# wrote (store/sqlite/db.py keeps their facts until each is parsed again).
REPARSE_NOTICE = (
    "{files} files were indexed by another version of codefathom's parsers and wait to be parsed again;"
    " answers come from what they held until the next sync"
)
# Said by every answer (and `status`) from an index whose last sync wrote files and has not bound
# their references: a sync stopped (Ctrl-C, kill) before its last transaction, or one still running.
UNBOUND_NOTICE = (
    "references not bound yet: the code graph and ranks may miss the files written by the last sync;"
    " the next sync binds them"
)


def inline_budget() -> float:
    raw = os.environ.get("CODEFATHOM_INLINE_INDEX_S", "").strip()
    try:
        return max(0.0, float(raw)) if raw else INLINE_INDEX_S
    except ValueError:
        return INLINE_INDEX_S


@dataclass(frozen=True)
class Estimate:
    files: int
    bytes: int

    @property
    def seconds(self) -> float:
        return self.files / FILES_PER_S + self.bytes / BYTES_PER_S


class WatchState:
    """What a file watcher knows of one project: whether anything changed since the last sync.

    The watcher calls `changed()` for every batch of relevant events (and `lost()` when it stops
    or fails); a sync calls `begin()` before it looks at the files and `done(token)` after. The
    project is clean when no event came after the start of the last complete sync. Thread-safe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.generation = 1  # the first sync always runs: what happened before the watch is unknown
        self.synced = 0
        self.active = False
        self.last_sync = 0.0
        self.events = 0
        self.syncs = 0
        self.skipped = 0  # sweeps a search did not need

    def changed(self, count: int = 1) -> None:
        with self._lock:
            self.generation += 1
            self.events += count

    def started(self) -> None:
        with self._lock:
            self.active = True
            self.generation += 1

    def lost(self) -> None:
        with self._lock:
            self.active = False
            self.generation += 1

    def begin(self) -> int:
        with self._lock:
            return self.generation

    def done(self, token: int) -> None:
        with self._lock:
            self.synced = max(self.synced, token)
            self.last_sync = time.monotonic()
            self.syncs += 1

    def clean(self) -> bool:
        """Whether a search may skip the sweep (and then counts that it did)."""
        with self._lock:
            fresh = (
                self.active and self.synced == self.generation and time.monotonic() - self.last_sync < WATCH_TRUST_S
            )
            if fresh:
                self.skipped += 1
            return fresh

    @property
    def dirty(self) -> bool:
        with self._lock:
            return not self.active or self.synced != self.generation

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "active": self.active, "clean": self.active and self.synced == self.generation,
                "events": self.events, "syncs": self.syncs, "sweeps_skipped": self.skipped,
            }


class Freshness:
    """Sync before answering, for `Codefathom` (which provides the attributes below)."""

    project: Project
    settings: Settings
    _lock: threading.RLock
    _store: Store | None
    watch: WatchState | None = None  # set by the MCP server for a project it watches
    background_index: bool = True  # whether a large first index may go to a background process
    inline_progress: Progress | None = None  # where an index run before an answer reports (the CLI's bar)
    started_background: int | None = None  # the pid of the background index this service started
    _writer_lock: IndexLock | None = None
    _config_sig: tuple[object, ...] | None = None

    if TYPE_CHECKING:  # provided by Codefathom

        @property
        def root(self) -> Path: ...

        @property
        def indexed(self) -> bool: ...

        def close(self) -> None: ...

        def _open(self, *, create: bool) -> Store: ...

        def _synced(self, report: SyncReport) -> None: ...  # service/embedding.py: vectors follow

    # -- syncing -----------------------------------------------------------------------------

    def _writer(self) -> IndexLock:
        if self._writer_lock is None or self._writer_lock.path.parent != self.settings.index_dir:
            self._writer_lock = IndexLock(self.settings.index_dir)
        return self._writer_lock

    def _locked_sync(
        self, progress: Progress | None = None, *, full: bool = False, wait: float | None = None
    ) -> SyncReport | None:
        """Sync under the index's write lock; None when another process held it past `wait` s."""
        lock = self._writer()
        started = time.monotonic()
        if not lock.acquire(0):
            holder = lock.holder()
            _waiting(progress, f"pid {holder.pid}, {holder.role}" if holder else "another process")
            if not lock.acquire(wait):
                return None
        held: Store | None = None
        try:
            self._reload_settings()
            if self.settings.store is not None:
                # The file lock keeps out this machine's other processes; the database's lock those
                # of every machine, held by this sync's own connection from its first read to its last write.
                held = self._open(create=True)
                if not held.hold("sync", 0):
                    _waiting(progress, held.holder("sync") or "another machine")
                    left = None if wait is None else max(0.0, wait - (time.monotonic() - started))
                    if not held.hold("sync", left):
                        return None
            waited = time.monotonic() - started
            try:
                report = self._sync_once(progress, full)
            except StoreError as exc:
                if not exc.damaged or self.settings.store is not None:
                    raise IndexUnusable(f"cannot use the index at {self.settings.location}: {exc}") from exc
                self._discard_index()
                report = self._sync_once(progress, full)
                report.notices.insert(0, f"the index was damaged ({exc}) and has been rebuilt")
            if waited > 1.0:
                report.notices.insert(0, f"waited {waited:.1f}s for another process indexing this project")
            return report
        finally:
            if held is not None:
                held.let_go("sync")
            lock.release()

    def _sync_once(self, progress: Progress | None, full: bool) -> SyncReport:
        fresh_store = self._store is None
        store = self._open(create=True)
        token = self.watch.begin() if self.watch is not None else None
        report = sync(store, self.settings, self._publishing(store, progress), full=full)
        if fresh_store and store.rebuilt_reason:
            report.notices.insert(0, store.rebuilt_reason)
            store.rebuilt_reason = None
        store.set_meta("root", str(self.root))
        store.set_meta(PROGRESS_KEY, "")
        if report.units_written >= SETTLE_MIN_UNITS:
            store.settle()
        if not store.caught_up(REPLICA_WAIT_S):
            report.notices.append(
                f"the replica answering reads has not replayed this sync after {REPLICA_WAIT_S:.0f}s;"
                " answers may come from before it until it does"
            )
        if token is not None and self.watch is not None:
            self.watch.done(token)
        self._synced(report)
        return report

    def _publishing(self, store: Store, progress: Progress | None) -> Progress:
        """A progress callback that also records the progress in the index, for `status`."""
        started = time.time()

        def publish(done: int, total: int, path: str) -> None:
            if total >= 200:  # small syncs end before anyone could ask
                record = {"done": done, "total": total, "started": started, "pid": os.getpid()}
                store.set_meta(PROGRESS_KEY, json.dumps(record))
            if progress is not None:
                progress(done, total, path)

        return publish

    def _reload_settings(self) -> None:
        """Read the config again when .codefathom.toml or pyproject.toml changed (a long-lived server)."""
        sig = _config_signature(self.root)
        if self._config_sig is None:
            self._config_sig = sig
        elif sig != self._config_sig:
            self.settings = load_settings(self.root, self.settings.index_dir)
            self._config_sig = sig

    def _discard_index(self) -> None:
        """Close and delete a damaged index (the write lock is held)."""
        self.close()
        for name in INDEX_FILES:
            (self.settings.index_dir / name).unlink(missing_ok=True)

    def refresh_in_background(self) -> None:
        """Bring a complete index up to date now (a watcher saw changes); a first index still
        running elsewhere, or another process's sync, is left to finish on its own."""
        with self._lock:
            if self._complete() and not self._writer().busy():
                self._locked_sync(wait=0)

    # -- before a query ----------------------------------------------------------------------

    def _complete(self) -> bool:
        """Whether a first index has completed (the file exists and a sync ran to its end)."""
        if not self.indexed:
            return False
        try:
            return bool(self._open(create=False).get_meta(LAST_SYNC_KEY))
        except (IndexUnusable, StoreError):
            return False

    def _refresh(self, fresh: bool, notices: list[str]) -> tuple[str, dict[str, Any] | None]:
        """Bring the index up to date for a query. Returns how ("indexed", "synced", "watcher",
        "as is", "busy", "partial") and, for a partial index, the progress of its indexing."""
        lock = self._writer()
        if not self._complete():
            if lock.busy():
                if self.background_index:
                    return "partial", self._partial(notices)
                self._follow_writer()  # at a terminal: the answer, once the other process is done
            estimate = self._remaining()
            if not self.background_index or estimate.seconds <= inline_budget():
                report = self._locked_sync(self.inline_progress)
                assert report is not None
                notices.extend(report.notices)
                notices.append(f"indexed the project first: {report.discovered} files in {report.seconds:.1f}s")
                return "indexed", None
            process = self._start_background()
            deadline = time.monotonic() + inline_budget()
            while time.monotonic() < deadline and not self._has_progress() and process.poll() is None:
                time.sleep(0.1)
            if process.poll() not in (None, 0) and not lock.busy():
                # The background process failed (its output is in index.log): do the work here.
                report = self._locked_sync()
                assert report is not None
                notices.extend(report.notices)
                notices.append(f"indexed the project first: {report.discovered} files in {report.seconds:.1f}s")
                return "indexed", None
            if self._complete():
                return "indexed", None
            return "partial", self._partial(notices, estimate)
        if not fresh:
            return "as is", None
        if self.watch is not None and self.watch.clean():
            return "watcher", None
        report = self._locked_sync(self.inline_progress, wait=SEARCH_WAIT_S)
        if report is None:
            notices.append(
                "another process is updating this index; these results may not include the latest changes"
            )
            return "busy", None
        notices.extend(report.notices)
        if report.changed:
            notices.append(f"re-indexed {report.added + report.updated} changed and {report.removed} removed files")
        return "synced", None

    def _follow_writer(self) -> None:
        """Wait for the process indexing this project, passing its progress on to `inline_progress`."""
        lock = self._writer()
        while lock.busy():
            theirs = self._progress() or {}
            if self.inline_progress is not None and theirs.get("total"):
                self.inline_progress(int(theirs.get("done") or 0), int(theirs["total"]), "")
            time.sleep(0.2)

    def _remaining(self) -> Estimate:
        """How much a first index still has to do, from the listing: files and bytes not indexed yet."""
        found = list_files(self.settings)
        done: set[str] = set()
        if self.indexed:
            try:
                done = {path for path, _, _ in self._open(create=False).file_stats()}
            except (IndexUnusable, StoreError):
                done = set()
        todo = [(size) for path, size, _ in found.entries if path not in done]
        return Estimate(len(todo), sum(todo))

    def _start_background(self) -> subprocess.Popen[bytes]:
        """Index in a detached `codefathom index` process; it outlives a CLI call, and the lock
        keeps every other process from doing the same work meanwhile."""
        self.settings.index_dir.mkdir(parents=True, exist_ok=True)
        log = (self.settings.index_dir / "index.log").open("ab")
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "codefathom", "index", str(self.root), "--quiet", "--index-dir",
                 str(self.settings.index_dir), "--detached"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, close_fds=True,
            )
        finally:
            log.close()
        self.started_background = process.pid
        # Reap it when it ends (a long-running server would otherwise keep a zombie).
        threading.Thread(target=process.wait, name="codefathom-index-wait", daemon=True).start()
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and process.poll() is None and not self._writer().busy():
            time.sleep(0.02)  # until it holds the lock, so the next search does not start another
        return process

    def _has_progress(self) -> bool:
        progress = self._progress()
        return bool(progress and progress.get("done"))

    def _progress(self) -> dict[str, Any] | None:
        """The progress record of the index run at work, if it wrote one (see `_run_record`)."""
        record, finished = self._run_record()
        return None if finished else record

    def _run_record(self) -> tuple[dict[str, Any] | None, bool]:
        """The last progress record an index run wrote, and whether that run is finished: its sync
        committed after it started (its process may still hold the lock for a moment)."""
        if not self.indexed:
            return None, False
        try:
            store = self._open(create=False)
            raw, last = store.get_meta(PROGRESS_KEY), store.get_meta(LAST_SYNC_KEY)
            data = json.loads(raw) if raw else None
        except (IndexUnusable, StoreError, ValueError):
            return None, False
        if not isinstance(data, dict):
            return None, False
        try:
            return data, last is not None and float(last) >= float(data.get("started") or 0)
        except (TypeError, ValueError):
            return data, False

    def indexing_progress(self, estimate: Estimate | None = None) -> dict[str, Any] | None:
        """The running index's progress: files done and total, percent, seconds elapsed and left."""
        if not self._writer().busy():
            return None
        record, finished = self._run_record()
        if finished:
            return None
        progress = record or {}
        total = int(progress.get("total") or (estimate.files if estimate else 0))
        done = int(progress.get("done") or 0)
        started = float(progress.get("started") or time.time())
        elapsed = max(0.0, time.time() - started)
        if done and elapsed:
            left = (total - done) * elapsed / done
        elif estimate is not None:
            left = estimate.seconds
        else:
            left = None
        return {
            "done": done, "total": total, "percent": round(100 * done / total, 1) if total else 0.0,
            "elapsed_s": round(elapsed, 1), "eta_s": None if left is None else round(left, 1),
        }

    def _partial(self, notices: list[str], estimate: Estimate | None = None) -> dict[str, Any]:
        progress = self.indexing_progress(estimate) or {"done": 0, "total": estimate.files if estimate else 0}
        total, done = progress.get("total") or 0, progress.get("done") or 0
        eta = progress.get("eta_s")
        left = f", about {eta:.0f}s left" if isinstance(eta, (int, float)) else ""
        holder = self._writer().holder()
        by = f" by pid {holder.pid}" if holder is not None and holder.pid else ""
        notices.append(
            f"PARTIAL RESULTS: this project is being indexed in the background{by} ({done} of {total} files"
            f"{left}); these results come only from the files indexed so far. Search again later for"
            " complete results, or call index_status to follow the progress (`codefathom stop` stops it)."
        )
        return progress

    def _state_notices(self) -> list[str]:
        """What an answer must say about the index it comes from: files waiting to be parsed again by
        this version, references written, not yet bound."""
        try:
            store = self._open(create=False)
            due = store.get_meta(BINDING_DUE) == "1"
            waiting = store.waiting_reparse()
        except (IndexUnusable, NotIndexed, StoreError):
            return []
        notices = [REPARSE_NOTICE.format(files=waiting)] if waiting else []
        return notices + ([UNBOUND_NOTICE] if due else [])

    # -- after a query -----------------------------------------------------------------------

    def _changed_citations(self, store: Store, outcome: SearchOutcome) -> list[str]:
        """Files the results cite whose size or mtime is not what the index read (or that are gone)."""
        # A directory hit cites the files it lists, not a file of its own.
        cited = (hit.files if hit.kind == "directory" else (hit.path,) for hit in outcome.hits)
        paths = sorted({path for paths_of_hit in cited for path in paths_of_hit})
        if not paths:
            return []
        states = store.file_states(paths)
        prefix = os.path.join(str(self.root), "")
        changed = []
        for path in paths:
            state = states.get(path)
            try:
                info = os.stat(prefix + path)
            except OSError:
                changed.append(path)
                continue
            if state is None or info.st_size != state.size or info.st_mtime_ns != state.mtime_ns:
                changed.append(path)
        return changed

    def _drop_stale(self, outcome: SearchOutcome, changed: list[str]) -> int:
        """Drop the results that cite a vanished file or lines past a changed file's end."""
        lines: dict[str, int] = {}
        root = real_root(self.root)
        for path in changed:
            try:
                data = read_inside(self.root / path, root)
            except OSError:
                lines[path] = 0
                continue
            lines[path] = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        kept = [hit for hit in outcome.hits if hit.path not in lines or hit.end_line <= lines[hit.path]]
        dropped = len(outcome.hits) - len(kept)
        outcome.hits = kept
        return dropped

    def _checked(
        self, run: Callable[[], SearchOutcome], fresh: bool, notices: list[str], how: str
    ) -> SearchOutcome:
        """Run a query; when a cited file changed meanwhile, re-sync and run it again (once)."""
        outcome = run()
        store = self._open(create=False)
        changed = self._changed_citations(store, outcome)
        if changed and fresh and how not in ("partial", "busy"):
            report = self._locked_sync(wait=SEARCH_WAIT_S)
            if report is not None:
                notices.append(
                    f"{len(changed)} cited file(s) changed while answering ({_listed(changed)}); re-indexed them"
                    " and searched again"
                )
                outcome = run()
                changed = self._changed_citations(self._open(create=False), outcome)
        if changed:
            dropped = self._drop_stale(outcome, changed)
            notices.append(
                f"{len(changed)} cited file(s) changed since they were indexed ({_listed(changed)})"
                + (f"; left out {dropped} result(s) whose lines are gone" if dropped else "")
                + ("" if fresh else "; search without --no-sync to re-index them")
            )
        return outcome

    def running(self) -> list[dict[str, Any]]:
        """The processes at work on this index now: pid, what they do (indexing, embedding) and what
        they are (`codefathom index`, a background index, a server). On a shared database, also the
        work another machine holds (pid 0: nothing here to stop; `by` names the database client)."""
        found = []
        for name, doing, work in ((LOCK_NAME, "indexing", "sync"), (EMBED_LOCK_NAME, "embedding", "embed")):
            holder = IndexLock(self.settings.index_dir, name).holder()
            if holder is not None:
                found.append({"pid": holder.pid, "doing": doing, "by": holder.role})
            elif self.settings.store is not None and self.indexed:  # (SQLite's file has one machine)
                with self._lock:
                    elsewhere = self._open(create=False).holder(work)  # type: ignore[arg-type]
                if elsewhere:
                    found.append({"pid": 0, "doing": doing, "by": elsewhere})
        return found

    def stop_indexers(self, patience: float = STOP_PATIENCE_S) -> list[dict[str, Any]]:
        """Stop the `codefathom index` processes at work on this index (a background index a search
        started, or one run elsewhere): SIGTERM, then SIGKILL after `patience` seconds. What they
        committed is kept; their children end with them. A server's work is left alone."""
        stopped = []
        for entry in self.running():
            pid = int(entry["pid"])
            if not str(entry["by"]).startswith(INDEX_ROLE) or pid in (0, os.getpid()):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            stopped.append(entry)
        deadline = time.monotonic() + patience
        pids = {int(entry["pid"]) for entry in stopped}
        while pids and time.monotonic() < deadline:
            pids = {pid for pid in pids if _alive(pid)}
            time.sleep(0.05)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return stopped

    def _status_extra(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        progress = self.indexing_progress()
        if progress is not None:
            extra["indexing"] = progress
        if self.watch is not None:
            extra["watch"] = self.watch.as_dict()
        return extra


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a child of this process is reaped here; another's zombie counts as gone)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return False
    except ChildProcessError:
        pass
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        pass  # no /proc: ask the kernel
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _config_signature(root: Path) -> tuple[object, ...]:
    sig: list[object] = []
    for name in (".codefathom.toml", "pyproject.toml"):
        try:
            info = os.stat(root / name)
            sig.append((info.st_mtime_ns, info.st_size))
        except OSError:
            sig.append(None)
    return tuple(sig)


def _listed(paths: list[str], most: int = 3) -> str:
    shown = ", ".join(paths[:most])
    return shown + (f" and {len(paths) - most} more" if len(paths) > most else "")


def remove_index_files(index_dir: Path) -> None:
    """Delete an index's files (and its lock and log), then its directory when empty."""
    for name in (*INDEX_FILES, LOCK_NAME, "index.log"):
        (index_dir / name).unlink(missing_ok=True)
    for made in index_dir.glob(".index.db.*.new*"):  # a new index's file, left by a creator killed early
        made.unlink(missing_ok=True)
    try:
        index_dir.rmdir()
    except OSError:
        pass


def _waiting(progress: Progress | None, holder: str) -> None:
    """Say, where the progress shows, whose sync this one waits for (it may be a while)."""
    if progress is not None:
        progress(0, 0, f"waiting for {holder}")
