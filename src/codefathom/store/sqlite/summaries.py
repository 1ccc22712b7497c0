"""Unit summaries in the index: the cache by (text hash, model), which units still lack one, and
the summary field of units_fts and of the text a unit is embedded as.

A summary belongs to a unit's text, not to the unit: `units.summary_key` is the hash of its content,
so a unit re-indexed unchanged, or moved, finds its summary again. meta `summary_model` names the
model whose summaries the index shows; with none set, nothing here is ever read by a search.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence

from codefathom.store.records import NewSummary, SummaryCandidate, SummaryCoverage
from codefathom.store.sqlite.reads import UNIT_RANK, UNIT_RANK_JOIN

__all__ = [
    "SummaryCandidate", "NewSummary", "SummaryCoverage", "summary_model", "summary_candidates", "store_summaries",
    "use_summary_model", "unit_summaries", "definition_summary", "summary_coverage", "SUMMARY_OF_UNIT",
]

# The summary a unit shows ('' without one): its text's, by the model the index shows.
SUMMARY_OF_UNIT = (
    "coalesce((SELECT s.summary FROM summaries s WHERE s.key = u.summary_key"
    " AND s.model = (SELECT value FROM meta WHERE key = 'summary_model')), '')"
)


def summary_model(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'summary_model'").fetchone()
    return None if row is None else str(row[0])


def summary_candidates(conn: sqlite3.Connection, kinds: Sequence[str], model: str) -> list[SummaryCandidate]:
    """Every unit of these kinds whose text has no summary by `model` yet (the caller orders and filters)."""
    sql = (
        "SELECT u.id, f.path, u.kind, u.qualified_name, u.signature, u.language, u.start_line, u.end_line,"
        f" u.content, u.summary_key, max({UNIT_RANK}) FROM units u JOIN files f ON f.id = u.file_id{UNIT_RANK_JOIN}"
        " WHERE u.kind IN (SELECT value FROM json_each(?)) AND u.summary_key != ''"
        " AND NOT EXISTS (SELECT 1 FROM summaries x WHERE x.key = u.summary_key AND x.model = ?)"
        " GROUP BY u.id"
    )
    return [
        SummaryCandidate(int(r[0]), r[1], r[2], r[3], r[4], r[5], int(r[6]), int(r[7]), r[8], r[9], float(r[10] or 0))
        for r in conn.execute(sql, (json.dumps(list(kinds)), model))
    ]


def use_summary_model(conn: sqlite3.Connection, model: str) -> int:
    """Make `model` the one the index shows (inside a transaction); when another was, every unit
    with a summary by either gets its search field and vector made again. Returns those units."""
    current = summary_model(conn)
    if current == model:
        return 0
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('summary_model', ?)", (model,))
    if current is None:
        return 0
    ids = [int(r[0]) for r in conn.execute(
        "SELECT DISTINCT u.id FROM units u JOIN summaries s ON s.key = u.summary_key WHERE s.model IN (?, ?)",
        (current, model),
    )]
    _refresh(conn, ids)
    return len(ids)


def store_summaries(conn: sqlite3.Connection, model: str, new: Sequence[NewSummary]) -> int:
    """Cache `new` summaries by `model` (the model the index shows; inside a transaction) and give
    the units of their texts the summary as a search field; their vectors are made again, as the
    text a unit is embedded as holds its summary. Returns the units that took one."""
    now = time.time()
    conn.executemany(
        "INSERT OR REPLACE INTO summaries(key, model, summary, searchable, tokens_in, tokens_out, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(s.key, model, s.summary, s.searchable, s.tokens_in, s.tokens_out, now) for s in new],
    )
    ids = [int(r[0]) for r in conn.execute(
        "SELECT id FROM units WHERE summary_key IN (SELECT value FROM json_each(?))",
        (json.dumps([s.key for s in new]),),
    )]
    _refresh(conn, ids)
    return len(ids)


def _refresh(conn: sqlite3.Connection, ids: list[int]) -> None:
    if not ids:
        return
    conn.executemany(
        "UPDATE units_fts SET summary = coalesce((SELECT s.searchable FROM units u JOIN summaries s"
        " ON s.key = u.summary_key AND s.model = (SELECT value FROM meta WHERE key = 'summary_model')"
        " WHERE u.id = ?), '') WHERE rowid = ?",
        [(uid, uid) for uid in ids],
    )
    # The text a unit is embedded as holds its summary: the next embedding pass makes its vector again.
    cursor = conn.execute(
        "UPDATE units SET embed_key = NULL WHERE embed_key IS NOT NULL AND id IN (SELECT value FROM json_each(?))",
        (json.dumps(ids),),
    )
    if cursor.rowcount:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('vector_epoch', ?)", (repr(time.time()),))


def unit_summaries(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, str]:
    """The summary of each of `ids` that has one, by the model the index shows."""
    if not ids or summary_model(conn) is None:
        return {}
    sql = f"SELECT u.id, {SUMMARY_OF_UNIT} FROM units u WHERE u.id IN (SELECT value FROM json_each(?))"
    return {int(r[0]): r[1] for r in conn.execute(sql, (json.dumps(list(ids)),)) if r[1]}


def definition_summary(conn: sqlite3.Connection, file_id: int, qualified_name: str, start_line: int) -> str:
    """The summary of the unit of a definition (its first part), '' without one."""
    if summary_model(conn) is None:
        return ""
    row = conn.execute(
        f"SELECT {SUMMARY_OF_UNIT} FROM units u WHERE u.file_id = ? AND u.qualified_name = ? AND u.start_line <= ?"
        " AND u.end_line >= ? ORDER BY u.part LIMIT 1",
        (file_id, qualified_name, start_line, start_line),
    ).fetchone()
    return "" if row is None else str(row[0])


def summary_coverage(conn: sqlite3.Connection, kinds: Sequence[str]) -> SummaryCoverage:
    model = summary_model(conn)
    units = int(conn.execute("SELECT count(*) FROM units").fetchone()[0])
    definitions = int(conn.execute(
        "SELECT count(*) FROM units WHERE kind IN (SELECT value FROM json_each(?))", (json.dumps(list(kinds)),)
    ).fetchone()[0])
    if model is None:
        return SummaryCoverage(None, 0, definitions, units, 0, 0)
    with_summary = int(conn.execute(
        "SELECT count(*) FROM units u JOIN summaries s ON s.key = u.summary_key AND s.model = ?", (model,)
    ).fetchone()[0])
    tokens = conn.execute(
        "SELECT coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0) FROM summaries WHERE model = ?", (model,)
    ).fetchone()
    return SummaryCoverage(model, with_summary, definitions, units, int(tokens[0]), int(tokens[1]))
