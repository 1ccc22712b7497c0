"""End-to-end tests of `codefathom serve --http/--sse`: the real server as a subprocess on a free port.

One streamable-HTTP server (token set, `--root` on a directory holding a small git project) serves
the module's tests; the SSE and no-token cases start their own. Clients are the SDK's.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp.types as types
import pytest
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from codefathom.errors import UsageError
from codefathom.mcp.http import parse_address

TOKEN = "test-token-4f1c"
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
TIMEOUT = 20  # seconds for any one request
START_TIMEOUT = 15  # seconds for a server to accept connections

FILES = {
    "pkg/store.py": '''\
        class Store:
            """Units and files, in SQLite."""

            def replace_file(self, path, units):
                """Replace every unit of one file."""
                return path, units
    ''',
    "pkg/retry.py": '''\
        def retry_upload(upload, attempts=3):
            """Retry a failed upload with exponential backoff."""
            return [upload() for _ in range(attempts)]
    ''',
    "tests/test_store.py": '''\
        from pkg.store import Store


        def test_replace_file():
            Store().replace_file("a.py", [])
    ''',
}


@dataclass
class Layout:
    served: Path  # the --root
    project: Path  # a git project inside it
    outside: Path  # a project next to it, not served
    home: Path  # CODEFATHOM_HOME of the server


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    log: Path


def write_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def ipv6_loopback() -> bool:
    """Whether this machine has ::1 to bind to (containers without IPv6 do not)."""
    try:
        free_port("::1")
    except OSError:
        return False
    return True


def server_env(home: Path, token: str | None = None) -> dict[str, str]:
    """The test's environment with its own CODEFATHOM_HOME, and CODEFATHOM_TOKEN only when given."""
    env = {key: value for key, value in os.environ.items() if key != "CODEFATHOM_TOKEN"}
    env["CODEFATHOM_HOME"] = str(home)
    if token:
        env["CODEFATHOM_TOKEN"] = token
    return env


