"""Child processes that end with their parent: a parse worker or a forked binder whose parent was
killed (kill -9, a crash, the OOM killer) must not go on working, nor hold what the parent held.

On Linux the kernel sends the child SIGKILL when its parent dies (`prctl(PR_SET_PDEATHSIG)`);
elsewhere a thread of the child watches for the parent to go (the child is then re-parented).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1
_WATCH_S = 0.1  # how often the watching thread asks who the parent is (where prctl is missing)


def die_with_parent(parent: int) -> None:
    """Make this process (a child of `parent`) end as soon as `parent` does; call first thing in
    the child. With prctl, "the parent" is the thread that started this process: it must outlive
    the child, as the threads that start workers and fork binders do (the work is theirs)."""
    if not _arm_signal():
        threading.Thread(target=_watch, args=(parent,), name="codefathom-parent-watch", daemon=True).start()
    # The parent may have died before the signal was armed: then this process was re-parented already.
    if os.getppid() != parent:
        os._exit(1)


def _arm_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_S)
    os._exit(1)
