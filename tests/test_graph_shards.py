"""Binding shared with a helper process or a forked child: the graph is the one a single binder
gives, and a helper or child that dies leaves its share to the caller."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

import pytest

import codefathom.graph as graph
import codefathom.service.indexer as indexer
from codefathom.service import Codefathom
from codefathom.service.workers import WorkerPool
from codefathom.store.sqlite.graph import SQLiteGraphLookup

TESTS = Path(__file__).resolve().parent
REPOS = TESTS / "fixtures" / "repos"


def _graph_dump(db: Path) -> tuple[list[tuple[object, ...]], ...]:
    with sqlite3.connect(db) as conn:
        refs = conn.execute(
            "SELECT f.path, r.line, r.col, r.name, r.kind, r.receiver, t.qualified_name, r.label, r.confidence,"
            " r.candidates FROM refs r JOIN files f ON f.id = r.file_id LEFT JOIN symbols t ON t.id = r.target_id"
            " ORDER BY f.path, r.line, r.col, r.name"
        ).fetchall()
        ranks = conn.execute(
            "SELECT f.path, s.qualified_name, s.rank FROM symbols s JOIN files f ON f.id = s.file_id"
            " ORDER BY f.path, s.qualified_name, s.start_line"
        ).fetchall()
        files = conn.execute("SELECT path, rank FROM files ORDER BY path").fetchall()
    return refs, ranks, files


@pytest.mark.parametrize("fixture", ["bindings", "bindings-java", "bindings-rust", "bindings-go", "bindings-ts"])
def test_a_graph_bound_with_a_helper_is_the_one_bound_alone(
    fixture: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / fixture, repo)
    dumps = []
    for helped in (False, True):
        monkeypatch.setenv("CODEFATHOM_WORKERS", "2" if helped else "0")
        # Even these few files are parsed by workers, and their references shared with one.
        monkeypatch.setattr(indexer, "PARALLEL_MIN_FILES", 1)
        monkeypatch.setattr(indexer, "HELPER_MIN_CPUS", 1)
        monkeypatch.setattr(graph, "SHARD_MIN_REFS", 1)
        monkeypatch.setattr(graph, "CHUNK_REFS", 4)
        index_dir = tmp_path / f"index-{helped}"
        with Codefathom(repo, index_dir=index_dir) as service:
            report = service.index()
        assert report.refs_bound > 0
        dumps.append(_graph_dump(index_dir / "index.db"))
    assert dumps[0] == dumps[1]
    assert any(label == "exact" for *_, label, _, _ in dumps[0][0])


def dies_in_a_worker(job: int) -> int:
    if str(os.getpid()) != os.environ["CODEFATHOM_TEST_PARENT"]:
        os._exit(3)  # a crash in the helper, not in the caller
    return job * 10


def test_a_helper_that_dies_leaves_its_job_to_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    assert any(Path(p or ".").resolve() == TESTS for p in sys.path)  # the worker imports this module
    monkeypatch.setenv("CODEFATHOM_TEST_PARENT", str(os.getpid()))
    with WorkerPool(1) as pool:
        helper = pool.helper()
        first, second = helper.submit(dies_in_a_worker, 4), helper.submit(dies_in_a_worker, 5)
        assert (first.result(), second.result()) == (40, 50)
        assert not pool.alive
        assert pool.helper().submit(dies_in_a_worker, 6).result() == 60  # no worker left: done here


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a child is forked only where the system can")
@pytest.mark.parametrize("child", ["binds", "dies", "hangs"])
def test_a_graph_bound_with_a_forked_child_is_the_one_bound_alone(
    child: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "bindings-java", repo)
    forked: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid == 0 and child == "dies":
            os._exit(3)  # a crash in the child: its half is bound by the caller
        if pid == 0 and child == "hangs":
            time.sleep(60)  # stuck: the caller stops waiting, kills it and binds its half
            os._exit(0)
        forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setenv("CODEFATHOM_WORKERS", "0")
    monkeypatch.setattr(graph, "FORK_MIN_REFS", 1)
    monkeypatch.setattr(graph, "FORK_PATIENCE", 0.5)
    dumps = []
    for cpus in (1, 2):  # one CPU: no child
        monkeypatch.setattr(indexer, "usable_cpus", lambda cpus=cpus: cpus)
        index_dir = tmp_path / f"index-{cpus}"
        with Codefathom(repo, index_dir=index_dir) as service:
            assert service.index().refs_bound > 0
        dumps.append(_graph_dump(index_dir / "index.db"))
    assert len(forked) == 1  # the second index only
    assert dumps[0] == dumps[1]


@pytest.mark.parametrize(
    "fixture", ["bindings", "bindings-java", "bindings-rust", "bindings-go", "bindings-ts", "bindings-cpp"]
)
def test_a_first_index_binds_as_a_full_reindex_does(fixture: str, tmp_path: Path) -> None:
    # A first index binds from the rows it wrote, taken as they were written; a full re-index of an
    # index that has rows reads them back from the database. Same rows, same graph.
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / fixture, repo)
    taken: list[int] = []
    real_take = SQLiteGraphLookup.take

    def take(self: SQLiteGraphLookup, file_id: int, *args: object) -> None:
        if self.following:
            taken.append(file_id)
        real_take(self, file_id, *args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch, Codefathom(repo, index_dir=tmp_path / "index") as service:
        patch.setattr(SQLiteGraphLookup, "take", take)
        first = service.index()
        assert first.refs_bound > 0 and len(taken) == first.added  # every file's rows taken
        dumps = [_graph_dump(tmp_path / "index" / "index.db")]
        taken.clear()
        again = service.index(full=True)
        assert again.refs_bound == first.refs_bound and not taken
        dumps.append(_graph_dump(tmp_path / "index" / "index.db"))
    assert dumps[0] == dumps[1]
    assert any(label == "exact" for *_, label, _, _ in dumps[0][0])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="a child is forked only where the system can")
@pytest.mark.parametrize("fixture", ["bindings", "bindings-java", "bindings-ts"])
@pytest.mark.parametrize("resync", ["full", "edits"])
@pytest.mark.parametrize("binder", ["forked", "helper"])
def test_a_rebinding_sync_binds_as_a_first_index_does(
    fixture: str, resync: str, binder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A forked child, or from more CPUs a parse worker, reads the graph through a connection of its
    # own, which sees only what is committed: the import resolutions this run stored in the still
    # open transaction must reach it another way.
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / fixture, repo)
    forked: list[int] = []
    if binder == "forked":
        monkeypatch.setenv("CODEFATHOM_WORKERS", "0")
        monkeypatch.setattr(graph, "FORK_MIN_REFS", 1)
        monkeypatch.setattr(indexer, "usable_cpus", lambda: 2)
        real_fork = os.fork

        def fork() -> int:
            pid = real_fork()
            if pid:
                forked.append(pid)
            return pid

        monkeypatch.setattr(os, "fork", fork)
    else:
        monkeypatch.setenv("CODEFATHOM_WORKERS", "2")
        monkeypatch.setattr(indexer, "PARALLEL_MIN_FILES", 1)
        monkeypatch.setattr(indexer, "HELPER_MIN_CPUS", 1)
        monkeypatch.setattr(graph, "SHARD_MIN_REFS", 1)
        monkeypatch.setattr(graph, "CHUNK_REFS", 4)
    graph_parts = ("symbols", "refs", "imports", "hints", "ranks")
    with Codefathom(repo, index_dir=tmp_path / "resynced") as service:
        service.index()
        forked.clear()
        if resync == "full":
            report = service.index(full=True)
        else:  # every file edited: each one's imports are resolved again in the binding transaction
            for path in sorted(p for p in repo.rglob("*") if p.is_file()):
                path.write_bytes(path.read_bytes() + b"\n")
            report = service.index()
        assert report.refs_bound > 0 and (binder != "forked" or forked)  # the child bound its share
        resynced = service.digest(graph_parts)
    monkeypatch.setenv("CODEFATHOM_WORKERS", "0")
    with Codefathom(repo, index_dir=tmp_path / "clean") as service:
        service.index()
        assert service.digest(graph_parts) == resynced
