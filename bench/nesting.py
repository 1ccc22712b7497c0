"""Indexing cost of deeply nested code: one generated file per shape and depth, indexed from outside.

    python bench/nesting.py                                  # every shape at 1k, 2k, 4k, 10k levels
    python bench/nesting.py --shape js-functions --depth 1000 --depth 2000 --json out.json
    python bench/nesting.py --parse                          # parse() in this process, no index
    python bench/nesting.py --shape js-functions --depth 40000 --copies 8   # eight files of 860 KB

Each run writes one file of the shape at the depth into a fresh directory and runs
`codefathom index DIR --full --no-embed -q --index-dir TMP` as a child process; its CPU time (user +
system, `RUSAGE_CHILDREN`) is what is reported, so load on a shared machine moves it less than wall
time. The floor (the same for a one-line file: interpreter, imports, an empty index; the least of
three) is taken off each time. `--parse` times `codefathom.parse.parse` alone in this process
instead (CPU time). Doubling the depth should at most double the time: the report gives each time
per thousand levels.

Shapes (each nests `depth` levels in one file):
  js-functions   `function f0(a) { function f1(a) { ... } }`, one line each
  js-blocks      `{ function f0() {} { function f1() {} ... } }`: every function a unit, each deeper
  js-arrays      `x = [1, [1, [ ... ]]]`, a line each: a deep expression with no definition
  py-functions   `def f0(a):` indented one more space per level (the file grows as depth²: past
                 ~1,400 levels it is over the 1 MB limit, and `index` leaves it out)
  py-classes     `class C0:` indented the same way
  py-calls       `f0(lambda a0: f1(lambda a1: ...))`, a line each: calls and functions as deep as
                 Python nests them in a file that grows with the depth
  java-classes   `class C0 { class C1 { ... } }`, one line each
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

DEPTHS = (1000, 2000, 4000, 10_000)


def js_functions(depth: int) -> tuple[str, str]:
    opening = "".join(f"function f{i}(a) {{\n" for i in range(depth))
    return "nested.js", opening + "return a;\n" + "}\n" * depth


def js_blocks(depth: int) -> tuple[str, str]:
    opening = "".join(f"{{ function f{i}() {{ return {i}; }}\n" for i in range(depth))
    return "blocks.js", opening + "}\n" * depth


def js_arrays(depth: int) -> tuple[str, str]:
    return "arrays.js", "const x =\n" + "[1,\n" * depth + "0" + "]" * depth + ";\n"


def py_functions(depth: int) -> tuple[str, str]:
    lines = [" " * i + f"def f{i}(a):" for i in range(depth)]
    return "nested.py", "\n".join(lines) + "\n" + " " * depth + "return a\n"


def py_calls(depth: int) -> tuple[str, str]:
    opening = "".join(f"f{i}(lambda a{i}:\n" for i in range(depth))
    return "calls.py", "x = (\n" + opening + "a0" + ")" * depth + ")\n"


def py_classes(depth: int) -> tuple[str, str]:
    lines = [" " * i + f"class C{i}:" for i in range(depth)]
    return "classes.py", "\n".join(lines) + "\n" + " " * depth + "x = 1\n"


def java_classes(depth: int) -> tuple[str, str]:
    opening = "".join(f"class C{i} {{\n" for i in range(depth))
    return "Nested.java", "package p;\n" + opening + "int x;\n" + "}\n" * depth


SHAPES: dict[str, Callable[[int], tuple[str, str]]] = {
    "js-functions": js_functions, "js-blocks": js_blocks, "js-arrays": js_arrays,
    "py-functions": py_functions, "py-classes": py_classes, "py-calls": py_calls, "java-classes": java_classes,
}


def index_cpu(name: str, text: str, copies: int = 1) -> dict[str, object]:
    """`codefathom index` of a directory holding the file (`copies` of it, under other names): the
    child's CPU seconds and the files' parse health as `status --json` reports it."""
    with tempfile.TemporaryDirectory() as tmp:
        project, index = Path(tmp, "project"), Path(tmp, "index")
        project.mkdir()
        for copy in range(copies):
            (project / (f"{copy}-{name}" if copy else name)).write_text(text, encoding="utf-8")
        env = dict(os.environ, CODEFATHOM_HOME=str(Path(tmp, "home")))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        command = [sys.executable, "-m", "codefathom", "index", str(project), "--full", "--no-embed", "-q"]
        subprocess.run([*command, "--index-dir", str(index)], check=True, env=env, capture_output=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        status = subprocess.run(
            [sys.executable, "-m", "codefathom", "status", str(project), "--json", "--index-dir", str(index)],
            check=True, env=env, capture_output=True, text=True,
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = json.loads(status.stdout)
    problems = sorted({f"{p['status']}: {p['error']}" for p in report.get("problems", [])})
    return {"cpu": round(cpu, 2), "wall": round(wall, 2), "units": report.get("units"), "problems": problems}


def parse_cpu(name: str, text: str) -> dict[str, object]:
    from codefathom.parse import parse

    started = time.process_time()
    parsed = parse(name, text)
    cpu = time.process_time() - started
    return {"cpu": round(cpu, 3), "units": len(parsed.units), "status": parsed.status, "error": parsed.error}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES), help="default: every shape")
    parser.add_argument("--depth", action="append", type=int, help="default: 1000, 2000, 4000, 10000")
    parser.add_argument("--parse", action="store_true", help="time parse() in this process, not `codefathom index`")
    parser.add_argument("--copies", type=int, default=1, help="index this many copies of each file together")
    parser.add_argument("--json", type=Path, help="write the rows here as JSON")
    args = parser.parse_args()
    rows = []
    print(f"load average {os.getloadavg()[0]:.1f} on {len(os.sched_getaffinity(0))} CPUs", flush=True)
    floor = 0.0
    if not args.parse:  # what any index costs (interpreter, imports, an empty index): taken off each row
        floor = min(float(index_cpu("start.js", "function start() {}\n")["cpu"]) for _ in range(3))  # type: ignore[arg-type]
        print(f"floor: {floor:.2f} s CPU to index a one-line file, taken off the times below", flush=True)
    else:
        parse_cpu("warm.js", "function warm() {}\n")  # grammars and queries load once
    for shape in args.shape or list(SHAPES):
        for depth in args.depth or DEPTHS:
            name, text = SHAPES[shape](depth)
            measured = parse_cpu(name, text) if args.parse else index_cpu(name, text, args.copies)
            cpu = max(float(measured["cpu"]) - floor, 0.0)  # type: ignore[arg-type]
            row = {"shape": shape, "depth": depth, "bytes": len(text.encode()), **measured, "net_cpu": round(cpu, 2)}
            rows.append(row)
            extra = {k: v for k, v in measured.items() if k not in ("cpu", "problems", "error")}
            said = measured.get("problems") or [measured.get("error")]
            reasons = [str(r).split(": ", 1)[-1 if not args.parse else 0][:40] for r in said if r]  # type: ignore[attr-defined]
            extra["reason"] = "; ".join(reasons)
            print(f"{shape:13} {depth:>6} {cpu:8.2f} s CPU  {1000 * cpu / depth:6.3f} s per 1k  {extra}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
