"""PostgreSQL's postings and vector index as the faster paths keep them: postings read and written
the quicker way still go with their units, and the HNSW index finds what the exact scan finds.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from codefathom.service import Codefathom
from codefathom.service.fingerprint import index_fingerprint
from codefathom.store import open_store
from codefathom.store.postgres import vectors

REPOS = Path(__file__).parent / "fixtures" / "repos"


def _orphans(store: object) -> tuple[int, int]:
    """(postings of the project whose unit is gone, postings of the project)."""
    conn = store._conn  # type: ignore[attr-defined]
    project = store.project_id  # type: ignore[attr-defined]
    from codefathom.store.postgres.search import stored_postings

    units = {int(r[0]) for r in conn.execute("SELECT id FROM units WHERE project_id = %s", (project,))}
    postings = stored_postings(conn, project)
    return sum(1 for unit, *_ in postings if unit not in units), len(postings)


def test_postings_go_with_their_units_on_an_edit_a_removal_and_the_projects_deletion(
    tmp_path: Path, pg_uri: str
) -> None:
    repo = tmp_path / "shop"
    shutil.copytree(REPOS / "shop", repo)
    name = f"p-{uuid.uuid4().hex[:12]}"
    with Codefathom(repo) as service:
        service._store = store = open_store(pg_uri, index_fingerprint(), project=name, root=str(repo))
        service.index()
        gone, before = _orphans(store)
        assert gone == 0 and before > 100
        edited = next(p for p in sorted(repo.rglob("*.py")) if p.stat().st_size > 200)
        edited.write_text("def only_this():\n    return 1\n")
        next(p for p in sorted(repo.rglob("*.ts"))).unlink()
        service.index()
        gone, after = _orphans(store)
        assert gone == 0 and 0 < after < before
        project = store.project_id  # type: ignore[attr-defined]
        store.delete_project()
    import psycopg

    with psycopg.connect(pg_uri) as conn:
        row = conn.execute("SELECT count(*) FROM codefathom.unit_postings WHERE project_id = %s", (project,)).fetchone()
    assert row is not None and row[0] == 0


def _unit_vectors(rng: np.random.Generator, n: int, dims: int) -> npt.NDArray[np.float32]:
    matrix = rng.normal(size=(n, dims)).astype(np.float32)
    return (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)


def _linked_units(store: Any, keys: list[str]) -> list[int]:
    """A file and a unit per key, as the index writes them, for vectors to link to."""
    conn, project = store._conn, store.project_id
    file_id = conn.execute(
        "INSERT INTO files(project_id, path, content_hash, mtime_ns, size, language, status, indexed_at)"
        " VALUES (%s, %s, '', 0, 0, 'python', 'indexed', 0) RETURNING id", (project, f"f{uuid.uuid4().hex}.py")
    ).fetchone()[0]
    ids = [int(r[0]) for r in conn.execute("SELECT nextval('units_id_seq') FROM generate_series(1, %s)", (len(keys),))]
    conn.execute(
        "INSERT INTO units(id, project_id, file_id, kind, name, name_key, qualified_name, signature, doc, language,"
        " start_line, end_line, content) SELECT t.id, %s, %s, 'function', t.k, t.k, t.k, '', '', 'python', 1, 1, ''"
        " FROM unnest(%s::bigint[], %s::text[]) AS t(id, k)",
        (project, file_id, ids, keys),
    )
    return ids


def test_hnsw_made_on_an_empty_table_finds_the_vectors_added_after_it(pg_uri: str) -> None:
    dims = 12  # a dimension count of this test's own: its index is this test's
    rng = np.random.default_rng(3)
    with open_store(pg_uri, index_fingerprint(), project=f"p-{uuid.uuid4().hex[:12]}") as store:
        conn, project = store._conn, store.project_id  # type: ignore[attr-defined]
        vectors.ensure_ann_index(conn, dims)
        matrix = _unit_vectors(rng, 300, dims)
        keys = [f"k{i}" for i in range(len(matrix))]
        ids = _linked_units(store, keys)
        with conn.transaction():
            vectors.store_vectors(
                conn, project, dict(zip(keys, matrix, strict=True)), list(zip(ids, keys, strict=True))
            )
        # At 300 rows the planner rightly prefers a scan and a sort: here the graph must answer.
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_sort = off")
        plan = "\n".join(
            str(r[0]) for r in conn.execute(
                "EXPLAIN " + vectors.nearest_sql(dims, ann=True), ("[" + ",".join(["0"] * dims) + "]", project,
                                                                    "[" + ",".join(["0"] * dims) + "]", 10, project)
            )
        )
        assert vectors.ann_index_name(dims) in plan
        for at in range(0, 300, 15):
            found = vectors.nearest(conn, project, matrix[at], 5, ann=True)
            assert found[0][0] == ids[at] and found[0][1] > 0.999
        conn.execute("RESET enable_seqscan")
        conn.execute("RESET enable_sort")
        for at in range(0, 300, 15):
            exact = vectors.nearest(conn, project, matrix[at], 5, ann=False)
            assert [uid for uid, _ in exact][:1] == [ids[at]]


def test_the_index_is_made_once_a_project_has_enough_vectors(pg_uri: str, monkeypatch: pytest.MonkeyPatch) -> None:
    dims = 6
    monkeypatch.setattr(vectors, "ANN_MIN_VECTORS", 40)
    rng = np.random.default_rng(5)
    with open_store(pg_uri, index_fingerprint(), project=f"p-{uuid.uuid4().hex[:12]}") as store:
        conn, project = store._conn, store.project_id  # type: ignore[attr-defined]
        matrix = _unit_vectors(rng, 60, dims)
        keys = [f"v{i}" for i in range(len(matrix))]
        ids = _linked_units(store, keys)
        for at in (0, 30):
            batch = slice(at, at + 30)
            with conn.transaction():
                vectors.store_vectors(
                    conn, project, dict(zip(keys[batch], matrix[batch], strict=True)),
                    list(zip(ids[batch], keys[batch], strict=True)),
                )
            assert vectors.ann_wanted(conn, project, dims) is (at == 30)
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_sort = off")
        assert vectors.nearest(conn, project, matrix[59], 1, ann=True)[0][0] == ids[59]


def test_a_large_projects_search_finds_neighbours_through_hnsw_as_the_matrix_does(
    tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A project past ANN_MIN_VECTORS is searched through HNSW and a sample of its vectors, so that no
    # server process holds them all; the answers are those of the exact scan of the whole matrix.
    # Thresholds lowered: the sample is then every vector, and a scope of under 5 sampled units is
    # read on its own (the narrow-scope path).
    pytest.importorskip("onnxruntime")
    from test_embeddings import FILES

    from codefathom.embed import DEFAULT_SPEC
    from codefathom.search import vectors as channel
    from codefathom.store.postgres import PostgresStore

    monkeypatch.setenv("CODEFATHOM_EMBEDDER", DEFAULT_SPEC)
    repo = tmp_path / "app"
    for path, text in FILES.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text.lstrip())
    name = f"p-{uuid.uuid4().hex[:12]}"
    asked: list[tuple[str, dict[str, Any]]] = [
        ("retry failed uploads", {}), ("derive a salted hash of a password", {}), ("mix two colours", {}),
        ("bill sent to a customer", {"languages": ["python"]}), ("send a chunk again", {"path_glob": "net/*"}),
    ]

    def answers(service: Codefathom) -> list[list[tuple[str, float]]]:
        found = [service.search(query, fresh=False, channel="vector", **options) for query, options in asked]
        return [[(hit.qualified_name, hit.score) for hit in response.results] for response in found]

    with Codefathom(repo) as service:
        service._store = open_store(pg_uri, index_fingerprint(), project=name, root=str(repo))
        service.index()
        assert service.embed().remaining == 0
        assert service._store.vector_index(384) is None  # 8 vectors: the matrix
        exact = answers(service)

    monkeypatch.setattr(vectors, "ANN_MIN_VECTORS", 1)
    monkeypatch.setattr(channel, "MIN_SAMPLED", 5)
    read: list[int] = []
    monkeypatch.setattr(PostgresStore, "vector_matrix", lambda *_: read.append(1))  # must not be read
    with Codefathom(repo) as service:
        service._store = store = open_store(pg_uri, index_fingerprint(), project=name, root=str(repo))
        with store.transaction():
            vectors.ensure_ann_index(store._conn, 384)  # type: ignore[attr-defined]
        index = store.vector_index(384)
        assert index is not None and len(index.sample) == 8
        through_index = answers(service)
        assert not read
        for ann, scanned in zip(through_index, exact, strict=True):
            assert [n for n, _ in ann] == [n for n, _ in scanned] and ann
            assert [s for _, s in ann] == pytest.approx([s for _, s in scanned], abs=1e-4)
        assert {n for n, _ in through_index[-1]} == {"net.transfer._resend", "net.transfer.post_chunk"}

        (repo / "net" / "retry.py").write_text("def backoff_delay(attempt):\n    return 2 ** attempt\n")
        service.index()  # a unit without a vector yet
        files = store.file_ids(["net/retry.py", "net/transfer.py"])
        new, embedded = (set(store.unit_ids_of_file(files[path])) for path in ("net/retry.py", "net/transfer.py"))
        assert new and embedded and index.lacking(new | embedded) == frozenset(new)


def _vacuums(store: Any) -> int:
    """How many times the postings' table was vacuumed by hand (autovacuum counts apart)."""
    row = store._conn.execute(
        "SELECT vacuum_count FROM pg_stat_user_tables WHERE schemaname = 'codefathom' AND relname = 'unit_postings'"
    ).fetchone()
    return int(row[0]) if row else 0


@pytest.mark.parametrize("settles", [False, True])
def test_a_sync_writing_many_units_vacuums_what_a_search_reads(
    tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch, settles: bool
) -> None:
    # Right after a bulk insert the postings' pages are not all-visible, and an index-only read
    # visits the heap for every row until a vacuum marks them (gson: a search's p50 24.4 ms right
    # after its first index, 18.8 after): a sync that wrote many units vacuums (`Store.settle`).
    from codefathom.service import freshness

    monkeypatch.setattr(freshness, "SETTLE_MIN_UNITS", 1 if settles else 10**9)
    repo = tmp_path / "shop"
    shutil.copytree(REPOS / "shop", repo)
    with Codefathom(repo) as service:
        service._store = store = open_store(pg_uri, index_fingerprint(), project=f"p-{uuid.uuid4().hex[:12]}",
                                            root=str(repo))
        before = _vacuums(store)
        report = service.index()
        assert report.added == 8
        assert _vacuums(store) == before + (1 if settles else 0)
