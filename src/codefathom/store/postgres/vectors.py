"""Vectors of one project in PostgreSQL (pgvector): which units still need one, the vector cache by text
hash, and the matrix vector search scans, as store/sqlite/vectors.py keeps them.

Vectors travel as pgvector's text on the way in (each float32 written in full, so it parses back to
the same bits) and as its binary form on the way out (`vector_send`: two int16, then big-endian
float32), so the matrix holds exactly the values SQLite's blobs hold and ranks alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import numpy.typing as npt

from codefathom.store.postgres.db import Conn
from codefathom.store.postgres.summaries import SUMMARY_OF_UNIT, UNIT_RANK, UNIT_RANK_JOIN
from codefathom.store.records import PendingUnit, Scope, VectorMatrix

Reading = Callable[[], AbstractContextManager[None]]  # the store's lock (and error mapping) around a read
_ALL = Scope()

__all__ = [
    "pending_units", "pending_in_files", "units_to_embed", "cached_vectors", "store_vectors", "coverage",
    "vector_epoch", "load_matrix", "forget_vectors", "prune_vectors", "ANN_MIN_VECTORS", "EF_SEARCH",
    "ann_index_name", "ensure_ann_index", "ann_wanted", "nearest", "nearest_sql", "PostgresVectorIndex",
    "SAMPLE_UNITS",
]

_SEND_HEADER = 4  # vector_send's dimension count and its unused field, before the values


def pending_units(conn: Conn, project: int) -> list[tuple[int, str, str, float]]:
    """(id, path, kind, rank) of every unit without a vector, once each; the caller orders them."""
    rows = conn.execute(
        f"SELECT u.id, f.path, u.kind, max({UNIT_RANK}) FROM units u JOIN files f ON f.id = u.file_id{UNIT_RANK_JOIN}"
        " WHERE u.project_id = %s AND u.embed_key IS NULL GROUP BY u.id, f.id ORDER BY u.id",
        (project,),
    )
    return [(int(r[0]), r[1], r[2], float(r[3] or 0.0)) for r in rows]


def pending_in_files(conn: Conn, project: int, file_ids: Sequence[int]) -> list[int]:
    """Units of these files without a vector: what a sync just wrote."""
    rows = conn.execute(
        "SELECT id FROM units WHERE project_id = %s AND file_id = ANY(%s) AND embed_key IS NULL ORDER BY id",
        (project, list(file_ids)),
    )
    return [int(r[0]) for r in rows]


def units_to_embed(conn: Conn, project: int, ids: Sequence[int]) -> list[PendingUnit]:
    """The fields the embedding text is made of, for those of `ids` that still exist and need it."""
    rows = conn.execute(
        f"SELECT u.id, f.path, u.kind, u.qualified_name, u.signature, u.doc, u.content, {SUMMARY_OF_UNIT}"
        " FROM units u JOIN files f ON f.id = u.file_id"
        " WHERE u.project_id = %s AND u.id = ANY(%s) AND u.embed_key IS NULL",
        (project, list(ids)),
    )
    found = {int(r[0]): PendingUnit(int(r[0]), r[1], r[2], r[3], r[4], r[5], r[6], r[7]) for r in rows}
    return [found[i] for i in ids if i in found]


def cached_vectors(conn: Conn, project: int, keys: Iterable[str]) -> set[str]:
    """Those of `keys` the project's cache already holds."""
    wanted = sorted(set(keys))
    if not wanted:
        return set()
    rows = conn.execute("SELECT key FROM embeddings WHERE project_id = %s AND key = ANY(%s)", (project, wanted))
    return {r[0] for r in rows}


def _text(vector: npt.NDArray[Any]) -> str:
    # A float32 widened to a float64 prints in few digits that still parse back to the same float32.
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).astype(np.float64).tolist())) + "]"


