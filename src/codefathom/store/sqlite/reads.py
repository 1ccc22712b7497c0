"""Typed reads of the index: file states, candidate units for each search channel, statistics.

Rows never leave this module: callers get model records and plain numbers.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

from codefathom.model import FileState, StoredUnit, Unit
from codefathom.store.records import IndexCounts, Scope

__all__ = [
    "Scope", "file_states", "file_paths", "fts_candidates", "name_candidates", "units_by_id", "IndexCounts",
    "counts", "file_stats",
]

_UNIT_COLUMNS = (
    "u.id, f.path, u.kind, u.name, u.qualified_name, u.parent, u.signature, u.doc, u.language,"
    " u.start_line, u.end_line, u.part, u.content"
)


# A unit's rank: its definition's (same file, qualified name and kind), else its file's.
UNIT_RANK = "coalesce(s.rank, f.rank)"
UNIT_RANK_JOIN = (
    " LEFT JOIN symbols s ON s.file_id = u.file_id AND s.qualified_name = u.qualified_name AND s.kind = u.kind"
)
# The same for one row a unit, without the join: a unit may match several definitions (overloads of
# a name), and a row per match would leave the rank to the order the plan reads them in.
UNIT_RANK_OF_ONE = (
    "coalesce((SELECT max(coalesce(s.rank, f.rank)) FROM symbols s WHERE s.file_id = u.file_id"
    " AND s.qualified_name = u.qualified_name AND s.kind = u.kind), f.rank)"
)


def scope_sql(scope: Scope, alias: str = "u") -> tuple[str, list[object]]:
    """The WHERE clauses (each after AND) and parameters that keep a query's units to `scope`."""
    clauses: list[str] = []
    params: list[object] = []
    if scope.file_ids is not None:
        clauses.append(f"{alias}.file_id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(sorted(scope.file_ids)))
    if scope.languages is not None:
        clauses.append(f"{alias}.language IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(sorted(scope.languages)))
    if scope.kinds is not None:
        clauses.append(f"{alias}.kind IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(sorted(scope.kinds)))
    return (" AND " + " AND ".join(clauses) if clauses else ""), params


def file_states(conn: sqlite3.Connection, paths: Iterable[str] | None = None) -> dict[str, FileState]:
    """The state of every file, or of those of `paths` the index has."""
    sql = "SELECT id, path, content_hash, mtime_ns, size, language, status FROM files"
    if paths is None:
        rows = conn.execute(sql)
    else:
        rows = conn.execute(sql + " WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(list(paths)),))
    return {row[1]: FileState(*row) for row in rows}


def file_stats(conn: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """(path, size, mtime_ns) of every file: what a sweep compares with the disk."""
    return conn.execute("SELECT path, size, mtime_ns FROM files").fetchall()


def definition_units(
    conn: sqlite3.Connection, kinds: Sequence[str]
) -> list[tuple[int, str, str, int, int, str, str]]:
    """(id, path, qualified name, start line, end line, language, content) of every whole unit of
    these kinds (a definition split into parts is left out: no part is the whole)."""
    sql = (
        "SELECT u.id, f.path, u.qualified_name, u.start_line, u.end_line, u.language, u.content"
        " FROM units u JOIN files f ON f.id = u.file_id"
        " WHERE u.kind IN (SELECT value FROM json_each(?)) AND u.part = 0 ORDER BY f.path, u.start_line"
    )
    rows = conn.execute(sql, (json.dumps(list(kinds)),))
    return [(int(r[0]), r[1], r[2], int(r[3]), int(r[4]), r[5], r[6]) for r in rows]


def term_units(conn: sqlite3.Connection, term: str, cap: int) -> int:
    """How many units hold `term` (as FTS5 tokenizes and stems it), counted up to `cap`."""
    sql = "SELECT count(*) FROM (SELECT 1 FROM units_fts WHERE units_fts MATCH ? LIMIT ?)"
    return int(conn.execute(sql, ('"' + term.replace('"', '""') + '"', cap)).fetchone()[0])


def fts_candidates(
    conn: sqlite3.Connection, match: str, weights: Sequence[float], scope: Scope, limit: int
) -> list[tuple[int, float]]:
    """Unit ids and BM25F scores (higher is better) for an FTS5 match expression."""
    where, params = scope_sql(scope)
    weight_args = ", ".join(f"{float(w)}" for w in weights)
    # Every FTS row has its unit, so the join is there only for a scope's filters: without one,
    # a query matching thousands of units skips as many lookups (a third of its time).
    source = f" JOIN units u ON u.id = units_fts.rowid WHERE units_fts MATCH ?{where}" if where else (
        " WHERE units_fts MATCH ?"
    )
    sql = (
        f"SELECT units_fts.rowid, -bm25(units_fts, {weight_args}) AS score FROM units_fts{source}"
        " ORDER BY bm25(units_fts, " + weight_args + ") LIMIT ?"
    )
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, [match, *params, limit])]


def name_candidates(
    conn: sqlite3.Connection, keys: Iterable[str], scope: Scope, limit: int, prefix: bool = False
) -> list[tuple[int, str, str, str]]:
    """(id, name, qualified_name, path) of units whose name key equals (or starts with) a key."""
    where, params = scope_sql(scope)
    found: list[tuple[int, str, str, str]] = []
    for key in keys:
        if not key:
            continue
        if prefix:
            cond, args = "u.name_key >= ? AND u.name_key < ?", [key, key + "\uffff"]
        else:
            cond, args = "u.name_key = ?", [key]
        sql = (
            "SELECT u.id, u.name, u.qualified_name, f.path FROM units u JOIN files f ON f.id = u.file_id"
            f" WHERE {cond}{where} LIMIT ?"
        )
        found.extend((int(r[0]), r[1], r[2], r[3]) for r in conn.execute(sql, [*args, *params, limit]))
    return found


def units_by_id(
    conn: sqlite3.Connection, ids: Iterable[int], with_rank: bool = False, with_content: bool = True
) -> dict[int, StoredUnit]:
    """Units by id; without content (`content` = "") when only ranking needs them: reading the
    source of every candidate costs more than ranking them all."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    # The join is only made when a ranking asks for the rank.
    rank = UNIT_RANK_OF_ONE if with_rank else "0.0"
    columns = _UNIT_COLUMNS if with_content else _UNIT_COLUMNS.replace("u.content", "''")
    sql = (
        f"SELECT {columns}, {rank} FROM units u JOIN files f ON f.id = u.file_id"
        " WHERE u.id IN (SELECT value FROM json_each(?))"
    )
    result = {}
    for row in conn.execute(sql, (json.dumps(wanted),)):
        unit = Unit(
            kind=row[2], name=row[3], qualified_name=row[4], parent=row[5], signature=row[6], doc=row[7],
            language=row[8], start_line=row[9], end_line=row[10], part=row[11], content=row[12],
        )
        result[int(row[0])] = StoredUnit(int(row[0]), row[1], unit, float(row[13] or 0.0))
    return result


def counts(conn: sqlite3.Connection, problem_limit: int = 20) -> IndexCounts:
    files = conn.execute("SELECT count(*) FROM files WHERE status != 'skipped'").fetchone()[0]
    units = conn.execute("SELECT count(*) FROM units").fetchone()[0]
    by_language = dict(
        conn.execute(
            "SELECT language, count(*) FROM files WHERE status != 'skipped' GROUP BY language ORDER BY 2 DESC"
        ).fetchall()
    )
    by_status = dict(conn.execute("SELECT status, count(*) FROM files GROUP BY status").fetchall())
    problems = [
        (r[0], r[1], r[2] or "")
        for r in conn.execute(
            "SELECT path, status, error FROM files WHERE status IN ('partial', 'failed', 'skipped')"
            " ORDER BY status, path LIMIT ?",
            (problem_limit,),
        )
    ]
    return IndexCounts(files, units, by_language, by_status, problems)


def file_paths(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    return [(int(r[0]), r[1]) for r in conn.execute("SELECT id, path FROM files WHERE status != 'skipped'")]
