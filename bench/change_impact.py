"""Latency of `impact --diff` (Codefathom.change_impact), warm and in-process, on the Django core corpus.

    python bench/change_impact.py [--corpus PATH] [--repeat N] [--json OUT]

The corpus (bench/speed.py's `--core` variant by default) is copied into a temporary directory made
into its own one-commit git repository, so the pinned corpus is never touched. It is indexed into a
temporary index, then the last line of a few functions in different files is edited (a comment
appended) in the working tree, and `change_impact("HEAD")` is timed:

  1 function         only `slugify` edited
  6 functions        six functions in six files edited (the bodies the graph benchmark asks about)
  6 + commit         the same edits committed, compared with HEAD~1 (same diff, through history)
  6, removed + new   additionally a function deleted and an untracked file added

each with fresh=True (the re-sync every CLI and MCP answer starts with; nothing changed since the
warm-up, so it is a sweep) and fresh=False (the index as it is), JSON rendering included; p50/p95
over --repeat runs after one warm-up. The old versions of changed files are parsed once per blob
and kept in process (`OLD_VERSIONS`); "first call" clears that cache before every run, as a new
`codefathom impact` process starts. Also printed: what the 6-function answer found.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import django_core_corpus  # noqa: E402

from codefathom.service import Codefathom, render  # noqa: E402
from codefathom.service.changes import OLD_VERSIONS  # noqa: E402

# (file, qualified name) of the functions edited; the first alone is the 1-function case.
TARGETS = [
    ("django/utils/text.py", "django.utils.text.slugify"),
    ("django/db/models/query.py", "django.db.models.query.QuerySet.filter"),
    ("django/shortcuts.py", "django.shortcuts.get_object_or_404"),
    ("django/template/base.py", "django.template.base.Template.render"),
    ("django/urls/base.py", "django.urls.base.reverse"),
    ("django/utils/encoding.py", "django.utils.encoding.force_str"),
]
REMOVED = ("django/utils/text.py", "django.utils.text.capfirst")
NEW_FILE = "django/utils/brand_new.py"


def git(repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "init.defaultBranch=main"]
    subprocess.run(["git", *ident, "-C", str(repo), *args], check=True, capture_output=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def edit_function(service: Codefathom, root: Path, path: str, qualified: str) -> None:
    """Append a comment to the last line of the definition: one changed line inside it."""
    found = [s for s in service.symbol(qualified, fresh=False).symbols if s.path == path]
    if not found:
        raise SystemExit(f"{qualified} not found in {path}: the corpus is not the pinned one")
    lines = (root / path).read_text(encoding="utf-8").split("\n")
    lines[found[0].end_line - 1] += "  # edited by bench/change_impact.py"
    (root / path).write_text("\n".join(lines), encoding="utf-8")


def remove_function(service: Codefathom, root: Path, path: str, qualified: str) -> None:
    symbol = next(s for s in service.symbol(qualified, fresh=False).symbols if s.path == path)
    lines = (root / path).read_text(encoding="utf-8").split("\n")
    del lines[symbol.start_line - 1:symbol.end_line]
    (root / path).write_text("\n".join(lines), encoding="utf-8")


def timed(run: Callable[[], Any], repeat: int) -> dict[str, float]:
    run()  # warm-up: syncs the edits, reads the old blobs once into the OS cache
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(percentile(times, 0.95), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="any Python project instead of the pinned Django corpus")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    corpus = args.corpus or django_core_corpus()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="codefathom-change-") as work:
        root = Path(work) / "repo"
        shutil.copytree(corpus, root, ignore=shutil.ignore_patterns(".git"))
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "corpus")
        with Codefathom(root, Path(work) / "index") as service:
            started = time.perf_counter()
            report = service.index()
            print(f"indexed {report.discovered} files in {time.perf_counter() - started:.2f}s")

            def answer(rev: str, fresh: bool, cold: bool) -> dict[str, Any]:
                if cold:
                    OLD_VERSIONS.clear()
                return render.change_impact_json(service.change_impact(rev, fresh=fresh))

            def case(name: str, rev: str = "HEAD") -> None:
                for fresh, cold in ((True, False), (False, False), (True, True)):
                    label = f"{name}, {'re-sync' if fresh else 'no sync'}{', first call' if cold else ''}"
                    results[label] = timing = timed(
                        lambda fresh=fresh, cold=cold: answer(rev, fresh, cold), args.repeat
                    )
                    print(f"  {label:46} p50 {timing['p50_ms']:7.1f} ms   p95 {timing['p95_ms']:7.1f} ms")

            edit_function(service, root, *TARGETS[0])
            case("1 function")
            for path, qualified in TARGETS[1:]:
                edit_function(service, root, path, qualified)
            service.index()
            case("6 functions")
            found = render.change_impact_json(service.change_impact("HEAD", fresh=False))
            counts = found["counts"]
            print(
                f"  6 functions: {counts['symbols']} changed definitions, {counts['references']} references"
                f" ({len(found['dependents'])} groups), {counts['impacted_files']} impacted files at depth 2,"
                f" {counts['tests']} tests; cut: {found.get('truncated', [])}"
            )
            results["6 functions found"] = counts
            git(root, "commit", "-q", "-am", "edits")
            case("6 + commit, vs HEAD~1", "HEAD~1")
            remove_function(service, root, *REMOVED)
            (root / NEW_FILE).write_text("def brand_new(x):\n    return x\n", encoding="utf-8")
            service.index()
            case("6, removed + new, vs HEAD~1", "HEAD~1")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