def store_vectors(
    conn: Conn, project: int, new: dict[str, npt.NDArray[np.float32]], links: Sequence[tuple[int, str]]
) -> None:
    """Add vectors to the cache and link units to theirs (inside a transaction)."""
    now = time.time()
    if new:
        conn.execute(
            "INSERT INTO embeddings(project_id, key, vector, used_at)"
            " SELECT %s, k, v::vector, %s FROM unnest(%s::text[], %s::text[]) AS t(k, v)"
            " ON CONFLICT (project_id, key) DO UPDATE SET vector = excluded.vector, used_at = excluded.used_at",
            (project, now, list(new), [_text(vector) for vector in new.values()]),
        )
    if links:
        conn.execute(
            "UPDATE units u SET embed_key = t.k FROM unnest(%s::bigint[], %s::text[]) AS t(id, k)"
            " WHERE u.id = t.id AND u.project_id = %s",
            ([uid for uid, _ in links], [key for _, key in links], project),
        )
        conn.execute(
            "UPDATE embeddings SET used_at = %s WHERE project_id = %s AND key = ANY(%s)",
            (now, project, sorted({key for _, key in links})),
        )
    _bump_epoch(conn, project)
    for dims in {len(vector) for vector in new.values()}:
        # Once per dimension count and database: the index serves every project's vectors of it.
        if not _indexed(conn, dims) and _count(conn, project) >= ANN_MIN_VECTORS:
            ensure_ann_index(conn, dims)


def coverage(conn: Conn, project: int) -> tuple[int, int]:
    """(units with a vector, all units)."""
    row = conn.execute(
        "SELECT count(*) FILTER (WHERE embed_key IS NOT NULL), count(*) FROM units WHERE project_id = %s", (project,)
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def vector_epoch(conn: Conn, project: int) -> str:
    """Changes whenever vectors were added or files re-indexed, so a loaded matrix may be stale."""
    rows = {str(key): str(value) for key, value in conn.execute(
        "SELECT key, value FROM meta WHERE project_id = %s AND key IN ('vector_epoch', 'last_change')", (project,)
    )}
    return f"{rows.get('vector_epoch', '')}/{rows.get('last_change', '')}"


def load_matrix(conn: Conn, project: int, dims: int) -> VectorMatrix:
    """Every unit's vector of `dims` dimensions (one of another size is never compared), by unit id."""
    return _load(conn, project, dims)


def _load(conn: Conn, project: int, dims: int, *, stride: int = 1, scope: Scope = _ALL) -> VectorMatrix:
    """The vectors of `dims` dimensions of the units of `scope`, by unit id; every `stride`-th only."""
    epoch = vector_epoch(conn, project)
    scoped, params = _scope_sql("u", scope)
    rows = conn.execute(
        "SELECT id, file_id, kind, language, vector_send(vector) FROM (SELECT u.id, u.file_id, u.kind, u.language,"
        " e.vector, row_number() OVER (ORDER BY u.id) AS n FROM units u"
        " JOIN embeddings e ON e.project_id = u.project_id AND e.key = u.embed_key"
        f" WHERE u.project_id = %s AND vector_dims(e.vector) = %s{scoped}) AS s WHERE (n - 1) %% %s = 0 ORDER BY id",
        (project, dims, *params, int(stride)),
    ).fetchall()
    values = b"".join(bytes(r[4])[_SEND_HEADER:] for r in rows)
    vectors = np.frombuffer(values, dtype=">f4").reshape(len(rows), dims)
    return VectorMatrix(
        unit_ids=np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
        file_ids=np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)),
        kinds=np.array([r[2] for r in rows], dtype=np.str_),
        languages=np.array([r[3] for r in rows], dtype=np.str_),
        vectors=np.ascontiguousarray(vectors, dtype=np.float32),
        epoch=epoch,
    )


def forget_vectors(conn: Conn, project: int) -> None:
    """Drop every vector of the project and the stamp: the next embedding pass starts over."""
    conn.execute("UPDATE units SET embed_key = NULL WHERE project_id = %s AND embed_key IS NOT NULL", (project,))
    conn.execute("DELETE FROM embeddings WHERE project_id = %s", (project,))
    conn.execute("DELETE FROM meta WHERE project_id = %s AND key IN ('embedder', 'embedder_dims')", (project,))
    _bump_epoch(conn, project)


def prune_vectors(conn: Conn, project: int, keep_unlinked: int) -> int:
    """Delete the oldest vectors no unit links to, keeping `keep_unlinked` of them for a branch switch back."""
    # Ties in used_at (a batch shares one) go by key, where SQLite leaves them to its plan.
    cursor = conn.execute(
        "DELETE FROM embeddings WHERE project_id = %s AND key IN (SELECT e.key FROM embeddings e"
        " WHERE e.project_id = %s AND NOT EXISTS (SELECT 1 FROM units u WHERE u.project_id = e.project_id"
        " AND u.embed_key = e.key) ORDER BY e.used_at DESC, e.key OFFSET %s)",
        (project, project, keep_unlinked),
    )
    return cursor.rowcount


