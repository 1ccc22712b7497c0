"""A repository can be hostile: nothing it holds or names makes codefathom read outside it."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import git

SECRET = "TOPSECRETzebrafinch"


def _search(run_cli: Callable[..., Result], repo: Path, query: str) -> list[dict[str, Any]]:
    result = run_cli("search", query, "--path", str(repo), "--json")
    hits: list[dict[str, Any]] = json.loads(result.stdout)["results"]
    assert result.exit_code == (0 if hits else 1), result.output  # 1: not found
    return hits


@pytest.mark.parametrize("tracked", [True, False], ids=["git", "walk"])
def test_a_link_whose_target_is_swapped_for_one_outside_is_never_read(
    tracked: bool, tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    # A tracked link into an ignored directory, whose target later becomes a link out of the
    # project: the next sync, by sweep or by listing, must not read through it.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET} = 'the private key'\n" * 20)
    repo = tmp_path / "repo"
    (repo / "ignored").mkdir(parents=True)
    (repo / ".gitignore").write_text("ignored/\n")
    (repo / "ignored" / "target.txt").write_text("harmless notes\n")
    os.symlink("ignored/target.txt", repo / "notes.txt")
    (repo / "app.py").write_text("def start():\n    return 1\n")
    if tracked:
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "first")
    assert run_cli("index", str(repo), "-q", "--no-embed").exit_code == 0
    assert _search(run_cli, repo, "harmless notes")  # the link is indexed while it stays inside

    (repo / "ignored" / "target.txt").unlink()
    os.symlink(outside / "secret.txt", repo / "ignored" / "target.txt")
    assert not any(SECRET in json.dumps(hit) for hit in _search(run_cli, repo, SECRET))
    status = json.loads(run_cli("status", str(repo), "--digest", "--json").stdout)
    assert run_cli("index", str(repo), "-q", "--no-embed", "--full").exit_code == 0
    again = json.loads(run_cli("status", str(repo), "--digest", "--json").stdout)
    assert status["digest"] == again["digest"]  # what the sync left is what a full listing gives


def test_a_file_swapped_for_a_link_out_between_listing_and_reading_is_skipped_with_a_reason(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race a listing cannot see: a directory of the project becomes a link out of it after the
    # listing vetted its files, before a parse worker reads them.
    import codefathom.service.indexer as indexer

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keys.py").write_text(f"{SECRET} = 'the private key'\n")
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "keys.py").write_text("PLACEHOLDER = 1\n")
    (repo / "app.py").write_text("def start():\n    return 1\n")
    real_prepare = indexer._prepare

    def swapped_first(job: Any) -> Any:
        if (repo / "pkg").is_dir() and not (repo / "pkg").is_symlink():
            (repo / "pkg" / "keys.py").unlink()
            (repo / "pkg").rmdir()
            os.symlink(outside, repo / "pkg")
        return real_prepare(job)

    monkeypatch.setenv("CODEFATHOM_WORKERS", "0")
    monkeypatch.setattr(indexer, "_prepare", swapped_first)
    result = run_cli("index", str(repo), "--no-embed", "--json")
    assert result.exit_code == 0, result.output
    problems = {item["path"]: item["error"] for item in json.loads(result.stdout)["parse_problems"]}
    assert problems["pkg/keys.py"] == "cannot read: symlink leads outside the project"
    assert not _search(run_cli, repo, SECRET)
