"""What the reference-accuracy benchmarks share (graph_accuracy*.py): a corpus indexed with the
real service into a scratch directory, read back read-only, the lists their reports end with,
rounded ratios, and the JSON file they write."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["scratch_index", "print_lists", "share", "write_results"]


@contextmanager
def scratch_index(root: Path, prefix: str) -> Iterator[tuple[sqlite3.Connection, float]]:
    """A read-only connection to an index of `root` made by `codefathom.service.Codefathom` in a
    temporary directory (removed afterwards), and the seconds the index took."""
    from codefathom.service import Codefathom

    scratch = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        started = time.perf_counter()
        with Codefathom(root, index_dir=scratch / "index") as service:
            service.index()
        seconds = time.perf_counter() - started
        with sqlite3.connect(f"file:{scratch / 'index' / 'index.db'}?mode=ro", uri=True) as conn:
            yield conn, seconds
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def print_lists(
    result: dict[str, Any], by: str = "", categories: int = 10, width: int = 28, patterns: int = 15
) -> None:
    """The in-project answers by category (`by` says what the categories are; none when "") and the
    most common mismatch patterns, each with its first example."""
    if by:
        print(f"in-project answers by {by} (recalled exact+high / any):")
        for category, c in list(result["in_project_by_category"].items())[:categories]:
            print(f"  {c['in_project']:>6}  {category:{width}} {c['recalled_exact_high']:>6} {c['recalled_any']:>6}")
    print("top patterns:")
    for pattern in result["patterns"][:patterns]:
        example = pattern["examples"][0]
        print(f"  {pattern['count']:>5}  {pattern['pattern']}   e.g. {example['site']} {example['call']}")


def share(part: float, whole: float) -> float | None:
    """part / whole to four places; None when there is no whole."""
    return round(part / whole, 4) if whole else None


def write_results(path: Path, output: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(output, indent=2) + "\n")
    print(f"\nwrote {path}", file=sys.stderr)
