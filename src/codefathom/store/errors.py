"""The storage's own errors: what the rest of codefathom catches, whatever database runs below.

A backend's errors are mapped to these at the seam (`backend_errors`), so that no caller outside
`store/` names a database driver's exception.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from codefathom.store.db import is_damaged

__all__ = ["StoreError", "backend_errors"]


class StoreError(Exception):
    """The index's storage failed; `damaged` when the file is corrupt or not a codefathom index
    (rebuild it), not when the failure says nothing about its content (busy, locked, disk full)."""

    def __init__(self, message: str, *, damaged: bool) -> None:
        super().__init__(message)
        self.damaged = damaged


@contextmanager
def backend_errors() -> Iterator[None]:
    """SQLite's errors raised inside, as StoreError (the message kept)."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise StoreError(str(exc), damaged=is_damaged(exc)) from exc
