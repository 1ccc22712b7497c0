"""Reading a project's file without ever reading outside the project, whatever its links say.

A listing checks where each link leads, but a link, or a directory on the way, can be swapped
between that check and the read: the check is made again on the file actually opened.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["read_inside", "real_root"]

# Linux names the file an open descriptor refers to here: the one answer no later swap can change.
_FD_PATHS = Path("/proc/self/fd")


def real_root(root: str | Path) -> str:
    """The project root as `read_inside` compares with: symlinks resolved, ending in a separator."""
    return os.path.join(os.path.realpath(root), "")


def read_inside(path: str | Path, root: str) -> bytes:
    """The bytes of the regular file `path`; OSError when it, or a link on the way to it, leads
    outside `root` (from `real_root`), or when it is not a regular file (a FIFO must not block)."""
    real = os.path.realpath(path)
    if not real.startswith(root):
        raise _outside(path)
    fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if not _opened_inside(fd, info, real, root):
            raise _outside(path)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def _opened_inside(fd: int, info: os.stat_result, real: str, root: str) -> bool:
    try:
        return os.readlink(_FD_PATHS / str(fd)).startswith(root)
    except OSError:  # no /proc: the file opened must still be the one the checked path names
        try:
            now = os.stat(real, follow_symlinks=False)
        except OSError:
            return False
        return (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino) and os.path.realpath(real) == real


def _outside(path: str | Path) -> OSError:
    return OSError(errno.EACCES, "symlink leads outside the project", str(path))