def _bump_epoch(conn: Conn, project: int) -> None:
    conn.execute(
        "INSERT INTO meta(project_id, key, value) VALUES (%s, 'vector_epoch', %s)"
        " ON CONFLICT (project_id, key) DO UPDATE SET value = excluded.value",
        (project, repr(time.time())),
    )


# -- the nearest vectors: an exact scan, or HNSW for a large project ------------------------------

# Measured by bench/pg_vectors.py (docs/benchmarks.md): at 4,000 vectors the exact scan took
# 1.3 times HNSW's time, at 15,375 twice it; below this many a project keeps the exact scan, which
# is exact, and above it HNSW's time grows far slower than the scan's.
ANN_MIN_VECTORS = 10_000
# The sample a search over HNSW measures a query's spread of cosines on: every n-th unit, about this
# many (1.5 MB of float32 at 384 dimensions, against the matrix's 150 MB at 100,000 units).
SAMPLE_UNITS = 4_000
# HNSW's candidate list at search time: recall@10 against the exact scan on 15,375 real embeddings
# was 0.94 at 10, 0.98 at 40, 0.995 at 64 and 100 (pgvector's default is 40).
EF_SEARCH = 100


def ann_index_name(dims: int) -> str:
    return f"embeddings_hnsw_{int(dims)}"


def ensure_ann_index(conn: Conn, dims: int) -> None:
    """The HNSW index of the vectors of `dims` dimensions, made when missing. An expression index
    per dimension count, as HNSW needs one; unlike ivfflat's lists, its graph takes vectors added
    after it is built as well as those before, so it may be made on an empty or filling table."""
    dims = int(dims)
    conn.execute(
        f"CREATE INDEX IF NOT EXISTS {ann_index_name(dims)} ON embeddings USING hnsw"
        f" ((vector::vector({dims})) vector_cosine_ops) WHERE vector_dims(vector) = {dims}"
    )


def _indexed(conn: Conn, dims: int) -> bool:
    row = conn.execute("SELECT to_regclass(%s)", (ann_index_name(dims),)).fetchone()
    return bool(row and row[0])


def _count(conn: Conn, project: int) -> int:
    # Vectors of any size: a project has one embedder's at a time (forget_vectors on a change).
    row = conn.execute("SELECT count(*) FROM embeddings WHERE project_id = %s", (project,)).fetchone()
    return int(row[0]) if row else 0


def ann_wanted(conn: Conn, project: int, dims: int) -> bool:
    """Whether `nearest` should go through HNSW for this project: its index exists and the project
    has ANN_MIN_VECTORS vectors. A count of the project's vectors: worth keeping with the vector
    epoch rather than asking before every query."""
    return _indexed(conn, dims) and _count(conn, project) >= ANN_MIN_VECTORS


def nearest_sql(dims: int, *, ann: bool, scope: Scope = _ALL) -> str:
    """`nearest`'s statement: (query, project, [*scope,] query, k, project, *scope), the scope's
    parameters as `_scope_sql` lists them (inside only for the exact scan).

    The exact scan orders by `vector <=> query`, which no index serves, over the vectors units of
    the scope link to. The ANN read orders by the index's own expression and takes the first k rows
    straight from HNSW, so that the walk stops there (a join inside would have the planner drain
    the index and sort); units and the scope are joined to those k after. The dimension count is
    written in, not a parameter: the planner must see that the query implies the partial index's
    WHERE, which a generic plan of a prepared statement could not."""
    dims = int(dims)
    order = f"e.vector::vector({dims}) <=> %s::vector({dims})" if ann else "e.vector <=> %s::vector"
    linked = "" if ann else (
        " AND EXISTS (SELECT 1 FROM units x WHERE x.project_id = e.project_id AND x.embed_key = e.key"
        f"{_scope_sql('x', scope)[0]})"
    )
    # The units of each of those k vectors by the index on embed_key (OFFSET 0 keeps the planner from
    # flattening the lateral read into a hash join over every unit of the project; the keys compared
    # in units' collation, the index's, not the cache's "C").
    return (
        f"SELECT u.id, n.distance FROM (SELECT e.key, {order} AS distance FROM embeddings e"
        f" WHERE e.project_id = %s AND vector_dims(e.vector) = {dims}{linked}"
        f" ORDER BY {order} LIMIT %s) AS n CROSS JOIN LATERAL (SELECT u.id FROM units u"
        f" WHERE u.project_id = %s AND u.embed_key = n.key COLLATE \"default\"{_scope_sql('u', scope)[0]}"
        " OFFSET 0) AS u"
    )


