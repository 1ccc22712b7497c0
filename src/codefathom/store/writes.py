"""Writes one file's facts: replace its units and FTS rows, or drop the file, inside a transaction.

The caller opens the transaction; everything here assumes it is inside one.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from codefathom.model import Unit
from codefathom.tokens import name_key, searchable_text

__all__ = ["FileRecord", "replace_file", "remove_files", "touch_file"]


@dataclass(frozen=True, slots=True)
class FileRecord:
    path: str
    content_hash: str
    mtime_ns: int
    size: int
    language: str
    status: str
    error: str | None = None


def replace_file(conn: sqlite3.Connection, record: FileRecord, units: Sequence[Unit]) -> int:
    """Store `record` and its units in place of whatever the file had; returns the file id."""
    row = conn.execute("SELECT id FROM files WHERE path = ?", (record.path,)).fetchone()
    values = (
        record.content_hash, record.mtime_ns, record.size, record.language, record.status,
        record.error, len(units), time.time(),
    )
    if row is None:
        file_id = int(
            conn.execute(
                "INSERT INTO files(content_hash, mtime_ns, size, language, status, error, unit_count,"
                " indexed_at, path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, record.path),
            ).lastrowid
            or 0
        )
    else:
        file_id = int(row[0])
        _delete_units(conn, [file_id])
        conn.execute(
            "UPDATE files SET content_hash = ?, mtime_ns = ?, size = ?, language = ?, status = ?,"
            " error = ?, unit_count = ?, indexed_at = ? WHERE id = ?",
            (*values, file_id),
        )
    _insert_units(conn, file_id, record.path, units)
    return file_id


def touch_file(conn: sqlite3.Connection, path: str, mtime_ns: int, size: int) -> None:
    """The file's bytes are unchanged; only its stat moved (a checkout, a `touch`)."""
    conn.execute("UPDATE files SET mtime_ns = ?, size = ? WHERE path = ?", (mtime_ns, size, path))


def remove_files(conn: sqlite3.Connection, paths: Iterable[str]) -> int:
    ids = []
    for path in paths:
        row = conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        if row is not None:
            ids.append(int(row[0]))
    if ids:
        _delete_units(conn, ids)
        conn.executemany("DELETE FROM files WHERE id = ?", [(i,) for i in ids])
    return len(ids)


def _delete_units(conn: sqlite3.Connection, file_ids: list[int]) -> None:
    for file_id in file_ids:
        conn.execute(
            "DELETE FROM units_fts WHERE rowid IN (SELECT id FROM units WHERE file_id = ?)", (file_id,)
        )
        conn.execute("DELETE FROM units WHERE file_id = ?", (file_id,))


def _insert_units(conn: sqlite3.Connection, file_id: int, path: str, units: Sequence[Unit]) -> None:
    path_text = searchable_text(path.replace("/", " ").replace(".", " "))
    for unit in units:
        unit_id = conn.execute(
            "INSERT INTO units(file_id, kind, name, name_key, qualified_name, parent, signature, doc,"
            " language, start_line, end_line, part, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                file_id, unit.kind, unit.name, name_key(unit.name), unit.qualified_name, unit.parent,
                unit.signature, unit.doc, unit.language, unit.start_line, unit.end_line, unit.part,
                unit.content,
            ),
        ).lastrowid
        conn.execute(
            "INSERT INTO units_fts(rowid, name, qualified_name, signature, doc, path, body)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                unit_id, searchable_text(unit.name), searchable_text(unit.qualified_name),
                searchable_text(unit.signature), searchable_text(unit.doc), path_text,
                searchable_text(unit.content),
            ),
        )
