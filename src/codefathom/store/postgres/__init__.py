"""The PostgreSQL backend of the store: many projects in one database, their writes serialised by
advisory locks; the only package that imports psycopg, and only when a postgresql:// location opens.

`PostgresStore` implements `store.Store`; migrations/ describes the schema, version by version.
"""

from __future__ import annotations

from codefathom.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
