"""CPU a parse worker spends per file, by phase, over fixed file lists, in one process.

    python bench/parse_cpu.py DIR [DIR ...] [--repeat N] [--total] [--dump OUT.pickle] [--profile OUT.prof]

Each DIR is a slice of a corpus (every file under it, sorted, its path relative to DIR, as the
indexer would see it with DIR as the project's root). For each, the function a parse worker runs
on a file (`service.indexer._prepare`) is run over every file, and so are its steps alone, each
pass cumulative over the one before: the tree-sitter parse, then the units-and-graph query's
matches too, then `parse()` (units and graph facts), then the whole `_prepare` (reading, hashing,
the unit and FTS rows, the fact rows); `--total` runs the whole `_prepare` alone, for a quicker
comparison of two versions in turns. Process CPU time (`time.process_time`), the minimum of
`--repeat` rounds, so that a shared machine's load costs as little as it can; the cyclic collector
runs as in a worker, once per 16 files, over what those files left (`--collect-generation 2`: a full
collection, as a worker ran it before).

`--dump` writes every file's `_prepare` outcome, pickled without a memo (the bytes depend on the
values alone, not on which strings happen to be one object), to compare two versions of the code
byte for byte. `--profile` writes a cProfile of one `_prepare` pass over every slice.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tree_sitter import QueryCursor, QueryError

import codefathom.service.indexer as indexer
from codefathom.parse import parse
from codefathom.parse.facts import units_and_graph_query
from codefathom.parse.grammars import parser_for
from codefathom.parse.hooks import PARSER_INPUT
from codefathom.parse.languages import LanguageSpec, language_for
from codefathom.parse.navigate import MAX_SYNTAX_DEPTH

CHUNK = 16  # files per worker chunk


def _jobs(root: Path) -> list[Any]:
    files = sorted(p for p in root.rglob("*") if p.is_file())
    jobs = []
    for file in files:
        stat = file.stat()
        path = file.relative_to(root).as_posix()
        jobs.append((path, str(file), stat.st_mtime_ns, stat.st_size, "", False, str(root), False))
    return jobs


def _texts(jobs: list[Any]) -> list[tuple[str, str]]:
    texts = []
    for job in jobs:
        try:
            texts.append((job[0], Path(job[1]).read_bytes().decode("utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return texts


def _tree(path: str, text: str) -> Any:
    spec = language_for(path, text)
    if not isinstance(spec, LanguageSpec):
        return None
    data = text.encode("utf-8", errors="surrogatepass")
    adapt = PARSER_INPUT.get(spec.name)
    return spec, parser_for(spec).parse(adapt(data) if adapt is not None else data)


def _tree_only(item: tuple[str, str]) -> object:
    return _tree(*item)


def _tree_and_matches(item: tuple[str, str]) -> object:
    found = _tree(*item)
    if found is None:
        return None
    spec, tree = found
    try:
        query = units_and_graph_query(spec)
    except QueryError:
        query = units_and_graph_query(spec, graph=False)
    cursor = QueryCursor(query.query)
    cursor.set_max_start_depth(MAX_SYNTAX_DEPTH)
    return cursor.matches(tree.root_node)


def _parse(item: tuple[str, str]) -> object:
    return parse(*item)


def _cpu(func: Callable[[Any], object], items: list[Any], generation: int) -> float:
    return _cpu_and_collector(func, items, generation)[0]


def _cpu_and_collector(func: Callable[[Any], object], items: list[Any], generation: int) -> tuple[float, float]:
    """CPU seconds of the pass, and of the collector's runs within it (of generations up to
    `generation`, after every chunk of files, as a worker runs it)."""
    gc.disable()
    gc.collect()
    gc.freeze()
    collector = 0.0
    start = time.process_time()
    for number, item in enumerate(items, 1):
        func(item)
        if number % CHUNK == 0:
            before = time.process_time()
            gc.collect(generation)
            gc.freeze()
            collector += time.process_time() - before
    return time.process_time() - start, collector


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("slices", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--total", action="store_true", help="time the whole _prepare only")
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--collect-generation", type=int, default=0, choices=(0, 1, 2),
                        help="the oldest generation the collector runs over after each chunk (a worker's: 0)")
    args = parser.parse_args()
    generation = args.collect_generation
    slices = [(root.resolve().name, _jobs(root.resolve())) for root in args.slices]
    if args.dump is not None:
        with args.dump.open("wb") as out:
            for _, jobs in slices:
                for job in jobs:
                    buffer = io.BytesIO()
                    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
                    pickler.fast = True  # no memo: equal values give equal bytes
                    pickler.dump((job[0], indexer._prepare(job)))
                    out.write(buffer.getvalue())
        print(f"wrote {args.dump}", file=sys.stderr)
    if args.profile is not None:
        profile = cProfile.Profile()
        profile.enable()
        for _, jobs in slices:
            for job in jobs:
                indexer._prepare(job)
        profile.disable()
        profile.dump_stats(str(args.profile))
        print(f"wrote {args.profile}", file=sys.stderr)
        return
    if args.repeat < 1:
        return
    steps: list[tuple[str, Callable[[Any], object], bool]] = [
        ("tree", _tree_only, True), ("matches", _tree_and_matches, True), ("parse", _parse, True),
        ("prepare", indexer._prepare, False),
    ]
    if args.total:
        for name, jobs in slices:
            indexer._prepare(jobs[0])
            total, collector = min(_cpu_and_collector(indexer._prepare, jobs, generation) for _ in range(args.repeat))
            print(f"{name:<12} {len(jobs):>6} {total:>6.2f}s  (collector {collector:.2f}s)", flush=True)
        return
    print(f"{'slice':<12} {'files':>6} {'tree':>7} {'+query':>7} {'+units/facts':>13} {'+rows/io':>9} {'total':>7}")
    for name, jobs in slices:
        texts = _texts(jobs)
        for _, func, on_text in steps:  # warm: grammars loaded, queries compiled
            func((texts if on_text else jobs)[0])
        best = {label: float("inf") for label, _, _ in steps}
        for _ in range(args.repeat):
            for label, func, on_text in steps:
                best[label] = min(best[label], _cpu(func, texts if on_text else jobs, generation))
        tree, matches, parsed, total = (best[label] for label, _, _ in steps)
        print(
            f"{name:<12} {len(jobs):>6} {tree:>6.2f}s {matches - tree:>6.2f}s {parsed - matches:>12.2f}s"
            f" {total - parsed:>8.2f}s {total:>6.2f}s",
            flush=True,
        )


if __name__ == "__main__":
    main()
