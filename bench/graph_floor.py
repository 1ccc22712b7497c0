"""What the code graph costs an index at the least, whatever its extraction and binding do.

    python bench/graph_floor.py [--corpus PATH] [--repeat N]

The graph's work splits into parts no cleverer Python can remove and parts it can. This script
times, in CPU seconds of this one process (medians of --repeat rounds), the first kind:

  graph matches     tree-sitter matching the graph patterns, on top of the units patterns it shares
                    a walk of the tree with (`units_and_graph_query` against the units query alone):
                    Python receives a dict of capture lists per match
  facts shipped     pickling the rows of every file's facts and unpickling them: what crosses from
                    the parse workers to the writer
  rows written      inserting those rows (symbols, references, imports, hints) into an empty index,
                    200 files a transaction as the indexer does, commits included
  bindings saved    one UPDATE per reference, as a first index's final step does
  ranks             PageRank's inputs, its iterations and its writes (`recompute_ranks`)

and, for comparison, the parts Python does and could do faster: the extraction of facts from the
matches (`parse` with facts against `parse` without), and binding (`Binder.bind` of every
reference). The report then sets the floor against the 1.5x budget: during the parse phase the
workers and the writer share the cores, so its parts count over `--cores`, while the final step's
save and ranks are serial. The budget is half the lexical index's wall time (give it with
--lexical, as `bench/graph_cost.py` measures it, else the median of --repeat lexical indexes here).
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graph_cost import full_index, graph_off  # noqa: E402
from speed import django_core_corpus  # noqa: E402
from tree_sitter import QueryCursor  # noqa: E402

import codefathom.parse.extract as extract  # noqa: E402
from codefathom.discover import discover  # noqa: E402
from codefathom.graph import Binder, recompute_ranks  # noqa: E402
from codefathom.graph import _edges as edges  # noqa: E402
from codefathom.graph.rank import RankEdges  # noqa: E402
from codefathom.model import FileFacts  # noqa: E402
from codefathom.parse import graph_languages, language_name, parse  # noqa: E402
from codefathom.parse.facts import units_and_graph_query  # noqa: E402
from codefathom.parse.grammars import parser_for  # noqa: E402
from codefathom.parse.languages import LanguageSpec, language_for  # noqa: E402
from codefathom.service import Codefathom  # noqa: E402
from codefathom.store import PreparedFacts, open_store, prepare_facts  # noqa: E402


def cpu(function: Callable[[], Any]) -> tuple[float, Any]:
    started = time.process_time()
    result = function()
    return time.process_time() - started, result


def graph_files(corpus: Path) -> list[tuple[str, str]]:
    """(path, text) of the corpus's files in languages with a graph query, as the index lists them."""
    with tempfile.TemporaryDirectory() as folder, Codefathom(corpus, folder) as service:
        listed = discover(service.settings)
    wanted = graph_languages()
    found = []
    for file in listed.files:
        if language_name(file.path) in wanted:
            try:
                found.append((file.path, file.abs_path.read_text("utf-8")))
            except (OSError, UnicodeDecodeError):
                continue
    return found


def matching(files: list[tuple[str, str]], graph: bool) -> None:
    for path, text in files:
        spec = language_for(path)
        assert isinstance(spec, LanguageSpec)
        tree = parser_for(spec).parse(text.encode("utf-8"))
        QueryCursor(units_and_graph_query(spec, graph=graph).query).matches(tree.root_node)


def parse_all(files: list[tuple[str, str]], facts: bool) -> list[PreparedFacts]:
    if facts:
        return [prepare_facts(parse(path, text).facts) for path, text in files]
    real = extract.__dict__["extract_facts"]
    setattr(extract, "extract_facts", lambda *args, **kwargs: FileFacts())  # noqa: B010 - not exported
    try:
        for path, text in files:
            parse(path, text)
    finally:
        setattr(extract, "extract_facts", real)  # noqa: B010
    return []


