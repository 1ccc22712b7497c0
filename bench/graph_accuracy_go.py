"""Reference-binding accuracy (Go): codefathom's call bindings checked against go/types.

    python bench/graph_accuracy_go.py                          # cobra 1.6.1, client_golang 1.14.0, x-tools 0.5.0
    python bench/graph_accuracy_go.py --corpus cobra --limit 500
    python bench/graph_accuracy_go.py --corpus ~/src/project --json /tmp/accuracy-go.json

Needs the Go toolchain (`apt-get install golang-go`: Debian's 1.19 is enough) to build the oracle,
bench/go_oracle/main.go, a small standard-library-only program, into bench/.corpora/go-oracle/.
The corpora are the quality lab's pristine trees (bench/.corpora/quality/src/<id>: run `python
bench/quality.py fetch` first) or any directory holding a go.mod. Each is indexed with the real
service into a temporary index directory and its `refs`, `symbols` and `files` tables are read
back read-only.

For every call reference (`refs.kind = 'call'` in Go files) the oracle is go/types: every package
of the module type-checked from source for linux/amd64 (in-package and external tests too), the
standard library read from GOROOT, packages of other modules left empty (calls into them have no
in-project answer, as they should not). The oracle's use of the called name at that position says
where it is declared.
  oracle in-project  the declaration lies in a file of the corpus and is not a local (declared
                     inside a function: a parameter, a closure held in a variable)
  correct            our target is in the oracle's file, the oracle's line lies in our symbol's
                     [start_line, end_line] and the names agree
  precision (label)  correct / bound refs of that label the oracle answered at all (an answer
                     outside the corpus, or a local, counts against us)
  recall             correct / calls the oracle resolves in-project (exact+high, and any label)
Mismatches and misses, grouped by pattern (label, shape of the call, what the oracle answered),
go to the JSON file (--json, default bench/results/graph-accuracy-go.json).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accuracy_report import print_lists, scratch_index, share, write_results  # the script directory is on sys.path

BENCH_DIR = Path(__file__).resolve().parent
CORPORA = BENCH_DIR / ".corpora"
LAB_SRC = CORPORA / "quality" / "src"
ORACLE_SOURCE = BENCH_DIR / "go_oracle" / "main.go"
ORACLE_BINARY = CORPORA / "go-oracle" / "go_oracle"
RESULTS = BENCH_DIR / "results"
DEFAULT_CORPORA = ("cobra-1.6.1", "client_golang-1.14.0", "x-tools-0.5.0")

BOUND = ("exact", "high", "likely", "possible")
LABELS = (*BOUND, "unbound", "external", "builtin", "local")
EXAMPLES_PER_PATTERN = 8
TOP_PATTERNS = 40


@dataclass(frozen=True, slots=True)
class Call:
    path: str
    line: int
    col: int  # 0-based byte column of the called name (tree-sitter)
    name: str
    receiver: str
    label: str
    target: tuple[str, int, int, str, str, str] | None  # path, start, end, name, qualified name, kind


Answer = dict[str, Any]  # path, line, kind, name, recv, local, outside (see go_oracle/main.go)
Symbols = dict[str, list[tuple[int, int, str]]]  # path -> (start line, end line, name) of each symbol


def index_calls(root: Path) -> tuple[list[Call], Symbols, dict[str, Any]]:
    with scratch_index(root, "codefathom-accuracy-go-") as (conn, seconds):
        rows = conn.execute(
            "SELECT f.path, r.line, r.col, r.name, r.receiver, r.label,"
            " tf.path, s.start_line, s.end_line, s.name, s.qualified_name, s.kind"
            " FROM refs r JOIN files f ON f.id = r.file_id"
            " LEFT JOIN symbols s ON s.id = r.target_id LEFT JOIN files tf ON tf.id = s.file_id"
            " WHERE r.kind = 'call' AND f.language = 'go' ORDER BY f.path, r.line, r.col"
        ).fetchall()
        files = conn.execute("SELECT count(*), sum(status != 'ok') FROM files WHERE language = 'go'").fetchone()
        symbols: Symbols = defaultdict(list)
        for path, start, end, name in conn.execute(
            "SELECT f.path, s.start_line, s.end_line, s.name FROM symbols s JOIN files f ON f.id = s.file_id"
        ):
            symbols[path].append((start, end, name))
    calls = [
        Call(p, line, col, name, receiver or "", label, (tp, s, e, n, q, k) if tp is not None else None)
        for p, line, col, name, receiver, label, tp, s, e, n, q, k in rows
    ]
    return calls, symbols, {"go_files": files[0], "partial_files": files[1] or 0, "index_seconds": round(seconds, 2)}


def oracle_ready() -> Path:
    """The oracle built from bench/go_oracle/main.go (again whenever the source is newer)."""
    if shutil.which("go") is None:
        raise SystemExit("the oracle is built with the Go toolchain: apt-get install golang-go")
    if not ORACLE_BINARY.exists() or ORACLE_BINARY.stat().st_mtime < ORACLE_SOURCE.stat().st_mtime:
        ORACLE_BINARY.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["go", "build", "-o", str(ORACLE_BINARY), str(ORACLE_SOURCE)], check=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(ORACLE_BINARY.parent), "GOFLAGS": "-mod=mod",
                            "GOCACHE": str(ORACLE_BINARY.parent / "cache"), "GOPROXY": "off"})
    return ORACLE_BINARY


def module_path(root: Path) -> str:
    found = re.search(r"^module\s+(\S+)", (root / "go.mod").read_text(), re.M) if (root / "go.mod").exists() else None
    if found is None:
        raise SystemExit(f"{root} has no go.mod naming its module")
    return found.group(1).strip('"')


def ask_oracle(root: Path, calls: list[Call]) -> list[list[Answer]]:
    binary = oracle_ready()
    with tempfile.TemporaryDirectory(prefix="codefathom-go-oracle-") as tmp:
        job, out = Path(tmp) / "job.json", Path(tmp) / "answers.json"
        job.write_text(json.dumps({"root": str(root), "module": module_path(root),
                                   "queries": [[c.path, c.line, c.col] for c in calls]}))
        subprocess.run([str(binary), str(job), str(out)], check=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": tmp, "GOFLAGS": "-mod=mod", "GOPROXY": "off"})
        answers: list[list[Answer]] = json.loads(out.read_text())
    return answers


def in_project(answer: Answer) -> bool:
    return bool(answer["path"]) and not answer["local"]


def category(answer: Answer | None) -> str:
    if answer is None:
        return "none"
    if answer["local"]:
        return f"local {answer['kind']}"
    return f"{'project' if answer['path'] else 'outside'} {answer['kind']}"


def matches(call: Call, answers: list[Answer]) -> bool:
    if call.target is None:
        return False
    path, start, end, name, _, _ = call.target
    return any(a["path"] == path and start <= a["line"] <= end and a["name"] == name for a in answers)


def shape(call: Call) -> str:
    if not call.receiver:
        return "f()"
    if call.receiver in ("self", "this"):
        return "self.m()"
    return "pkg_or_x.m()" if "." not in call.receiver and "(" not in call.receiver else "expr.m()"


def score(calls: list[Call], oracle: list[list[Answer]], examples: int = EXAMPLES_PER_PATTERN,
          top: int = TOP_PATTERNS) -> dict[str, Any]:
    per_label: dict[str, Counter[str]] = {label: Counter() for label in LABELS}
    patterns: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    resolvable = 0
    for call, answers in zip(calls, oracle, strict=True):
        first = answers[0] if answers else None
        counts = per_label.setdefault(call.label, Counter())
        counts["refs"] += 1
        ok = matches(call, answers)
        project = (first is not None and in_project(first)) or ok
        resolvable += project
        counts["oracle_in_project" if project else "oracle_elsewhere" if answers else "oracle_none"] += 1
        if call.label in BOUND and answers:
            counts["checked"] += 1
            counts["correct"] += ok
        counts["recalled"] += ok
        kind = category(first)
        if project:
            by_category[kind]["in_project"] += 1
            by_category[kind]["recalled_exact_high"] += ok and call.label in ("exact", "high")
            by_category[kind]["recalled_any"] += ok
        wrong = call.label in BOUND and bool(answers) and not ok
        if wrong or (project and not ok):
            key = f"{'wrong' if wrong else 'missed'} {call.label} {shape(call)} oracle={kind}"
            patterns[key].append({
                "site": f"{call.path}:{call.line}",
                "call": f"{call.receiver}.{call.name}" if call.receiver else call.name,
                "ours": (f"{call.target[4]} ({call.target[5]}, {call.target[0]}:{call.target[1]})"
                         if call.target else None),
                "oracle": [f"{a['kind']} {a['recv'] + '.' if a['recv'] else ''}{a['name']} "
                           f"{a['path'] or a['outside']}:{a['line']}" for a in answers],
            })
    table = {
        label: {**{k: c[k] for k in ("refs", "oracle_in_project", "oracle_elsewhere", "oracle_none", "checked",
                                      "correct", "recalled")}, "precision": share(c["correct"], c["checked"])}
        for label, c in per_label.items()
    }

    def total(labels: tuple[str, ...], key: str) -> int:
        return sum(per_label[label][key] for label in labels)

    ordered = sorted(patterns.items(), key=lambda item: -len(item[1]))
    return {
        "calls": len(calls),
        "oracle_in_project": resolvable,
        "labels": table,
        "precision_exact_high": share(total(("exact", "high"), "correct"), total(("exact", "high"), "checked")),
        "precision_bound": share(total(BOUND, "correct"), total(BOUND, "checked")),
        "recall_exact_high": share(total(("exact", "high"), "recalled"), resolvable),
        "recall_any_label": share(total(BOUND, "recalled"), resolvable),
        "in_project_by_category": dict(sorted(by_category.items(), key=lambda item: -item[1]["in_project"])),
        "patterns": [{"pattern": key, "count": len(items), "examples": items[: examples or None]}
                     for key, items in ordered[: top or None]],
    }


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def print_report(name: str, info: dict[str, Any], result: dict[str, Any]) -> None:
    print(f"\n{name}: {info['go_files']} Go files ({info['partial_files']} parsed in part),"
          f" {result['calls']} call refs,"
          f" {result['oracle_in_project']} resolved in-project by go/types (index {info['index_seconds']} s,"
          f" oracle {info['oracle_seconds']} s)")
    print(f"{'label':10} {'refs':>7} {'go in':>8} {'go out':>8} {'go none':>8} {'checked':>8} {'correct':>8}"
          f" {'precision':>9}")
    for label, row in result["labels"].items():
        print(f"{label:10} {row['refs']:>7} {row['oracle_in_project']:>8} {row['oracle_elsewhere']:>8}"
              f" {row['oracle_none']:>8} {row['checked']:>8} {row['correct']:>8} {pct(row['precision']):>9}")
    print(f"precision exact+high {pct(result['precision_exact_high'])}, any label {pct(result['precision_bound'])};"
          f" recall exact+high {pct(result['recall_exact_high'])}, any label {pct(result['recall_any_label'])}")
    print_lists(result, "what go/types answered", 10, 28, 15)


def corpus_root(name: str) -> Path:
    given = Path(name).expanduser()
    if given.is_dir():
        return given.resolve()
    found = sorted(LAB_SRC.glob(f"{name}*")) if LAB_SRC.is_dir() else []
    if not found:
        raise SystemExit(f"no corpus {name!r}: give a directory, or run `python bench/quality.py fetch`")
    return found[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append",
                        help=f"a lab corpus id or a directory (repeatable; default {', '.join(DEFAULT_CORPORA)})")
    parser.add_argument("--limit", type=int, default=0, help="check only N call refs, spread over the corpus")
    parser.add_argument("--json", type=Path, default=RESULTS / "graph-accuracy-go.json", help="where results go")
    parser.add_argument("--examples", type=int, default=EXAMPLES_PER_PATTERN,
                        help="examples kept per pattern in the JSON file (0: all)")
    parser.add_argument("--patterns", type=int, default=TOP_PATTERNS, help="patterns kept in the JSON file (0: all)")
    args = parser.parse_args(argv)
    go = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip() if shutil.which("go") else ""
    output: dict[str, Any] = {"go": go, "python": sys.version.split()[0], "corpora": {}}
    for name in args.corpus or list(DEFAULT_CORPORA):
        root = corpus_root(name)
        calls, _, info = index_calls(root)
        if args.limit and len(calls) > args.limit:
            calls = calls[:: len(calls) // args.limit][: args.limit]
        started = time.perf_counter()
        answers = ask_oracle(root, calls)
        info["oracle_seconds"] = round(time.perf_counter() - started, 2)
        result = score(calls, answers, args.examples, args.patterns)
        print_report(root.name, info, result)
        output["corpora"][root.name] = {**info, **result}
    write_results(args.json, output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
