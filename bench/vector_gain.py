"""What vectors change, query by query: every query of the corpora with vectors ranked with them
and without, the paired difference in MRR@10 per query set and split, with its significance.

    python bench/vector_gain.py                        # the corpora whose indexes hold every vector
    python bench/vector_gain.py --corpus cobra-adbc881 --corpus gson-9835b6f --set question

Each query's channel candidates are gathered once through the real search code (as
bench/fit_ranking.py gathers them) and ranked by `search.rank.rank_units` with the shipped
weights, once with the vector channel and once as an index without vectors ranks. p is a paired
bootstrap's two-sided p-value (bench/lab/metrics.py); "up / down" count the queries that move.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from fit_ranking import FETCH_LIMIT, Query, gather  # noqa: E402
from lab import metrics  # noqa: E402

from codefathom.search import MAX_PER_FILE  # noqa: E402
from codefathom.search.config import DEFAULT_RANKING, RankingConfig  # noqa: E402
from codefathom.search.rank import rank_units  # noqa: E402


def mrr(query: Query, config: RankingConfig) -> float:
    vectors = query.channels["vectors"][: config.vector_pool] if config.vectors else []
    channels = {"lexical": query.channels["lexical"], "names": query.channels["names"], "vectors": vectors}
    kept, _ = rank_units(channels, query.plan, query.units, config, FETCH_LIMIT, MAX_PER_FILE,
                         without_vectors=query.missing)
    results = [metrics.shown(s, query.units) for s in kept]
    return metrics.score(results, query.targets, query.level)["mrr@10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", help="only this corpus (name or id), repeatable")
    parser.add_argument("--set", action="append", dest="sets", help="only this query set, repeatable")
    args = parser.parse_args()
    queries = [q for q in gather(args.corpus, False, 0.99) if not args.sets or q.set in args.sets]
    with_vectors = {q.id: q for q in queries if q.with_vectors}
    # gather() searches a corpus with vectors a second time without them, marked coverage 0.
    without = {q.id: q for q in queries if not q.with_vectors and q.coverage == 0.0}
    if not with_vectors:
        raise SystemExit("no corpus has every unit embedded: run `python bench/quality.py embed` first")
    lexical = DEFAULT_RANKING.with_(vectors=False)
    print("| set | split | n | with vectors | without | difference | p | up / down |")
    print("|---|---|---|---|---|---|---|---|")
    for name in sorted({q.set for q in with_vectors.values()}):
        for split in ("tune", "check", None):
            ids = [i for i, q in with_vectors.items() if q.set == name and split in (None, q.split)]
            a = [mrr(without[i], lexical) for i in ids]
            b = [mrr(with_vectors[i], DEFAULT_RANKING) for i in ids]
            up, down, _ = metrics.sign_test(a, b)
            print(f"| {name} | {split or 'both'} | {len(ids)} | {metrics.mean(b):.3f} | {metrics.mean(a):.3f} |"
                  f" {metrics.mean(b) - metrics.mean(a):+.3f} | {metrics.paired_bootstrap(a, b, 5000):.2f} |"
                  f" {up} / {down} |")


if __name__ == "__main__":
    main()
