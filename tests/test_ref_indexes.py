"""A large first index writes and binds its references without their secondary indexes and builds
them at the end: the index it leaves is the one a first index with them gives, indexes included,
and one stopped before the end has them back at the next sync, before anything reads by them."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

import codefathom.service.indexer as indexer
from codefathom.service import Codefathom
from codefathom.store.sqlite.graph import REF_INDEXES

REPOS = Path(__file__).resolve().parent / "fixtures" / "repos"


def _indexes(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'refs'")
        return {name: sql for name, sql in rows if sql is not None}


def _bindings(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT f.path, r.line, r.col, r.name, t.qualified_name, r.label, r.confidence, r.candidates"
            " FROM refs r JOIN files f ON f.id = r.file_id LEFT JOIN symbols t ON t.id = r.target_id"
            " ORDER BY 1, 2, 3, 4"
        ).fetchall()


@pytest.mark.parametrize("fixture", ["bindings", "bindings-java", "bindings-go"])
def test_a_first_index_without_the_reference_indexes_ends_as_one_with_them(
    fixture: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / fixture, repo)
    monkeypatch.setenv("CODEFATHOM_WORKERS", "0")
    with Codefathom(repo, index_dir=tmp_path / "kept") as service:
        service.index()
        kept = service.digest()
    dropped: list[bool] = []
    real_rebind = indexer.rebind

    def rebind(*args: object, **kwargs: object) -> int:
        dropped.append(not _indexes(tmp_path / "deferred" / "index.db"))
        return real_rebind(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(indexer, "DEFER_INDEXES_MIN_FILES", 1)
    monkeypatch.setattr(indexer, "rebind", rebind)
    with Codefathom(repo, index_dir=tmp_path / "deferred") as service:
        service.index()
        assert service.digest() == kept
    assert dropped == [True]  # the references were bound without them
    assert _indexes(tmp_path / "deferred" / "index.db") == _indexes(tmp_path / "kept" / "index.db")
    assert set(_indexes(tmp_path / "kept" / "index.db")) == set(REF_INDEXES)
    assert _bindings(tmp_path / "deferred" / "index.db") == _bindings(tmp_path / "kept" / "index.db")


def test_a_first_index_stopped_before_building_them_has_them_back_at_the_next_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "bindings", repo)
    monkeypatch.setenv("CODEFATHOM_WORKERS", "0")
    with Codefathom(repo, index_dir=tmp_path / "clean") as service:
        service.index()
        clean = service.digest()

    def stopped(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(indexer, "DEFER_INDEXES_MIN_FILES", 1)
    with monkeypatch.context() as patch:
        patch.setattr(indexer, "rebind", stopped)
        with Codefathom(repo, index_dir=tmp_path / "stopped") as service, pytest.raises(KeyboardInterrupt):
            service.index()
    assert _indexes(tmp_path / "stopped" / "index.db") == {}
    seen: list[dict[str, str]] = []
    real_before = indexer.before_writes

    def before_writes(*args: object, **kwargs: object) -> None:
        seen.append(_indexes(tmp_path / "stopped" / "index.db"))  # before anything is written or deleted
        real_before(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(indexer, "before_writes", before_writes)
    (repo / "app" / "helpers.py").write_text((repo / "app" / "helpers.py").read_text() + "\n\nLATER = 1\n")
    with Codefathom(repo, index_dir=tmp_path / "stopped") as service:
        service.index()
        assert service.digest() != clean  # (a file changed since)
    assert seen and set(seen[0]) == set(REF_INDEXES)
    assert _indexes(tmp_path / "stopped" / "index.db") == _indexes(tmp_path / "clean" / "index.db")
    with Codefathom(repo, index_dir=tmp_path / "again") as service:
        service.index()
        again = service.digest()
    with Codefathom(repo, index_dir=tmp_path / "stopped") as service:
        assert service.digest() == again
