"""Fits the ranking's weights on the quality lab's `tune` split and writes them to
src/codefathom/search/ranking.toml, the one file the shipped ranking reads its weights from.

    python bench/fit_ranking.py                       # every corpus (those with vectors use them); tune split
    python bench/fit_ranking.py --corpus urllib3 --corpus cobra --rounds 4
    python bench/fit_ranking.py --dry-run             # print the fit and the check split, write nothing

Then the reranker (search/rerank.py), which orders questions in words searched with a vector:
a linear model over its features, fitted by listwise softmax (each tune query with a target among
its candidates weighs the same; L2 penalty `--l2`), its weights written to `[rerank_weights]`.
`--keep-weights` fits the reranker alone over the shipped fusion weights. The model without vectors
(`[rerank_lexical_weights]`) is fitted on every corpus searched without vectors, those with vectors
included; the model with vectors is pulled toward it by the L2 penalty, and `kin` (HELD) is not
fitted in either; `--partial 0.05,0.2,0.5` also fits the model for an index being embedded
(`[rerank_partial_weights]`) on copies of the corpora with vectors that keep those shares of them
(bench/vector_coverage.py makes the copies).

Each query's channel candidates (BM25F, names, vectors) and their units are gathered once through
the real search code; the ranking is then recomputed from them by `search.rank.rank_units` (the
function search itself calls) for every configuration tried, so the fit ranks exactly as search
does. Coordinate ascent: one weight at a time over a grid, kept when the mean MRR@10 over the
tune queries (each query weighs the same, as in the lab's "all" rows) rises by more than 0.002
and identifier queries keep their P@1 within 0.01 of lexical-only ranking; rounds until nothing
moves. Check-split numbers are
printed for the result but never used to choose.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from lab import corpora as lab_corpora  # noqa: E402
from lab import metrics, querygen  # noqa: E402
from quality import FETCH_LIMIT, prepare  # noqa: E402
from vector_coverage import with_coverage  # noqa: E402

from codefathom.search import (  # noqa: E402
    MAX_PER_FILE,
    SearchRequest,
    concept_plan,
    gather_channels,
    plan_query,
    rerank,
    with_kin_nearby,
)
from codefathom.search.channels import Candidate  # noqa: E402
from codefathom.search.config import DEFAULT_RANKING, RANKING_FILE, RankingConfig  # noqa: E402
from codefathom.search.query import QueryPlan  # noqa: E402
from codefathom.search.rank import rank_units, reranker  # noqa: E402
from codefathom.search.vectors import without_vectors  # noqa: E402
from codefathom.service import Codefathom, embedding  # noqa: E402
from codefathom.store import Scope  # noqa: E402

# The weights the fit moves, and the values it tries for each.
GRID: dict[str, tuple[float, ...]] = {
    "lexical_weight": (0.5, 0.75, 1.0, 1.25, 1.5, 2.0),
    "names_weight_identifier": (0.5, 1.0, 1.5, 2.0, 3.0, 4.0),
    "names_weight_phrase": (0.0, 0.25, 0.5, 0.8, 1.2),
    "vector_weight_identifier": (0.0, 0.25, 0.5, 0.75, 1.0, 1.5),
    "vector_weight_phrase": (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0),
    "vector_pool": (25, 50, 100, 200, 400),
    "rrf_k": (5, 10, 20, 30, 45, 60, 90),
    "pagerank_weight": (0.0, 0.05, 0.1, 0.2),
    "file_weight": (0.0, 0.05, 0.1, 0.2, 0.3),
    "name_bonus_max_words": (2, 3, 4, 5, 99),
}
MIN_GAIN = 0.002
# Reranker features whose weight is set by hand on the lab (docs/benchmarks.md says how), the same in
# every model that has them: a fit would learn what the lab's construction pays (`kin` lifts the
# undocumented, and the intent set's targets are undocumented because the lab blanked their docs;
# `predicate` fires on few queries, too few for a fit to weigh; `contrast`, as `kin`, reads undocumented
# definitions beside documented kin).
HELD = ("kin", "predicate", "contrast", "subject")


@dataclass
class Query:
    id: str
    set: str
    split: str
    level: str
    targets: list[dict[str, Any]]
    plan: QueryPlan
    channels: dict[str, list[Candidate]]
    units: dict[int, Any]
    with_vectors: bool
    # Share of the index's units with a vector: 1 for every corpus as it is (with or without vectors),
    # between 0 and 1 for a --partial copy, 0 for a corpus with vectors searched again without them.
    coverage: float = 1.0
    missing: frozenset[int] = frozenset()  # candidates without a vector


def gather(corpus_names: list[str] | None, quick: bool, min_vectors: float,
           partial: tuple[float, ...] = ()) -> list[Query]:
    queries: list[Query] = []
    for corpus in lab_corpora.select(corpus_names, quick):
        lab = prepare(corpus)
        with Codefathom(lab, index_dir=corpus.index_dir) as cf:
            cf.index()
            cf.embed(cached_only=True)  # a parser change re-parsed the corpus: link its cached vectors again
            store = cf._open(create=False)
            with_vectors, total = store.vector_coverage()
            share = with_vectors / total if total else 0.0
            # A corpus without (all its) vectors still tells how the lexical channels should rank:
            # it takes part without the vector channel, as an index without vectors searches.
            use_vectors = share >= min_vectors
            started = time.perf_counter()
            items = querygen.load(corpus)
            queries += _gathered(cf, items, use_vectors)
            if use_vectors:  # searched without them too: most indexes have none yet, the lexical model fits those
                queries += _gathered(cf, items, False, 0.0)
            print(f"{corpus.id:28} {len(items):4} queries gathered in {time.perf_counter() - started:.1f}s"
                  f" ({100 * share:.0f}% vectors{'' if use_vectors else ': searched without them'})", file=sys.stderr)
        if not use_vectors:
            continue
        # The same queries on copies of the index that have the vectors of only the first part of
        # its units, in the order a first pass embeds them: an index being embedded.
        embedding.MIN_VECTOR_SHARE = 0.0
        for coverage in partial:
            with tempfile.TemporaryDirectory(prefix="codefathom-fit-") as tmp:
                copy = Path(tmp) / "index"
                with_coverage(corpus.index_dir, coverage, copy)
                with Codefathom(lab, index_dir=copy) as cf:
                    queries += _gathered(cf, items, True, coverage)
            print(f"{corpus.id:28} {len(items):4} queries gathered at {coverage:.0%} vectors", file=sys.stderr)
    return queries


def _gathered(cf: Codefathom, items: list[dict[str, Any]], use_vectors: bool, coverage: float = 1.0) -> list[Query]:
    store = cf._open(create=False)
    found = []
    for item in items:
        notices: list[str] = []
        vector = cf._query_vector(store, item["query"], notices, {}) if use_vectors else None
        # Every channel as deep as any configuration tried reads it (the reranker reads fewer).
        wide = DEFAULT_RANKING.with_(vector_pool=int(max(GRID["vector_pool"])), rerank=False)
        request = SearchRequest(item["query"], limit=FETCH_LIMIT, query_vector=vector, ranking=wide)
        plan = concept_plan(store, plan_query(item["query"]), wide)
        pool = max(50, request.limit * 10) * 5  # as search() takes it for these options
        channels = gather_channels(store, plan, Scope(), request, pool, {})
        ids = {c.unit_id for candidates in channels.values() for c in candidates}
        units = store.units_by_id(ids, with_rank=True)
        if reranker(plan, channels, DEFAULT_RANKING):  # as search() reads them
            with_kin_nearby(store, channels, units, True)
            ids = set(units)
        missing = without_vectors(store, int(vector.shape[0]), ids) if vector is not None and coverage < 1 else None
        found.append(Query(item["id"], item["set"], item["split"], item["level"], item["targets"], plan,
                           channels, units, use_vectors, coverage, missing or frozenset()))
    return found


def evaluate(queries: list[Query], config: RankingConfig, split: str, coverage: float = 1.0) -> dict[str, float]:
    """Mean MRR@10 per query set and over all queries ("all"), and the identifier set's P@1; over
    the queries gathered at `coverage` (1: every corpus as it is)."""
    per_set: dict[str, list[float]] = {}
    identifier_p1: list[float] = []
    for q in queries:
        if q.split != split or q.coverage != coverage:
            continue
        channels = {
            "lexical": q.channels["lexical"] if config.lexical else [],
            "names": q.channels["names"] if config.names else [],
            "vectors": q.channels["vectors"][: config.vector_pool] if config.vectors else [],
        }
        kept, _ = rank_units(channels, q.plan, q.units, config, FETCH_LIMIT, MAX_PER_FILE, without_vectors=q.missing)
        results = [metrics.shown(s, q.units) for s in kept]
        scored = metrics.score(results, q.targets, q.level)
        per_set.setdefault(q.set, []).append(scored["mrr@10"])
        if q.set == "identifier":
            identifier_p1.append(scored["p@1"])
    means = {name: statistics.fmean(values) for name, values in sorted(per_set.items())}
    means["all"] = statistics.fmean(v for values in per_set.values() for v in values) if per_set else 0.0
    means["identifier p@1"] = statistics.fmean(identifier_p1) if identifier_p1 else 0.0
    return means


def fit(queries: list[Query], start: RankingConfig, rounds: int) -> RankingConfig:
    floor = evaluate(queries, start.with_(vectors=False), "tune")["identifier p@1"] - 0.01
    best = start
    best_score = evaluate(queries, best, "tune")["all"]
    print(f"start: tune MRR@10 {best_score:.4f}", file=sys.stderr)
    for round_number in range(1, rounds + 1):
        moved = False
        for name, values in GRID.items():
            for value in values:
                candidate = best.with_(**{name: type(getattr(best, name))(value)})
                result = evaluate(queries, candidate, "tune")
                score = result["all"]
                if score > best_score + MIN_GAIN and result["identifier p@1"] >= floor:
                    best, best_score, moved = candidate, score, True
                    print(f"round {round_number}: {name} = {value} -> {score:.4f}", file=sys.stderr)
        if not moved:
            break
    return best


def fit_reranker(
    queries: list[Query], config: RankingConfig, l2: float, steps: int = 600, lexical: bool = False,
    partial: bool = False, set_weights: dict[str, float] | None = None,
) -> RankingConfig:
    """A reranker's weights: for each tune question in words with vectors (`lexical`: without, and
    longer than a name's words; `partial`: with vectors for part of the index), the softmax over its
    candidates' linear scores should put its mass on the target; Adam on the weighted mean
    cross-entropy, each query weighing 1 or its set's weight in `set_weights`.

    The L2 penalty pulls each weight toward a prior: 0, or for the models with vectors (all or part of
    them) the weight of the same feature in the model without vectors (fitted on every corpus, where
    they see only the embedded ones), so they depart from it only as far as their own queries ask. A feature
    in HELD keeps the weight the model without vectors has and is not fitted."""
    names = rerank.LEXICAL_FEATURES if lexical else rerank.PARTIAL_FEATURES if partial else rerank.FEATURES
    shipped = dict(config.rerank_lexical_weights)
    prior = np.array([shipped.get(f, 0.0) if f in HELD or not lexical else 0.0 for f in names])
    held = np.array([f in HELD for f in names])
    lists = []
    for q in queries:
        if q.split != "tune" or q.with_vectors == lexical or q.plan.identifier_like or (0 < q.coverage < 1) != partial:
            continue
        if lexical and not rerank.applies_lexical(q.plan, {**q.channels, "vectors": []}, {"fitted": 1.0},
                                                  config.name_bonus_max_words):
            continue  # as search decides
        channels = {**q.channels, "vectors": q.channels["vectors"][: config.vector_pool]}
        if lexical:  # as search gives them: no vectors, BM25F's best LEXICAL_DEPTH and their kin
            channels = {**channels, "vectors": [], "lexical": rerank.with_kin(channels["lexical"], q.plan, q.units, 10)}
        values = rerank.features(q.plan, channels, q.units, q.missing)
        ids = list(values)
        truth = np.array([_is_target(q, uid) for uid in ids], dtype=float)
        if truth.any():
            matrix = np.array([[values[uid][f] for f in names] for uid in ids])
            lists.append((matrix, truth / truth.sum(), (set_weights or {}).get(q.set, 1.0)))
    total = sum(weight for _, _, weight in lists) or 1.0
    weights = prior.copy()
    moment, square = np.zeros_like(weights), np.zeros_like(weights)
    for step in range(1, steps + 1):
        gradient = l2 * (weights - prior)
        for matrix, target, weight in lists:
            scores = matrix @ weights
            share = np.exp(scores - scores.max())
            gradient += weight * (matrix.T @ (share / share.sum() - target)) / total
        gradient[held] = 0.0
        moment = 0.9 * moment + 0.1 * gradient
        square = 0.999 * square + 0.001 * gradient**2
        weights -= 0.05 * (moment / (1 - 0.9**step)) / (np.sqrt(square / (1 - 0.999**step)) + 1e-8)
    kind = " without vectors" if lexical else " with part of the vectors" if partial else ""
    print(f"reranker{kind}: {len(lists)} tune queries, l2 {l2}", file=sys.stderr)
    fitted = tuple((f, round(float(w), 4)) for f, w in zip(names, weights, strict=True))
    table = "rerank_lexical_weights" if lexical else "rerank_partial_weights" if partial else "rerank_weights"
    return config.with_(**{table: fitted})


def _is_target(q: Query, unit_id: int) -> bool:
    stored = q.units[unit_id]
    result = (stored.path, stored.unit.start_line, stored.unit.end_line)
    return any(metrics.hits_target(result, t, q.level) for t in q.targets)


def write(config: RankingConfig, tune: dict[str, float], check: dict[str, float], baseline: dict[str, float],
          corpora: list[str], command: str, earlier: list[str] | None = None) -> None:
    """ranking.toml from `config`, its header saying how it was fitted; `earlier`: the header lines
    of the fit this one refits part of, kept before its own."""
    lines = [
        "# The shipped ranking's weights, fitted on the quality lab's tune split. Do not edit by hand:",
        *(earlier or []),
        f"#   {command}",
        *(f"# corpora {line}" for line in corpora),
        "# mean MRR@10 over the queries, before -> after fitting (and per query set after):",
        *(f"#   {split:5} {baseline_split['all']:.3f} -> {result['all']:.3f}   "
          + "  ".join(f"{k} {result[k]:.3f}" for k in result if k != "all")
          for split, baseline_split, result in (("tune", baseline["tune"], tune), ("check", baseline["check"], check))),
        "",
    ]
    defaults = RankingConfig()
    for f in fields(RankingConfig):
        value = getattr(config, f.name)
        if not f.name.startswith("rerank_") and (f.name in GRID or value != getattr(defaults, f.name)):
            lines.append(f"{f.name} = {_toml(value)}")
    if config.rerank_weights:  # a TOML table comes after the plain keys
        lines += ["", "# reranker features (search/rerank.py) and their weights", "[rerank_weights]"]
        lines += [f"{name} = {weight!r}" for name, weight in config.rerank_weights]
    if config.rerank_partial_weights:
        lines += ["", "# the reranker while part of the units have vectors: features and weights",
                  "[rerank_partial_weights]"]
        lines += [f"{name} = {weight!r}" for name, weight in config.rerank_partial_weights]
    if config.rerank_lexical_weights:
        lines += ["", "# the reranker without vectors: features and weights", "[rerank_lexical_weights]"]
        lines += [f"{name} = {weight!r}" for name, weight in config.rerank_lexical_weights]
    RANKING_FILE.write_text("\n".join(lines) + "\n")
    print(f"wrote {RANKING_FILE}", file=sys.stderr)


def _header_so_far() -> list[str]:
    """The shipped ranking.toml's header after its first line: how its weights were fitted."""
    lines = RANKING_FILE.read_text().split("\n")
    end = lines.index("") if "" in lines else len(lines)
    return lines[1:end]


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", help="only this corpus (name or id), repeatable")
    parser.add_argument("--quick", action="store_true", help="the --quick subset of corpora")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-vectors", type=float, default=0.99, help="share of units with vectors a corpus needs")
    parser.add_argument("--dry-run", action="store_true", help="print the fit; leave ranking.toml as it is")
    parser.add_argument("--keep-weights", action="store_true", help="fit the reranker only, over the shipped weights")
    parser.add_argument("--l2", type=float, default=1e-3, help="the reranker's L2 penalty")
    parser.add_argument("--set-weight", action="append", default=[], metavar="SET=W",
                        help="a query set's weight in the model with vectors (default 1 each; e.g. question=2)")
    parser.add_argument("--models", default="vectors,lexical",
                        help="which rerankers to fit: vectors (with a query vector), lexical (without), or both;"
                        " a model left out keeps its shipped weights, and ranking.toml's header gains a line")
    parser.add_argument("--partial", default="", help="also fit the model for an index being embedded, on copies of"
                        " the corpora with vectors at these coverages (e.g. 0.05,0.2,0.5)")
    args = parser.parse_args()
    partial = tuple(float(c) for c in args.partial.split(",") if c)
    queries = gather(args.corpus, args.quick, args.min_vectors, partial)
    if not queries:
        raise SystemExit("no queries: run `python bench/quality.py fetch` and `generate` first")
    lexical = DEFAULT_RANKING.with_(vectors=False)
    baseline = {split: evaluate(queries, DEFAULT_RANKING, split) for split in ("tune", "check")}
    # The fusion weights are fitted with the reranker off: they rank what it does not.
    fused = DEFAULT_RANKING.with_(rerank=False)
    fitted = fused if args.keep_weights else fit(queries, fused, args.rounds)
    set_weights = {name: float(weight) for name, _, weight in (item.partition("=") for item in args.set_weight)}
    models = set(args.models.split(","))
    if models - {"vectors", "lexical"}:
        raise SystemExit(f"--models: vectors, lexical or both, not {args.models!r}")
    # The model without vectors first: the one with vectors is pulled toward it.
    if "lexical" in models and any(not q.with_vectors for q in queries):
        fitted = fit_reranker(queries, fitted, args.l2, lexical=True)
    if "vectors" in models and any(q.with_vectors for q in queries):
        fitted = fit_reranker(queries, fitted, args.l2, set_weights=set_weights)
    if partial:
        fitted = fit_reranker(queries, fitted, args.l2, partial=True)
    fitted = fitted.with_(rerank=True)
    tune, check = evaluate(queries, fitted, "tune"), evaluate(queries, fitted, "check")
    print("\nMRR@10 by set (tune / check):")
    runs = (("lexical only", lexical), ("shipped before", DEFAULT_RANKING),
            ("fitted, no reranker", fitted.with_(rerank=False)), ("fitted", fitted))
    for name, config in runs:
        t, c = evaluate(queries, config, "tune"), evaluate(queries, config, "check")
        print(f"  {name:15} " + "  ".join(f"{k} {t[k]:.3f}/{c[k]:.3f}" for k in t))
    for coverage in partial:
        print(f"\nat {coverage:.0%} vectors (corpora with vectors only), MRR@10 by set (tune / check):")
        for name, config in (("no vectors", lexical), ("one model", fitted.with_(rerank_partial_weights=())),
                             ("shipped before", DEFAULT_RANKING), ("partial model", fitted)):
            t, c = evaluate(queries, config, "tune", coverage), evaluate(queries, config, "check", coverage)
            print(f"  {name:15} " + "  ".join(f"{k} {t[k]:.3f}/{c[k]:.3f}" for k in t))
    changed = {k: v for k, v in asdict(fitted).items() if asdict(DEFAULT_RANKING)[k] != v}
    print(f"\nchanged: {changed}")
    if not args.dry_run:
        with_vectors = sorted({q.id.split(":")[0] for q in queries if q.with_vectors})
        without = sorted({q.id.split(":")[0] for q in queries if not q.with_vectors})
        corpora = [f"with vectors: {', '.join(with_vectors) or '-'}"] if "vectors" in models else []
        corpora += [f"without: {', '.join(without) or '-'}"] if "lexical" in models else []
        if not with_vectors:
            corpora.append("with vectors: none here, so [rerank_weights] stay as they were fitted before")
        command = ("python bench/fit_ranking.py " + " ".join(sys.argv[1:])).strip()
        # A part refitted: the header of the fit it refits stays, this one's follows.
        earlier = _header_so_far() + ["# then:"] if models != {"vectors", "lexical"} else None
        write(fitted, tune, check, baseline, corpora, command, earlier)


if __name__ == "__main__":
    main()
