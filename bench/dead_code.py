"""Dead code on real projects: how many definitions each confidence lists, and the most certain ones.

    python bench/dead_code.py                                  # the lab's corpora named in CORPORA
    python bench/dead_code.py --corpus x-tools --corpus sympy --show 0.9
    python bench/dead_code.py --path ~/src/project --show 0.6 --json /tmp/dead.json

Each corpus (the quality lab's unpacked sources, bench/.corpora/quality/src/, fetched by
`python bench/quality.py fetch`) is copied to a temporary directory, indexed without vectors into
a temporary index, and asked `dead` with no limit. `--show C` prints every item listed "unused"
at confidence C or above with the other places its name is written in the tree (a whole-word
grep, its definition left out): what a person reads to judge whether the item is truly unused.
The judgement itself is by hand; docs/benchmarks.md keeps it.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from lab import corpora as lab_corpora  # noqa: E402

from codefathom.service import Codefathom  # noqa: E402

CORPORA = ("x-tools", "client_golang", "cobra-1.6.1", "sympy", "werkzeug", "urllib3", "click-2c8cd3a",
           "requests-1f6589e", "gson", "mobx", "effect")


def judge(root: Path, path: str, line: int, name: str, limit: int = 4) -> list[str]:
    """The other lines of the tree that write `name` as a whole word."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    found = []
    for file in sorted(root.rglob("*")):
        if not file.is_file() or file.stat().st_size > 2_000_000:
            continue
        relative = file.relative_to(root).as_posix()
        try:
            lines = file.read_text("utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for number, text in enumerate(lines, 1):
            if word.search(text) and (relative, number) != (path, line):
                found.append(f"{relative}:{number}: {text.strip()[:120]}")
                if len(found) >= limit:
                    return found
    return found


def run(name: str, source: Path, show: float | None) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="codefathom-dead-") as tmp:
        root = Path(tmp) / name
        shutil.copytree(source, root, symlinks=True)
        started = time.perf_counter()
        with Codefathom(root, index_dir=Path(tmp) / "index") as cf:
            cf.index()
            indexed = time.perf_counter() - started
            started = time.perf_counter()
            report = cf.dead(limit=0)
            asked = time.perf_counter() - started
        tiers = Counter(item.confidence for item in report.unused)
        print(f"{name:24} unused {report.total_unused:5} public {report.total_public_api:5}  by confidence "
              + ", ".join(f"{c:.2f}: {n}" for c, n in sorted(tiers.items(), reverse=True))
              + f"  (index {indexed:.1f}s, dead {asked:.2f}s)", flush=True)
        shown = [item for item in report.unused if show is not None and item.confidence >= show]
        for item in shown:
            symbol = item.symbol
            print(f"  {item.confidence:.2f} {symbol.path}:{symbol.start_line} {symbol.qualified_name}")
            for other in judge(root, symbol.path, symbol.start_line, symbol.name):
                print(f"        {other}")
        return {
            "corpus": name, "unused": report.total_unused, "public": report.total_public_api,
            "tiers": {f"{c:.2f}": n for c, n in tiers.items()}, "index_s": round(indexed, 2),
            "dead_s": round(asked, 3),
            "shown": [f"{i.symbol.path}:{i.symbol.start_line} {i.symbol.qualified_name}" for i in shown],
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", help="a lab corpus (name or id), repeatable")
    parser.add_argument("--path", type=Path, action="append", help="a project directory, repeatable")
    parser.add_argument("--show", type=float, help="list the unused items at this confidence or above")
    parser.add_argument("--json", type=Path, help="write the counts here")
    args = parser.parse_args()
    sources: list[tuple[str, Path]] = [(p.name, p) for p in args.path or []]
    if args.corpus or not args.path:
        for corpus in lab_corpora.select(args.corpus or list(CORPORA), False):
            sources.append((corpus.id, lab_corpora.ensure_src(corpus)))
    results = [run(name, source, args.show) for name, source in sources]
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
