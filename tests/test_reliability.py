"""An index is never silently wrong: however it was built (a first index, a full re-index, a
resync), its digest equals a clean first index of the same tree."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import FIXTURES

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import reliability  # noqa: E402  (bench/reliability.py: the same matrix on a real repository)

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL


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


# A process killed with SIGKILL at a named phase of a sync: bench/reliability.py's killer (the
# phase's function kills its own process when called the Nth time), with the binder's fork forced
# for a fixture this small, runs the real `codefathom index` in a child Python.
KILLER = reliability.KILLER.replace(
    "calls = [0]", "graph.FORK_MIN_REFS = 1\nindexer.usable_cpus = lambda: 2\ncalls = [0]", 1
)
PHASES = list(reliability.PHASES)


# On PostgreSQL, the harder of the two: a re-binding sync, its old rows to replace.
@pytest.mark.parametrize(
    ("store", "sync"), [("sqlite", "first"), ("sqlite", "edits"), ("postgresql", "edits")], indirect=["store"]
)
@pytest.mark.parametrize(("phase", "nth"), PHASES, ids=[p for p, _ in PHASES])
def test_a_sync_killed_at_any_phase_is_completed_by_the_next_one_to_a_clean_index(
    phase: str, nth: int, sync: str, tmp_path: Path, run_cli: Callable[..., Result], store: str
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "repos" / "bindings", repo)
    index = ["--index-dir", str(tmp_path / "killed"), "-q", "--no-embed"]
    env = {**os.environ, "CODEFATHOM_WORKERS": "0"}
    if sync == "edits":  # a re-binding sync is killed: every file changed since the first index
        assert run_cli("index", str(repo), *index).exit_code == 0
        for path in sorted(p for p in repo.rglob("*.py")):
            path.write_text(path.read_text() + "\n\ndef added_later():\n    return None\n")
    killer = KILLER if store == "sqlite" else KILLER.replace(  # (the writes of the store the test runs on)
        "from codefathom.store.sqlite import SQLiteStore as", "from codefathom.store.postgres import PostgresStore as"
    )
    assert killer != KILLER or store == "sqlite"
    killed = subprocess.run([sys.executable, "-c", killer, phase, str(nth), "index", str(repo), *index],
                            env=env, capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert run_cli("index", str(repo), *index).exit_code == 0  # the next sync finishes the job
    assert run_cli("index", str(repo), "--index-dir", str(tmp_path / "clean"), "-q", "--no-embed").exit_code == 0
    recovered, clean = _digest(run_cli, repo, tmp_path / "killed"), _digest(run_cli, repo, tmp_path / "clean")
    assert {k: v for k, v in recovered.items() if recovered[k] != clean[k]} == {}
