"""A whole project's references are bound a batch at a time and a first index holds only so many of
them: what binding holds at once is capped, and the index is the one an unbatched binding gives."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import exact_bindings

import codefathom.graph as graph
import codefathom.service.indexer as indexer
import codefathom.store.graph_cache as graph_cache
import codefathom.store.sqlite.graph as store_graph
from codefathom.graphsource import BindingRow
from codefathom.service import Codefathom

REPOS = Path(__file__).resolve().parent / "fixtures" / "repos"
FIXTURES = sorted(p.name for p in REPOS.iterdir() if p.name.startswith("bindings"))
BATCH, HELD, HINT_FILES = 5, 7, 2  # far below what any fixture has



@pytest.mark.parametrize("shared", ["alone", "forked", "helped"])
@pytest.mark.parametrize("fixture", FIXTURES)
def test_bound_in_capped_batches_as_in_one(
    fixture: str, shared: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shared == "forked" and not hasattr(os, "fork"):
        pytest.skip("a child is forked only where the system can")
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / fixture, repo)
    monkeypatch.setenv("CODEFATHOM_WORKERS", "2" if shared == "helped" else "0")
    monkeypatch.setattr(indexer, "usable_cpus", lambda: 2 if shared == "forked" else 1)
    monkeypatch.setattr(graph, "FORK_MIN_REFS", 1)
    if shared == "helped":  # a parse worker binds runs of whole files (CHUNK_REFS) from the last back
        monkeypatch.setattr(indexer, "PARALLEL_MIN_FILES", 1)
        monkeypatch.setattr(indexer, "HELPER_MIN_CPUS", 1)
        monkeypatch.setattr(graph, "SHARD_MIN_REFS", 1)
        monkeypatch.setattr(graph, "CHUNK_REFS", BATCH)
    with monkeypatch.context() as patch:  # the reference: every reference held and bound at once
        patch.setattr(graph, "BIND_BATCH", 10**9)
        patch.setattr(graph_cache, "HELD_REFS", 10**9)
        patch.setattr(graph_cache, "HELD_HINTS", 10**9)
        with Codefathom(repo, index_dir=tmp_path / "whole") as service:
            service.index()
            whole = service.digest()
        exact = exact_bindings(tmp_path / "whole" / "index.db")

    monkeypatch.setattr(graph, "BIND_BATCH", BATCH)
    monkeypatch.setattr(graph_cache, "HELD_REFS", HELD)
    monkeypatch.setattr(graph_cache, "HELD_HINTS", HELD)
    monkeypatch.setattr(graph_cache, "HINT_FILES", HINT_FILES)
    saved: list[int] = []  # the size of every batch of bindings saved (this process's and the child's)
    cap = BATCH if shared != "helped" else 10**9  # (a helper's run of whole files is saved at once)
    held: list[int] = []  # how many references and hints the lookup held after each file was taken
    hint_files: list[int] = []  # how many files' hints it held after each was read, once let go
    real_save, real_take = store_graph.SQLiteGraphLookup.save_bindings, store_graph.SQLiteGraphLookup.take
    real_hints = store_graph.SQLiteGraphLookup.hint_table

    def save(self: store_graph.SQLiteGraphLookup, rows: list[BindingRow]) -> None:
        saved.append(len(rows))
        real_save(self, rows)

    def take(self: store_graph.SQLiteGraphLookup, *args: object) -> None:
        real_take(self, *args)  # type: ignore[arg-type]
        held.append(len(self.written_refs or ()))
        held.append(sum(len(rows) for table in self._hints.values() for rows in table.values()))

    def hint_table(self: store_graph.SQLiteGraphLookup, file_id: int) -> object:
        table = real_hints(self, file_id)
        if self._hints_held < 0:  # let go (see HELD_HINTS): read by file, a few files' at a time
            hint_files.append(len(self._hints))
        return table

    monkeypatch.setattr(store_graph.SQLiteGraphLookup, "save_bindings", save)
    monkeypatch.setattr(store_graph.SQLiteGraphLookup, "take", take)
    monkeypatch.setattr(store_graph.SQLiteGraphLookup, "hint_table", hint_table)
    with Codefathom(repo, index_dir=tmp_path / "batched") as service:
        bound = service.index().refs_bound
        assert service.digest() == whole
        assert exact_bindings(tmp_path / "batched" / "index.db") == exact
        assert bound > BATCH and max(saved) <= cap and sum(saved) == bound
        assert held and max(held) <= HELD
        assert not hint_files or max(hint_files) <= HINT_FILES
        saved.clear()
        assert service.index(full=True).refs_bound == bound  # read back from the index, a batch at a time
        assert service.digest() == whole
        assert max(saved) <= cap and sum(saved) == bound


def test_batches_are_whole_files_unless_a_file_has_more() -> None:
    spans = [(1, 1, 3, 3), (2, 4, 5, 2), (3, 6, 17, 12), (4, 18, 18, 1), (5, 19, 22, 4)]
    assert graph._batches(spans, 5) == [(1, 5), (6, 10), (11, 15), (16, 17), (18, 22)]
    assert graph._batches(spans, 100) == [(1, 22)]
    assert graph._batches([], 5) == []
