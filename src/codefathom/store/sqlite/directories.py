"""Directory nodes: for each directory of indexed files, a summary of what it holds and its FTS row.

Built from the index itself (files, their PageRank, definitions, module docs, a README), only for
the directories a sync changed, inside the sync's graph transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal

from codefathom.store.directory_nodes import (
    DirectoryFile,
    attach_definitions,
    attach_descriptions,
    build_node,
    directory_of,
    is_readme,
    readme_lines,
)
from codefathom.store.records import DirectoryRow, IsTest

__all__ = [
    "DirectoryRow", "refresh_directories", "directory_candidates", "directories_by_id", "directory_of",
    "IsTest", "directory_count", "directories_matching", "rows_matching",
]


def refresh_directories(
    conn: sqlite3.Connection, file_ids: Iterable[int] | None, removed: Iterable[str], is_test: IsTest
) -> int:
    """Rebuild the nodes of the directories holding `file_ids` or that held the `removed` paths (of
    every directory when file_ids is None); call inside the write transaction. Returns the number of
    nodes written."""
    if file_ids is None:
        conn.execute("DELETE FROM directories_fts")
        conn.execute("DELETE FROM directories")
        files = _files(conn, None)
    else:
        ids = json.dumps(sorted(set(file_ids)))
        rows = conn.execute("SELECT path FROM files WHERE id IN (SELECT value FROM json_each(?))", (ids,))
        paths = [r[0] for r in rows]
        dirs = {directory_of(p) for p in [*paths, *removed]} - {""}
        if not dirs:
            return 0
        stale = conn.execute(
            "SELECT id FROM directories WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(sorted(dirs)),)
        ).fetchall()
        conn.executemany("DELETE FROM directories_fts WHERE rowid = ?", stale)
        conn.executemany("DELETE FROM directories WHERE id = ?", stale)
        files = _files(conn, dirs)
    by_dir: dict[str, list[DirectoryFile]] = defaultdict(list)
    for file in files:
        by_dir[directory_of(file.path)].append(file)
    by_dir.pop("", None)
    if not by_dir:
        return 0
    _attach_facts(conn, [f for group in by_dir.values() for f in group])
    for path in sorted(by_dir):
        node = build_node(path, by_dir[path], is_test)
        cursor = conn.execute(
            "INSERT INTO directories(path, file_count, languages, files, description, summary, rank)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (path, node.file_count, json.dumps(node.languages), json.dumps(list(node.files)), node.description,
             node.summary, node.rank),
        )
        conn.execute(
            "INSERT INTO directories_fts(rowid, name, path, files, definitions, doc) VALUES (?, ?, ?, ?, ?, ?)",
            (cursor.lastrowid, *node.fts),
        )
    return len(by_dir)


def directory_candidates(
    conn: sqlite3.Connection, match: str, weights: Sequence[float], limit: int
) -> list[tuple[int, float]]:
    """Directory ids and BM25F scores (higher is better) for an FTS5 match expression."""
    args = ", ".join(f"{float(w)}" for w in weights)
    sql = (
        f"SELECT rowid, -bm25(directories_fts, {args}) FROM directories_fts WHERE directories_fts MATCH ?"
        f" ORDER BY bm25(directories_fts, {args}) LIMIT ?"
    )
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, (match, limit))]


def directories_by_id(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, DirectoryRow]:
    rows = conn.execute(
        "SELECT id, path, file_count, languages, files, description, summary, rank FROM directories"
        " WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(ids))),),
    )
    return {
        int(r[0]): DirectoryRow(int(r[0]), r[1], int(r[2]), json.loads(r[3]), tuple(json.loads(r[4])), r[5], r[6],
                                float(r[7]))
        for r in rows
    }


def directory_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM directories").fetchone()[0])


def directories_matching(conn: sqlite3.Connection, match: str) -> set[int]:
    """Every directory an FTS5 match expression matches (there are few directories)."""
    rows = conn.execute("SELECT rowid FROM directories_fts WHERE directories_fts MATCH ?", (match,))
    return {int(r[0]) for r in rows}


def rows_matching(
    conn: sqlite3.Connection, table: Literal["units_fts", "directories_fts"], match: str, ids: Sequence[int]
) -> list[int]:
    """Those of `ids` whose row of `table` matches `match`."""
    # One lookup per row: FTS5 checks a MATCH against a single rowid without reading the term's
    # whole posting list, which a common word in a large index would cost.
    sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid = ?"
    return [i for i in ids if conn.execute(sql, (match, i)).fetchone() is not None]


# -- reading what nodes are built from ----------------------------------------------------


def _files(conn: sqlite3.Connection, dirs: set[str] | None) -> list[DirectoryFile]:
    sql = "SELECT id, path, language, rank FROM files WHERE status != 'skipped'"
    if dirs is None:
        return [DirectoryFile(int(r[0]), r[1], r[2], float(r[3])) for r in conn.execute(sql)]
    found: list[DirectoryFile] = []
    for directory in sorted(dirs):
        # A range over the path index: everything under the directory, then only its own files
        # ('0' is the character after '/').
        rows = conn.execute(sql + " AND path > ? AND path < ?", (directory + "/", directory + "0"))
        found.extend(DirectoryFile(int(r[0]), r[1], r[2], float(r[3])) for r in rows if directory_of(r[1]) == directory)
    return found


def _attach_facts(conn: sqlite3.Connection, files: list[DirectoryFile]) -> None:
    """Each file's definitions (with rank and one-line doc), its own description, a README's text."""
    ids = json.dumps(sorted(f.id for f in files))
    attach_definitions(files, conn.execute(
        "SELECT file_id, kind, name, rank, doc FROM symbols WHERE file_id IN (SELECT value FROM json_each(?))"
        " AND kind IN ('class', 'function', 'method')",
        (ids,),
    ))
    # Only a comment the file opens with describes it, and only its first lines are read.
    attach_descriptions(files, conn.execute(
        "SELECT file_id, doc, CASE WHEN doc = '' AND start_line = 1 THEN substr(content, 1, 4000) ELSE '' END"
        " FROM units WHERE file_id IN (SELECT value FROM json_each(?)) AND kind = 'module' AND part = 0"
        " ORDER BY file_id, start_line",
        (ids,),
    ))
    readmes = [f for f in files if is_readme(f.path)]
    for f in readmes:
        text = conn.execute(
            "SELECT content FROM units WHERE file_id = ? ORDER BY start_line, part LIMIT 2", (f.id,)
        ).fetchall()
        f.readme = readme_lines("\n".join(r[0] for r in text))