def write_rows(rows: list[PreparedFacts]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(Path(folder) / "index.db", "floor", create=True)
        try:
            for start in range(0, len(rows), 200):
                with store.transaction(check_keys=False):  # (no file rows: nothing to point at)
                    for file_id, facts in enumerate(rows[start : start + 200], start + 1):
                        store.replace_facts(file_id, facts)
        finally:
            store.close()


class _Measured(Exception):
    """Leaves the final step's transaction without keeping what it wrote."""

    def __init__(self, seconds: dict[str, float]) -> None:
        super().__init__("measured")
        self.seconds = seconds


def final_step(corpus: Path) -> dict[str, float]:
    """Binding, saving the bindings and PageRank, timed on a real index of the corpus (the
    references as a first index has them, its ranks from the bindings in memory)."""
    with tempfile.TemporaryDirectory() as folder, Codefathom(corpus, folder) as service:
        service.index()
        store = service._open(create=False)
        try:
            with store.transaction():
                lookup = store.graph_lookup()
                refs = lookup.refs_to_rebind(None, ())
                lookup.preload()
                binder = Binder(lookup)
                bind_s, bindings = cpu(lambda: [binder.bind(ref) for ref in refs])
                rows = [(b.ref_id, b.target_id, b.confidence, b.label, b.candidates) for b in bindings]
                save_s, _ = cpu(lambda: lookup.save_bindings(rows))
                bound = RankEdges(lookup)
                bound.add(edges(refs, rows))
                ranks_s, _ = cpu(lambda: recompute_ranks(lookup, bound))
                raise _Measured({"binding": bind_s, "bindings saved": save_s, "ranks": ranks_s,
                                 "references": float(len(refs))})
        except _Measured as measured:
            return measured.seconds
    raise AssertionError("unreachable")


def one_round(files: list[tuple[str, str]]) -> dict[str, float]:
    units_s, _ = cpu(lambda: matching(files, graph=False))
    both_s, _ = cpu(lambda: matching(files, graph=True))
    without_s, _ = cpu(lambda: parse_all(files, facts=False))
    with_s, rows = cpu(lambda: parse_all(files, facts=True))
    ship_s, _ = cpu(lambda: pickle.loads(pickle.dumps(rows, pickle.HIGHEST_PROTOCOL)))
    write_s, _ = cpu(lambda: write_rows(rows))
    return {
        "graph matches": both_s - units_s, "facts shipped": ship_s, "rows written": write_s,
        "extraction (Python)": with_s - without_s - (both_s - units_s),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="any directory instead of the pinned Django core corpus")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2, help="cores the parse phase shares (default 2)")
    parser.add_argument("--lexical", type=float, help="the lexical index's wall seconds (bench/graph_cost.py)")
    args = parser.parse_args()
    corpus = args.corpus or django_core_corpus()
    files = graph_files(corpus)
    rounds: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for name, value in (one_round(files) | final_step(corpus)).items():
            rounds.setdefault(name, []).append(value)
    median = {name: statistics.median(values) for name, values in rounds.items()}
    if args.lexical is not None:
        lexical = args.lexical
    else:
        with graph_off():
            lexical = statistics.median(full_index(corpus)[0] for _ in range(args.repeat))
    parse_floor = (median["graph matches"] + median["facts shipped"] + median["rows written"]) / args.cores
    final_floor = median["bindings saved"] + median["ranks"]
    print(f"{corpus}: {len(files)} files with a graph query, {int(median['references'])} references; CPU seconds,"
          f" medians of {args.repeat}")
    for name in ("graph matches", "facts shipped", "rows written", "bindings saved", "ranks",
                 "extraction (Python)", "binding"):
        print(f"  {name:<20} {median[name]:6.2f}")
    print(f"floor of the graph's wall time: {parse_floor:.2f} s in the parse phase ({args.cores} cores) +"
          f" {final_floor:.2f} s serial = {parse_floor + final_floor:.2f} s; budget at 1.5x of lexical"
          f" {lexical:.2f} s: {lexical / 2:.2f} s")


if __name__ == "__main__":
    main()
