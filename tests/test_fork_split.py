"""A forked binder and its parent split the batches where they meet, each taking from its own end:
the slower of the two takes fewer, and the graph is the one a single process binds, ranks to the
last bit (PageRank's sums are made in batch order whoever bound a batch)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from conftest import exact_bindings

import codefathom.graph as graph
import codefathom.service.indexer as indexer
from codefathom.service import Codefathom

REPOS = Path(__file__).resolve().parent / "fixtures" / "repos"
BATCH = 5



@pytest.mark.skipif(not hasattr(os, "fork"), reason="a child is forked only where the system can")
@pytest.mark.parametrize("slow", ["child", "parent"])
def test_the_slower_process_binds_fewer_batches_and_the_graph_is_the_same(
    slow: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "bindings-java", repo)
    monkeypatch.setenv("CODEFATHOM_WORKERS", "0")
    monkeypatch.setattr(graph, "BIND_BATCH", BATCH)
    monkeypatch.setattr(graph, "FORK_MIN_REFS", 1)
    with monkeypatch.context() as patch:
        patch.setattr(indexer, "usable_cpus", lambda: 1)  # no child
        with Codefathom(repo, index_dir=tmp_path / "alone") as service:
            service.index()
            alone = service.digest()
    monkeypatch.setattr(indexer, "usable_cpus", lambda: 2)
    batches: list[int] = []
    here: list[int] = []  # batches this process bound
    real_batches, real_bind, real_back = graph._batches, graph._bind, graph._bind_from_the_back

    def counted(*args: object) -> list[tuple[int, int]]:
        found = real_batches(*args)  # type: ignore[arg-type]
        batches.append(len(found))
        return found

    def bind(binder: object, refs: object, chosen: list[tuple[int, int]], edges: object) -> None:
        here.extend(range(len(chosen)))
        if slow == "parent":
            time.sleep(0.05)
        real_bind(binder, refs, chosen, edges)  # type: ignore[arg-type]

    def from_the_back(*args: object) -> None:
        if slow == "child":
            time.sleep(0.05 * batches[-1] + 1)  # this process has taken every batch by then
        real_back(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(graph, "_batches", counted)
    monkeypatch.setattr(graph, "_bind", bind)
    monkeypatch.setattr(graph, "_bind_from_the_back", from_the_back)
    with Codefathom(repo, index_dir=tmp_path / "forked") as service:
        service.index()
        assert service.digest() == alone
    assert batches[-1] > 4
    if slow == "child":
        assert len(here) == batches[-1]
    else:
        assert len(here) < batches[-1] / 2
    assert exact_bindings(tmp_path / "forked" / "index.db") == exact_bindings(tmp_path / "alone" / "index.db")
