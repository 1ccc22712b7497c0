"""Vectors in the index: which units still need one, the vector cache by text hash, the embedder
stamp, and the matrix that vector search scans.

The matrix is read once and kept per open index; it is read again only after vectors or files
changed, which `vector_epoch()` tells cheaply.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from codefathom.store.records import PendingUnit, VectorMatrix
from codefathom.store.sqlite.reads import UNIT_RANK, UNIT_RANK_JOIN
from codefathom.store.sqlite.summaries import SUMMARY_OF_UNIT

__all__ = [
    "pending_in_files",
    "PendingUnit", "VectorMatrix", "pending_units", "units_to_embed", "cached_vectors", "store_vectors",
    "coverage", "load_matrix", "forget_vectors", "vector_epoch", "prune_vectors",
]


def pending_units(conn: sqlite3.Connection, embedded_too: bool = False) -> list[tuple[int, str, str, float]]:
    """(id, path, kind, rank) of every unit without a vector (`embedded_too`: every unit), once each;
    the caller orders them."""
    # A unit can match several definitions of its name (a property's getter and setter): one row each.
    sql = (
        f"SELECT u.id, f.path, u.kind, max({UNIT_RANK}) FROM units u JOIN files f ON f.id = u.file_id"
        f"{UNIT_RANK_JOIN}{'' if embedded_too else ' WHERE u.embed_key IS NULL'} GROUP BY u.id"
    )
    return [(int(r[0]), r[1], r[2], float(r[3] or 0.0)) for r in conn.execute(sql)]


def pending_in_files(conn: sqlite3.Connection, file_ids: Sequence[int]) -> list[int]:
    """Units of these files without a vector: what a sync just wrote."""
    sql = (
        "SELECT u.id FROM units u WHERE u.file_id IN (SELECT value FROM json_each(?)) AND u.embed_key IS NULL"
        " ORDER BY u.id"
    )
    return [int(r[0]) for r in conn.execute(sql, (json.dumps(list(file_ids)),))]


def units_to_embed(conn: sqlite3.Connection, ids: Sequence[int]) -> list[PendingUnit]:
    """The fields the embedding text is made of, for those of `ids` that still exist and need it."""
    sql = (
        f"SELECT u.id, f.path, u.kind, u.qualified_name, u.signature, u.doc, u.content, {SUMMARY_OF_UNIT}"
        " FROM units u JOIN files f ON f.id = u.file_id"
        " WHERE u.id IN (SELECT value FROM json_each(?)) AND u.embed_key IS NULL"
    )
    found = {int(r[0]): PendingUnit(int(r[0]), *r[1:]) for r in conn.execute(sql, (json.dumps(list(ids)),))}
    return [found[i] for i in ids if i in found]


def cached_vectors(conn: sqlite3.Connection, keys: Iterable[str]) -> set[str]:
    """Those of `keys` the cache already holds."""
    wanted = sorted(set(keys))
    if not wanted:
        return set()
    rows = conn.execute(
        "SELECT key FROM embeddings WHERE key IN (SELECT value FROM json_each(?))", (json.dumps(wanted),)
    )
    return {r[0] for r in rows}


def store_vectors(
    conn: sqlite3.Connection, new: dict[str, npt.NDArray[np.float32]], links: Sequence[tuple[int, str]]
) -> None:
    """Add vectors to the cache and link units to theirs (call inside a transaction)."""
    now = time.time()
    conn.executemany(
        "INSERT OR REPLACE INTO embeddings(key, vector, used_at) VALUES (?, ?, ?)",
        [(key, np.asarray(vec, dtype="<f4").tobytes(), now) for key, vec in new.items()],
    )
    conn.executemany("UPDATE units SET embed_key = ? WHERE id = ?", [(key, uid) for uid, key in links])
    conn.executemany("UPDATE embeddings SET used_at = ? WHERE key = ?", [(now, key) for _, key in links])
    _bump_epoch(conn)


def coverage(conn: sqlite3.Connection) -> tuple[int, int]:
    """(units with a vector, all units)."""
    total = conn.execute("SELECT count(*) FROM units").fetchone()[0]
    pending = conn.execute("SELECT count(*) FROM units WHERE embed_key IS NULL").fetchone()[0]
    return total - pending, total


def vector_epoch(conn: sqlite3.Connection) -> str:
    """Changes whenever vectors were added or files re-indexed, so a loaded matrix may be stale."""
    rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('vector_epoch', 'last_change')").fetchall())
    return f"{rows.get('vector_epoch', '')}/{rows.get('last_change', '')}"


def load_matrix(conn: sqlite3.Connection, dims: int) -> VectorMatrix:
    epoch = vector_epoch(conn)
    rows = conn.execute(
        "SELECT u.id, u.file_id, u.kind, u.language, e.vector FROM units u JOIN embeddings e ON e.key = u.embed_key"
        " ORDER BY u.id"
    ).fetchall()
    rows = [r for r in rows if len(r[4]) == dims * 4]  # a vector of another size is never compared
    vectors = np.frombuffer(b"".join(r[4] for r in rows), dtype="<f4").reshape(len(rows), dims)
    return VectorMatrix(
        unit_ids=np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
        file_ids=np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)),
        kinds=np.array([r[2] for r in rows], dtype=np.str_),
        languages=np.array([r[3] for r in rows], dtype=np.str_),
        vectors=np.ascontiguousarray(vectors, dtype=np.float32),
        epoch=epoch,
    )


def forget_vectors(conn: sqlite3.Connection) -> None:
    """Drop every vector and the stamp: the next embedding pass starts over (another embedder)."""
    conn.execute("UPDATE units SET embed_key = NULL WHERE embed_key IS NOT NULL")
    conn.execute("DELETE FROM embeddings")
    conn.execute("DELETE FROM meta WHERE key IN ('embedder', 'embedder_dims')")
    _bump_epoch(conn)


def prune_vectors(conn: sqlite3.Connection, keep_unlinked: int) -> int:
    """Delete the oldest vectors no unit links to, keeping `keep_unlinked` of them for a branch switch back."""
    cursor = conn.execute(
        "DELETE FROM embeddings WHERE key IN (SELECT key FROM embeddings"
        " WHERE key NOT IN (SELECT embed_key FROM units WHERE embed_key IS NOT NULL)"
        " ORDER BY used_at DESC LIMIT -1 OFFSET ?)",
        (keep_unlinked,),
    )
    return cursor.rowcount


def _bump_epoch(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('vector_epoch', ?)", (repr(time.time()),))
