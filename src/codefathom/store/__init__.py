"""Storage, whatever database runs below: the `Store` interface (store/base.py), its records
(store/records.py), `StoreError`, and `open_store`, which opens the index at a location.

SQLite (`sqlite/`) is the default backend, a file per project; PostgreSQL (`postgres/`) holds many
projects in one database. Nothing outside this package names either, or any driver.
"""

from __future__ import annotations

from pathlib import Path

from codefathom.errors import UsageError
from codefathom.store.base import REFS_HELD, SUMMARY_MODEL, GraphReads, Store, VectorIndex, Work, WritingLookup
from codefathom.store.errors import ProjectMissing, StoreError
from codefathom.store.records import (
    BaseRef,
    DirectoryRow,
    FileRecord,
    ImportInfo,
    IndexCounts,
    IndexedFile,
    IsTest,
    Neighbour,
    NewSummary,
    OutlineFileRow,
    OutlineSymbolRow,
    PendingUnit,
    PreparedFacts,
    PreparedUnits,
    RefInfo,
    Scope,
    SummaryCandidate,
    SummaryCoverage,
    SymbolInfo,
    VectorMatrix,
    prepare_facts,
    prepare_units,
)
from codefathom.store.sqlite import SQLiteStore
from codefathom.store.sqlite.db import SCHEMA_VERSION, fingerprint_of, schema_sql
from codefathom.store.sqlite.fts import match_expression

__all__ = [
    "Store", "GraphReads", "WritingLookup", "VectorIndex", "Work", "open_store", "StoreError", "ProjectMissing",
    "Scope", "FileRecord", "PreparedUnits",
    "prepare_units", "PreparedFacts", "prepare_facts", "IndexCounts", "PendingUnit", "VectorMatrix", "NewSummary",
    "SummaryCandidate", "SummaryCoverage", "DirectoryRow", "IsTest", "Neighbour", "SymbolInfo", "RefInfo",
    "ImportInfo", "BaseRef", "OutlineFileRow", "OutlineSymbolRow", "IndexedFile",
    "SCHEMA_VERSION", "fingerprint_of", "schema_sql", "match_expression", "is_database_location",
    "database_projects", "REFS_HELD", "SUMMARY_MODEL",
]

_DATABASE_SCHEMES = ("postgresql://", "postgres://")


def is_database_location(location: str | Path) -> bool:
    """Whether a location names a PostgreSQL database (`postgresql://...`) rather than a SQLite file."""
    return isinstance(location, str) and location.startswith(_DATABASE_SCHEMES)


def open_store(
    location: Path | str, fingerprint: str, *, create: bool = True, project: str | None = None, root: str = "",
    read: str | None = None,
) -> Store:
    """The index at `location`, created when missing unless `create` is False; one made by other
    parsers (`fingerprint` differs) is marked for re-parsing.

    A path is a SQLite file. A `postgresql://` URI is a database holding many projects: `project`
    names the one to open (its row made when missing; `root` is recorded as its work tree), and
    `read` a replica of it that answers searches and the graph's questions."""
    if not is_database_location(location):
        return SQLiteStore.open(Path(location), fingerprint, create=create)
    if not project:
        raise UsageError("a postgresql:// store needs the name of the project to open in it")
    # Imported here: psycopg is an extra (`codefathom[postgres]`), and only this location needs it.
    from codefathom.store.postgres import PostgresStore

    return PostgresStore.open(
        str(location), fingerprint, project=project, root=root, create=create, read_uri=read
    )


def database_projects(location: str) -> list[str]:
    """The names of the projects a database store holds (`list`)."""
    from codefathom.store.postgres import PostgresStore  # (the extra's driver, as in open_store)

    return PostgresStore.project_names(location)
