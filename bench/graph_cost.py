"""What the code graph adds to a full index: lexical-only and full indexes of one corpus, alternating.

    python bench/graph_cost.py [--corpus PATH] [--repeat N] [--extraction] [--json OUT]

Each round indexes the corpus (Django `--core` by default) into fresh temporary indexes, once as
the lexical spine alone and once with the graph, in turns (the order rotates every round), so
that load on a shared machine hits every mode alike; the report gives the medians and their ratio,
then the fastest round of each mode and their ratio (the rounds load slowed least).
The lexical run is the same indexer with the graph switched off here, in the benchmark: no fact
extraction in the parse workers (they run `lexical_prepare` below, which this script's `sys.path`
lets them import; their tree query is the units query alone, without the graph's patterns), no
graph rows written, no binding or PageRank. Directory nodes are built in every mode (they serve
search, not the graph). `--extraction` adds a third mode: facts extracted and written, but not
bound or ranked, which says what the graph costs before its final step. With the graph on, the
time of that final step (imports, binding, PageRank: `rebind` and `recompute_ranks` of the indexer) is
reported too.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import django_core_corpus  # noqa: E402

import codefathom.parse.extract as extract  # noqa: E402
import codefathom.parse.facts as facts  # noqa: E402
import codefathom.service.indexer as indexer  # noqa: E402
from codefathom.model import FileFacts  # noqa: E402
from codefathom.service import Codefathom  # noqa: E402
from codefathom.store.sqlite import SQLiteStore as Store  # noqa: E402  (its methods are patched)

_ORIGINAL_PREPARE = indexer._prepare


def _no_facts(*args: Any, **kwargs: Any) -> FileFacts:
    return FileFacts()


def _units_query(spec: Any, graph: bool = True) -> Any:
    return facts.units_and_graph_query(spec, graph=False)


def lexical_prepare(job: Any) -> Any:
    """The indexer's per-file work without graph facts, in a parse worker (a fresh process for
    each index, so the change does not outlive it) or in this process (see graph_off)."""
    setattr(extract, "extract_facts", _no_facts)  # noqa: B010 - not an exported name, for mypy
    setattr(extract, "units_and_graph_query", _units_query)  # noqa: B010
    return _ORIGINAL_PREPARE(job)


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


@contextmanager
def graph_off(extraction: bool = False) -> Iterator[None]:
    """No binding or PageRank; unless `extraction`, no facts extracted or written either."""
    patches: list[tuple[object, str, object]] = [
        (indexer, "rebind", lambda *a, **k: 0), (indexer, "recompute_ranks", _nothing),
    ]
    if not extraction:
        # Imported by its module name, not `__main__`, so that the parse workers can import it too.
        from graph_cost import lexical_prepare

        patches += [(indexer, "_prepare", lexical_prepare), (Store, "replace_facts", _nothing)]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    saved.append((extract, "extract_facts", extract.__dict__["extract_facts"]))
    saved.append((extract, "units_and_graph_query", extract.__dict__["units_and_graph_query"]))
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def full_index(corpus: Path) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as index_dir, Codefathom(corpus, index_dir) as service:
        started = time.perf_counter()
        service.index()
        seconds = time.perf_counter() - started
        with sqlite3.connect(service.settings.db_path) as conn:
            refs = int(conn.execute("SELECT count(*) FROM refs").fetchone()[0])
    return seconds, refs


def timed(function: Callable[..., Any], spent: list[float]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[-1] += time.perf_counter() - started

    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="any directory instead of the pinned Django core corpus")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--extraction", action="store_true", help="also time extraction without binding")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    corpus = args.corpus or django_core_corpus()
    graph_steps: list[float] = []
    for name in ("rebind", "recompute_ranks"):
        setattr(indexer, name, timed(getattr(indexer, name), graph_steps))
    modes = ["lexical", "graph"] + (["extraction"] if args.extraction else [])
    seconds: dict[str, list[float]] = {mode: [] for mode in modes}
    refs = 0
    for round_ in range(args.repeat):
        for mode in modes[round_ % len(modes):] + modes[: round_ % len(modes)]:
            if mode == "graph":
                graph_steps.append(0.0)
                took, refs = full_index(corpus)
            else:
                with graph_off(extraction=mode == "extraction"):
                    took = full_index(corpus)[0]
            seconds[mode].append(took)
            print(f"  round {round_ + 1} {mode}: {took:.2f}s", file=sys.stderr)
    medians = {mode: statistics.median(values) for mode, values in seconds.items()}
    lex, tail = medians["lexical"], statistics.median(graph_steps)
    extra = f", extraction without binding {medians['extraction']:.2f}s ({medians['extraction'] / lex:.2f}x)" \
        if args.extraction else ""
    print(f"{corpus}: lexical {lex:.2f}s, with graph {medians['graph']:.2f}s (final graph step {tail:.2f}s),"
          f" ratio {medians['graph'] / lex:.2f}{extra}; {refs} references")
    # On a machine shared with other work, the fastest round of each mode is the one least slowed.
    least = {mode: min(values) for mode, values in seconds.items()}
    print(f"  fastest rounds: lexical {least['lexical']:.2f}s, with graph {least['graph']:.2f}s"
          f" (final step {min(graph_steps):.2f}s), ratio {least['graph'] / least['lexical']:.2f}"
          + (f", extraction {least['extraction'] / least['lexical']:.2f}x" if args.extraction else ""))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "corpus": str(corpus), "seconds": seconds, "graph_step_s": graph_steps, "medians_s": medians,
            "ratio": medians["graph"] / lex, "refs": refs,
        }, indent=2))


if __name__ == "__main__":
    main()
