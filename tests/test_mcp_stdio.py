"""End-to-end tests of `codefathom serve`: the real server as a subprocess, spoken to over stdio by the SDK client.

Each test starts its server on a small Python project in tmp_path, with CODEFATHOM_HOME in tmp_path too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from conftest import git, one_store
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientRequestContext

from codefathom.config import index_dir_for, redacted_uri
from codefathom.model import UNIT_KINDS
from codefathom.service import Codefathom, render
from codefathom.service.graph import DEP_TYPES, REF_KINDS, SYMBOL_KINDS
from codefathom.service.verbs import ONLY_IN, SPELLED_OTHERWISE, VERBS

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

FILES = {
    "pkg/store.py": '''\
        """The index store."""


        class Store:
            """Units and files, in SQLite."""

            def replace_file(self, path, units):
                """Replace every unit of one file."""
                self.delete_units(path)
                self.insert_units(path, units)

            def delete_units(self, path):
                return path
    ''',
    "pkg/config.py": '''\
        def load_config(path):
            """Read the project settings from a TOML file."""
            with open(path, "rb") as handle:
                return handle.read()
    ''',
    "pkg/retry.py": '''\
        def retry_upload(upload, attempts=3):
            """Retry a failed upload with exponential backoff."""
            for attempt in range(attempts):
                if upload():
                    return attempt
            raise RuntimeError("upload failed")
    ''',
    "tests/test_store.py": '''\
        from pkg.store import Store


        def test_replace_file():
            Store().replace_file("a.py", [])
    ''',
}

TIMEOUT = 20  # seconds for any one request; a hang fails the test instead of stalling the run

# The code graph tools and their parameters, in schema order.
GRAPH_TOOLS = {
    "find_symbol": ["name", "project_path", "kinds", "limit"],
    "find_references": ["name", "project_path", "ref_kinds", "limit"],
    "call_hierarchy": ["name", "project_path", "direction", "depth", "limit"],
    "file_dependencies": ["path", "direction", "project_path", "depth", "dep_types", "limit"],
    "outline": ["path", "tokens", "focus", "project_path"],
    "file_brief": ["path", "project_path"],
    "find_tests": ["name", "path", "project_path"],
    "co_change": ["path", "limit", "commits", "project_path"],
    "change_impact": ["diff_ref", "staged", "diff_text", "depth", "limit", "project_path"],
    "code_health": [
        "report", "project_path", "languages", "include_tests", "limit", "similarity", "min_lines", "detail",
    ],
}
# What a client loads at every session: every tool's name, description, schema and annotations, as JSON,
# read as the SDK sends it (no spaces) and as json.dumps writes it by default (", " and ": ").
TOOLS_LIST_BUDGET = 8_000
# Parameters a schema may leave undescribed: the instructions describe project_path once for every
# tool, and a number's name, default and bounds say what it is.
DESCRIBED_ONCE = {"project_path", "limit", "exclude_glob", "context_before", "context_after"}
# (exclude_glob: globs as path_glob describes them)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)  # a directory inside it is then part of it
    return root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("CODEFATHOM_HOME", str(home))  # for the in-process service some tests compare with
    return home


@asynccontextmanager
async def serve(
    cwd: Path, home: Path, *args: str, env: dict[str, str] | None = None, **client_options: Any
) -> AsyncIterator[Client]:
    """`python -m codefathom serve ARGS` started in `cwd`, connected (initialize handshake unless told)."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "codefathom", "serve", *args], cwd=cwd,
        env={
            "CODEFATHOM_HOME": str(home), "CODEFATHOM_EMBEDDER": os.environ.get("CODEFATHOM_EMBEDDER", "none"),
            **({"CODEFATHOM_STORE": os.environ["CODEFATHOM_STORE"]} if "CODEFATHOM_STORE" in os.environ else {}),
            **(env or {}),
        },
    )
    client_options.setdefault("mode", "legacy")
    async with Client(params, read_timeout_seconds=TIMEOUT, **client_options) as client:
        yield client


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    anyio.run(scenario)


def reply(result: types.CallToolResult) -> dict[str, Any]:
    """The tool's JSON reply (structured content); its text block is the answer written for reading (as
    the CLI prints it), not the JSON again."""
    assert not result.is_error, error_text(result)
    assert result.structured_content is not None
    text = result.content[0]
    assert isinstance(text, types.TextContent) and text.text.strip() and not text.text.startswith("{")
    data: dict[str, Any] = result.structured_content
    return data


def text_of(result: types.CallToolResult) -> str:
    """What a model reads of a reply: its text."""
    assert not result.is_error, error_text(result)
    return error_text(result)


def answer_lines(result: types.CallToolResult) -> list[str]:
    """The lines of a reply's text, less its notices (`# indexed the project first: ...`)."""
    return [line for line in text_of(result).splitlines() if not line.startswith("# ")]


def error_text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


def roots_callback(*roots: Path) -> Any:
    """A client's roots/list answer: these roots."""
    return roots_from(list(roots))


def roots_from(roots: list[Path]) -> Any:
    """A client's roots/list answer: what `roots` holds when the server asks (a client whose roots change)."""

    async def list_roots(context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=root.as_uri(), name=root.name) for root in roots]  # type: ignore[arg-type]
        )

    return list_roots


def indexed(home: Path) -> list[str]:
    """The projects CODEFATHOM_HOME holds an index of, by directory name."""
    return sorted(index.name.rsplit("-", 1)[0] for index in home.iterdir()) if home.exists() else []


