"""Vector matrices shared by the stores of one index within a process: a server opens a project once
for writes and up to four more times for reads, and one copy of its vectors serves them all."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

from codefathom.store.records import VectorMatrix

__all__ = ["shared_matrix", "drop_shared"]

# (index location, dimensions) -> the matrix some store of this process holds. Weak: a matrix goes
# when the last store holding it is closed or moves on to a newer one.
_shared: weakref.WeakValueDictionary[tuple[str, int], VectorMatrix] = weakref.WeakValueDictionary()
_loading: dict[tuple[str, int], threading.Lock] = {}
_lock = threading.Lock()


def shared_matrix(index: str, dims: int, epoch: str, load: Callable[[], VectorMatrix]) -> VectorMatrix:
    """The matrix of the index at `index` as of `epoch`: the one another store of this process holds,
    or `load()`ed once (stores asking meanwhile wait for it rather than read it again)."""
    key = (index, int(dims))
    with _lock:
        loading = _loading.setdefault(key, threading.Lock())
    with loading:
        known = _shared.get(key)
        if known is not None and known.epoch == epoch:
            return known
        matrix = load()
        _shared[key] = matrix
        return matrix


def drop_shared(index: str) -> None:
    """Forget the matrices of `index`: its vectors changed in a way its epoch does not show."""
    with _lock:
        for key in [key for key in list(_shared.keys()) if key[0] == index]:
            _shared.pop(key, None)
