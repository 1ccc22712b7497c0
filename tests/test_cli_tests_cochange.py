"""`codefathom tests` (the tests exercising a symbol or a file: direct, through a helper, by name) and
`codefathom cochange` (files committed together with a file, from a cached, incrementally read git log).

find_tests runs on the `shop` fixture and on a small package whose test reaches its target through a
helper; cochange on a history made commit by commit in a tmp repository.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import git

from codefathom.service import Codefathom
from codefathom.service.related import CACHE_NAME

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL


def run_ok(run_cli: Callable[..., Result], *args: str) -> str:
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    return result.stdout.rstrip("\n")


def run_json(run_cli: Callable[..., Result], *args: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(run_ok(run_cli, *args, "--json"))
    return data


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


# -- find_tests -------------------------------------------------------------------------------------


def test_tests_of_a_symbol_and_of_a_file_in_shop(shop_repo: Path, run_cli) -> None:
    data = run_json(run_cli, "tests", "Stack.push", "-p", str(shop_repo))
    assert data["target_kind"] == "symbol" and data["symbols"] == ["shop/stack.py:10 shop.stack.Stack.push"]
    assert data["tests"] == [{
        "path": "tests/test_stack.py", "rank": "direct", "why": ["references it", "named like shop/stack.py"],
        "functions": ["tests.test_stack.test_push_then_pop_returns_the_item"],
    }]
    text = run_ok(run_cli, "tests", "Stack.push", "-p", str(shop_repo), "--no-sync").splitlines()
    assert text == [
        "tests of symbol Stack.push (1):",
        "  tests/test_stack.py  (direct: references it; named like shop/stack.py)",
        "    tests.test_stack.test_push_then_pop_returns_the_item",
    ]
    file = run_json(run_cli, "tests", "shop/stack.py", "-p", str(shop_repo))
    assert file["target_kind"] == "file" and file["target"] == "shop/stack.py"
    assert [(t["path"], t["rank"]) for t in file["tests"]] == [("tests/test_stack.py", "direct")]
    assert file["tests"][0]["why"] == ["references it", "imports it", "named like shop/stack.py"]
    # Nothing tests the config module; an unknown name says so.
    assert run_json(run_cli, "tests", "shop/config.py", "-p", str(shop_repo))["tests"] == []
    result = run_cli("tests", "no_such_thing", "-p", str(shop_repo), "--json")
    missing = json.loads(result.stdout)
    assert result.exit_code == 1 and missing["tests"] == [] and "No definition named `no_such_thing`" in missing["note"]


@pytest.fixture
def helper_repo(tmp_path: Path) -> Path:
    """`compute` is tested directly, through the helper `handle`, and by a test file named after it."""
    root = tmp_path / "helper"
    write(root, {
        "pkg/__init__.py": "",
        "pkg/core.py": """\
            def compute(x):
                return x * 2
        """,
        "pkg/api.py": """\
            from pkg.core import compute


            def handle(x):
                return compute(x) + 1
        """,
        "tests/test_api.py": """\
            from pkg.api import handle


            def test_handle():
                assert handle(1) == 3
        """,
        "tests/test_core.py": """\
            from pkg.core import compute


            def test_compute():
                assert compute(2) == 4
        """,
        "tests/core_test.py": """\
            def test_nothing_yet():
                pass
        """,
    })
    git(root, "init", "-q")
    return root


def test_tests_through_a_helper_are_ranked_after_direct_ones(helper_repo: Path, run_cli) -> None:
    data = run_json(run_cli, "tests", "compute", "-p", str(helper_repo))
    assert [(t["path"], t["rank"], t["why"]) for t in data["tests"]] == [
        ("tests/test_core.py", "direct", ["references it", "named like pkg/core.py"]),
        ("tests/test_api.py", "helper", ["through helper `pkg.api.handle`"]),
        ("tests/core_test.py", "named", ["named like pkg/core.py"]),
    ]
    assert data["tests"][1]["functions"] == ["tests.test_api.test_handle"]
    # The file: the same, the direct test also importing it.
    file = run_json(run_cli, "tests", "pkg/core.py", "-p", str(helper_repo))
    assert [(t["path"], t["rank"]) for t in file["tests"]] == [
        ("tests/test_core.py", "direct"), ("tests/test_api.py", "helper"), ("tests/core_test.py", "named"),
    ]
    # Answers keep to the directory asked about.
    assert run_json(run_cli, "tests", "compute", "-p", str(helper_repo / "pkg"))["tests"] == []


# -- co-change --------------------------------------------------------------------------------------


def commit(root: Path, message: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def head(root: Path) -> str:
    return (root / ".git" / "refs" / "heads" / "main").read_text().strip()


@pytest.fixture
def history_repo(tmp_path: Path) -> Path:
    root = tmp_path / "history"
    root.mkdir()
    git(root, "init", "-q")
    commit(root, "start", {"a.py": "1\n", "b.py": "1\n", "c.py": "1\n"})
    commit(root, "a b", {"a.py": "2\n", "b.py": "2\n"})
    commit(root, "a c", {"a.py": "3\n", "c.py": "2\n"})
    commit(root, "a b again", {"a.py": "4\n", "b.py": "3\n"})
    commit(root, "reformat everything", {"a.py": "5\n", **{f"gen/f{i}.py": f"{i}\n" for i in range(60)}})
    commit(root, "d alone", {"d.py": "1\n"})
    return root


def test_cochange_counts_commits_together_and_ignores_huge_ones(history_repo: Path, run_cli) -> None:
    data = run_json(run_cli, "cochange", "a.py", "-p", str(history_repo))
    assert data["head"] == head(history_repo)
    assert (data["commits"], data["file_commits"], data["skipped_large_commits"]) == (5, 4, 1)
    assert data["files"] == [
        {"path": "b.py", "together": 3, "confidence": 0.75, "support": 0.6},
        {"path": "c.py", "together": 2, "confidence": 0.5, "support": 0.4},
    ]  # nothing from the 61-file commit
    text = run_ok(run_cli, "cochange", "a.py", "-p", str(history_repo), "--limit", "1").splitlines()
    assert text[0].startswith("a.py: changed in 4 commits of the last 5 (head ")
    assert "; 1 commit of over 50 files ignored)" in text[0]
    assert text[1:] == ["     3   75%  b.py"]
    assert run_json(run_cli, "cochange", "d.py", "-p", str(history_repo))["note"] == "d.py was always committed alone."


def test_cochange_reads_only_new_commits_and_rebuilds_after_a_rewrite(history_repo: Path) -> None:
    with Codefathom(history_repo) as service:
        first = service.co_change("a.py")
        assert (first.cache, first.read) == ("built", 6)
        cache = service.settings.index_dir / CACHE_NAME
        assert json.loads(cache.read_text())["head"] == head(history_repo)
        again = service.co_change("a.py")
        assert (again.cache, again.read) == ("cached", 0)

        commit(history_repo, "a c again", {"a.py": "6\n", "c.py": "3\n"})
        second = service.co_change("a.py")
        assert (second.cache, second.read) == ("updated", 1)
        assert json.loads(cache.read_text())["head"] == head(history_repo) == second.head != first.head
        assert [(f.path, f.together) for f in second.files] == [("b.py", 3), ("c.py", 3)]
        assert (second.commits, second.file_commits) == (6, 5)
        # A smaller window is a slice of the cached one.
        recent = service.co_change("a.py", commits=3)
        assert (recent.cache, recent.commits, recent.skipped_large) == ("cached", 2, 1)
        assert [(f.path, f.together) for f in recent.files] == [("c.py", 1)]

        git(history_repo, "commit", "-q", "--amend", "-m", "rewritten")  # the cached head is no ancestor now
        rewritten = service.co_change("a.py")
        assert (rewritten.cache, rewritten.read) == ("built", 7)
        assert json.loads(cache.read_text())["head"] == head(history_repo)


def test_cochange_outside_git_is_a_clear_error(shop_repo: Path, run_cli) -> None:
    result = run_cli("cochange", "shop/stack.py", "-p", str(shop_repo))
    assert result.exit_code == 2
    assert "not a git repository: co-change needs history" in result.output
