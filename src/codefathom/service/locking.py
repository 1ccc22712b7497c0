"""One writer per index across processes: an advisory lock on `index.lock` beside `index.db`.

SQLite already serialises writes, but a sync is many transactions, and creating or rebuilding
the database file is not one at all; two processes syncing one project at once would duplicate
the work and could trip over each other's schema creation. So a sync holds this lock from
opening the index to its last write; a second process waits for it, then finds little or nothing
left to do. Readers never take it: in WAL mode they read the last committed state meanwhile.

Its holder writes its pid and what it is (`holder_role`: `codefathom index`, a background index, a
server) into the file, so `status` can say who is at work and `stop` can end a background one.

The lock is `flock(2)`: the kernel drops it when its holder dies, however it dies, unless another
process still has the descriptor open: a child forked while the lock is held (the binder of
`graph._forked`) closes its copy at once, so the lock never outlives its holder. Where there is
no `fcntl` (Windows) it is a no-op.
"""

from __future__ import annotations

import os
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from codefathom.errors import IndexUnusable

if TYPE_CHECKING:
    from codefathom.store import Store, Work

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

__all__ = ["IndexLock", "WorkLock", "Holder", "LOCK_NAME", "EMBED_LOCK_NAME", "set_holder_role"]

LOCK_NAME = "index.lock"
EMBED_LOCK_NAME = "embed.lock"  # one embedding pass per index: passes are long and would duplicate work
_POLL_S = 0.05
# What this process is, written into the locks it takes (the CLI sets it per command).
_ROLE = "codefathom"
# The locks this process holds, for a forked child to let go of (see _forget_in_child).
_HELD: weakref.WeakSet[IndexLock] = weakref.WeakSet()


def set_holder_role(role: str) -> None:
    """Say what this process is (`codefathom index`, `codefathom serve`, ...) in the locks it takes."""
    global _ROLE
    _ROLE = " ".join(role.split()) or "codefathom"


@dataclass(frozen=True)
class Holder:
    """The process holding a lock, as it wrote itself into the lock file."""

    pid: int
    role: str


class IndexLock:
    """The write lock of the index in `index_dir`; re-entrant within one holder."""

    def __init__(self, index_dir: Path, name: str = LOCK_NAME) -> None:
        self.path = index_dir / name
        self._fd: int | None = None
        self._depth = 0

    def acquire(self, timeout: float | None = None) -> bool:
        """Take the lock, waiting at most `timeout` seconds (None: as long as it takes)."""
        if self._fd is not None:
            self._depth += 1
            return True
        if fcntl is None:
            self._fd, self._depth = -1, 1
            return True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise IndexUnusable(f"cannot create the index in {self.path.parent}: {exc.strerror or exc}") from exc
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | (fcntl.LOCK_NB if deadline is not None else 0))
                    break
                except BlockingIOError:
                    if deadline is None or time.monotonic() >= deadline:
                        os.close(fd)
                        return False
                    time.sleep(_POLL_S)
        except BaseException:
            os.close(fd)
            raise
        self._fd, self._depth = fd, 1
        _HELD.add(self)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {_ROLE}\n".encode(), 0)
        except OSError:
            pass  # only `status` and `stop` read it: the lock holds without
        return True

    def release(self) -> None:
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        _HELD.discard(self)
        if fd >= 0:
            os.close(fd)  # closing the descriptor releases the flock

    @property
    def held(self) -> bool:
        return self._fd is not None

    def busy(self) -> bool:
        """Whether another holder (another process, or another IndexLock here) has the lock now."""
        if self._fd is not None or fcntl is None:
            return False
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return False  # no lock file: nobody ever synced here
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    def holder(self) -> Holder | None:
        """Who holds the lock now (another process or another IndexLock here), if anyone does."""
        if not self.busy():
            return None
        try:
            pid, _, role = self.path.read_text(errors="replace").strip().partition(" ")
            return Holder(int(pid), role)
        except (OSError, ValueError):
            return Holder(0, "")  # held by a process that wrote nothing (an older version)

    def __enter__(self) -> IndexLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _forget_in_child() -> None:
    """In a forked child: close its copies of the held locks' descriptors. An flock belongs to the
    open file, which stays locked while any process has a descriptor of it, so a child killed late,
    or outliving a parent killed with SIGKILL, would keep every other process out. Closing a copy
    leaves the parent's lock as it is (no LOCK_UN, which would release it for the parent too)."""
    for lock in list(_HELD):
        if lock._fd is not None and lock._fd >= 0:
            try:
                os.close(lock._fd)
            except OSError:
                pass
        lock._fd, lock._depth = None, 0
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


class WorkLock:
    """The lock of a long work that must not run twice at once on an index (an embedding pass, a
    summarising run): this machine's file lock, then the store's, which keeps out the other
    machines of a shared database. Taken without waiting: the work is going on elsewhere."""

    def __init__(self, index_dir: Path, name: str, store: Store, work: Work) -> None:
        self._file = IndexLock(index_dir, name)
        self._store = store
        self._work: Work = work
        self.elsewhere = ""  # who has it, when `acquire` said no: "pid 123, codefathom serve"

    def acquire(self) -> bool:
        if not self._file.acquire(timeout=0):
            holder = self._file.holder()
            self.elsewhere = f"pid {holder.pid}, {holder.role}" if holder else "another process"
            return False
        if not self._store.hold(self._work, 0):
            self._file.release()
            self.elsewhere = self._store.holder(self._work) or "another machine"
            return False
        return True

    def release(self) -> None:
        if self._file.held:
            self._store.let_go(self._work)
            self._file.release()
