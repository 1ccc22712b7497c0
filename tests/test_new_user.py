"""What a new user meets: a folder inside an indexed project, a first search at a terminal, a
background indexer to see and stop, and indexes of folders that are gone."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import write_large_project

from codefathom.config import index_dir_for
from codefathom.service import Codefathom

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def as_json(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_outside_git_a_folder_of_an_indexed_project_belongs_to_it(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "plain"  # no git repository anywhere above it
    write(project, {
        "src/pkg/engine.py": "def start_engine():\n    return 1\n",
        "src/other/tools.py": "def start_tools():\n    return start_engine()\n",
        "README.md": "# plain\n",
    })
    assert run_cli("index", str(project), "--quiet").exit_code == 0
    reply = as_json(run_cli("search", "start", "-p", str(project / "src" / "pkg"), "--json"))
    assert reply["project_root"] == str(project.resolve()) and reply["within"] == "src/pkg"
    assert [r["path"] for r in reply["results"]] == ["src/pkg/engine.py"]
    outline = run_cli("outline", str(project / "src" / "pkg"), "--json")
    assert "engine.py" in outline.output and "tools.py" not in outline.output
    monkeypatch.chdir(project / "src" / "pkg")  # run from inside it
    assert as_json(run_cli("status", "--json"))["project_root"] == str(project.resolve())
    refs = as_json(run_cli("refs", "start_engine", "--json"))
    assert refs["project_root"] == str(project.resolve())
    indexes = as_json(run_cli("list", "--json"))["indexes"]
    assert [i["project_root"] for i in indexes] == [str(project.resolve())]  # no second index


def test_the_index_of_a_deleted_folder_is_listed_as_gone_and_can_be_cleared(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch, store: str
) -> None:
    gone, kept = tmp_path / "gone", tmp_path / "kept"
    for root in (gone, kept):
        write(root, {"a.py": "def f():\n    return 1\n"})
        assert run_cli("index", str(root), "--quiet").exit_code == 0
    assert all("missing" not in i for i in as_json(run_cli("list", "--json"))["indexes"])
    for path in gone.iterdir():
        path.unlink()
    gone.rmdir()
    indexes = {i["project_root"]: i for i in as_json(run_cli("list", "--json"))["indexes"]}
    assert indexes[str(gone)]["missing"] is True and "missing" not in indexes[str(kept)]
    assert "folder gone" in next(line for line in run_cli("list").output.splitlines() if line.startswith(str(gone)))
    cleared = as_json(run_cli("clear", str(gone), "--json"))
    assert cleared == {"project_root": str(gone), "cleared": True}
    assert [i["project_root"] for i in as_json(run_cli("list", "--json"))["indexes"]] == [str(kept)]
    missing = run_cli("clear", str(gone))
    assert missing.exit_code == 2 and "no such directory" in missing.output and "no index" in missing.output

    # --index-dir: the index names its project, wherever the command runs.
    elsewhere = tmp_path / "own-index"
    assert run_cli("index", str(kept), "--quiet", "--index-dir", str(elsewhere)).exit_code == 0
    monkeypatch.chdir(tmp_path)
    cleared = as_json(run_cli("clear", "--index-dir", str(elsewhere), "--json"))
    assert cleared == {"project_root": str(kept), "cleared": True}
    assert not (elsewhere / "index.db").exists()
    if store == "postgresql":  # (the database's project of that name is gone too)
        assert as_json(run_cli("clear", "--index-dir", str(elsewhere), "--json"))["cleared"] is False

        # A database's project that this machine never synced (another machine's checkout): its
        # folder is not here, and it is not gone.
        other = tmp_path / "other-machine"
        write(other, {"b.py": "def g():\n    return 2\n"})
        assert run_cli("index", str(other), "--quiet").exit_code == 0
        shutil.rmtree(other)
        shutil.rmtree(index_dir_for(other))
        indexes = {i["project_root"]: i for i in as_json(run_cli("list", "--json"))["indexes"]}
        assert indexes[str(other)]["project"] == index_dir_for(other).name and "missing" not in indexes[str(other)]


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codefathom", *args], capture_output=True, text=True, timeout=300,
        env={**os.environ, **(env or {})},
    )


LARGE = {"CODEFATHOM_INLINE_INDEX_S": "0"}  # every project counts as large


def test_a_search_at_a_terminal_after_an_interrupted_first_index_indexes_first_and_answers(tmp_path: Path) -> None:
    repo = tmp_path / "large"
    write(repo, {f"pkg{i % 10}/mod{i}.py": f"def fn_{i}():\n    return {i}\n" for i in range(300)})

    def stopped(done: int, total: int, path: str) -> None:
        if done:
            raise KeyboardInterrupt  # Ctrl-C after the first batch: the first index did not finish

    with pytest.raises(KeyboardInterrupt), Codefathom(repo) as service:
        service.index(stopped)
    done = cli("search", "fn_299", "-p", str(repo), "--json", env=LARGE)
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert "partial" not in reply and reply["results"][0]["path"] == "pkg9/mod299.py", reply
    assert "background" not in done.stderr
    status = json.loads(cli("status", str(repo), "--json").stdout)
    assert status["complete"] is True and "running" not in status
    assert not (index_dir_for(repo.resolve()) / "index.log").exists()  # no background process was started


def test_a_background_index_a_search_starts_is_announced_listed_and_stopped(tmp_path: Path) -> None:
    repo = tmp_path / "large"
    write_large_project(repo, files=1500)  # an index that is still at work while status and stop are run
    done = cli("search", "step_299", "-p", str(repo), "--json", "--background", env=LARGE)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["partial"] is True
    said = [line for line in done.stderr.splitlines() if "in the background" in line]
    assert len(said) == 1 and "codefathom stop" in said[0], done.stderr
    pid = int(re.search(r"pid (\d+)", said[0]).group(1))  # type: ignore[union-attr]
    status = json.loads(cli("status", str(repo), "--json").stdout)
    assert {"pid": pid, "doing": "indexing", "by": "codefathom index (background)"} in status["running"], status
    assert f"pid {pid}" in cli("status", str(repo)).stdout
    stopped = cli("stop", str(repo), "--json")
    assert stopped.returncode == 0, stopped.stderr
    assert [entry["pid"] for entry in json.loads(stopped.stdout)["stopped"]] == [pid]
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3]
    assert "running" not in json.loads(cli("status", str(repo), "--json").stdout)
    assert "No `codefathom index` is at work" in cli("stop", str(repo)).stdout
