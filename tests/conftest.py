"""Shared fixtures: a private CODEFATHOM_HOME per test and fresh copies of the fixture repositories."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
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
