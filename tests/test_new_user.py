"""What a new user meets: a folder inside an indexed project, a first search at a terminal, a
background indexer to see and stop, and indexes of folders that are gone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result


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
