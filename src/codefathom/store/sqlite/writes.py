"""Writes one file's facts: replace its units and FTS rows, or drop the file, inside a transaction.

The caller opens the transaction; everything here assumes it is inside one. The rows of a file's
units can be built beforehand, away from the database (`prepare_units`, e.g. in a parse worker),
so that the writer only inserts.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from types import EllipsisType

from codefathom.model import Unit
from codefathom.store.records import FileRecord, PreparedUnits, prepare_units, summary_key

__all__ = [
    "FileRecord", "PreparedUnits", "prepare_units", "summary_key", "replace_file", "remove_files", "touch_file",
    "file_ids",
]

_INSERT_UNIT = (
    "INSERT INTO units(id, file_id, kind, name, name_key, qualified_name, parent, signature, doc,"
    " language, start_line, end_line, part, content, summary_key)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_FTS = (
    "INSERT INTO units_fts(rowid, name, qualified_name, signature, doc, path, body, summary)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, '')"
)
# Once summaries are in use (meta summary_model), a unit written again takes its cached summary,
# found by its text's hash, as its seventh field.
_INSERT_FTS_SUMMARY = (
    "INSERT INTO units_fts(rowid, name, qualified_name, signature, doc, path, body, summary)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, coalesce((SELECT s.searchable FROM summaries s WHERE s.key = ?"
    " AND s.model = (SELECT value FROM meta WHERE key = 'summary_model')), ''))"
)


def file_ids(conn: sqlite3.Connection, paths: Iterable[str]) -> dict[str, int]:
    """The row ids of those of `paths` the index has, in one query."""
    wanted = list(paths)
    if not wanted:
        return {}
    rows = conn.execute(
        "SELECT path, id FROM files WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(wanted),)
    )
    return {row[0]: int(row[1]) for row in rows}


def replace_file(
    conn: sqlite3.Connection,
    record: FileRecord,
    units: Sequence[Unit] | PreparedUnits,
    file_id: int | None | EllipsisType = ...,
) -> int:
    """Store `record` and its units in place of whatever the file had; returns the file id.

    `file_id` is the file's row id when the caller has looked it up in this transaction (None:
    the index has no row for it); left out, it is looked up here.
    """
    prepared = units if isinstance(units, PreparedUnits) else prepare_units(record.path, units)
    if file_id is ...:
        row = conn.execute("SELECT id FROM files WHERE path = ?", (record.path,)).fetchone()
        file_id = None if row is None else int(row[0])
    values = (
        record.content_hash, record.mtime_ns, record.size, record.language, record.status,
        record.error, len(prepared), time.time(),
    )
    if file_id is None:
        file_id = int(
            conn.execute(
                "INSERT INTO files(content_hash, mtime_ns, size, language, status, error, unit_count,"
                " indexed_at, path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, record.path),
            ).lastrowid
            or 0
        )
    else:
        _delete_units(conn, [file_id])
        conn.execute(
            "UPDATE files SET content_hash = ?, mtime_ns = ?, size = ?, language = ?, status = ?,"
            " error = ?, unit_count = ?, indexed_at = ? WHERE id = ?",
            (*values, file_id),
        )
    _insert_units(conn, file_id, prepared)
    return file_id


def touch_file(conn: sqlite3.Connection, path: str, mtime_ns: int, size: int) -> None:
    """The file's bytes are unchanged; only its stat moved (a checkout, a `touch`)."""
    conn.execute("UPDATE files SET mtime_ns = ?, size = ? WHERE path = ?", (mtime_ns, size, path))


def remove_files(conn: sqlite3.Connection, paths: Iterable[str]) -> int:
    ids = sorted(file_ids(conn, paths).values())
    if ids:
        _delete_units(conn, ids)
        conn.executemany("DELETE FROM files WHERE id = ?", [(i,) for i in ids])
    return len(ids)


def _delete_units(conn: sqlite3.Connection, file_ids: list[int]) -> None:
    param: int | str
    if len(file_ids) == 1:
        where, param = "file_id = ?", file_ids[0]
    else:
        where, param = "file_id IN (SELECT value FROM json_each(?))", json.dumps(file_ids)
    conn.execute(f"DELETE FROM units_fts WHERE rowid IN (SELECT id FROM units WHERE {where})", (param,))
    conn.execute(f"DELETE FROM units WHERE {where}", (param,))


def _insert_units(conn: sqlite3.Connection, file_id: int, prepared: PreparedUnits) -> None:
    if not prepared.units:
        return
    # Ids are given explicitly (the next free ones, as SQLite would pick) so that both tables
    # take their rows in one executemany each.
    first = int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM units").fetchone()[0])
    ids = range(first, first + len(prepared.units))
    conn.executemany(_INSERT_UNIT, [(uid, file_id, *row) for uid, row in zip(ids, prepared.units, strict=True)])
    if conn.execute("SELECT 1 FROM meta WHERE key = 'summary_model'").fetchone() is None:
        conn.executemany(_INSERT_FTS, [(uid, *row) for uid, row in zip(ids, prepared.fts, strict=True)])
        return
    conn.executemany(
        _INSERT_FTS_SUMMARY,
        [(uid, *row, unit[-1]) for uid, row, unit in zip(ids, prepared.fts, prepared.units, strict=True)],
    )
