"""An index is never silently wrong: however it was built (a first index, a full re-index, a
resync), its digest equals a clean first index of the same tree."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result
from conftest import FIXTURES


def _digest(run_cli: Callable[..., Result], repo: Path, index_dir: Path) -> dict[str, Any]:
    result = run_cli("status", str(repo), "--index-dir", str(index_dir), "--digest", "--json")
    assert result.exit_code == 0, result.output
    digest: dict[str, Any] = json.loads(result.output)["digest"]
    return digest


def test_a_full_reindex_has_the_digest_of_a_first_index(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "repos" / "bindings", repo)
    for name, *full in (("first",), ("again",), ("again", "--full")):
        result = run_cli("index", str(repo), "--index-dir", str(tmp_path / name), "-q", "--no-embed", *full)
        assert result.exit_code == 0, result.output
    first, again = _digest(run_cli, repo, tmp_path / "first"), _digest(run_cli, repo, tmp_path / "again")
    assert first == again
    assert set(first) >= {"files", "units", "fts", "symbols", "refs", "imports", "ranks", "directories"}
    assert int(first["refs"].split(":")[0]) > 0


def test_a_digest_tells_two_trees_apart(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "repos" / "bindings", repo)
    assert run_cli("index", str(repo), "--index-dir", str(tmp_path / "before"), "-q", "--no-embed").exit_code == 0
    before = _digest(run_cli, repo, tmp_path / "before")
    app = next(p for p in sorted(repo.rglob("*.py")) if "def " in p.read_text())
    app.write_text(app.read_text() + "\n\ndef one_more_function():\n    return 1\n")
    assert run_cli("index", str(repo), "--index-dir", str(tmp_path / "before"), "-q", "--no-embed").exit_code == 0
    after = _digest(run_cli, repo, tmp_path / "before")
    assert {part for part in before if before[part] != after[part]} >= {"files", "units", "fts", "symbols"}
    assert before["imports"] == after["imports"]


def test_status_digest_of_a_project_without_an_index_says_so(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    result = run_cli("status", str(tmp_path), "--digest")
    assert result.exit_code == 0 and "digest:" not in result.output and "not indexed" in result.output.lower()