@contextmanager
def running(
    args: list[str], cwd: Path, home: Path, path: str, port: int, token: str | None = None, host: str = "127.0.0.1"
) -> Iterator[Server]:
    """`python -m codefathom serve ARGS` until it accepts on `host`:`port`; always killed at the end."""
    log = home.parent / f"serve-{port}.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "codefathom", "serve", *args], cwd=cwd, env=server_env(home, token),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert process.poll() is None, f"the server exited: {log.read_text()}"
            try:
                socket.create_connection((host, port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"the server did not listen in {START_TIMEOUT}s: {log.read_text()}"
                time.sleep(0.05)
        yield Server(process, f"http://{netloc(host, port)}{path}", log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Layout:
    base = tmp_path_factory.mktemp("http")
    served = base / "served"
    project = write_project(served / "project", FILES)
    outside = write_project(base / "outside", {"secret.py": "def secret_key():\n    return 'hunter2'\n"})
    (served / "escape").symlink_to(outside, target_is_directory=True)
    return Layout(served, project, outside, base / "home")


@pytest.fixture(scope="module")
def http_server(layout: Layout) -> Iterator[Server]:
    port = free_port()
    args = ["--http", f"127.0.0.1:{port}", "--token", TOKEN, "--root", str(layout.served)]
    with running(args, layout.served.parent, layout.home, "/mcp", port) as server:
        yield server


def netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def http_client(token: str | None = TOKEN) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(TIMEOUT), trust_env=False)


@asynccontextmanager
async def connect(server: Server) -> AsyncIterator[Client]:
    async with http_client() as http:
        async with Client(streamable_http_client(server.url, http_client=http), read_timeout_seconds=TIMEOUT) as client:
            yield client


def reply(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, error_text(result)
    data: dict[str, Any] | None = result.structured_content
    assert data is not None
    text = result.content[0]  # the answer written for reading, not the JSON again
    assert isinstance(text, types.TextContent) and text.text.strip() and not text.text.startswith("{")
    return data


def error_text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


def test_requests_without_the_token_get_401(http_server: Server) -> None:
    initialize = INITIALIZE
    headers = {"Accept": "application/json, text/event-stream"}
    with httpx2.Client(timeout=TIMEOUT, trust_env=False) as http:
        missing = http.post(http_server.url, json=initialize, headers=headers)
        wrong = http.post(http_server.url, json=initialize, headers={**headers, "Authorization": "Bearer nope"})
        basic = http.get(http_server.url, headers={"Authorization": f"Basic {TOKEN}"})
        elsewhere = http.get(http_server.url.replace("/mcp", "/anything"))
        right = http.post(http_server.url, json=initialize, headers={**headers, "Authorization": f"Bearer {TOKEN}"})

    for response in (missing, wrong, basic, elsewhere):
        assert response.status_code == 401, response.text
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert response.json()["error"] == "unauthorized"
    assert right.status_code == 200, right.text
    assert f"{http_server.url} (bearer token required)" in http_server.log.read_text()


def test_with_the_token_the_sdk_client_lists_the_tools_and_searches(http_server: Server, layout: Layout) -> None:
    async def scenario() -> None:
        async with connect(http_server) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            instructions = client.session.instructions or ""
            where = str(layout.project)
            found = reply(await client.call_tool("search_code", {"query": "Store.replace_file", "project_path": where}))
            relative = reply(
                await client.call_tool("search_code", {"query": "retry upload", "project_path": "project"})
            )
            inside = reply(
                await client.call_tool(
                    "search_code", {"query": "replace_file", "project_path": str(layout.project / "tests")}
                )
            )

        assert {"search_code", "index_status", "index_codebase", "list_indexes", "clear_index"} <= tools
        assert {"find_symbol", "find_references", "file_dependencies", "code_health"} <= tools  # the code graph
        assert "search_code" in instructions and "change_impact" in instructions
        assert found["project_root"] == str(layout.project.resolve())
        first = found["results"][0]
        assert (first["path"], first["start_line"], first["end_line"]) == ("pkg/store.py", 4, 6)
        assert relative["results"][0]["name"] == "retry_upload"  # read from the served root
        assert inside["within"] == "tests" and {hit["path"] for hit in inside["results"]} == {"tests/test_store.py"}

    anyio.run(scenario)


def test_paths_outside_the_served_roots_are_refused(http_server: Server, layout: Layout) -> None:
    escapes = {
        "absolute": str(layout.outside),
        "dot-dot": str(layout.project / ".." / ".." / "outside"),
        "relative dot-dot": "../outside",
        "symlink": str(layout.served / "escape"),
        "missing": str(layout.outside / "missing"),
    }

    async def scenario() -> dict[str, types.CallToolResult]:
        results = {}
        async with connect(http_server) as client:
            for name, path in escapes.items():
                results[name] = await client.call_tool("search_code", {"query": "secret_key", "project_path": path})
            results["index_codebase"] = await client.call_tool("index_codebase", {"project_path": str(layout.outside)})
            results["index_status"] = await client.call_tool("index_status", {"project_path": str(layout.outside)})
            results["clear_index"] = await client.call_tool("clear_index", {"project_path": str(layout.outside)})
            reply(await client.call_tool("index_status", {"project_path": str(layout.project)}))  # still answering
        return results

    results = anyio.run(scenario)
    for name, result in results.items():
        assert result.is_error, name
        assert f"is outside the roots this server serves: {layout.served.resolve()}" in error_text(result), name
    assert "resolved: " in error_text(results["symlink"])
    assert not any(layout.home.glob("outside-*")), "nothing outside the roots was indexed"


def test_list_indexes_and_clear_index(http_server: Server, layout: Layout) -> None:
    root = str(layout.project.resolve())

    async def scenario() -> None:
        async with connect(http_server) as client:
            reply(await client.call_tool("index_codebase", {"project_path": root}))
            listed = reply(await client.call_tool("list_indexes", {}))
            cleared = reply(await client.call_tool("clear_index", {"project_path": str(layout.project / "pkg")}))
            after = reply(await client.call_tool("list_indexes", {}))
            again = reply(await client.call_tool("clear_index", {"project_path": root}))
            status = reply(await client.call_tool("index_status", {"project_path": root}))
            found = reply(await client.call_tool("search_code", {"query": "retry_upload", "project_path": root}))
            relisted = reply(await client.call_tool("list_indexes", {}))

        assert [(i["project_root"], i["files"]) for i in listed["indexes"]] == [(root, len(FILES))]
        assert cleared == {"project_root": root, "cleared": True}
        assert after == {"indexes": []} and again == {"project_root": root, "cleared": False}
        assert status["indexed"] is False
        assert found["results"][0]["name"] == "retry_upload"  # the closed service reopened and re-indexed
        assert [i["project_root"] for i in relisted["indexes"]] == [root]

    anyio.run(scenario)


def test_a_non_loopback_address_without_a_token_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "codefathom", "serve", "--http", f"0.0.0.0:{free_port()}"], cwd=tmp_path,
        env=server_env(tmp_path / "home"), capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert done.returncode == 2
    assert "without a token" in done.stderr and "CODEFATHOM_TOKEN" in done.stderr


def test_sse_with_the_token_from_the_environment(layout: Layout, tmp_path: Path) -> None:
    port = free_port()

    def client_factory(
        headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
    ) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(headers=headers, timeout=timeout or TIMEOUT, auth=auth, trust_env=False)

    async def scenario(url: str) -> tuple[dict[str, Any], types.CallToolResult]:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with Client(
            sse_client(url, headers=headers, httpx_client_factory=client_factory), read_timeout_seconds=TIMEOUT,
            mode="legacy",
        ) as client:
            found = reply(await client.call_tool("search_code", {"query": "retry upload", "project_path": "project"}))
            outside = await client.call_tool("index_status", {"project_path": str(layout.outside)})
        return found, outside

    args = ["--sse", str(port), "--root", str(layout.served)]  # a bare port: 127.0.0.1
    with running(args, tmp_path, tmp_path / "home", "/sse", port, token=TOKEN) as server:
        with httpx2.Client(timeout=TIMEOUT, trust_env=False) as http:
            assert http.get(server.url).status_code == 401
        found, outside = anyio.run(scenario, server.url)

    assert found["results"][0]["name"] == "retry_upload"
    assert outside.is_error and "outside the roots this server serves" in error_text(outside)


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.2",  # Linux routes all of 127/8 to the loopback interface
        pytest.param(
            "0:0:0:0:0:0:0:1",  # ::1 spelled out, which the SDK's own check does not know
            marks=pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback (::1) on this machine"),
        ),
    ],
)
def test_a_server_without_a_token_answers_only_requests_naming_its_address(
    host: str, layout: Layout, tmp_path: Path
) -> None:
    """A web page can point a name it controls at a loopback address (DNS rebinding): its requests
    then carry that name as Host, and its own origin. Every request stays on this machine."""
    port = free_port(host)
    headers = {"Accept": "application/json, text/event-stream"}
    own = netloc(host, port)
    search = {
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_code", "arguments": {"query": "secret_key", "project_path": str(layout.outside)}},
    }

    def post(http: httpx2.Client, url: str, body: dict[str, Any], **extra: str) -> httpx2.Response:
        return http.post(url, json=body, headers={**headers, **extra})

    args = ["--http", f"[{host}]:{port}" if ":" in host else f"{host}:{port}", "--root", str(layout.served)]
    with running(args, tmp_path, tmp_path / "home", "/mcp", port, host=host) as server:
        with httpx2.Client(timeout=TIMEOUT, trust_env=False) as http:
            foreign = post(http, server.url, INITIALIZE, Host=f"evil.example.com:{port}")
            rebound = post(http, server.url, search, Host=f"evil.example.com:{port}")
            bare = post(http, server.url, INITIALIZE, Host="evil.example.com")
            other_port = post(http, server.url, INITIALIZE, Host=netloc(host, port + 1 if port < 65535 else 1))
            other_loopback = post(
                http, server.url, INITIALIZE, Host=netloc("127.0.0.3" if "." in host else "::2", port)
            )
            web_page = post(http, server.url, INITIALIZE, Host=own, Origin="http://evil.example.com")
            null_origin = post(http, server.url, INITIALIZE, Host=own, Origin="null")
            proper = post(http, server.url, INITIALIZE, Host=own)
            by_name = post(http, server.url, INITIALIZE, Host=f"localhost:{port}", Origin="http://localhost:3000")
            local_page = post(http, server.url, INITIALIZE, Host=own, Origin="http://127.0.0.9:8080")
            v6_page = post(http, server.url, INITIALIZE, Host=own, Origin="http://[0::1]:8080")
            spelled = post(
                http, server.url, INITIALIZE, Host=f"[::1]:{port}" if ":" in host else f"127.0.0.2:{port}"
            )

        async def through_the_sdk() -> dict[str, Any]:
            async with httpx2.AsyncClient(timeout=httpx2.Timeout(TIMEOUT), trust_env=False) as client_http:
                async with Client(
                    streamable_http_client(server.url, http_client=client_http), read_timeout_seconds=TIMEOUT
                ) as client:
                    asked = {"query": "retry_upload", "project_path": str(layout.project)}
                    return reply(await client.call_tool("search_code", asked))

        found = anyio.run(through_the_sdk)

    for response in (foreign, rebound, bare, other_port, other_loopback):
        assert response.status_code == 421, response.text
    for response in (web_page, null_origin):
        assert response.status_code == 403, response.text
    for response in (proper, by_name, local_page, v6_page, spelled):
        assert response.status_code == 200, response.text
    assert found["results"][0]["name"] == "retry_upload"


