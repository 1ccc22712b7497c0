"""Latency of the graph verbs, warm and in-process, on the Django benchmark corpus.

    python bench/graph_speed.py [--corpus PATH] [--repeat N] [--json OUT]

Indexes the corpus (the one bench/speed.py fetches, `--core` variant by default) into a temporary
index, then times symbol, refs, callers, callees, deps and impact with fresh=False (no re-sync),
reporting p50/p95 per verb over a fixed list of names and files.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import django_core_corpus  # noqa: E402

from codefathom.service import Codefathom  # noqa: E402

NAMES = [
    "QuerySet.filter", "get_object_or_404", "Model.save", "reverse", "HttpResponse", "Field.clean",
    "render_to_string", "slugify", "cached_property", "Template.render", "Query.join", "force_str",
]
FILES = [
    "django/db/models/query.py", "django/utils/text.py", "django/http/response.py",
    "django/template/base.py", "django/urls/resolvers.py", "django/forms/fields.py",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="any directory instead of the pinned Django corpus")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    corpus = args.corpus or django_core_corpus()
    with tempfile.TemporaryDirectory() as index_dir:
        service = Codefathom(corpus, index_dir)
        started = time.perf_counter()
        report = service.index()
        print(f"indexed {report.discovered} files in {time.perf_counter() - started:.2f}s")
        calls = {
            "symbol": [lambda n=n: service.symbol(n, fresh=False) for n in NAMES],
            "refs": [lambda n=n: service.refs(n, fresh=False) for n in NAMES],
            "callers depth 2": [lambda n=n: service.call_hierarchy(n, depth=2, fresh=False) for n in NAMES],
            "callees depth 2": [
                lambda n=n: service.call_hierarchy(n, direction="callees", depth=2, fresh=False) for n in NAMES
            ],
            "deps depth 2": [lambda f=f: service.deps(f, depth=2, fresh=False) for f in FILES],
            "impact depth 2": [lambda f=f: service.deps(f, depth=2, reverse=True, fresh=False) for f in FILES],
        }
        results = {}
        for verb, runs in calls.items():
            for run in runs:  # warm-up
                run()
            times = []
            for _ in range(args.repeat):
                for run in runs:
                    t0 = time.perf_counter()
                    run()
                    times.append((time.perf_counter() - t0) * 1000)
            results[verb] = {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(percentile(times, 0.95), 2)}
            print(f"  {verb:18} p50 {results[verb]['p50_ms']:7.2f} ms   p95 {results[verb]['p95_ms']:7.2f} ms")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
