"""Parallel parsing: results come back in order, failures surface as they would in-process, and
an index built by worker processes is the same as one built without them."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from codefathom.service import Codefathom
from codefathom.service.indexer import PARALLEL_MIN_FILES
from codefathom.service.workers import ordered_map

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def importable_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers are fresh interpreters with this process's sys.path: they import this module's
    job functions by name, as long as pytest put its directory there."""
    assert any(Path(p or ".").resolve() == TESTS for p in sys.path)
    monkeypatch.setenv("CODEFATHOM_TEST_PARENT", str(os.getpid()))


def with_pid(job: int) -> tuple[int, int]:
    return job, os.getpid()


def fails_on_37(job: int) -> int:
    if job == 37:
        raise ValueError("job 37 is bad")
    return job * 2


def worker_dies_on_50(job: int) -> int:
    if job == 50 and str(os.getpid()) != os.environ["CODEFATHOM_TEST_PARENT"]:
        os._exit(3)  # a crash in a worker, not in the caller
    return job + 1


def test_results_come_back_in_job_order_from_the_workers(importable_here: None) -> None:
    jobs = list(range(500))
    results = list(ordered_map(with_pid, jobs, workers=2, chunk=7, window=5))
    assert [job for job, _ in results] == jobs
    assert {pid for _, pid in results} - {os.getpid()}, "nothing was computed by a worker"


def test_a_failing_job_raises_in_the_caller_as_it_would_without_workers(importable_here: None) -> None:
    with pytest.raises(ValueError, match="job 37 is bad"):
        list(ordered_map(fails_on_37, list(range(100)), workers=2, chunk=5))


def test_the_work_of_a_worker_that_died_is_redone_in_the_caller(importable_here: None) -> None:
    jobs = list(range(200))
    assert list(ordered_map(worker_dies_on_50, jobs, workers=2, chunk=5)) == [j + 1 for j in jobs]


def _many_files(repo: Path, count: int) -> None:
    for number in range(count):
        folder = repo / f"pkg{number % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{number}.py").write_text(
            f'"""Module {number}."""\n\n\nclass Thing{number}:\n    def get_value_{number}(self, x):\n'
            f"        return x + {number}\n\n\ndef helper_{number}(items):\n    return [i * {number} for i in items]\n"
        )
    (repo / "README.md").write_text("# Many\n\nFiles for the parallel indexer.\n")


def _dump(db: Path) -> tuple[list[tuple[object, ...]], ...]:
    with sqlite3.connect(db) as conn:
        return (
            conn.execute("SELECT id, path, content_hash, language, status, error, unit_count FROM files ORDER BY id")
            .fetchall(),
            conn.execute("SELECT * FROM units ORDER BY id").fetchall(),
            conn.execute("SELECT rowid, * FROM units_fts ORDER BY rowid").fetchall(),
        )


def test_an_index_built_by_workers_is_the_one_built_without_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    _many_files(repo, PARALLEL_MIN_FILES + 40)
    dumps = []
    for workers in ("0", "2"):
        monkeypatch.setenv("CODEFATHOM_WORKERS", workers)
        index_dir = tmp_path / f"index-{workers}"
        with Codefathom(repo, index_dir=index_dir) as service:
            report = service.index()
            assert report.added == PARALLEL_MIN_FILES + 41
            # an edit and a deletion afterwards take the same path either way
            (repo / "pkg0" / "mod0.py").write_text("def replaced():\n    return 0\n")
            service.index()
        dumps.append(_dump(index_dir / "index.db"))
        _many_files(repo, PARALLEL_MIN_FILES + 40)  # back as it was for the next round
    assert dumps[0] == dumps[1]


def test_a_script_without_a_main_guard_indexes_once(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _many_files(repo, PARALLEL_MIN_FILES + 10)
    script = tmp_path / "unguarded.py"
    script.write_text(
        "from codefathom.service import Codefathom\n"
        f"print('indexed', Codefathom({str(repo)!r}, index_dir={str(tmp_path / 'idx')!r}).index().added)\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120,
        env={**os.environ, "CODEFATHOM_WORKERS": "2"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"indexed {PARALLEL_MIN_FILES + 11}"]
