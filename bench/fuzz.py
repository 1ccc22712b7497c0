"""Fuzzing every way in: `search --jsonl` lines, CLI arguments of every verb, MCP tool calls.

    python bench/fuzz.py                              # seed 1: 600 lines, 500 argument lists, 300 calls
    python bench/fuzz.py --seed 7 --jsonl 2000 --cli 1000 --mcp 500 --json out.json

Inputs are generated from the seed (the same seed, the same inputs) and sent to a small project (a git
repository with Python and JavaScript files, a directory, a link loop) indexed first:
  jsonl  lines for `codefathom search --jsonl -`: JSON objects whose options hold values of any type
         (huge and negative numbers, NaN, lists of null, strings with NUL or a lone surrogate, nesting
         thousands deep), plain text, bytes that are not UTF-8, blank lines
  cli    argument lists of every verb but `clear` and `serve`: odd positional values (a link loop, a
         name over 255 bytes, NUL, a leading dash), every option with values of the wrong kind or
         size, unknown options, missing values; run in-process through click, as the console script
         runs it. Paths stay inside the project: nothing else is indexed
  mcp    calls of every tool but `clear_index`, over stdio to `codefathom serve` started in the project,
         each argument present or not, of its type or of any other

Each input must end in an answer or in an error that names its cause: a `--jsonl` batch answers every
line that is not blank (results or an error object); the CLI exits 0, 1, 2 or 3 with no exception
escaping click; an MCP call returns a result or a tool error whose text says more than "Error
executing tool X" (the SDK's text for a crash), and the server's stderr holds no traceback. The
index must be left as it was: `status --digest` before and after are equal.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent

from codefathom.cli import cli

LONG = "a" * 300  # a file name over the 255 bytes a name may have
HUGE = 10**20  # past SQLite's 64-bit integers
DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-a\n+b\n"

FILES = {
    "app.py": "from lib import helper\n\n\ndef hello(x):\n    return helper(x)\n\n\nclass Greeter:\n"
              "    def greet(self):\n        return hello(1)\n",
    "lib.py": "def helper(x):\n    \"\"\"Help.\"\"\"\n    return x\n",
    "sub/web.js": "import { api } from './api.js';\nexport function render(a) { return api(a); }\n",
    "sub/api.js": "export function api(a) { return a; }\n",
    "tests/test_app.py": "from app import hello\n\n\ndef test_hello():\n    assert hello(1)\n",
    "README.md": "# Demo\n\nA demo project.\n",
}

# Values a path may take in the CLI: inside the project or wrong, never another directory to index.
PATHS = [".", "sub", "app.py", "sub/web.js", "loop1", "missing", LONG, f"sub/{LONG}", "a\x00b", "", "~nobody/x",
         "tests", "-", "./sub/../app.py", "sub/" * 200 + "x", "README.md", "\udcff"]
NAMES = ["hello", "Greeter.greet", "app.hello", "helper", "", " ", "*", "a.b.c.", "..", "::", "hel\x00lo", LONG * 40,
         "\ud800", "名前", "-n", "render"]


@dataclass
class Report:
    """Inputs sent, how each ended, and the failures (input, what went wrong)."""

    inputs: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    failures: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, outcome: str) -> None:
        self.inputs += 1
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    def fail(self, given: object, what: str) -> None:
        self.count("failure")
        self.failures.append((repr(given)[:300], what[:1000]))


# -- values --------------------------------------------------------------------------------------


def text(rng: random.Random) -> str:
    """A string of any sort: plausible, empty, long, control characters, a lone surrogate."""
    pick = rng.randrange(10)
    if pick == 0:
        return rng.choice(NAMES + PATHS)
    if pick == 1:
        return "".join(chr(rng.randrange(0, 0x250)) for _ in range(rng.randrange(0, 30)))
    if pick == 2:
        return "".join(rng.choice("*?[]{}!\\/.-_ ") for _ in range(rng.randrange(1, 12)))
    if pick == 3:
        return rng.choice(["", " ", "\t", "\n", "\x00", "\ud800", "\ufeff", "\u202e", "'", '"', "--", "-x"])
    if pick == 4:
        return "x" * rng.choice([100, 1000, 5000, 100_000])
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_.") for _ in range(rng.randrange(1, 16)))


def number(rng: random.Random) -> Any:
    return rng.choice([0, 1, -1, 3, 100, 101, 1000, 2**31, 2**63, -(2**63) - 1, HUGE, -HUGE, 10**400, 0.5, -0.0,
                       1e308, math.inf, -math.inf, math.nan, True, False])


def value(rng: random.Random, depth: int = 0) -> Any:
    """Any JSON value: scalars of every type, short lists and objects of them."""
    pick = rng.randrange(8 if depth < 3 else 5)
    if pick == 0:
        return None
    if pick in (1, 2):
        return number(rng)
    if pick in (3, 4):
        return text(rng)
    if pick in (5, 6):
        return [value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {text(rng): value(rng, depth + 1) for _ in range(rng.randrange(0, 3))}


def deep(rng: random.Random) -> str:
    """JSON nested thousands deep (json.dumps would overflow its own recursion to write it)."""
    levels = rng.choice([50, 1000, 5000, 100_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return opener * levels + "1" + closer * levels


# -- jsonl lines ---------------------------------------------------------------------------------

SEARCH_OPTIONS = ["limit", "languages", "kinds", "path_glob", "exclude_glob", "symbol_name", "max_per_file",
                  "include_debug", "expand"]
PLAUSIBLE: dict[str, Callable[[random.Random], Any]] = {
    "limit": lambda rng: rng.choice([1, 5, 10, 100]),
    "languages": lambda rng: rng.choice([["python"], ["js"], "ts", [], ["cobol"]]),
    "kinds": lambda rng: rng.choice([["function"], ["class", "method"], "module", []]),
    "path_glob": lambda rng: rng.choice(["sub/", "*.py", ["**/*.js"], "["]),
    "exclude_glob": lambda rng: rng.choice(["tests/", ["*.md"]]),
    "symbol_name": lambda rng: rng.choice(["hel*", "Greeter.*", None]),
    "max_per_file": lambda rng: rng.choice([1, 3, None]),
    "include_debug": lambda rng: rng.choice([True, False]),
    "expand": lambda rng: rng.choice([True, False]),
}


def jsonl_line(rng: random.Random) -> bytes:
    pick = rng.randrange(10)
    if pick == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).replace(b"\n", b"")
    if pick == 1:
        return deep(rng).encode()
    if pick == 2:
        return text(rng).encode("utf-8", "surrogatepass").replace(b"\n", b" ")
    if pick == 3:
        return rng.choice([b"", b"   ", b"{", b"[1, 2]", b'{"query": "hello",}', b"null", b"{}", b'{"query": null}'])
    request: dict[str, Any] = {"query": rng.choice([text(rng), "hello", "helper", "render"]) if rng.random() < 0.8
                               else value(rng)}
    for option in rng.sample(SEARCH_OPTIONS, rng.randrange(0, 4)):
        request[option] = PLAUSIBLE[option](rng) if rng.random() < 0.4 else value(rng)
    if rng.random() < 0.1:
        request[text(rng)] = value(rng)
    line = json.dumps(request, ensure_ascii=rng.random() < 0.5)
    return line.encode("utf-8", "surrogatepass")


def answered_lines(lines: list[bytes]) -> int:
    """How many replies a batch owes: a line is skipped only when it is valid UTF-8 and blank."""
    owed = 0
    for line in lines:
        try:
            owed += bool(line.decode("utf-8").strip())
        except UnicodeDecodeError:
            owed += 1
    return owed


def run_jsonl(project: Path, lines: list[bytes], batch: int, report: Report) -> None:
    for start in range(0, len(lines), batch):
        chunk = lines[start : start + batch]
        result = CliRunner().invoke(cli, ["search", "--jsonl", "-", "--path", str(project)], input=b"\n".join(chunk))
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            report.fail(chunk, f"exception escaped the batch: {result.exception!r}")
            continue
        replies = result.stdout_bytes.splitlines()
        if result.exit_code != 0 or len(replies) != answered_lines(chunk):
            report.fail(chunk, f"exit {result.exit_code}, {len(replies)} replies for {answered_lines(chunk)} lines:"
                               f" {result.stderr[-500:]}")
            continue
        for line, reply in zip((ln for ln in chunk if _owed(ln)), replies, strict=True):
            data = json.loads(reply)
            if "error" in data:
                report.count("error") if data["error"].strip() else report.fail(line, "an empty error")
            elif "results" in data:
                report.count("answer")
            else:
                report.fail(line, f"neither results nor an error: {reply[:200]!r}")


def _owed(line: bytes) -> bool:
    return answered_lines([line]) == 1


# -- CLI arguments -------------------------------------------------------------------------------

INT = "int"
OPTIONS: dict[str, list[tuple[str, str]]] = {
    "search": [("-n", INT), ("-l", "str"), ("-k", "str"), ("-g", "str"), ("-x", "str"), ("-s", "str"),
               ("--max-per-file", INT), ("--all-per-file", "flag"), ("--json", "flag"), ("--expand", "flag"),
               ("--debug", "flag"), ("--no-sync", "flag"), ("--background", "flag"), ("-p", "path"), ("-i", "path")],
    "explain": [("-n", INT), ("-l", "str"), ("-k", "str"), ("-g", "str"), ("--json", "flag"), ("-p", "path")],
    "symbol": [("-k", "str"), ("--json", "flag"), ("--no-sync", "flag"), ("-p", "path")],
    "refs": [("--ref-kind", "str"), ("-n", INT), ("--json", "flag"), ("--no-sync", "flag"), ("-p", "path")],
    "callers": [("-d", INT), ("--json", "flag"), ("-p", "path")],
    "callees": [("-d", INT), ("--json", "flag"), ("-p", "path")],
    "deps": [("-d", INT), ("-t", "str"), ("--json", "flag"), ("--no-sync", "flag"), ("-p", "path")],
    "impact": [("-d", INT), ("-t", "str"), ("-n", INT), ("--diff", "rev"), ("--staged", "flag"),
               ("--json", "flag"), ("-p", "path")],
    "dead": [("--include-tests", "flag"), ("-l", "str"), ("-n", INT), ("--json", "flag"), ("-p", "path")],
    "duplicates": [("--include-tests", "flag"), ("-l", "str"), ("-n", INT), ("--similarity", "str"),
                   ("--min-lines", INT), ("--json", "flag"), ("-p", "path")],
    "conventions": [("--include-tests", "flag"), ("-l", "str"), ("-n", INT), ("--json", "flag"), ("-p", "path")],
    "outline": [("-t", INT), ("-f", "str"), ("--json", "flag"), ("--no-sync", "flag")],
    "brief": [("--json", "flag"), ("-p", "path")],
    "tests": [("--json", "flag"), ("-p", "path")],
    "cochange": [("-n", INT), ("-c", INT), ("--json", "flag"), ("-p", "path")],
    "status": [("--json", "flag"), ("--digest", "flag")],
    "index": [("--full", "flag"), ("--json", "flag"), ("-q", "flag"), ("--embed-budget", INT)],
    "list": [("--json", "flag")],
    "stop": [("--json", "flag")],
}
POSITIONAL: dict[str, tuple[str, int, int]] = {  # kind, fewest, most
    "search": ("str", 0, 1), "explain": ("str", 1, 1), "symbol": ("name", 1, 1), "refs": ("name", 1, 1),
    "callers": ("name", 1, 1), "callees": ("name", 1, 1), "deps": ("path", 1, 3), "impact": ("path", 0, 3),
    "dead": ("path", 0, 0), "duplicates": ("path", 0, 0), "conventions": ("path", 0, 0), "outline": ("path", 0, 1),
    "brief": ("path", 1, 1), "tests": ("name", 1, 1),
    "cochange": ("path", 1, 1), "status": ("path", 0, 1), "index": ("path", 0, 1), "list": ("path", 0, 0),
    "stop": ("path", 0, 1),
}


def option_value(rng: random.Random, kind: str) -> str:
    if kind == INT and rng.random() < 0.7:
        return str(number(rng)) if rng.random() < 0.7 else rng.choice(["abc", "", "1e3", "0x10", "٣", "nan", "-0"])
    if kind == "path":
        return rng.choice(PATHS)
    if kind == "rev":
        return rng.choice(["HEAD", "HEAD~5", "-", "--output=x", "main", "nothere", "", "HEAD^{tree}", LONG])
    if kind == "name":
        return rng.choice(NAMES) if rng.random() < 0.6 else text(rng)
    return text(rng)


def cli_args(rng: random.Random) -> tuple[list[str], bytes | None]:
    verb = rng.choice(sorted(OPTIONS))
    kind, fewest, most = POSITIONAL[verb]
    args = [verb] + [option_value(rng, kind) for _ in range(rng.randint(fewest, most))]
    for option, kind in rng.sample(OPTIONS[verb], rng.randrange(0, min(4, len(OPTIONS[verb])) + 1)):
        args.append(option)
        if kind != "flag" and rng.random() < 0.95:
            args.append(option_value(rng, kind))
    if verb == "index":
        args.append("--no-embed")
    if rng.random() < 0.05:
        args.insert(rng.randrange(1, len(args) + 1), rng.choice(["--bogus", "-Z", "--", "--json=1"]))
    stdin = None
    if verb == "impact" and "--diff" in args and rng.random() < 0.5:
        stdin = rng.choice([b"", b"not a diff", b"\xff\xfe", DIFF.encode()])
        args += ["--diff", "-"]
    return args, stdin


def run_cli(project: Path, calls: list[tuple[list[str], bytes | None]], report: Report) -> None:
    cwd = Path.cwd()
    os.chdir(project)  # relative paths read from the project, as a user in it types them
    try:
        for args, stdin in calls:
            result = CliRunner().invoke(cli, args, input=stdin)
            escaped = result.exception is not None and not isinstance(result.exception, SystemExit)
            if escaped or result.exit_code not in (0, 1, 2, 3) or "Traceback" in result.output:
                report.fail(args, f"exit {result.exit_code}: {result.exception!r} {result.output[-500:]}")
            elif result.exit_code == 1 and not result.output.strip():
                report.fail(args, "exit 1 (not found) without a word on stdout or stderr")
            elif result.exit_code > 1 and not result.stderr.strip():
                report.fail(args, f"exit {result.exit_code} without a word on stderr")
            else:
                report.count({0: "answer", 1: "not found", 2: "usage error", 3: "error"}[result.exit_code])
    finally:
        os.chdir(cwd)


# -- MCP tool calls ------------------------------------------------------------------------------

TOOLS: dict[str, dict[str, Callable[[random.Random], Any]]] = {
    "search_code": {"query": lambda rng: rng.choice(["hello", "render", "how greetings work"]), **PLAUSIBLE,
                    "index_names": lambda rng: rng.choice([["."], ["missing"], []]),
                    "explain": lambda rng: rng.choice([False, True]),
                    "include_deps": lambda rng: rng.choice([False, True]),
                    "detail": lambda rng: rng.choice(["compact", "full", "all"]),
                    "context_after": lambda rng: rng.choice([0, 2, 11])},
    "index_status": {},
    "index_codebase": {"full": lambda rng: rng.choice([True, False])},
    "list_indexes": {},
    "find_symbol": {"name": lambda rng: rng.choice(NAMES), "kinds": lambda rng: rng.choice([["class"], ["x"]]),
                    "limit": lambda rng: rng.choice([0, 1, 20])},
    "find_references": {"name": lambda rng: rng.choice(NAMES), "limit": lambda rng: rng.choice([0, 5, HUGE])},
    "call_hierarchy": {"name": lambda rng: rng.choice(NAMES), "direction": lambda rng: rng.choice(["callers", "up"]),
                       "depth": lambda rng: rng.choice([1, 3, 11])},
    "file_dependencies": {"path": lambda rng: rng.choice([rng.choice(PATHS), rng.sample(PATHS, 2)]),
                          "direction": lambda rng: rng.choice(["dependents", "dependencies", "up"]),
                          "depth": lambda rng: rng.choice([1, 2]),
                          "dep_types": lambda rng: rng.choice([["import"], ["call"], ["x"]])},
    "code_health": {"report": lambda rng: rng.choice(["dead", "duplicates", "conventions", "lint"]),
                    "include_tests": lambda rng: rng.choice([True, False]),
                    "languages": lambda rng: rng.choice([None, ["python"], "ts,go", ["cobol"]]),
                    "limit": lambda rng: rng.choice([0, 1, 25, -1, HUGE]),
                    "similarity": lambda rng: rng.choice([0.9, 1.0, 0.2]),
                    "min_lines": lambda rng: rng.choice([2, 6, 1])},
    "change_impact": {"diff_ref": lambda rng: rng.choice(["HEAD", "-x", "nothere"]),
                      "diff_text": lambda rng: rng.choice([None, "", DIFF]),
                      "staged": lambda rng: rng.choice([True, False]), "depth": lambda rng: rng.choice([1, 2]),
                      "limit": lambda rng: rng.choice([1, 20])},
    "outline": {"path": lambda rng: rng.choice(PATHS), "tokens": lambda rng: rng.choice([300, 1500]),
                "focus": lambda rng: rng.choice(["hello", None])},
    "file_brief": {"path": lambda rng: rng.choice(PATHS)},
    "find_tests": {"name": lambda rng: rng.choice(NAMES), "path": lambda rng: rng.choice(PATHS)},
    "co_change": {"path": lambda rng: rng.choice(PATHS), "limit": lambda rng: rng.choice([1, 10]),
                  "commits": lambda rng: rng.choice([1, 50])},
}


def mcp_call(rng: random.Random, project: Path) -> tuple[str, dict[str, Any]]:
    tool = rng.choice(sorted(TOOLS))
    arguments: dict[str, Any] = {}
    for name, plausible in TOOLS[tool].items():
        if rng.random() < 0.6:
            arguments[name] = plausible(rng) if rng.random() < 0.6 else value(rng)
    if rng.random() < 0.7:
        arguments["project_path"] = rng.choice([str(project), ".", "sub", "..", "/", LONG, "loop1", "a\x00b", 5, None])
    if rng.random() < 0.05:
        arguments[text(rng)] = value(rng)
    if rng.random() < 0.03:
        nested: Any = 1
        for _ in range(rng.choice([10, 100])):
            nested = [nested]
        arguments["query" if tool == "search_code" else "project_path"] = nested
    return tool, _sendable(arguments)


def _sendable(data: Any) -> Any:
    """The value with what JSON cannot carry replaced: the client refuses a lone surrogate, NaN."""
    if isinstance(data, str):
        return data.encode("utf-8", "replace").decode("utf-8")
    if isinstance(data, float) and not math.isfinite(data):
        return str(data)
    if isinstance(data, list):
        return [_sendable(item) for item in data]
    if isinstance(data, dict):
        return {_sendable(key): _sendable(item) for key, item in data.items()}
    return data


CRASH = re.compile(r"^Error executing tool \w+\s*$")  # the SDK's whole text when a tool raised a bug


async def run_mcp(project: Path, home: Path, calls: list[tuple[str, dict[str, Any]]], report: Report) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "codefathom", "serve"], cwd=project,
        env={"CODEFATHOM_HOME": str(home), "CODEFATHOM_EMBEDDER": "none", "CODEFATHOM_WATCH": "0",
             **{k: os.environ[k] for k in ("PATH", "PYTHONPATH") if k in os.environ}},
    )
    errors = home / "serve.stderr"
    with errors.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60, mode="legacy") as client:
            for tool, arguments in calls:
                try:
                    result: CallToolResult = await client.call_tool(tool, arguments)
                except Exception as exc:  # noqa: BLE001 - a protocol error is a failure to report, not to stop at
                    report.fail((tool, arguments), f"no tool result: {exc!r}")
                    continue
                said = " ".join(block.text for block in result.content if isinstance(block, TextContent))
                if not result.is_error:
                    report.count("answer")
                elif not said.strip() or CRASH.match(said):
                    report.fail((tool, arguments), f"a tool error that names no cause: {said!r}")
                else:
                    report.count("tool error")
    logged = errors.read_text(errors="replace")
    if "Traceback" in logged:
        report.fail("the server's stderr", logged[logged.index("Traceback") :][:2000])


# -- the project and the run ---------------------------------------------------------------------


def make_project(root: Path) -> Path:
    project = root / "project"
    for name, content in FILES.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(content)
    git = ["git", "-c", "user.name=Fuzz", "-c", "user.email=fuzz@example.com", "-C", str(project)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    (project / "app.py").write_text(FILES["app.py"] + "\n\ndef later():\n    return hello(2)\n")  # a diff to read
    os.symlink("loop2", project / "loop1")
    os.symlink("loop1", project / "loop2")
    return project


def digest(project: Path) -> dict[str, str]:
    result = CliRunner().invoke(cli, ["status", str(project), "--digest", "--json"])
    assert result.exit_code == 0, result.output
    parts: dict[str, str] = json.loads(result.stdout)["digest"]
    return parts


def fuzz(seed: int, jsonl: int, cli_calls: int, mcp: int, workdir: Path) -> dict[str, Report]:
    """Generate the inputs from `seed`, send them, and check the index is as it was."""
    rng = random.Random(seed)
    home = workdir / "home"
    os.environ["CODEFATHOM_HOME"] = str(home)
    os.environ["CODEFATHOM_EMBEDDER"] = "none"
    project = make_project(workdir)
    assert CliRunner().invoke(cli, ["index", str(project), "-q", "--no-embed"]).exit_code == 0
    before = digest(project)
    reports = {"jsonl": Report(), "cli": Report(), "mcp": Report()}
    lines = [jsonl_line(rng) for _ in range(jsonl)]
    argvs = [cli_args(rng) for _ in range(cli_calls)]
    calls = [mcp_call(rng, project) for _ in range(mcp)]
    started = time.perf_counter()
    run_jsonl(project, lines, 50, reports["jsonl"])
    reports["jsonl"].seconds = time.perf_counter() - started
    started = time.perf_counter()
    run_cli(project, argvs, reports["cli"])
    reports["cli"].seconds = time.perf_counter() - started
    if mcp:
        started = time.perf_counter()
        anyio.run(run_mcp, project, home, calls, reports["mcp"])
        reports["mcp"].seconds = time.perf_counter() - started
    after = digest(project)
    if after != before:
        reports["cli"].failures.append(("the index", f"changed: {before} -> {after}"))
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jsonl", type=int, default=600, help="search --jsonl lines (default 600)")
    parser.add_argument("--cli", type=int, default=500, help="CLI argument lists (default 500)")
    parser.add_argument("--mcp", type=int, default=300, help="MCP tool calls (default 300)")
    parser.add_argument("--json", type=Path, help="write the counts and failures here")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {len(os.sched_getaffinity(0))} CPUs", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        reports = fuzz(args.seed, args.jsonl, args.cli, args.mcp, Path(tmp))
    total = 0
    for way, report in reports.items():
        total += report.inputs
        print(f"{way:6} {report.inputs:5} inputs in {report.seconds:6.1f} s  {report.outcomes}")
        for given, what in report.failures:
            print(f"  FAILED {given}\n    {what}")
    failures = sum(len(r.failures) for r in reports.values())
    print(f"{total} inputs, {failures} failures (seed {args.seed})")
    if args.json:
        args.json.write_text(json.dumps({way: vars(r) for way, r in reports.items()}, indent=1, default=str) + "\n")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