def _scope_sql(alias: str, scope: Scope) -> tuple[str, list[object]]:
    """The conditions keeping the units `alias` to `scope`, and their parameters."""
    sql, params = "", list[object]()
    for column, allowed in (("file_id", scope.file_ids), ("language", scope.languages), ("kind", scope.kinds)):
        if allowed is not None:
            sql += f" AND {alias}.{column} = ANY(%s)"
            params.append(sorted(allowed))
    return sql, params


# Through HNSW, the nearest vectors are read this many times k at first (some are linked to no unit,
# or to units outside the scope), four times as many again while too few units come of them.
ANN_OVERFETCH = 2
ANN_MAX_FETCH = 4_000


def nearest(
    conn: Conn, project: int, query: npt.NDArray[Any], k: int, *, ann: bool, ef_search: int = EF_SEARCH,
    scope: Scope = _ALL,
) -> list[tuple[int, float]]:
    """The units of `scope` whose vectors are nearest `query`, by cosine, best first: (unit id,
    cosine), at least k of them when the scope has k with a vector (through HNSW: as many as its
    nearest ANN_MAX_FETCH vectors give). `ann`: through the HNSW index (see `ann_wanted`), else an
    exact scan (see `nearest_sql`). Rows the project filter drops are made up by pgvector's
    iterative scan."""
    dims = int(query.shape[0])
    text = _text(query)
    scoped = _scope_sql("u", scope)[1]
    sql = nearest_sql(dims, ann=ann, scope=scope)
    if not ann:
        rows = conn.execute(sql, (text, project, *scoped, text, k, project, *scoped)).fetchall()
        return _best_first(rows)
    conn.execute(f"SET hnsw.ef_search = {min(1000, max(int(ef_search), int(k)))}")
    conn.execute("SET hnsw.iterative_scan = relaxed_order")
    fetch = max(1, ANN_OVERFETCH * int(k))
    while True:
        found = _best_first(conn.execute(sql, (text, project, text, fetch, project, *scoped)).fetchall())
        if len(found) >= k or fetch >= ANN_MAX_FETCH:
            return found
        fetch = min(ANN_MAX_FETCH, fetch * 4)


def _best_first(rows: Iterable[tuple[Any, Any]]) -> list[tuple[int, float]]:
    # (relaxed_order: HNSW gives rows nearly in order; they are sorted here)
    return sorted(((int(uid), 1.0 - float(distance)) for uid, distance in rows), key=lambda r: (-r[1], r[0]))


class PostgresVectorIndex:
    """A large project's vectors as the search reads them from PostgreSQL: neighbours through HNSW,
    and a sample of about SAMPLE_UNITS vectors (every n-th unit by id) instead of the whole matrix."""

    def __init__(self, conn: Conn, project: int, dims: int, reading: Reading) -> None:
        self._conn, self._project, self._dims, self._reading = conn, project, int(dims), reading
        with reading():
            self.epoch = vector_epoch(conn, project)
            self._sample = _load(conn, project, dims, stride=max(1, coverage(conn, project)[0] // SAMPLE_UNITS))

    @property
    def sample(self) -> VectorMatrix:
        return self._sample

    def nearest(self, query: npt.NDArray[np.float32], limit: int, scope: Scope) -> list[tuple[int, float]]:
        with self._reading():
            return nearest(self._conn, self._project, query, limit, ann=True, scope=scope)

    def scoped(self, scope: Scope) -> VectorMatrix:
        with self._reading():
            return _load(self._conn, self._project, self._dims, scope=scope)

    def lacking(self, unit_ids: Iterable[int]) -> frozenset[int]:
        with self._reading():
            rows = self._conn.execute(
                "SELECT u.id FROM units u LEFT JOIN embeddings e ON e.project_id = u.project_id AND e.key = u.embed_key"
                " WHERE u.project_id = %s AND u.id = ANY(%s) AND (e.key IS NULL OR vector_dims(e.vector) <> %s)",
                (self._project, sorted(unit_ids), self._dims),
            )
            return frozenset(int(r[0]) for r in rows)
