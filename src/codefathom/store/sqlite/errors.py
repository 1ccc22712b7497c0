"""SQLite's errors as the store's own: what every method of the SQLite store runs inside.

`damaged` comes from what SQLite says of the file (see db.is_damaged).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from codefathom.store.errors import StoreError
from codefathom.store.sqlite.db import is_damaged

__all__ = ["backend_errors"]


@contextmanager
def backend_errors() -> Iterator[None]:
    """SQLite's errors raised inside, as StoreError (the message kept)."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise StoreError(str(exc), damaged=is_damaged(exc)) from exc
