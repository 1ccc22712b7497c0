"""`codefathom doctor`: checks an installation and a project's index, each check saying what to
fix: grammars, the embedder, the index, the MCP handshake, the clients configured.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Check", "run_checks"]

HANDSHAKE_TIMEOUT_S = 30.0


@dataclass
class Check:
    name: str
    state: str  # "ok", "warn", "fail"
    detail: str


def run_checks(root: Path) -> list[Check]:
    """Every check, in the order a problem would cascade (a missing grammar before a sparse index)."""
    steps: tuple[Callable[[Path], Check], ...] = (_python, _grammars, _embedder, _index, _handshake, _clients)
    checks = []
    for step in steps:
        try:
            checks.append(step(root))
        except Exception as exc:  # a check that breaks is a finding, not a crash of the doctor
            checks.append(Check(step.__name__.strip("_"), "fail", f"{type(exc).__name__}: {exc}"))
    return checks


def _python(root: Path) -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    ok = sys.version_info >= (3, 11)
    return Check("python", "ok" if ok else "fail", version if ok else f"{version}: codefathom needs 3.11 or newer")


def _grammars(root: Path) -> Check:
    from codefathom.parse.grammars import grammar_for, query_for
    from codefathom.parse.languages import LANGUAGES

    broken = []
    for spec in LANGUAGES:
        try:
            grammar_for(spec)
            query_for(spec)
        except Exception as exc:
            broken.append(f"{spec.name} ({spec.grammar_module}: {exc})")
    if broken:
        return Check("grammars", "fail", f"{len(broken)} of {len(LANGUAGES)} do not load: {'; '.join(broken)};"
                     " reinstall codefathom (`pip install --force-reinstall codefathom`)")
    return Check("grammars", "ok", f"{len(LANGUAGES)} languages load")


def _embedder(root: Path) -> Check:
    from codefathom.config import load_settings
    from codefathom.errors import EmbedderUnavailable, UsageError
    from codefathom.service.embedding import embedder_spec, shared_embedder

    try:
        spec = embedder_spec(load_settings(root))
    except UsageError as exc:
        return Check("embedder", "fail", f"{exc}; fix `embedder` in .codefathom.toml")
    if spec is None:
        return Check("embedder", "warn", "off (`embedder = \"none\"`): search by words and names only")
    started = time.perf_counter()
    try:
        embedder = shared_embedder(spec)
        embedder.embed_query("where is the configuration loaded")
    except EmbedderUnavailable as exc:
        return Check("embedder", "fail", f"{spec}: {exc}")
    seconds = time.perf_counter() - started
    return Check("embedder", "ok", f"{embedder.id}: loaded and embedded a query in {seconds:.1f} s")


def _index(root: Path) -> Check:
    from codefathom.service import Codefathom

    with Codefathom(root) as service:
        if not service.indexed:
            return Check("index", "warn", f"{service.root} is not indexed yet: `codefathom index`")
        status = service.status()
    vectors = status.vectors or {}
    parts = [f"{status.files:,} files, {status.units:,} units"]
    if vectors.get("percent") is not None:
        parts.append(f"{vectors['percent']}% of units with vectors")
    problems = len(status.problems)
    if problems:
        parts.append(f"{problems} files parsed in part or not at all (`codefathom status` names them)")
    if not status.complete or status.notices:
        notes = "; ".join(status.notices) or "a first index did not finish"
        return Check("index", "warn", ", ".join(parts) + f"; {notes}: `codefathom index` completes it")
    return Check("index", "ok", ", ".join(parts))


def _handshake(root: Path) -> Check:
    import anyio
    from mcp import Client, StdioServerParameters

    # The doctor's own environment (CODEFATHOM_HOME, the embedder), not the client library's short default.
    params = StdioServerParameters(command=sys.executable, args=["-m", "codefathom", "serve", "--root", str(root)],
                                   cwd=root, env=dict(os.environ))
    timings: dict[str, float] = {}

    async def connect() -> None:
        started = time.perf_counter()
        with anyio.fail_after(HANDSHAKE_TIMEOUT_S):
            async with Client(params, read_timeout_seconds=HANDSHAKE_TIMEOUT_S, mode="legacy") as client:
                timings["initialize"] = time.perf_counter() - started
                tools = await client.list_tools()
                timings["tools"] = len(tools.tools)

    try:
        anyio.run(connect)
    except TimeoutError:
        return Check("mcp", "fail", f"`codefathom serve` did not answer within {HANDSHAKE_TIMEOUT_S:.0f} s")
    return Check("mcp", "ok", f"`codefathom serve` answered initialize in {timings['initialize']:.2f} s,"
                              f" {timings['tools']:.0f} tools")


def _clients(root: Path) -> Check:
    from codefathom.mcp.clients import found_clients, has_server

    found = found_clients(root)
    configured = [c.title for c, files in found if any(has_server(c, f) for f in files)]
    if configured:
        return Check("clients", "ok", f"codefathom is configured in {', '.join(configured)}")
    seen = ", ".join(c.name for c, _ in found) or "none found"
    return Check("clients", "warn", f"no MCP client has codefathom yet (clients here: {seen}):"
                                    " `codefathom install CLIENT`")