@one_store("the tools' schemas")
def test_the_server_offers_its_tools_and_documents_search_code_parameters(project: Path, home: Path) -> None:
    async def scenario() -> None:
        async with serve(project, home) as client:
            assert client.server_info is not None and client.server_info.name == "codefathom"
            assert "search_code" in (client.session.instructions or "")
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}

        assert set(tools) == {"search_code", "index_status", "index_codebase", "list_indexes", "clear_index"} | set(
            GRAPH_TOOLS
        )
        search = tools["search_code"]
        properties = search.input_schema["properties"]
        assert list(properties) == [
            "query", "project_path", "mode", "limit", "languages", "kinds", "path_glob", "exclude_glob", "symbol_name",
            "index_names", "expand", "include_deps", "include_debug", "explain", "detail", "context_before",
            "context_after",
        ]
        assert search.input_schema["required"] == ["query"]
        assert all(properties[name].get("description") for name in set(properties) - DESCRIBED_ONCE)
        assert properties["kinds"]["items"]["enum"] == list(UNIT_KINDS)
        assert "Store.replace_file" in properties["query"]["description"]
        assert "grep" in (search.description or "")
        for name in ("search_code", "index_status"):
            annotations = tools[name].annotations
            assert annotations is not None and annotations.read_only_hint  # (idempotent, not destructive: implied)
        assert list(tools["index_status"].input_schema["properties"]) == ["project_path"]
        assert list(tools["index_codebase"].input_schema["properties"]) == ["project_path", "full"]
        assert list(tools["list_indexes"].input_schema.get("properties", {})) == []
        assert list(tools["clear_index"].input_schema["properties"]) == ["project_path", "name"]
        clear = tools["clear_index"].annotations
        assert clear is not None and clear.destructive_hint and not clear.read_only_hint

    run(scenario)


@one_store("the tools' schemas")
def test_the_tool_list_a_client_loads_fits_in_8000_characters(project: Path, home: Path) -> None:
    async def scenario() -> tuple[list[dict[str, Any]], str]:
        async with serve(project, home) as client:
            listed = await client.list_tools()
            return (
                [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools],
                client.session.instructions or "",
            )

    tools, instructions = anyio.run(scenario)
    size = len(json.dumps(tools, separators=(",", ":")))
    assert size <= TOOLS_LIST_BUDGET, f"tools/list is {size:,} characters"
    spaced = len(json.dumps(tools))
    assert spaced <= TOOLS_LIST_BUDGET, f"tools/list written with spaces is {spaced:,} characters"
    assert len(instructions) <= 1_000, f"the instructions are {len(instructions):,} characters"
    # Every tool says when to use it in a line or two, and no schema carries titles or null branches.
    for tool in tools:
        assert 20 <= len(tool["description"]) <= 200, tool["name"]
        schema = json.dumps(tool["inputSchema"])
        assert '"title"' not in schema and '"null"' not in schema, tool["name"]


@one_store("the tools' schemas")
def test_every_tool_parameter_is_an_option_of_its_cli_commands(project: Path, home: Path) -> None:
    from codefathom.cli.commands import cli

    async def scenario() -> list[types.Tool]:
        async with serve(project, home) as client:
            return (await client.list_tools()).tools

    tools = anyio.run(scenario)
    assert [tool.name for tool in tools] == list(VERBS)
    for tool in tools:
        for verb in VERBS[tool.name]:
            # (--path is project_path's spelling: a tool's `path` must be spelled some other way)
            params = [param for param in cli.commands[verb].params if "--path" not in param.opts]
            spelled = {param.name for param in params} | {
                option.lstrip("-").replace("-", "_") for param in params for option in param.opts
            }
            for name in tool.input_schema["properties"]:
                if (tool.name, name) not in SPELLED_OTHERWISE and verb in ONLY_IN.get((tool.name, name), (verb,)):
                    assert name in spelled, f"{tool.name}({name}) has no option in `codefathom {verb}`"


def test_search_code_lookups_a_stack_trace_line_grep_files_and_reads(project: Path, home: Path) -> None:
    async def scenario() -> None:
        async with serve(project, home) as client:
            def search(query: str, **options: Any) -> Awaitable[types.CallToolResult]:
                return client.call_tool("search_code", {"query": query, **options})

            at_line = reply(await search("pkg/store.py:9", limit=2))
            grep = await search("delete_units(", mode="literal")
            regex = reply(await search(r"def \w+\(self", mode="regex", detail="exists"))
            files = reply(await search("stor", mode="path"))
            read = await search("pkg/store.py:9", mode="read")
            bad = await search("def (", mode="regex")
            refused = await search("x", mode="path", kinds=["class"])

        assert [r["qualified_name"] for r in at_line["results"]] == ["pkg.store.Store.replace_file", "pkg.store.Store"]
        assert at_line["results"][0]["lines"] == [[9, "        self.delete_units(path)"]]
        assert answer_lines(grep) == [
            "pkg/store.py:9: self.delete_units(path)", "pkg/store.py:12: def delete_units(self, path):"
        ]
        assert regex == {"found": True, "count": 2, "counted": "matching lines", "top_file": "pkg/store.py"}
        assert [f["path"] for f in files["files"]] == ["pkg/store.py", "tests/test_store.py"]
        assert answer_lines(read)[0] == (
            "pkg/store.py:7-10 (of 13)  in method pkg.store.Store.replace_file 7-10 < class pkg.store.Store 4-13"
        )
        assert answer_lines(read)[3] == "9:         self.delete_units(path)"
        assert bad.is_error and "not a valid regular expression" in error_text(bad)
        assert refused.is_error and "does not take kinds" in error_text(refused)

    run(scenario)


