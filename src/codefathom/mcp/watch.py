"""File watchers for `codefathom serve`: they keep each open project's index warm.

One watcher per project the server has open (watchfiles, i.e. inotify, FSEvents or
ReadDirectoryChangesW underneath). Every relevant change marks the project's `WatchState` dirty
and wakes the project's warmer thread, which syncs the index in the background; a search that
finds the project clean skips its sweep. What is relevant: anything in the tree except under
excluded directories (.git, node_modules, caches, build outputs) and the index itself, plus
git's index and exclude file, which change what is listed.

When the watcher cannot start (no watchfiles, too many watches, a file system without events)
or fails, the state says so and every search sweeps as it would without a watcher. An event
lost without an error (an inotify queue overflow is not reported through watchfiles) is covered
by `WATCH_TRUST_S`: past that since the last sync, a search sweeps anyway. An edit made within
the watcher's latency (tens of milliseconds) before a search may not be seen by it; the check of
the cited files after the query still catches those it cites.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codefathom.discover.filters import excluded_dir
from codefathom.service import WatchState

__all__ = ["Watchers", "watching_enabled"]

log = logging.getLogger("codefathom.mcp")

STEP_MS = 20  # how often the watcher looks at the events gathered
DEBOUNCE_MS = 200  # at most this long from the first event of a burst to the dirty mark
RETRY_S = 5.0  # a watcher that failed starts again after this long
WARM_PAUSE_S = 0.05  # between two background syncs of one project
GIT_FILES = frozenset({".git/index", ".git/info/exclude", ".git/config"})


def watching_enabled() -> bool:
    return os.environ.get("CODEFATHOM_WATCH", "1").strip().lower() not in ("0", "false", "no", "off")


class Watchers:
    """The watchers of the projects a server has open; `sync(root)` brings one's index up to date."""

    def __init__(self, sync: Callable[[Path], object]) -> None:
        self._sync = sync
        self._lock = threading.Lock()
        self._watchers: dict[Path, _Watcher] = {}
        self.enabled = watching_enabled()

    def watch(self, root: Path, index_dir: Path) -> WatchState | None:
        """The project's watch state, its watcher started if it was not; None when watching is off."""
        if not self.enabled:
            return None
        with self._lock:
            watcher = self._watchers.get(root)
            if watcher is None:
                watcher = self._watchers[root] = _Watcher(root, index_dir, self._sync)
                watcher.start()
            return watcher.state

    def unwatch(self, root: Path) -> None:
        with self._lock:
            watcher = self._watchers.pop(root, None)
        if watcher is not None:
            watcher.stop()

    def close(self) -> None:
        with self._lock:
            watchers = list(self._watchers.values())
            self._watchers.clear()
        for watcher in watchers:
            watcher.stop()


class _Watcher:
    def __init__(self, root: Path, index_dir: Path, sync: Callable[[Path], object]) -> None:
        self.root = root
        self.state = WatchState()
        self._prefix = os.path.join(str(root), "")
        self._index_prefix = os.path.join(str(index_dir), "")
        self._sync = sync
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._threads = [
            threading.Thread(target=self._watch, name=f"codefathom-watch {root.name}", daemon=True),
            threading.Thread(target=self._warm, name=f"codefathom-warm {root.name}", daemon=True),
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=2)
        self.state.lost()

    def _watch(self) -> None:
        while not self._stopping.is_set():
            try:
                self._run()
            except Exception as exc:  # noqa: BLE001 - any failure: searches sweep meanwhile
                log.warning("watching %s failed (%s); searches re-sync by sweeping meanwhile", self.root, exc)
            self.state.lost()
            self._wake.set()
            self._stopping.wait(RETRY_S)

    def _run(self) -> None:
        from watchfiles._rust_notify import RustNotify  # documented as watchfiles' Rust backend API

        force_polling = bool(os.environ.get("WATCHFILES_FORCE_POLLING"))
        notify = RustNotify([str(self.root)], False, force_polling, 300, True, True)
        try:
            # Watches are in place from here: anything earlier is for the first sync to find.
            self.state.started()
            self._wake.set()
            while not self._stopping.is_set():
                changes: Any = notify.watch(DEBOUNCE_MS, STEP_MS, 0, self._stopping)
                if changes == "stop":
                    return
                if isinstance(changes, set):
                    relevant = sum(1 for _, path in changes if self._relevant(path))
                    if relevant:
                        self.state.changed(relevant)
                        self._wake.set()
        finally:
            notify.close()

    def _relevant(self, path: str) -> bool:
        if not path.startswith(self._prefix) or path.startswith(self._index_prefix):
            return False
        rel = path[len(self._prefix) :].replace(os.sep, "/")
        parts = rel.split("/")
        if parts[0] == ".git":
            return rel in GIT_FILES
        if any(excluded_dir(part) for part in parts[:-1]):
            return False
        return not (excluded_dir(parts[-1]) and os.path.isdir(path))

    def _warm(self) -> None:
        """Sync in the background whenever the project is dirty, so searches find nothing to do."""
        while not self._stopping.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._stopping.is_set():
                return
            if not self.state.active or not self.state.dirty:
                continue
            pause = WARM_PAUSE_S
            try:
                self._sync(self.root)
            except Exception as exc:  # noqa: BLE001 - the next search syncs (and reports) itself
                log.info("background sync of %s failed: %s", self.root, exc)
                pause = RETRY_S
            self._stopping.wait(pause)
            if self.state.dirty:
                self._wake.set()