def test_an_sse_server_without_a_token_refuses_a_foreign_host(layout: Layout, tmp_path: Path) -> None:
    port = free_port("127.0.0.2")
    args = ["--sse", f"127.0.0.2:{port}", "--root", str(layout.served)]
    with running(args, tmp_path, tmp_path / "home", "/sse", port, host="127.0.0.2") as server:
        with httpx2.Client(timeout=TIMEOUT, trust_env=False) as http:

            def status(method: str, url: str, host: str, **options: Any) -> int:
                # Only the status is read: an event stream that was let through would never end.
                with http.stream(method, url, headers={"Host": host}, **options) as response:
                    return response.status_code

            foreign = status("GET", server.url, f"evil.example.com:{port}")
            posted = status(
                "POST", server.url.replace("/sse", "/messages/?session_id=0"), f"evil.example.com:{port}",
                json=INITIALIZE,
            )
            proper = status("GET", server.url, f"127.0.0.2:{port}")

    assert (foreign, posted, proper) == (421, 421, 200)


@pytest.mark.parametrize(
    ("text", "host", "port", "loopback"),
    [
        ("8765", "127.0.0.1", 8765, True),
        (":8765", "127.0.0.1", 8765, True),
        ("localhost:8765", "localhost", 8765, True),
        ("[::1]:8765", "::1", 8765, True),
        ("127.0.0.2:1", "127.0.0.2", 1, True),
        ("0.0.0.0:8765", "0.0.0.0", 8765, False),
        ("[::]:8765", "::", 8765, False),
        ("example.com:80", "example.com", 80, False),
    ],
)
def test_addresses_default_to_loopback(text: str, host: str, port: int, loopback: bool) -> None:
    address = parse_address(text)
    assert (address.host, address.port, address.loopback) == (host, port, loopback)


@pytest.mark.parametrize("text", ["", "abc", "host:", "1:2:3", "[::1]8765", "127.0.0.1:0", "127.0.0.1:65536"])
def test_malformed_addresses_are_refused(text: str) -> None:
    with pytest.raises(UsageError, match="invalid address"):
        parse_address(text)
