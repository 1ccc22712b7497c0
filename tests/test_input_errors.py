"""Bad input ends in one line that names its cause: exit code 2 from the CLI, a tool error from MCP.

A `--jsonl` batch answers a bad line with an error object for that line and goes on with the next.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import git
from test_mcp_stdio import error_text, reply, run, serve

from codefathom.cli import cli

LONG_NAME = "a" * 300  # over the 255 bytes a file name may have
HUGE = "99999999999999999999"  # over SQLite's 64-bit integers


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("def hello(x):\n    return x\n\n\ndef caller():\n    return hello(1)\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    os.symlink("loop2", root / "loop1")
    os.symlink("loop1", root / "loop2")
    return root


def _cli(*args: str, input: bytes | str | None = None) -> Result:
    """The real command in-process; an exception escaping it fails the test with its traceback."""
    result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    return result


def _usage_error(result: Result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 or lines[-1].startswith("Error: "), result.stderr  # one line (click adds usage)
    assert all(word in result.stderr for word in words), result.stderr


def test_a_jsonl_batch_answers_each_bad_line_and_goes_on(project: Path) -> None:
    lines = [
        b'{"query": "hello", "languages": [123]}',
        b'{"query": "hello", "languages": [null]}',
        b'{"query": "hello", "kinds": "function", "limit": "3"}',
        b'{"query": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b"\xff\xfe hello",
        b'{"query": "hello", "limit": 99999999999999999999}',
        b'{"query": ["hello"]}',
        b"hello",
    ]
    _cli("index", str(project), "-q", "--no-embed")
    result = _cli("search", "--jsonl", "-", "--path", str(project), input=b"\n".join(lines) + b"\n")
    assert result.exit_code == 0, result.output
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r.get("line") for r in replies[:-1]] == [1, 2, 3, 4, 5, 6, 7]
    errors = [r["error"] for r in replies[:-1]]
    assert "languages" in errors[0] and "123" in errors[0]
    assert "languages" in errors[1] and "None" in errors[1]
    assert "limit" in errors[2]
    assert "nested too deeply" in errors[3]
    assert "not valid UTF-8" in errors[4]
    assert "limit" in errors[5]
    assert "query" in errors[6]
    assert replies[-1]["results"][0]["name"] == "hello"


@pytest.mark.parametrize(
    "args, words",
    [
        (["refs", "hello", "-n", HUGE], ["--limit"]),
        (["search", "hello", "-n", HUGE], ["--limit"]),
        (["explain", "hello", "-n", HUGE], ["--limit"]),
        (["callers", "hello", "-d", HUGE], ["--depth"]),
        (["callees", "hello", "-d", HUGE], ["--depth"]),
        (["deps", "app.py", "-d", HUGE], ["--depth"]),
        (["impact", "app.py", "-d", HUGE], ["--depth"]),
        (["impact", "--diff", "HEAD", "-n", HUGE], ["--limit"]),
        (["outline", ".", "-t", HUGE], ["--tokens"]),
        (["cochange", "app.py", "-n", HUGE], ["--limit"]),
        (["cochange", "app.py", "-c", HUGE], ["--commits"]),
        (["index", ".", "--no-embed", "--embed-budget", "nan"], ["--embed-budget"]),
    ],
)
def test_every_number_too_large_is_a_usage_error_naming_its_option(
    project: Path, args: list[str], words: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    _usage_error(_cli(*args), *words)


def test_a_per_file_cap_above_every_file_is_no_cap(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = _cli("search", "hello", "--max-per-file", HUGE, "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["results"]) == 2


@pytest.mark.parametrize("verb", ["deps", "impact", "brief", "cochange", "outline"])
@pytest.mark.parametrize("name, cause", [("loop1", "symbolic links"), (LONG_NAME, "name too long")])
def test_a_path_in_a_link_loop_or_too_long_is_a_usage_error_naming_it(
    project: Path, verb: str, name: str, cause: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    result = _cli(verb, name)
    if verb == "outline":  # a directory that is not one
        _usage_error(result, "no such directory")
    else:
        _usage_error(result, cause, name[:40])


@pytest.mark.parametrize("name", ["loop1", LONG_NAME])
def test_tests_of_a_path_that_names_no_file_look_for_a_symbol_of_that_name(
    project: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    result = _cli("tests", name, "--json")
    assert result.exit_code == 1, result.output  # no definition of that name either: not found
    assert json.loads(result.stdout)["target_kind"] == "symbol"


def test_a_nul_in_a_path_option_is_a_usage_error_even_where_click_reads_it(project: Path) -> None:
    # click's own Path type stats the value before any command runs.
    _usage_error(_cli("search", "hello", "-p", "a\x00b"), "NUL")
    _usage_error(_cli("index", "a\x00b", "--no-embed"), "NUL")


def test_a_search_in_a_directory_that_is_a_link_loop_or_too_long_names_it(project: Path) -> None:
    _usage_error(_cli("search", "hello", "-p", str(project / "loop1")), "no such directory", "loop1")
    _usage_error(_cli("search", "hello", "-p", str(project / LONG_NAME)), "no such directory", "aaaa")
    _usage_error(_cli("status", str(project), "--index-dir", str(project / LONG_NAME)), "name too long")


def test_the_real_command_prints_no_traceback_for_bad_input(project: Path) -> None:
    # The installed entry point, as a user runs it: stderr is the one line, stdin read as bytes.
    command = [sys.executable, "-m", "codefathom"]
    env = {**os.environ}
    done = subprocess.run(
        [*command, "refs", "hello", "-n", HUGE], cwd=project, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    done = subprocess.run([*command, "deps", "loop1"], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == ["error: loop1: too many levels of symbolic links (a link that"
                                                " leads back to itself)"]
    batch = subprocess.run(
        [*command, "search", "--jsonl", "-"], cwd=project, env=env, input=b"\xffhello\nhello\n",
        capture_output=True, timeout=60,
    )
    assert batch.returncode == 0 and b"Traceback" not in batch.stderr, batch.stderr
    assert [json.loads(line).get("line") for line in batch.stdout.splitlines()] == [1, None]


def test_the_mcp_tools_name_the_cause_of_bad_input(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    where = str(project)

    async def scenario() -> None:
        async with serve(project, home) as client:
            calls: dict[str, tuple[str, dict[str, Any]]] = {
                "languages": ("search_code", {"query": "hello", "languages": [123]}),
                "null": ("search_code", {"query": "hello", "languages": [None]}),
                "limit": ("find_references", {"name": "hello", "limit": int(HUGE)}),
                "loop": ("file_dependencies", {"path": "loop1", "direction": "dependencies"}),
                "long": ("file_brief", {"path": LONG_NAME}),
                "impact": ("file_dependencies", {"path": [LONG_NAME], "direction": "dependents"}),
                "cochange": ("co_change", {"path": "loop1"}),
                "tests": ("find_tests", {"name": LONG_NAME}),
                "tests_file": ("find_tests", {"path": LONG_NAME}),
                "project": ("index_status", {"project_path": str(project / LONG_NAME)}),
                "nul": ("find_symbol", {"name": "hel\x00lo"}),
            }
            results = {}
            for key, (tool, arguments) in calls.items():
                results[key] = await client.call_tool(tool, {"project_path": where, **arguments})
            after = reply(await client.call_tool("search_code", {"query": "hello", "project_path": where}))

        for key in ("languages", "null", "limit", "loop", "long", "impact", "cochange", "project", "tests_file"):
            assert results[key].is_error, key
            text = error_text(results[key])
            assert text.strip() and ": " in text, (key, text)  # a cause after the tool's name
        assert "languages" in error_text(results["languages"])
        assert "limit" in error_text(results["limit"])
        assert "symbolic links" in error_text(results["loop"])
        for key in ("long", "impact", "tests_file"):  # resolved by the server before the service sees it
            assert "a (300 characters) is not in the index" in error_text(results[key]), error_text(results[key])
        assert "symbolic links" in error_text(results["cochange"])
        assert "no such directory" in error_text(results["project"])
        assert reply(results["tests"])["target_kind"] == "symbol"
        for key in ("nul",):  # an answer, or an error that says why
            assert not results[key].is_error or ": " in error_text(results[key]), (key, error_text(results[key]))
        assert after["results"][0]["name"] == "hello"

    run(scenario)
