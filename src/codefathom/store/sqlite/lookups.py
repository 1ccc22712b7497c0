"""Typed reads for the lookups (search/lookups.py, service/lookups.py): the indexed files, the files a
pattern may match, a file's units, and the definitions around a line.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from codefathom.parse.windows import MAX_UNIT_CHARS

__all__ = ["indexed_files", "files_named", "files_holding", "unit_ids_of_file", "definitions_around"]


def indexed_files(conn: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """(id, path, language) of every file the index holds (files it left out are not searched)."""
    rows = conn.execute("SELECT id, path, language FROM files WHERE status != 'skipped' ORDER BY path")
    return [(int(r[0]), r[1], r[2]) for r in rows]


def files_named(conn: sqlite3.Connection, name: str) -> list[tuple[int, str, str]]:
    """(id, path, language) of the indexed files whose file name is `name` (any path)."""
    like = "%/" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        "SELECT id, path, language FROM files WHERE status != 'skipped' AND (path = ? OR path LIKE ? ESCAPE '\\')"
        " ORDER BY path",
        (name, like),
    )
    return [(int(r[0]), r[1], r[2]) for r in rows if r[1].rsplit("/", 1)[-1] == name]


def files_holding(conn: sqlite3.Connection, words: Sequence[str], texts: Sequence[str]) -> set[int]:
    """Ids of the files that may hold a line with all `words` (whole, as the FTS index cuts them) and
    all `texts` (exact): those with a unit holding them all, and those whose units may not hold every
    line (a unit cut at MAX_UNIT_CHARS, or a file with no unit), which are always read."""
    clauses, params = [], []
    if words:
        clauses.append("u.id IN (SELECT rowid FROM units_fts WHERE units_fts MATCH ?)")
        params.append(" AND ".join('"' + w.replace('"', '""') + '"' for w in words))
    for text in texts:
        clauses.append("instr(u.content, ?) > 0")
        params.append(text)
    where = " AND ".join(clauses) or "1"
    sql = (
        f"SELECT DISTINCT u.file_id FROM units u WHERE {where}"
        " UNION SELECT f.id FROM files f WHERE f.status != 'skipped' AND ("
        " NOT EXISTS (SELECT 1 FROM units x WHERE x.file_id = f.id)"
        " OR (f.size >= ? AND EXISTS (SELECT 1 FROM units x WHERE x.file_id = f.id AND length(x.content) >= ?)))"
    )
    return {int(r[0]) for r in conn.execute(sql, [*params, MAX_UNIT_CHARS, MAX_UNIT_CHARS])}


def unit_ids_of_file(conn: sqlite3.Connection, file_id: int, lines: tuple[int, int] | None = None) -> list[int]:
    first, last = lines or (-(2**63), 2**63 - 1)
    rows = conn.execute(
        "SELECT id FROM units WHERE file_id = ? AND start_line BETWEEN ? AND ? ORDER BY start_line",
        (file_id, first, last),
    )
    return [int(r[0]) for r in rows]


def definitions_around(
    conn: sqlite3.Connection, file_id: int, start: int, end: int
) -> list[tuple[str, str, int, int]]:
    """(kind, qualified name, start, end) of the definitions holding lines start-end, innermost first
    (the module itself left out)."""
    rows = conn.execute(
        "SELECT kind, qualified_name, start_line, end_line FROM symbols WHERE file_id = ? AND kind != 'module'"
        " AND start_line <= ? AND end_line >= ? ORDER BY end_line - start_line, start_line DESC",
        (file_id, start, end),
    )
    return [(r[0], r[1], int(r[2]), int(r[3])) for r in rows]