def test_search_code_brings_the_named_definition_first_with_path_and_lines(project: Path, home: Path) -> None:
    async def scenario() -> None:
        async with serve(project, home) as client:
            by_name = reply(await client.call_tool("search_code", {"query": "Store.replace_file"}))
            by_words = reply(await client.call_tool("search_code", {"query": "retry failed upload", "limit": 3}))
            narrowed = reply(
                await client.call_tool(
                    "search_code", {"query": "replace_file", "path_glob": "tests/", "kinds": ["function"]}
                )
            )
            inside = reply(
                await client.call_tool("search_code", {"query": "replace_file", "project_path": str(project / "tests")})
            )
            whole = reply(await client.call_tool("search_code", {"query": "replace_file", "limit": 1}))

        first = by_name["results"][0]
        assert by_name["project_root"] == str(project.resolve())
        assert (first["path"], first["start_line"], first["end_line"]) == ("pkg/store.py", 7, 10)
        assert first["qualified_name"].endswith("Store.replace_file") and first["kind"] == "method"
        assert first["signature"] == "def replace_file(self, path, units)" and "content" not in first
        assert by_words["results"][0]["name"] == "retry_upload"
        assert [hit["path"] for hit in narrowed["results"]] == ["tests/test_store.py"]
        assert inside["within"] == "tests" and {hit["path"] for hit in inside["results"]} == {"tests/test_store.py"}
        assert "within" not in whole and whole["results"][0]["path"] == "pkg/store.py"  # the same service, whole again

        # The reply is the dict `codefathom search --json` prints.
        with Codefathom(project) as service:
            assert by_name["results"] == render.search_json(service.search("Store.replace_file"))["results"]

    run(scenario)


def test_search_code_shows_the_signature_and_the_matching_lines_and_bodies_on_request(
    project: Path, home: Path
) -> None:
    async def scenario() -> dict[str, types.CallToolResult]:
        async with serve(project, home) as client:
            asked = {"query": "insert_units", "limit": 1}
            return {
                "compact": await client.call_tool("search_code", asked),
                "context": await client.call_tool("search_code", {**asked, "context_before": 1, "context_after": 1}),
                "full": await client.call_tool("search_code", {**asked, "detail": "full"}),
                "wide": await client.call_tool("search_code", {**asked, "context_after": 11}),
            }

    results = anyio.run(scenario)
    compact = answer_lines(results["compact"])
    assert compact[0].startswith("pkg/store.py:7-10  method  pkg.store.Store.replace_file  ")
    assert compact[1:] == ["    def replace_file(self, path, units)", "    10: self.insert_units(path, units)"]
    [hit] = reply(results["compact"])["results"]
    assert hit["lines"] == [[10, "        self.insert_units(path, units)"]] and "content" not in hit
    assert answer_lines(results["context"])[2:] == [
        "    9: self.delete_units(path)", "    10: self.insert_units(path, units)"  # (the unit ends at 10)
    ]
    full = answer_lines(results["full"])
    assert full[1] == "    7: def replace_file(self, path, units):"
    assert full[2] == '    8:     """Replace every unit of one file."""'
    assert reply(results["full"])["results"][0]["content"].startswith("    def replace_file(self, path, units):")
    assert results["wide"].is_error and "context_after" in error_text(results["wide"])


def test_search_code_with_include_deps_names_what_each_result_calls_and_what_calls_it(
    project: Path, home: Path
) -> None:
    async def scenario() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with serve(project, home) as client:
            asked = {"query": "replace_file", "kinds": ["method"], "limit": 1}
            plain = await client.call_tool("search_code", asked)
            return plain, await client.call_tool("search_code", {**asked, "include_deps": True})

    plain, with_deps = anyio.run(scenario)
    assert "deps" not in reply(plain)["results"][0]
    [hit] = reply(with_deps)["results"]
    assert hit["deps"] == {
        "calls": ["pkg.store.Store.delete_units"], "called by": ["tests.test_store.test_replace_file"]
    }
    assert answer_lines(with_deps)[-2:] == [
        "    calls: pkg.store.Store.delete_units", "    called by: tests.test_store.test_replace_file"
    ]


@one_store("the size of a reply, rendered alike from either store")
def test_search_code_with_limit_10_replies_in_under_5000_characters_on_a_real_repository(
    home: Path, tmp_path: Path
) -> None:
    # codefathom's own sources: 100+ files of real code, with long classes and docstrings.
    # (Served from the directory above the package, so that its `mcp/` cannot shadow the SDK's.)
    source = tmp_path / "sources"
    shutil.copytree(
        Path(__file__).parents[1] / "src" / "codefathom", source / "cf", ignore=shutil.ignore_patterns("*.pyc")
    )
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    queries = ["Codefathom.search", "how are changed files re-indexed before a search", "render", "ServiceCache"]

    async def scenario() -> list[types.CallToolResult]:
        async with serve(source, home) as client:
            return [await client.call_tool("search_code", {"query": query, "limit": 10}) for query in queries]

    for query, result in zip(queries, anyio.run(scenario), strict=True):
        assert len(reply(result)["results"]) == 10, query
        size = len(text_of(result))
        assert size <= 5_000, f"{query!r}: {size:,} characters"


def test_search_code_with_expand_returns_what_a_found_function_calls(project: Path, home: Path) -> None:
    async def scenario() -> None:
        async with serve(project, home) as client:
            asked = {"query": "replace_file", "kinds": ["method"], "limit": 3}
            plain = reply(await client.call_tool("search_code", asked))
            expanded = reply(await client.call_tool("search_code", {**asked, "expand": True}))

        assert [hit["qualified_name"] for hit in plain["results"]] == ["pkg.store.Store.replace_file"]
        assert "expanded" not in plain["results"][0]
        first, second = expanded["results"]
        assert first == plain["results"][0]
        # `self.delete_units(path)` in replace_file: its callee, added below it.
        assert second["qualified_name"] == "pkg.store.Store.delete_units" and second["kind"] == "method"
        assert second["expanded"] == {"from": "pkg.store.Store.replace_file", "via": "calls"}
        assert second["score"] < first["score"]

    run(scenario)


