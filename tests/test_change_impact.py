"""`codefathom impact --diff` and the MCP tool `change_impact`: from a git diff to the definitions it
changes, their references, the files depending on them and the tests to run.

Each test builds a small Python project in a tmp git repository, commits it, edits it, and asks
through the CLI entry point or the real MCP server over stdio.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from click.testing import Result
from conftest import git, no_index
from mcp import Client, StdioServerParameters

from codefathom.service.changes import parse_unified_diff

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": '''\
        def compute(x):
            """Double it."""
            return x * 2


        def gone(y):
            return y


        class Calc:
            def run(self, x):
                return compute(x)
    ''',
    "pkg/api.py": '''\
        from pkg.core import compute, gone


        def handle(x):
            return compute(x) + 1


        def other(y):
            return gone(y)
    ''',
    "pkg/cli.py": '''\
        from pkg.api import handle


        def main():
            print(handle(1))
    ''',
    "pkg/legacy.py": '''\
        def old_entry():
            return 1


        class OldThing:
            pass
    ''',
    "tests/test_api.py": '''\
        from pkg.api import handle


        def test_handle():
            assert handle(1) == 3
    ''',
    "tests/test_core.py": '''\
        from pkg.core import compute


        def test_compute():
            assert compute(2) == 4
    ''',
}


def write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert old in text, (name, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name, text in FILES.items():
        write(root, name, text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


def impact(run_cli: Callable[..., Result], root: Path, *args: str, input: str | None = None) -> dict[str, Any]:
    result = run_cli("impact", *args, "-p", str(root), "--json", input=input)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def symbols(data: dict[str, Any]) -> dict[str, str]:
    return {s["qualified_name"]: s["change"] for s in data["changed_symbols"]}


def dependents(data: dict[str, Any], name: str) -> list[tuple[str, int, str, str]]:
    for group in data["dependents"]:
        if group["symbol"] == name:
            return [(r["path"], r["line"], r["label"], r["scope"]) for r in group["references"]]
    return []


def test_a_modified_function_brings_its_callers_dependent_files_and_tests(repo: Path, run_cli) -> None:
    edit(repo, "pkg/core.py", "return x * 2", "return x * 3")
    data = impact(run_cli, repo, "--diff", "HEAD")

    assert data["source"].startswith("working tree vs HEAD (")
    assert data["changed_files"] == [{"path": "pkg/core.py", "status": "modified", "added": 1, "removed": 1}]
    assert symbols(data) == {"pkg.core.compute": "modified"}
    changed = data["changed_symbols"][0]
    assert (changed["path"], changed["start_line"], changed["end_line"], changed["kind"]) == (
        "pkg/core.py", 1, 3, "function"
    )
    assert dependents(data, "pkg.core.compute") == [
        ("pkg/api.py", 5, "exact", "pkg.api.handle"),
        ("pkg/core.py", 12, "exact", "pkg.core.Calc.run"),
        ("tests/test_core.py", 5, "exact", "tests.test_core.test_compute"),
    ]
    impacted = {(f["path"], f["distance"], f["via"]) for f in data["impacted_files"]}
    assert {("pkg/api.py", 1, "pkg/core.py"), ("tests/test_core.py", 1, "pkg/core.py"),
            ("pkg/cli.py", 2, "pkg/api.py"), ("tests/test_api.py", 2, "pkg/api.py")} == impacted
    tests = [(t["path"], t["rank"]) for t in data["tests"]]
    assert tests == [("tests/test_core.py", "direct"), ("tests/test_api.py", "helper")]
    assert data["tests"][0]["functions"] == ["tests.test_core.test_compute"]
    assert "references `pkg.core.compute`" in data["tests"][0]["why"]
    assert "reaches `pkg.core.compute` through helper `pkg.api.handle`" in data["tests"][1]["why"]
    counts = data["counts"]
    assert (counts["files"], counts["symbols"], counts["modified"], counts["references"], counts["tests"]) == (
        1, 1, 1, 3, 2
    )
    assert "truncated" not in data

    # Depth 1 stops at the files depending on the changed file directly.
    near = impact(run_cli, repo, "--diff", "HEAD", "--depth", "1")
    assert {f["path"] for f in near["impacted_files"]} == {"pkg/api.py", "tests/test_core.py"}

    # The readable form says the same.
    result = run_cli("impact", "--diff", "HEAD", "-p", str(repo))
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "  M pkg/core.py  +1 -1" in text
    assert "  modified  function  pkg.core.compute  pkg/core.py:1-3  (3 references)" in text
    assert "      pkg/api.py:5  exact  pkg.api.handle" in text
    assert "  2  pkg/cli.py  <- pkg/api.py (call 1, import 1)" in text
    assert "  tests/test_api.py  (via helper: reaches `pkg.core.compute` through helper `pkg.api.handle`" in text


def test_a_committed_change_is_seen_against_an_older_revision(repo: Path, run_cli) -> None:
    edit(repo, "pkg/api.py", "return compute(x) + 1", "return compute(x) + 2")
    git(repo, "commit", "-q", "-am", "change handle")

    last = impact(run_cli, repo, "--diff", "HEAD~1")
    assert symbols(last) == {"pkg.api.handle": "modified"}
    assert dependents(last, "pkg.api.handle") == [
        ("pkg/cli.py", 5, "exact", "pkg.cli.main"), ("tests/test_api.py", 5, "exact", "tests.test_api.test_handle"),
    ]
    assert [(t["path"], t["rank"]) for t in last["tests"]][:1] == [("tests/test_api.py", "direct")]

    clean = impact(run_cli, repo, "--diff", "HEAD")
    assert clean["changed_files"] == [] and clean["changed_symbols"] == [] and clean["tests"] == []
    assert any(note.startswith("no changes") for note in clean["notes"])


def test_added_removed_and_deleted_definitions(repo: Path, run_cli) -> None:
    edit(repo, "pkg/core.py", 'def gone(y):\n    return y\n\n\n', "")
    edit(repo, "pkg/core.py", "class Calc:", "def twice(x):\n    return compute(compute(x))\n\n\nclass Calc:")
    (repo / "pkg/legacy.py").unlink()
    write(repo, "pkg/fresh.py", '''\
        from pkg.core import twice


        def shiny(x):
            return twice(x)
    ''')
    write(repo, "tests/test_fresh.py", '''\
        from pkg.fresh import shiny


        def test_shiny():
            assert shiny(1) == 4
    ''')
    git(repo, "add", "tests/test_fresh.py")  # one new file staged, the other untracked
    data = impact(run_cli, repo, "--diff", "HEAD")

    files = {f["path"]: f for f in data["changed_files"]}
    assert files["pkg/core.py"]["status"] == "modified"
    assert files["pkg/legacy.py"] == {"path": "pkg/legacy.py", "status": "deleted", "added": 0, "removed": 6}
    assert files["tests/test_fresh.py"]["status"] == "added" and "untracked" not in files["tests/test_fresh.py"]
    assert files["pkg/fresh.py"] == {"path": "pkg/fresh.py", "status": "added", "added": 5, "removed": 0,
                                     "untracked": True}
    assert symbols(data) == {
        "pkg.core.gone": "removed", "pkg.core.twice": "added", "pkg.legacy.old_entry": "removed",
        "pkg.legacy.OldThing": "removed", "pkg.fresh.shiny": "added", "pkg.fresh": "added",
        "tests.test_fresh.test_shiny": "added", "tests.test_fresh": "added",
    }
    removed = next(s for s in data["changed_symbols"] if s["qualified_name"] == "pkg.core.gone")
    assert (removed["path"], removed["start_line"], removed["end_line"]) == ("pkg/core.py", 6, 7)  # old lines
    # What still calls the removed function is listed by name: likely broken.
    group = next(g for g in data["dependents"] if g["symbol"] == "pkg.core.gone")
    assert group["by_name"] is True
    assert dependents(data, "pkg.core.gone") == [("pkg/api.py", 9, "unbound", "pkg.api.other")]
    assert dependents(data, "pkg.core.twice") == [("pkg/fresh.py", 5, "exact", "pkg.fresh.shiny")]
    assert data["counts"]["references_to_removed"] == 1
    tests = {t["path"]: t for t in data["tests"]}
    assert tests["tests/test_fresh.py"]["rank"] == "changed"
    assert any("deleted files are gone from the graph" in note for note in data["notes"])
    assert any("git does not track" in note for note in data["notes"])


def test_staged_changes_and_a_diff_read_from_stdin(repo: Path, run_cli) -> None:
    edit(repo, "pkg/core.py", "return x * 2", "return x * 4")
    git(repo, "add", "pkg/core.py")
    edit(repo, "pkg/cli.py", "print(handle(1))", "print(handle(2))")  # not staged

    staged = impact(run_cli, repo, "--staged")
    assert staged["source"].startswith("staged changes vs HEAD")
    assert symbols(staged) == {"pkg.core.compute": "modified"}
    everything = impact(run_cli, repo, "--diff", "HEAD")
    assert symbols(everything) == {"pkg.core.compute": "modified", "pkg.cli.main": "modified"}

    patch = subprocess.run(
        ["git", "-C", str(repo), "diff", "HEAD", "--", "pkg/cli.py"], capture_output=True, text=True, check=True
    ).stdout
    piped = impact(run_cli, repo, "--diff", "-", input=patch)
    assert piped["source"] == "diff text"
    assert symbols(piped) == {"pkg.cli.main": "modified"}
    assert any("read against the files as they are now" in note for note in piped["notes"])


def test_a_renamed_file_keeps_its_definitions(repo: Path, run_cli) -> None:
    git(repo, "mv", "pkg/legacy.py", "pkg/older.py")
    edit(repo, "pkg/older.py", "return 1", "return 2")
    data = impact(run_cli, repo, "--diff", "HEAD")
    assert data["changed_files"] == [
        {"path": "pkg/older.py", "status": "renamed", "added": 1, "removed": 1, "old_path": "pkg/legacy.py"}
    ]
    assert symbols(data) == {"pkg.older.old_entry": "modified"}


def test_mistakes_are_clear_errors_with_a_non_zero_exit(repo: Path, tmp_path: Path, run_cli) -> None:
    bad = run_cli("impact", "--diff", "no-such-branch", "-p", str(repo))
    assert bad.exit_code == 2
    assert "unknown revision `no-such-branch`" in bad.stderr
    too_far = run_cli("impact", "--diff", "HEAD~3", "-p", str(repo))
    assert too_far.exit_code == 2 and "unknown revision `HEAD~3`" in too_far.stderr
    a_range = run_cli("impact", "--diff", "HEAD~1..HEAD", "-p", str(repo))
    assert a_range.exit_code == 2 and "is a range" in a_range.stderr
    both = run_cli("impact", "pkg/core.py", "--diff", "HEAD", "-p", str(repo))
    assert both.exit_code == 2 and "not both" in both.stderr
    empty = run_cli("impact", "--diff", "-", "-p", str(repo), input="")
    assert empty.exit_code == 2 and "the diff text is empty" in empty.stderr

    plain = tmp_path / "plain"
    write(plain, "a.py", "def f():\n    return 1\n")
    outside = run_cli("impact", "--diff", "HEAD", "-p", str(plain))
    assert outside.exit_code == 2
    assert f"not a git repository: {plain.resolve()}" in outside.stderr
    # Without git, a diff given as text still works.
    patch = "--- a/a.py\n+++ b/a.py\n@@ -2 +2 @@\n-    return 0\n+    return 1\n"
    data = impact(run_cli, plain, "--diff", "-", input=patch)
    assert symbols(data) == {"a.f": "modified"}


@no_index
def test_the_diff_parser_reads_git_and_plain_diffs() -> None:
    text = textwrap.dedent('''\
        diff --git a/src/x.py b/src/x.py
        index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644
        --- a/src/x.py
        +++ b/src/x.py
        @@ -3,4 +3,5 @@ def f():
             kept
        -    old
        +    new
        +    more
        -- not a header, a removed line
        +
             kept
        diff --git "a/sp ace/\\303\\251.py" "b/sp ace/\\303\\251.py"
        deleted file mode 100644
        index 3333333..0000000
        --- "a/sp ace/\\303\\251.py"
        +++ /dev/null
        @@ -1,2 +0,0 @@
        -a
        -b
        \\ No newline at end of file
        diff --git a/old name.py b/new name.py
        similarity index 90%
        rename from old name.py
        rename to new name.py
        diff --git a/logo.png b/logo.png
        new file mode 100644
        index 0000000..4444444
        Binary files /dev/null and b/logo.png differ
        --- plain.py\t2024-01-01 10:00:00
        +++ plain.py\t2024-01-02 10:00:00
        @@ -0,0 +1 @@
        +added
    ''')
    files = parse_unified_diff(text)
    assert [(f.old_path, f.new_path, f.status) for f in files] == [
        ("src/x.py", "src/x.py", "modified"), ("sp ace/é.py", None, "deleted"),
        ("old name.py", "new name.py", "renamed"), (None, "logo.png", "added"), ("plain.py", "plain.py", "modified"),
    ]
    x = files[0]
    assert (x.old_lines, x.new_lines, x.blank_new, x.anchors) == ({4, 5}, {4, 5, 6}, {6}, {3, 5})
    assert x.old_blob == "1" * 40
    assert files[1].old_lines == {1, 2} and files[1].old_blob == "3333333"
    assert files[3].binary and files[3].old_blob is None
    assert files[4].new_lines == {1}


# -- the MCP tool, over stdio --------------------------------------------------------------------------


def test_change_impact_over_mcp_stdio(repo: Path, tmp_path: Path) -> None:
    edit(repo, "pkg/core.py", "return x * 2", "return x * 3")
    home = tmp_path / "home"

    async def scenario() -> dict[str, Any]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "codefathom", "serve"], cwd=repo,
            env={"CODEFATHOM_HOME": str(home), "CODEFATHOM_EMBEDDER": "none",
                 **({"CODEFATHOM_STORE": os.environ["CODEFATHOM_STORE"]} if "CODEFATHOM_STORE" in os.environ else {})},
        )
        async with Client(params, read_timeout_seconds=60, mode="legacy") as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert "change_impact" in (client.session.instructions or "")
            tool = tools["change_impact"]
            assert tool.annotations is not None and tool.annotations.read_only_hint
            assert "tests" in (tool.description or "")
            found = await client.call_tool("change_impact", {})
            shallow = await client.call_tool("change_impact", {"depth": 1, "limit": 1})
            bad = await client.call_tool("change_impact", {"diff_ref": "no-such-branch"})
            patch = "--- a/pkg/cli.py\n+++ b/pkg/cli.py\n@@ -5 +5 @@\n-    print(handle(1))\n+    print(handle(9))\n"
            piped = await client.call_tool("change_impact", {"diff_text": patch})
        return {"found": reply(found), "shallow": reply(shallow), "bad": bad, "piped": reply(piped)}

    results = anyio.run(scenario)
    found = results["found"]
    assert found["project_root"] == str(repo.resolve())
    assert symbols(found) == {"pkg.core.compute": "modified"}
    assert ("pkg/api.py", 5, "exact", "pkg.api.handle") in dependents(found, "pkg.core.compute")
    assert ("pkg/cli.py", 2) in {(f["path"], f["distance"]) for f in found["impacted_files"]}
    assert [t["path"] for t in found["tests"]] == ["tests/test_core.py", "tests/test_api.py"]

    shallow = results["shallow"]
    assert len(shallow["tests"]) == 1 and shallow["counts"]["tests"] == 2
    assert len(dependents(shallow, "pkg.core.compute")) == 1
    assert any(cut.startswith("tests: 2, 1 shown") for cut in shallow["truncated"])

    bad = results["bad"]
    assert bad.is_error
    assert "unknown revision `no-such-branch`" in " ".join(
        block.text for block in bad.content if isinstance(block, types.TextContent)
    )
    assert symbols(results["piped"]) == {"pkg.cli.main": "modified"}


def reply(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    data: dict[str, Any] = result.structured_content
    return data
