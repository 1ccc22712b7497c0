"""What a search result is named by and how far it reaches: the windows of a long class, and
`--detail unit` (MCP `detail: "unit"`), which grows a hit to the whole unit holding its matching lines.

A class longer than 150 lines is stored as windows of 60 lines (parse/windows.py); each window holds
its methods' code, so a result must be named by the method it shows, and one unit must not be two
results."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

TOPICS = ["headers", "proxies", "cookies", "redirects", "auth", "hooks", "adapters", "timeouts", "retries",
          "streams", "certs", "params"]


def session_source() -> str:
    """A 161-line class of twelve 12-line methods: stored as three windows of its lines."""
    methods = [
        f'''
    def merge_{topic}(self, request, {topic}):
        """Merge the session's {topic} into the request."""
        merged = dict(self.{topic})
        merged.update({topic} or {{}})
        for key in list(merged):
            if merged[key] is None:
                del merged[key]
        request.{topic} = merged
        self.log("{topic}", merged)
        self.count += 1
        self.seen.add("{topic}")
        return request
'''
        for topic in TOPICS
    ]
    return 'class Session:\n    """A session keeps settings across requests."""\n\n    count = 0\n' + "".join(methods)


def long_function_source() -> str:
    """A 200-line function: stored as four windows; `quartz_marker` is on line 130 of the file."""
    body = [f"    total += {i}  # step {i}" for i in range(1, 197)]
    body[126] = "    total += quartz_marker(total)  # the rare step"
    tail = "\n    return total\n\n\ndef quartz_marker(x):\n    return x\n"
    return "def accumulate(total):\n" + "\n".join(body) + tail


GUIDE = "# Guide\n\nIntro.\n\n## Setup\n\n" + "\n".join(
    f"Setup line {i}: install the tool." if i != 90 else "Setup line 90: the zephyr flag enables mirrors."
    for i in range(1, 171)
) + "\n"

NOTES = "\n".join(
    ["Intro notes."] + [""] + [f"filler {i}" for i in range(1, 70)] + [""]
    + ["Mirrors paragraph begins.", "The mirror list is read at startup.", "A wombat mirror is the fallback.",
       "Mirrors paragraph ends."] + [""] + [f"tail {i}" for i in range(1, 20)]
) + "\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "session.py").write_text(session_source(), encoding="utf-8")
    (root / "pkg" / "steps.py").write_text(long_function_source(), encoding="utf-8")
    (root / "pkg" / "util.py").write_text(
        'def merge_settings(request, settings):\n    """Merge settings into a request."""\n    return request\n',
        encoding="utf-8",
    )
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text(GUIDE, encoding="utf-8")
    (root / "notes.txt").write_text(NOTES, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.setenv("CODEFATHOM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEFATHOM_EMBEDDER", "none")
    return root


def method_extents() -> dict[str, tuple[int, int]]:
    """pkg.session.Session.merge_<topic> -> its first and last line, read from the source."""
    lines = session_source().split("\n")
    extents = {}
    for number, line in enumerate(lines, start=1):
        if line.strip().startswith("def merge_"):
            name = line.strip()[4:].split("(")[0]
            end = next(n for n in range(number, len(lines) + 1) if lines[n - 1].strip() == "return request")
            extents[f"pkg.session.Session.{name}"] = (number, end)
    return extents


@pytest.mark.parametrize("per_file", [["--max-per-file", "3"], ["--all-per-file"]])
def test_a_window_of_a_long_class_is_named_by_the_method_it_shows(
    project: Path, search_json: Any, per_file: list[str]
) -> None:
    # Every method logs `merged`: before, the class's three windows ranked first, each labelled
    # `Session` while showing a method's code, and with --all-per-file they took the top three.
    data = search_json("merged log", "-p", str(project), "-n", "5", *per_file)
    results = data["results"]
    extents = method_extents()
    assert len(results) == (5 if "--all-per-file" in per_file else 4)
    named = [(r["path"], r["kind"], r["qualified_name"], r["start_line"]) for r in results]
    assert len(set(named)) == len(named), named  # no unit twice
    for result in results:
        if result["path"] != "pkg/session.py":
            continue
        assert result["kind"] == "method", named
        first, last = extents[result["qualified_name"]]
        assert (result["start_line"], result["end_line"]) == (first, last)
        assert result["lines"] and all(first <= number <= last for number, _ in result["lines"]), result


def test_a_window_and_the_method_it_shows_are_one_result(project: Path, search_json: Any) -> None:
    # The first window holds merge_cookies: before, it came second, as `Session`, showing the lines
    # the first result (merge_cookies itself) shows.
    data = search_json("merge the session cookies into the request", "-p", str(project), "-n", "5")
    names = [r["qualified_name"] for r in data["results"]]
    assert names[0] == "pkg.session.Session.merge_cookies"
    assert len(set(names)) == len(names), names
    assert "pkg.session.Session" not in names


def test_the_parts_of_a_long_function_are_one_result(project: Path, search_json: Any) -> None:
    data = search_json("total step", "-p", str(project), "-n", "5", "--all-per-file", "-k", "function")
    names = [r["qualified_name"] for r in data["results"]]
    assert names.count("pkg.steps.accumulate") == 1, names


def by_name(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in data["results"] if r["qualified_name"] == name)


def test_detail_unit_grows_a_window_of_a_long_function_to_the_function(project: Path, search_json: Any) -> None:
    source = long_function_source().split("\n")
    full = by_name(search_json("quartz_marker", "-p", str(project), "--detail", "full"), "pkg.steps.accumulate")
    assert (full["start_line"], full["end_line"]) == (121, 180)  # the window holding line 128
    unit = by_name(search_json("quartz_marker", "-p", str(project), "--detail", "unit"), "pkg.steps.accumulate")
    assert (unit["start_line"], unit["end_line"], unit["kind"]) == (1, 198, "function")
    assert unit["content"].split("\n") == source[:198] and unit["truncated"] is False


def test_detail_unit_grows_a_section_window_to_the_section_and_text_to_its_paragraph(
    project: Path, search_json: Any
) -> None:
    section = search_json("zephyr flag", "-p", str(project), "--detail", "unit")["results"][0]
    assert (section["qualified_name"], section["start_line"], section["end_line"]) == ("Guide > Setup", 5, 176)
    assert section["content"].startswith("## Setup\n") and "zephyr flag" in section["content"]
    assert section["content"].endswith("Setup line 170: install the tool.")
    text = search_json("wombat mirror", "-p", str(project), "--detail", "unit")["results"][0]
    assert (text["path"], text["start_line"], text["end_line"]) == ("notes.txt", 73, 76)
    assert text["content"].split("\n") == [
        "Mirrors paragraph begins.", "The mirror list is read at startup.", "A wombat mirror is the fallback.",
        "Mirrors paragraph ends.",
    ]


def test_detail_unit_shows_a_long_class_as_its_outline_with_the_files_line_numbers(
    project: Path, search_json: Any, run_cli: Any
) -> None:
    query = ["session keeps settings across requests", "-p", str(project), "-k", "class", "-n", "1"]
    result = search_json(*query, "--detail", "unit")["results"][0]
    assert (result["qualified_name"], result["start_line"], result["end_line"]) == ("pkg.session.Session", 1, 160)
    source = session_source().split("\n")
    shown = result["content"].split("\n")
    assert len(shown) == len(result["line_numbers"])
    assert all(source[number - 1] == line for number, line in zip(result["line_numbers"], shown, strict=True))
    assert sum(line.strip().startswith("def merge_") for line in shown) == len(TOPICS)
    assert not any("merged" in line for line in shown)  # the members' bodies are left out
    text = run_cli("search", *query, "--detail", "unit").stdout
    assert "pkg/session.py:1-160  class  pkg.session.Session" in text
    assert "    32:     def merge_cookies(self, request, cookies):" in text


def test_search_code_detail_unit_over_mcp(project: Path, tmp_path: Path, search_json: Any) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "codefathom", "serve"], cwd=project,
        env={"CODEFATHOM_HOME": os.environ["CODEFATHOM_HOME"], "CODEFATHOM_EMBEDDER": "none",
             "PATH": os.environ.get("PATH", "")},
    )

    async def scenario() -> tuple[list[types.Tool], types.CallToolResult, types.CallToolResult]:
        async with Client(params, read_timeout_seconds=60, mode="legacy") as client:
            tools = (await client.list_tools()).tools
            compact = await client.call_tool("search_code", {"query": "quartz_marker"})
            unit = await client.call_tool("search_code", {"query": "quartz_marker", "detail": "unit"})
            return tools, compact, unit

    tools, compact, unit = anyio.run(scenario)
    search = next(tool for tool in tools if tool.name == "search_code")
    assert "unit" in search.input_schema["properties"]["detail"]["enum"]
    assert not compact.is_error and not unit.is_error
    assert compact.structured_content is not None and unit.structured_content is not None
    grown = by_name(unit.structured_content, "pkg.steps.accumulate")
    assert (grown["start_line"], grown["end_line"], grown["truncated"]) == (1, 198, False)
    assert grown["content"].split("\n") == long_function_source().split("\n")[:198]
    cli = search_json("quartz_marker", "-p", str(project), "--detail", "unit")
    assert grown == by_name(cli, grown["qualified_name"])  # the reply is the CLI's --json
    text = unit.content[0]
    assert isinstance(text, types.TextContent)
    assert "pkg/steps.py:1-198  function  pkg.steps.accumulate" in text.text
    assert "    128:     total += quartz_marker(total)  # the rare step" in text.text
    window = by_name(compact.structured_content, "pkg.steps.accumulate")
    assert (window["start_line"], window["end_line"]) == (121, 180) and "content" not in window


def test_a_unit_matching_several_definitions_takes_the_best_of_their_ranks(tmp_path: Path, run_cli) -> None:
    # Overloads share a file, a qualified name and a kind: a unit joined to its definitions got a row
    # per definition, and its rank was whichever row came last (PostgreSQL, once analysed, read them
    # in another order than SQLite and a search's top 10 changed). The first definition is made the
    # best ranked here, so that the last row is not the best.
    from conftest import project_rows

    from codefathom.service import Codefathom

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "wrap.py").write_text(
        "from typing import overload\n\n\n@overload\ndef wrap(sock: int) -> int: ...\n\n\n"
        "@overload\ndef wrap(sock: str) -> str: ...\n\n\ndef wrap(sock):\n    return sock\n"
    )
    assert run_cli("index", str(repo), "-q", "--no-embed").exit_code == 0
    with Codefathom(repo) as service:
        store = service._open(create=False)
        symbols = sorted(int(r[0]) for r in project_rows(
            service, "SELECT id FROM symbols WHERE qualified_name = 'wrap.wrap'",
            "SELECT id FROM symbols WHERE project_id = %s AND qualified_name = 'wrap.wrap'",
        ))
        assert len(symbols) == 3
        mark = "?" if service.settings.store is None else "%s"
        with store.transaction():
            for symbol, rank in zip(symbols, (5.0, 1.0, 2.0), strict=True):
                store._conn.execute(f"UPDATE symbols SET rank = {mark} WHERE id = {mark}", (rank, symbol))
        ids = [int(r[0]) for r in project_rows(
            service, "SELECT id FROM units WHERE qualified_name = 'wrap.wrap'",
            "SELECT id FROM units WHERE project_id = %s AND qualified_name = 'wrap.wrap'",
        )]
        ranks = [u.rank for u in store.units_by_id(ids, with_rank=True).values()]
    assert ranks == [5.0] * 3, ranks
