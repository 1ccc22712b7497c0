"""Unit summaries of one project in PostgreSQL: the cache by (text hash, model), the units still lacking
one, and the units' postings of their summary field, as store/sqlite/summaries.py keeps them.

meta `summary_model` names the model whose summaries the project shows; with none set, nothing here is
ever read by a search.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from codefathom.store.postgres import search
from codefathom.store.postgres.db import Conn
from codefathom.store.records import NewSummary, SummaryCandidate, SummaryCoverage

__all__ = [
    "SUMMARY_OF_UNIT", "UNIT_RANK", "UNIT_RANK_JOIN", "UNIT_RANK_OF_ONE", "summary_model", "summary_candidates",
    "use_summary_model",
    "store_summaries", "unit_summaries", "definition_summary", "summary_coverage",
]

# A unit's rank: its definition's, else its file's (as SQLite's UNIT_RANK).
UNIT_RANK = "coalesce(s.rank, f.rank)"
UNIT_RANK_JOIN = (
    " LEFT JOIN symbols s ON s.file_id = u.file_id AND s.qualified_name = u.qualified_name AND s.kind = u.kind"
)
# The same for one row a unit, without the join (as SQLite's UNIT_RANK_OF_ONE: overloads of a name
# would otherwise leave the rank to the plan's row order).
UNIT_RANK_OF_ONE = (
    "coalesce((SELECT max(coalesce(s.rank, f.rank)) FROM symbols s WHERE s.file_id = u.file_id"
    " AND s.qualified_name = u.qualified_name AND s.kind = u.kind), f.rank)"
)
# The summary a unit `u` shows ('' without one): its text's, by the model its project shows.
SUMMARY_OF_UNIT = (
    "coalesce((SELECT x.summary FROM summaries x WHERE x.project_id = u.project_id AND x.key = u.summary_key"
    " AND x.model = (SELECT value FROM meta m WHERE m.project_id = u.project_id AND m.key = 'summary_model')), '')"
)


def summary_model(conn: Conn, project: int) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE project_id = %s AND key = 'summary_model'", (project,)).fetchone()
    return None if row is None else str(row[0])


def summary_candidates(conn: Conn, project: int, kinds: Sequence[str], model: str) -> list[SummaryCandidate]:
    """Every unit of these kinds whose text has no summary by `model` yet (the caller orders and filters)."""
    rows = conn.execute(
        "SELECT u.id, f.path, u.kind, u.qualified_name, u.signature, u.language, u.start_line, u.end_line,"
        f" u.content, u.summary_key, max({UNIT_RANK}) FROM units u JOIN files f ON f.id = u.file_id{UNIT_RANK_JOIN}"
        " WHERE u.project_id = %s AND u.kind = ANY(%s) AND u.summary_key != ''"
        " AND NOT EXISTS (SELECT 1 FROM summaries x WHERE x.project_id = u.project_id AND x.key = u.summary_key"
        " AND x.model = %s) GROUP BY u.id, f.id ORDER BY u.id",
        (project, list(kinds), model),
    )
    return [
        SummaryCandidate(int(r[0]), r[1], r[2], r[3], r[4], r[5], int(r[6]), int(r[7]), r[8], r[9], float(r[10] or 0))
        for r in rows
    ]


def use_summary_model(conn: Conn, project: int, model: str) -> int:
    """Make `model` the one the project shows (inside a transaction); when another was, every unit
    with a summary by either gets its search field and vector made again. Returns those units."""
    current = summary_model(conn, project)
    if current == model:
        return 0
    conn.execute(
        "INSERT INTO meta(project_id, key, value) VALUES (%s, 'summary_model', %s)"
        " ON CONFLICT (project_id, key) DO UPDATE SET value = excluded.value",
        (project, model),
    )
    if current is None:
        return 0
    ids = [int(r[0]) for r in conn.execute(
        "SELECT DISTINCT u.id FROM units u JOIN summaries x ON x.project_id = u.project_id AND x.key = u.summary_key"
        " WHERE u.project_id = %s AND x.model IN (%s, %s)",
        (project, current, model),
    )]
    _refresh(conn, project, ids)
    return len(ids)


def store_summaries(conn: Conn, project: int, model: str, new: Sequence[NewSummary]) -> int:
    """Cache `new` summaries by `model` (the model the project shows; inside a transaction) and give
    the units of their texts the summary as a search field; their vectors are made again, as the
    text a unit is embedded as holds its summary. Returns the units that took one."""
    if not new:
        return 0
    latest = {s.key: s for s in new}  # (one statement cannot write a key twice; the last one wins, as in SQLite)
    conn.execute(
        "INSERT INTO summaries(project_id, key, model, summary, searchable, tokens_in, tokens_out, created_at)"
        " SELECT %s, k, %s, s, f, i, o, %s FROM unnest(%s::text[], %s::text[], %s::text[], %s::bigint[], %s::bigint[])"
        " AS t(k, s, f, i, o) ON CONFLICT (project_id, key, model) DO UPDATE SET summary = excluded.summary,"
        " searchable = excluded.searchable, tokens_in = excluded.tokens_in, tokens_out = excluded.tokens_out,"
        " created_at = excluded.created_at",
        (
            project, model, time.time(), list(latest), [s.summary for s in latest.values()],
            [s.searchable for s in latest.values()], [s.tokens_in for s in latest.values()],
            [s.tokens_out for s in latest.values()],
        ),
    )
    ids = [int(r[0]) for r in conn.execute(
        "SELECT id FROM units WHERE project_id = %s AND summary_key = ANY(%s)", (project, list(latest))
    )]
    _refresh(conn, project, ids)
    return len(ids)


def _refresh(conn: Conn, project: int, ids: list[int]) -> None:
    if not ids:
        return
    search.rewrite_unit_postings(conn, project, ids)  # the summary is a BM25F field
    # The text a unit is embedded as holds its summary: the next embedding pass makes its vector again.
    cursor = conn.execute(
        "UPDATE units SET embed_key = NULL WHERE project_id = %s AND embed_key IS NOT NULL AND id = ANY(%s)",
        (project, ids),
    )
    if cursor.rowcount:
        conn.execute(
            "INSERT INTO meta(project_id, key, value) VALUES (%s, 'vector_epoch', %s)"
            " ON CONFLICT (project_id, key) DO UPDATE SET value = excluded.value",
            (project, repr(time.time())),
        )


def unit_summaries(conn: Conn, project: int, ids: Sequence[int]) -> dict[int, str]:
    """The summary of each of `ids` that has one, by the model the project shows."""
    if not ids or summary_model(conn, project) is None:
        return {}
    rows = conn.execute(
        f"SELECT u.id, {SUMMARY_OF_UNIT} FROM units u WHERE u.project_id = %s AND u.id = ANY(%s) ORDER BY u.id",
        (project, list(ids)),
    )
    return {int(r[0]): r[1] for r in rows if r[1]}


def definition_summary(conn: Conn, project: int, file_id: int, qualified_name: str, start_line: int) -> str:
    """The summary of the unit of a definition (its first part), '' without one."""
    if summary_model(conn, project) is None:
        return ""
    row = conn.execute(
        f"SELECT {SUMMARY_OF_UNIT} FROM units u WHERE u.project_id = %s AND u.file_id = %s AND u.qualified_name = %s"
        " AND u.start_line <= %s AND u.end_line >= %s ORDER BY u.part, u.id LIMIT 1",
        (project, file_id, qualified_name, start_line, start_line),
    ).fetchone()
    return "" if row is None else str(row[0])


def summary_coverage(conn: Conn, project: int, kinds: Sequence[str]) -> SummaryCoverage:
    model = summary_model(conn, project)
    row = conn.execute(
        "SELECT count(*), count(*) FILTER (WHERE kind = ANY(%s)) FROM units WHERE project_id = %s",
        (list(kinds), project),
    ).fetchone()
    assert row is not None
    units, definitions = int(row[0]), int(row[1])
    if model is None:
        return SummaryCoverage(None, 0, definitions, units, 0, 0)
    counted = conn.execute(
        "SELECT (SELECT count(*) FROM units u JOIN summaries x ON x.project_id = u.project_id"
        "   AND x.key = u.summary_key AND x.model = %s WHERE u.project_id = %s),"
        " (SELECT coalesce(sum(tokens_in), 0) FROM summaries WHERE project_id = %s AND model = %s),"
        " (SELECT coalesce(sum(tokens_out), 0) FROM summaries WHERE project_id = %s AND model = %s)",
        (model, project, project, model, project, model),
    ).fetchone()
    assert counted is not None
    return SummaryCoverage(model, int(counted[0]), definitions, units, int(counted[1]), int(counted[2]))
