"""Storage, whatever database runs below: the `Store` interface (store/base.py), its records
(store/records.py), `StoreError`, and `open_store`, which opens the index at a location.

SQLite (`sqlite/`) is the one backend; nothing outside this package names it, or any driver.
"""

from __future__ import annotations

from pathlib import Path

from codefathom.store.base import GraphReads, Store, WritingLookup
from codefathom.store.errors import StoreError
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
    "Store", "GraphReads", "WritingLookup", "open_store", "StoreError", "Scope", "FileRecord", "PreparedUnits",
    "prepare_units", "PreparedFacts", "prepare_facts", "IndexCounts", "PendingUnit", "VectorMatrix", "NewSummary",
    "SummaryCandidate", "SummaryCoverage", "DirectoryRow", "IsTest", "Neighbour", "SymbolInfo", "RefInfo",
    "ImportInfo", "BaseRef", "OutlineFileRow", "OutlineSymbolRow", "IndexedFile",
    "SCHEMA_VERSION", "fingerprint_of", "schema_sql", "match_expression",
]


def open_store(location: Path, fingerprint: str, *, create: bool = True) -> Store:
    """The index at `location` (today a SQLite file's path), created when missing unless `create`
    is False; one made by other parsers (`fingerprint` differs) is marked for re-parsing."""
    return SQLiteStore.open(location, fingerprint, create=create)
