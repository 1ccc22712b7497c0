"""The SQLite backend of the store: one file per project, WAL, FTS5; every SQL string of codefathom.

`SQLiteStore` implements `store.Store`; schema.sql and migrations/ describe the file, version by version.
"""

from __future__ import annotations

from codefathom.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