@one_store("the roots a server serves")
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_without_project_path_the_tools_use_the_client_root(
    project: Path, home: Path, tmp_path: Path, mode: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def scenario() -> None:
        async with serve(elsewhere, home, mode=mode, list_roots_callback=roots_callback(project)) as client:
            found = reply(await client.call_tool("search_code", {"query": "load_config"}))
            status = reply(await client.call_tool("index_status", {}))

        assert found["project_root"] == status["project_root"] == str(project.resolve())
        assert found["results"][0]["path"] == "pkg/config.py"

    run(scenario)


def test_index_codebase_reports_progress_and_index_status_what_the_index_holds(
    project: Path, home: Path, store: str
) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async def scenario() -> None:
        async with serve(project, home) as client:
            before = reply(await client.call_tool("index_status", {}))
            first = reply(await client.call_tool("index_codebase", {}))
            again = reply(await client.call_tool("index_codebase", {"full": True}, progress_callback=on_progress))
            after = reply(await client.call_tool("index_status", {"project_path": str(project)}))

        assert before["indexed"] is False and before["files"] == 0
        assert (first["files"], first["added"], first["updated"]) == (len(FILES), len(FILES), 0)
        assert first["parse_problems"] == [] and first["project_root"] == str(project.resolve())
        assert (again["files"], again["unchanged"]) == (len(FILES), 0)
        assert updates and updates[-1][:2] == (len(FILES), len(FILES))
        assert after["indexed"] is True and after["files"] == len(FILES)
        assert after["languages"] == {"python": len(FILES)} and after["parse_health"] == {"ok": len(FILES)}
        if store == "sqlite":
            assert after["index_path"].startswith(str(home))
        else:  # the database (no password) and the project, named after its index folder in the home
            database = redacted_uri(os.environ["CODEFATHOM_STORE"])
            assert after["index_path"] == f"{database}#{index_dir_for(project).name}"
            assert after["store_source"] == "$CODEFATHOM_STORE"

    run(scenario)


@one_store("arguments refused before any index is read")
def test_mistakes_come_back_as_tool_errors_and_the_server_keeps_answering(project: Path, home: Path) -> None:
    async def scenario() -> None:
        async with serve(project, home) as client:
            where = str(project)
            bad_glob = await client.call_tool(
                "search_code", {"query": "Store", "project_path": where, "path_glob": "["}
            )
            bad_language = await client.call_tool(
                "search_code", {"query": "Store", "project_path": where, "languages": ["cobol"]}
            )
            missing = await client.call_tool("index_status", {"project_path": str(project / "missing")})
            bad_kind = await client.call_tool("search_code", {"query": "Store", "project_path": where, "kinds": ["x"]})
            after = reply(await client.call_tool("search_code", {"query": "Store", "project_path": where}))

        assert bad_glob.is_error and "invalid path_glob '['" in error_text(bad_glob)
        assert bad_language.is_error and "unknown language 'cobol'" in error_text(bad_language)
        assert missing.is_error and "no such directory" in error_text(missing)
        assert bad_kind.is_error and "kinds" in error_text(bad_kind)
        assert after["results"][0]["qualified_name"].endswith("Store")
        assert [index.name.split("-")[0] for index in home.iterdir()] == ["project"]  # nothing else was indexed

    run(scenario)


def test_list_indexes_and_clear_index_mirror_the_cli(project: Path, home: Path) -> None:
    root = str(project.resolve())

    async def scenario() -> None:
        async with serve(project, home) as client:
            empty = reply(await client.call_tool("list_indexes", {}))
            reply(await client.call_tool("search_code", {"query": "load_config"}))  # indexes, keeps the service open
            listed = reply(await client.call_tool("list_indexes", {}))
            cleared = reply(await client.call_tool("clear_index", {}))
            again = reply(await client.call_tool("clear_index", {"project_path": str(project / "pkg")}))
            after = reply(await client.call_tool("list_indexes", {}))
            left = list(home.glob("*/index.db*"))
            found = reply(await client.call_tool("search_code", {"query": "load_config"}))

        assert empty == {"indexes": []}
        assert [(i["project_root"], i["files"]) for i in listed["indexes"]] == [(root, len(FILES))]
        assert cleared == {"project_root": root, "cleared": True} and again == {"project_root": root, "cleared": False}
        assert after == {"indexes": []} and left == []
        assert found["results"][0]["path"] == "pkg/config.py"  # indexed again from scratch

    run(scenario)


@one_store("the roots a server serves")
def test_with_root_only_paths_inside_it_are_served(project: Path, home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "out").symlink_to(outside, target_is_directory=True)

    async def scenario() -> None:
        async with serve(tmp_path, home, "--root", str(project / "pkg")) as client:
            inside = reply(await client.call_tool("search_code", {"query": "load_config"}))  # the root is the default
            relative = reply(await client.call_tool("index_status", {"project_path": "."}))
            escapes = [
                await client.call_tool("search_code", {"query": "x", "project_path": path})
                for path in ("..", "../tests", str(project / "out"), str(outside), str(project / "pkg/../tests"))
            ]
            # The project's root is outside the served directory, so its index may not be cleared from here.
            clear = await client.call_tool("clear_index", {})
            # Files named to the graph tools are confined too.
            served_file = reply(
                await client.call_tool("file_dependencies", {"path": "pkg/store.py", "direction": "dependents"})
            )
            other_file = await client.call_tool(
                "file_dependencies", {"path": ["pkg/store.py", "tests/test_store.py"], "direction": "dependencies"}
            )

        assert inside["within"] == "pkg" and inside["results"][0]["path"] == "pkg/config.py"
        assert relative["project_root"] == str(project.resolve())
        for result in escapes:
            assert result.is_error
            assert f"is outside the roots this server serves: {(project / 'pkg').resolve()}" in error_text(result)
        assert clear.is_error and "codefathom clear" in error_text(clear)
        assert served_file["paths"] == ["pkg/store.py"]
        assert other_file.is_error and "is outside the roots this server serves" in error_text(other_file)

    run(scenario)


SECRET = "def secret_key():\n    '''The signing key.'''\n    return 'hunter2'\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the project that no test serves: what a call must never index or read."""
    root = tmp_path / "outside"
    root.mkdir()
    (root / "keys.py").write_text(SECRET, encoding="utf-8")
    return root


def test_without_root_a_path_outside_the_working_directory_and_the_client_roots_is_refused(
    project: Path, home: Path, tmp_path: Path, outside: Path
) -> None:
    listed_elsewhere = tmp_path / "elsewhere"
    listed_elsewhere.mkdir()
    (listed_elsewhere / "other.py").write_text("def other():\n    pass\n", encoding="utf-8")
    with Codefathom(listed_elsewhere) as service:  # an index another user of this home made
        service.index()
    (project / "escape").symlink_to(outside, target_is_directory=True)
    where = str(outside)

    async def scenario() -> dict[str, types.CallToolResult]:
        results: dict[str, types.CallToolResult] = {}
        async with serve(project, home) as client:
            calls: dict[str, tuple[str, dict[str, Any]]] = {
                "search": ("search_code", {"query": "secret_key", "project_path": where}),
                "relative": ("search_code", {"query": "secret_key", "project_path": "../outside"}),
                "symlink": ("search_code", {"query": "secret_key", "project_path": str(project / "escape")}),
                "home": ("search_code", {"query": "secret_key", "project_path": "~"}),
                "index_names": ("search_code", {"query": "secret_key", "index_names": [where]}),
                "index_names_only": ("search_code", {"query": "x", "project_path": where, "index_names": [where]}),
                "index": ("index_codebase", {"project_path": where}),
                "status": ("index_status", {"project_path": where}),
                "clear": ("clear_index", {"project_path": str(listed_elsewhere)}),
                "analyze": ("search_code", {"query": "secret_key", "explain": True, "project_path": where}),
                "symbol": ("find_symbol", {"name": "secret_key", "project_path": where}),
                "outline": ("outline", {"project_path": where}),
                "brief": ("file_brief", {"path": "keys.py", "project_path": where}),
                "impact": (
                    "file_dependencies", {"path": ["keys.py"], "direction": "dependents", "project_path": where}
                ),
                "dead": ("code_health", {"report": "dead", "project_path": where}),
                "conventions": ("code_health", {"report": "conventions", "project_path": where}),
                "tests": ("find_tests", {"name": "secret_key", "project_path": where}),
            }
            for key, (tool, arguments) in calls.items():
                results[key] = await client.call_tool(tool, arguments)
            results["list"] = await client.call_tool("list_indexes", {})
            results["inside"] = await client.call_tool("search_code", {"query": "load_config"})
        return results

    results = anyio.run(scenario)
    listed = reply(results.pop("list"))
    inside = reply(results.pop("inside"))
    for key, result in results.items():
        assert result.is_error, key
        text = error_text(result)
        assert f"is outside the roots this server serves: {project.resolve()}" in text, (key, text)
        assert "--root DIR" in text, key
    assert "resolved: " in error_text(results["symlink"])
    assert [i["project_root"] for i in listed["indexes"]] == []  # elsewhere's index is not this server's to show
    assert inside["results"][0]["path"] == "pkg/config.py"
    assert indexed(home) == ["elsewhere", "project"], "nothing outside was indexed"


@one_store("the roots a server serves")
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_client_roots_are_served_with_the_working_directory(
    project: Path, home: Path, tmp_path: Path, outside: Path, mode: str
) -> None:
    lib = tmp_path / "lib"
    (lib / "lib").mkdir(parents=True)
    (lib / "lib" / "backoff.py").write_text("def exponential_backoff(attempt):\n    return 2 ** attempt\n")

    async def scenario() -> dict[str, types.CallToolResult]:
        async with serve(project, home, mode=mode, list_roots_callback=roots_callback(lib)) as client:
            where = str(project)
            return {
                "default": await client.call_tool("search_code", {"query": "exponential_backoff"}),
                "workdir": await client.call_tool("search_code", {"query": "load_config", "project_path": where}),
                "both": await client.call_tool(
                    "search_code",
                    {"query": "load_config exponential_backoff", "project_path": where, "index_names": [str(lib)]},
                ),
                "list": await client.call_tool("list_indexes", {}),
                "outside": await client.call_tool("search_code", {"query": "secret_key", "project_path": str(outside)}),
            }

    results = anyio.run(scenario)
    assert reply(results["default"])["project_root"] == str(lib.resolve())  # the client's first root
    assert reply(results["workdir"])["results"][0]["path"] == "pkg/config.py"
    both = {str(lib.resolve()), str(project.resolve())}
    assert {hit["index"] for hit in reply(results["both"])["results"]} == both
    assert {i["project_root"] for i in reply(results["list"])["indexes"]} == both
    assert results["outside"].is_error
    served = f"outside the roots this server serves: {lib.resolve()}, {project.resolve()}"
    assert served in error_text(results["outside"])
    assert indexed(home) == ["lib", "project"]


# Roots are deprecated as of the 2026-07-28 protocol; clients on earlier ones still send them.
@one_store("the roots a server serves")
@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
def test_roots_the_client_changes_count_from_its_next_call(project: Path, home: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for root in (first, second):
        root.mkdir()
        (root / f"{root.name}.py").write_text(f"def {root.name}_thing():\n    pass\n", encoding="utf-8")
    roots = [first]

    async def scenario() -> tuple[dict[str, Any], types.CallToolResult, types.CallToolResult, dict[str, Any]]:
        async with serve(project, home, list_roots_callback=roots_from(roots)) as client:
            before = reply(await client.call_tool("index_status", {"project_path": str(first)}))
            refused = await client.call_tool("index_status", {"project_path": str(second)})
            roots[:] = [second]
            await client.send_roots_list_changed()
            gone = await client.call_tool("index_status", {"project_path": str(first)})
            after = reply(await client.call_tool("index_status", {"project_path": str(second)}))
        return before, refused, gone, after

    before, refused, gone, after = anyio.run(scenario)
    assert before["project_root"] == str(first.resolve()) and after["project_root"] == str(second.resolve())
    assert refused.is_error and gone.is_error
    assert f"is outside the roots this server serves: {second.resolve()}, {project.resolve()}" in error_text(gone)


@one_store("the roots a server serves")
@pytest.mark.parametrize("where", ["filesystem root", "home directory"])
def test_a_server_started_in_the_filesystem_root_or_home_serves_only_the_client_roots(
    project: Path, home: Path, tmp_path: Path, where: str
) -> None:
    user = tmp_path / "user"
    user.mkdir()
    cwd = Path("/") if where == "filesystem root" else user
    env = {"HOME": str(user)}

    async def scenario() -> tuple[dict[str, types.CallToolResult], dict[str, Any] | None]:
        async with serve(cwd, home, env=env) as client:  # as clients that know no project start servers
            refused = {
                "given": await client.call_tool("search_code", {"query": "Store", "project_path": str(project)}),
                "default": await client.call_tool("search_code", {"query": "Store"}),
                "index": await client.call_tool("index_codebase", {"project_path": str(project)}),
                "list": await client.call_tool("list_indexes", {}),
                "clear": await client.call_tool("clear_index", {"project_path": str(project)}),
            }
        if where == "home directory":
            return refused, None
        async with serve(cwd, home, env=env, list_roots_callback=roots_callback(project)) as client:
            found = reply(await client.call_tool("search_code", {"query": "Store"}))
        return refused, found

    refused, found = anyio.run(scenario)
    for key, result in refused.items():
        assert result.is_error, key
        text = error_text(result)
        assert f"the server runs in {cwd.resolve()}, too wide to search whole" in text, (key, text)
        assert "--root DIR" in text and "open a project in the client" in text and "\n" not in text, key
    if found is not None:  # a project the client has open is served wherever the server runs
        assert found["project_root"] == str(project.resolve())


@one_store("the roots a server serves")
def test_files_named_to_the_graph_tools_must_be_served_too(project: Path, home: Path) -> None:
    async def scenario() -> dict[str, types.CallToolResult]:
        # Started in pkg/: the project (the git work tree) is indexed whole, but only pkg/ is served.
        async with serve(project / "pkg", home) as client:
            impact = {"direction": "dependents"}
            served = reply(await client.call_tool("file_dependencies", {"path": "pkg/store.py", **impact}))
            assert served["paths"] == ["pkg/store.py"]
            return {
                "impact": await client.call_tool("file_dependencies", {"path": "tests/test_store.py", **impact}),
                "batch": await client.call_tool(
                    "file_dependencies", {"path": ["pkg/store.py", "tests/"], "direction": "dependencies"}
                ),
                "brief": await client.call_tool("file_brief", {"path": "tests/test_store.py"}),
                "outline": await client.call_tool("outline", {"path": "tests"}),
                "tests": await client.call_tool("find_tests", {"path": "tests/test_store.py"}),
                "co_change": await client.call_tool("co_change", {"path": "tests/test_store.py"}),
                "project": await client.call_tool("search_code", {"query": "x", "project_path": ".."}),
                "clear": await client.call_tool("clear_index", {}),
            }

    results = anyio.run(scenario)
    for key, result in results.items():
        assert result.is_error, key
    for key in ("impact", "batch", "brief", "outline", "tests", "co_change", "project"):
        assert f"is outside the roots this server serves: {(project / 'pkg').resolve()}" in error_text(results[key])
    assert "codefathom clear" in error_text(results["clear"])


@one_store("the roots a server serves")
def test_a_link_leading_out_of_the_repository_or_the_served_roots_is_left_out_with_a_notice(
    project: Path, home: Path, tmp_path: Path, outside: Path
) -> None:
    user = tmp_path / "user"
    (user / "x").mkdir(parents=True)
    (user / "x" / "keys.py").write_text(SECRET, encoding="utf-8")
    lib = project / "vendor" / "lib"
    lib.mkdir(parents=True)
    (lib / "backoff.py").write_text("def exponential_backoff(attempt):\n    return 2 ** attempt\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(lib)], check=True)  # a nested repository: a project of its own
    (project / ".codefathom.toml").write_text('linked = ["../outside", "~/x", "vendor/lib"]\n', encoding="utf-8")
    query = {"query": "secret_key exponential_backoff load_config"}

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with serve(project, home, env={"HOME": str(user)}) as client:
            whole = reply(await client.call_tool("search_code", query))
        async with serve(project / "pkg", home, env={"HOME": str(user)}) as client:  # serves pkg/ only
            narrow = reply(await client.call_tool("search_code", query))
        return whole, narrow

    whole, narrow = anyio.run(scenario)
    assert all(hit.get("name") != "secret_key" for hit in whole["results"] + narrow["results"])
    assert {hit["index"] for hit in whole["results"]} == {str(project.resolve()), str(lib.resolve())}
    notices = [notice for notice in whole["notices"] if notice.startswith("linked project")]
    assert len(notices) == 2 and "outside the repository" in notices[0] and "`~` is not expanded" in notices[1]
    # Inside the repository but outside what this server serves: left out too, and the search goes on.
    assert narrow["results"][0]["path"] == "pkg/config.py" and "index" not in narrow["results"][0]
    notices = [notice for notice in narrow["notices"] if notice.startswith("linked project")]
    assert len(notices) == 3, notices
    assert f"is outside the roots this server serves: {(project / 'pkg').resolve()}" in notices[2]
    assert indexed(home) == ["lib", "project"]


@one_store("the tools' schemas")
def test_the_graph_tools_are_read_only_and_document_their_parameters(project: Path, home: Path) -> None:
    async def scenario() -> None:
        async with serve(project, home) as client:
            instructions = client.session.instructions or ""
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}

        assert "find_references" in instructions and "file_dependencies" in instructions
        for name, parameters in GRAPH_TOOLS.items():
            tool = tools[name]
            properties = tool.input_schema["properties"]
            assert list(properties) == parameters, name
            annotations = tool.annotations
            assert annotations is not None and annotations.read_only_hint
        assert tools["find_symbol"].input_schema["properties"]["kinds"]["items"]["enum"] == list(SYMBOL_KINDS)
        assert tools["find_references"].input_schema["properties"]["ref_kinds"]["items"]["enum"] == list(REF_KINDS)
        dep_types = tools["file_dependencies"].input_schema["properties"]["dep_types"]
        assert dep_types["items"]["enum"] == list(DEP_TYPES)
        assert tools["file_dependencies"].input_schema["required"] == ["path", "direction"]
        assert "before renaming" in (tools["find_references"].description or "")
        assert "blast radius" in (tools["file_dependencies"].description or "")

    run(scenario)


def test_each_graph_tool_answers_over_stdio_as_the_cli_does(project: Path, home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n", encoding="utf-8")

    results: dict[str, Any] = {}
    uses, used_by = {"direction": "dependencies"}, {"direction": "dependents"}

    async def scenario() -> None:
        async with serve(project, home) as client:
            calls: dict[str, tuple[str, dict[str, Any]]] = {
                "symbol": ("find_symbol", {"name": "Store.replace_file"}),
                "missing": ("find_symbol", {"name": "no_such_name", "kinds": ["class"]}),
                "refs": ("find_references", {"name": "replace_file", "ref_kinds": ["call"]}),
                "all_refs": ("find_references", {"name": "replace_file", "limit": 0}),
                "callers": ("call_hierarchy", {"name": "delete_units", "depth": 2}),
                "callers_cut": ("call_hierarchy", {"name": "delete_units", "depth": 2, "limit": 1}),
                "callees": ("call_hierarchy", {"name": "replace_file", "direction": "callees"}),
                "deps": ("file_dependencies", {"path": "tests/test_store.py", **uses}),
                "impact": ("file_dependencies", {"path": "pkg/store.py", "depth": 2, **used_by}),
                "batch_deps": ("file_dependencies", {"path": ["tests/test_store.py", "pkg/store.py"], **uses}),
                "batch_impact": (
                    "file_dependencies", {"path": ["pkg/store.py", "pkg/config.py"], "dep_types": "import", **used_by}
                ),
                "dead": ("code_health", {"report": "dead"}),
                "dead_one": ("code_health", {"report": "dead", "limit": 1}),
                "bad_type": ("file_dependencies", {"path": "pkg/store.py", "dep_types": ["imports"], **used_by}),
                "bad_depth": ("call_hierarchy", {"name": "replace_file", "depth": 0}),
                "outside": ("file_dependencies", {"path": str(outside), **uses}),
                "unindexed": ("file_dependencies", {"path": ["pkg/missing.py"], **used_by}),
                "no_direction": ("file_dependencies", {"path": "pkg/store.py"}),
            }
            errors = ("bad_type", "bad_depth", "outside", "unindexed", "no_direction")
            for key, (tool, arguments) in calls.items():
                result = await client.call_tool(tool, arguments)
                results[key] = result if key in errors else reply(result)

    run(scenario)
    root = str(project.resolve())
    symbol = results["symbol"]
    assert symbol["project_root"] == root
    assert [(s["path"], s["start_line"], s["kind"], s["doc"]) for s in symbol["symbols"]] == [
        ("pkg/store.py", 7, "method", "Replace every unit of one file.")
    ]
    assert results["missing"]["symbols"] == [] and "search" in results["missing"]["note"]

    [ref] = results["refs"]["references"]
    assert (ref["path"], ref["line"], ref["scope"]) == ("tests/test_store.py", 5, "tests.test_store.test_replace_file")
    assert ref["label"] in ("exact", "high", "likely", "possible") and results["refs"]["unbound_elsewhere"] == 0
    assert (results["refs"]["total_references"], results["refs"]["limit"]) == (1, 50)
    assert results["all_refs"]["references"] == results["refs"]["references"] and results["all_refs"]["limit"] == 0

    [callers] = results["callers"]["roots"]
    [replace] = callers["children"]
    assert replace["qualified_name"] == "pkg.store.Store.replace_file" and replace["label"] == "exact"
    assert [c["qualified_name"] for c in replace["children"]] == ["tests.test_store.test_replace_file"]
    cut = results["callers_cut"]
    assert [c["qualified_name"] for c in cut["roots"][0]["children"]] == ["pkg.store.Store.replace_file"]
    assert "children" not in cut["roots"][0]["children"][0] and (cut["truncated"], cut["more"]) == (True, 1)
    [callees] = results["callees"]["roots"]
    assert [c["qualified_name"] for c in callees["children"]] == ["pkg.store.Store.delete_units"]

    assert results["deps"]["roots"] == [
        {"path": "tests/test_store.py", "children": [{"path": "pkg/store.py", "via": {"call": 2, "import": 1}}]}
    ]
    assert [c["path"] for c in results["impact"]["roots"][0]["children"]] == ["tests/test_store.py"]
    assert results["impact"]["direction"] == "dependents"
    assert results["batch_deps"]["paths"] == ["tests/test_store.py", "pkg/store.py"]
    assert results["batch_deps"]["files"] == 0  # pkg/store.py is a root, so it is not counted as reached
    batch = results["batch_impact"]
    assert batch["dep_types"] == ["import"] and batch["files"] == 1
    assert [root_node.get("children", []) for root_node in batch["roots"]] == [
        [{"path": "tests/test_store.py", "via": {"import": 1}}], []
    ]
    dead = results["dead"]
    assert {d["qualified_name"] for d in dead["public_api"]} == {"pkg.config.load_config", "pkg.retry.retry_upload"}
    assert all(d["confidence"] and d["reason"] for d in dead["public_api"])
    assert (dead["total_public_api"], dead["limit"]) == (2, 25)
    one = results["dead_one"]
    assert len(one["public_api"]) == 1 and one["total_public_api"] == 2 and one["limit"] == 1

    assert results["bad_type"].is_error and "dep_types" in error_text(results["bad_type"])
    assert results["no_direction"].is_error and "direction" in error_text(results["no_direction"])
    assert results["bad_depth"].is_error and "depth" in error_text(results["bad_depth"])
    assert results["outside"].is_error and "outside the project root" in error_text(results["outside"])
    assert results["unindexed"].is_error and "not in the index" in error_text(results["unindexed"])

    # The replies are the dicts `codefathom ... --json` prints.
    with Codefathom(project) as service:
        assert results["refs"] == render.refs_json(service.refs("replace_file", kinds=["call"]))
        assert results["impact"] == render.deps_json(service.deps("pkg/store.py", depth=2, reverse=True))


def test_outline_and_file_brief_answer_over_stdio_as_the_cli_does(project: Path, home: Path) -> None:
    results: dict[str, Any] = {}

    async def scenario() -> None:
        async with serve(project, home) as client:
            results["outline"] = reply(await client.call_tool("outline", {"tokens": 300, "focus": "retry upload"}))
            results["inside"] = reply(await client.call_tool("outline", {"path": "tests"}))
            results["brief"] = reply(await client.call_tool("file_brief", {"path": "pkg/store.py"}))
            results["missing"] = await client.call_tool("file_brief", {"path": "pkg/missing.py"})
            results["small"] = await client.call_tool("outline", {"tokens": 10})

    run(scenario)
    outline = results["outline"]
    assert outline["tokens"] <= 300 and outline["dirs"][0]["files"][0]["file"] == "retry.py"
    assert results["inside"]["path"] == "tests" and [d["dir"] for d in results["inside"]["dirs"]] == ["tests"]
    brief = results["brief"]
    names = [d["qualified_name"] for d in brief["definitions"]]
    assert names[:2] == ["pkg.store.Store", "pkg.store.Store.replace_file"]
    assert brief["dependents"] == [{"path": "tests/test_store.py", "via": {"call": 2, "import": 1}}]
    assert brief["tests"] == [{"path": "tests/test_store.py", "why": ["call", "import", "named like it"]}]
    assert results["missing"].is_error and "not in the index" in error_text(results["missing"])
    assert results["small"].is_error
    with Codefathom(project) as service:
        assert outline == render.outline_json(service.outline(tokens=300, focus="retry upload"))
        assert brief == render.brief_json(service.brief("pkg/store.py"))


def test_find_tests_and_co_change_answer_over_stdio_as_the_cli_does(project: Path, home: Path) -> None:
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "start")
    (project / "pkg" / "store.py").write_text("class Store:\n    pass\n", encoding="utf-8")
    (project / "tests" / "test_store.py").write_text("def test_nothing():\n    pass\n", encoding="utf-8")
    git(project, "commit", "-q", "-am", "store and its test")
    results: dict[str, Any] = {}

    async def scenario() -> None:
        async with serve(project, home) as client:
            results["tests"] = reply(await client.call_tool("find_tests", {"name": "load_config"}))
            results["file"] = reply(await client.call_tool("find_tests", {"path": "pkg/store.py"}))
            results["both"] = await client.call_tool("find_tests", {"name": "load_config", "path": "pkg/store.py"})
            results["not_a_file"] = await client.call_tool("find_tests", {"path": "pkg/nothing.py"})
            results["cochange"] = reply(await client.call_tool("co_change", {"path": "pkg/store.py", "limit": 5}))
            results["bad"] = await client.call_tool("co_change", {"path": "pkg/store.py", "commits": 0})

    run(scenario)
    assert results["tests"]["target_kind"] == "symbol" and results["tests"]["tests"] == []
    assert [(t["path"], t["rank"]) for t in results["file"]["tests"]] == [("tests/test_store.py", "named")]
    cochange = results["cochange"]
    assert (cochange["commits"], cochange["file_commits"]) == (2, 2)
    assert cochange["files"][0] == {"path": "tests/test_store.py", "together": 2, "confidence": 1.0, "support": 1.0}
    assert results["bad"].is_error
    assert results["both"].is_error and "name or path" in error_text(results["both"])
    assert results["not_a_file"].is_error and "pkg/nothing.py is not in the index" in error_text(results["not_a_file"])
    with Codefathom(project) as service:
        assert results["file"] == render.tests_json(service.find_tests("pkg/store.py"))
        assert cochange == render.cochange_json(service.co_change("pkg/store.py", limit=5))
