"""`codefathom serve` keeps its projects fresh: a file watcher syncs in the background so searches
skip the sweep, an edit is seen by the next search, and several indexes are searched at once."""

from __future__ import annotations

import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
import test_mcp_stdio
from mcp import Client
from test_mcp_stdio import reply, roots_callback, run, serve

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

project, home = test_mcp_stdio.project, test_mcp_stdio.home  # the same fixtures: a small git project, a home

POLL_S = 10  # a bounded poll: a watcher that never reports fails the test, it does not hang it


async def poll(ask: Callable[[], Awaitable[dict[str, Any]]], until: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    with anyio.fail_after(POLL_S):
        while True:
            answer = await ask()
            if until(answer):
                return answer
            await anyio.sleep(0.05)


async def status(client: Client) -> dict[str, Any]:
    return reply(await client.call_tool("index_status", {}))


def test_a_watched_project_is_synced_in_the_background_and_searches_skip_the_sweep(project: Path, home: Path) -> None:
    config = project / "pkg" / "config.py"

    async def scenario() -> None:
        async with serve(project, home) as client:
            first = reply(await client.call_tool("search_code", {"query": "load_config", "include_debug": True}))
            assert first["debug"]["freshness"] == "indexed"
            watching = await poll(lambda: status(client), lambda s: s["watch"]["active"] and s["watch"]["clean"])
            events = watching["watch"]["events"]

            config.write_text(config.read_text() + "\n\ndef merge_settings(base, extra):\n    return base | extra\n")
            await poll(lambda: status(client), lambda s: s["watch"]["events"] > events and s["watch"]["clean"])
            found = reply(await client.call_tool("search_code", {"query": "merge_settings", "include_debug": True}))
            assert found["results"][0]["name"] == "merge_settings"
            assert found["debug"]["freshness"] == "watcher"  # the background sync did the work
            assert "notices" not in found
            after = await status(client)
            assert after["watch"]["sweeps_skipped"] >= 1 and after["watch"]["syncs"] >= 2

    run(scenario)


def test_an_edit_is_seen_by_the_next_search_without_indexing_by_hand(project: Path, home: Path) -> None:
    retry = project / "pkg" / "retry.py"

    async def scenario() -> None:
        async with serve(project, home) as client:
            reply(await client.call_tool("search_code", {"query": "retry_upload"}))
            retry.write_text(retry.read_text().replace("retry_upload", "retry_download"))
            (project / "pkg" / "fresh.py").write_text("def brand_new_helper():\n    return 42\n")

            def has(name: str) -> Callable[[dict[str, Any]], bool]:
                return lambda answer: bool(answer["results"]) and answer["results"][0]["name"] == name

            async def search(query: str) -> dict[str, Any]:
                return reply(await client.call_tool("search_code", {"query": query}))

            await poll(lambda: search("retry_download"), has("retry_download"))
            await poll(lambda: search("brand_new_helper"), has("brand_new_helper"))
            gone = await search("retry_upload")
            assert all(hit["name"] != "retry_upload" for hit in gone["results"])

    run(scenario)


def test_search_code_searches_several_indexes_and_tags_each_result(project: Path, home: Path, tmp_path: Path) -> None:
    lib = tmp_path / "shared-lib"
    (lib / "lib").mkdir(parents=True)
    (lib / "lib" / "backoff.py").write_text(textwrap.dedent('''\
        def exponential_backoff(attempt):
            """Delay before retrying a failed upload."""
            return 2 ** attempt
    '''))

    async def scenario() -> None:
        # The client's roots are what the server serves: the project (the default) and the library.
        async with serve(project, home, list_roots_callback=roots_callback(project, lib)) as client:
            both = reply(await client.call_tool(
                "search_code", {"query": "retry failed upload", "index_names": [str(lib)]}
            ))
            only = reply(await client.call_tool(
                "search_code", {"query": "exponential_backoff", "project_path": str(lib)}
            ))
            listed = reply(await client.call_tool("list_indexes", {}))

        assert {hit["index"] for hit in both["results"]} == {str(project.resolve()), str(lib.resolve())}
        assert {hit["name"] for hit in both["results"][:2]} == {"retry_upload", "exponential_backoff"}
        assert only["project_root"] == str(lib.resolve()) and "index" not in only["results"][0]
        assert {i["project_root"] for i in listed["indexes"]} == {str(project.resolve()), str(lib.resolve())}

    run(scenario)
