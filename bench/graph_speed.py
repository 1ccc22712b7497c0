"""Cost of the code graph and latency of the graph verbs, warm and in-process, on the Django
benchmark corpus or any directory.

    python bench/graph_speed.py [--corpus PATH] [--repeat N] [--sample N [--seed S]] [--json OUT]

Indexes the corpus (the one bench/speed.py fetches, `--core` variant by default) into a temporary
index, reporting the indexing time, the part of it spent binding and ranking, and the references by
language and label. Then times symbol, refs, callers, callees, deps and impact with fresh=False (no
re-sync), reporting p50/p95 per verb over a fixed list of names and files (for `--corpus`: the 12
most referenced definitions and the 6 files importing most). `--sample N` prints N random exact or
high bindings per language, with the line written and the definition bound, for checking by hand.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import django_core_corpus  # noqa: E402

import codefathom.service.indexer as indexer  # noqa: E402
from codefathom.service import Codefathom  # noqa: E402

NAMES = [
    "QuerySet.filter", "get_object_or_404", "Model.save", "reverse", "HttpResponse", "Field.clean",
    "render_to_string", "slugify", "cached_property", "Template.render", "Query.join", "force_str",
]
FILES = [
    "django/db/models/query.py", "django/utils/text.py", "django/http/response.py",
    "django/template/base.py", "django/urls/resolvers.py", "django/forms/fields.py",
]
LABELS = ("exact", "high", "likely", "possible", "unbound", "external", "builtin", "local")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class _Timed:
    """Wraps the indexer's graph steps to add up the time spent in them."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return timed


def reference_counts(conn: sqlite3.Connection) -> dict[str, dict[str, int]]:
    """language -> label -> references (and "total")."""
    counts: dict[str, dict[str, int]] = {}
    rows = conn.execute(
        "SELECT f.language, r.label, count(*) FROM refs r JOIN files f ON f.id = r.file_id GROUP BY 1, 2"
    )
    for language, label, count in rows:
        table = counts.setdefault(language, {"total": 0})
        table[label or "none"] = count
        table["total"] += count
    return counts


def busiest(conn: sqlite3.Connection) -> tuple[list[str], list[str]]:
    """The 12 most referenced definitions (qualified names) and the 6 files that import most."""
    names = [
        row[0] for row in conn.execute(
            "SELECT s.qualified_name FROM refs r JOIN symbols s ON s.id = r.target_id"
            " WHERE s.kind != 'module' GROUP BY s.qualified_name ORDER BY count(*) DESC LIMIT 12"
        )
    ]
    files = [
        row[0] for row in conn.execute(
            "SELECT f.path FROM imports i JOIN files f ON f.id = i.file_id"
            " GROUP BY f.path ORDER BY count(*) DESC LIMIT 6"
        )
    ]
    return names, files


def sample(conn: sqlite3.Connection, root: Path, count: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    """`count` random exact or high bindings per language: where, what is written, what it binds to."""
    rows = conn.execute(
        "SELECT f.language, f.path, r.line, r.kind, r.receiver, r.name, r.label, s.qualified_name, t.path,"
        " s.start_line FROM refs r JOIN files f ON f.id = r.file_id JOIN symbols s ON s.id = r.target_id"
        " JOIN files t ON t.id = s.file_id WHERE r.label IN ('exact', 'high') ORDER BY r.id"
    ).fetchall()
    by_language: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows:
        by_language.setdefault(row[0], []).append(row)
    picked: dict[str, list[dict[str, Any]]] = {}
    for language, candidates in sorted(by_language.items()):
        chosen = random.Random(seed).sample(candidates, min(count, len(candidates)))
        picked[language] = []
        for _, path, line, kind, receiver, name, label, target, target_path, target_line in chosen:
            lines = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
            picked[language].append({
                "at": f"{path}:{line}", "kind": kind, "written": f"{receiver}.{name}" if receiver else name,
                "label": label, "target": target, "defined": f"{target_path}:{target_line}",
                "line": lines[line - 1].strip()[:140] if line <= len(lines) else "",
            })
    return picked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="any directory instead of the pinned Django corpus")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sample", type=int, default=0, help="print N random exact/high bindings per language")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    corpus = args.corpus or django_core_corpus()
    graph = _Timed()
    indexer.rebind = graph.wrap(indexer.rebind)  # type: ignore[assignment]
    indexer.recompute_ranks = graph.wrap(indexer.recompute_ranks)  # type: ignore[assignment]
    results: dict[str, Any] = {"corpus": str(corpus)}
    with tempfile.TemporaryDirectory() as index_dir:
        service = Codefathom(corpus, index_dir)
        started = time.perf_counter()
        report = service.index()
        seconds = time.perf_counter() - started
        print(f"indexed {report.discovered} files in {seconds:.2f}s (binding and ranking {graph.seconds:.2f}s)")
        results["index"] = {"files": report.discovered, "seconds": round(seconds, 2),
                            "graph_seconds": round(graph.seconds, 2)}
        with sqlite3.connect(service.settings.db_path) as conn:
            counts = reference_counts(conn)
            names, files = (NAMES, FILES) if args.corpus is None else busiest(conn)
            picked = sample(conn, corpus, args.sample, args.seed) if args.sample else {}
        results["references"] = counts
        for language, table in sorted(counts.items()):
            total = table["total"]
            shares = "  ".join(f"{label} {100 * table.get(label, 0) / total:.1f}%" for label in LABELS)
            print(f"  {language}: {total} references  {shares}")
        calls = {
            "symbol": [lambda n=n: service.symbol(n, fresh=False) for n in names],
            "refs": [lambda n=n: service.refs(n, fresh=False) for n in names],
            "callers depth 2": [lambda n=n: service.call_hierarchy(n, depth=2, fresh=False) for n in names],
            "callees depth 2": [
                lambda n=n: service.call_hierarchy(n, direction="callees", depth=2, fresh=False) for n in names
            ],
            "deps depth 2": [lambda f=f: service.deps(f, depth=2, fresh=False) for f in files],
            "impact depth 2": [lambda f=f: service.deps(f, depth=2, reverse=True, fresh=False) for f in files],
        }
        latency = {}
        for verb, runs in calls.items():
            for run in runs:  # warm-up
                run()
            times = []
            for _ in range(args.repeat):
                for run in runs:
                    t0 = time.perf_counter()
                    run()
                    times.append((time.perf_counter() - t0) * 1000)
            if not times:
                continue
            latency[verb] = {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(percentile(times, 0.95), 2)}
            print(f"  {verb:18} p50 {latency[verb]['p50_ms']:7.2f} ms   p95 {latency[verb]['p95_ms']:7.2f} ms")
        results["latency"] = latency
    for language, items in picked.items():
        print(f"\n{len(items)} random exact/high bindings, {language}:")
        for number, item in enumerate(items, 1):
            print(f"{number:3}. {item['at']}  {item['kind']} {item['written']}  [{item['label']}]"
                  f" -> {item['target']} ({item['defined']})\n       {item['line']}")
    results["sample"] = picked
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
