"""PageRank over the bound reference graph, for files and for symbols.

A file (or definition) that much of the project depends on ranks high; search uses it as a prior.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

import numpy as np

__all__ = ["pagerank"]

DAMPING = 0.85
ITERATIONS = 30
TOLERANCE = 1e-6  # total change of the scores (which sum to 1) at which iteration stops


def pagerank(nodes: Iterable[int], edges: Iterable[tuple[int, int, float]]) -> dict[int, float]:
    """Scores for `nodes` given weighted edges (source, target, weight), scaled so the mean is 1.0.

    Dangling nodes spread their rank evenly, as in the original formulation; self-loops are ignored.
    """
    ids = sorted(set(nodes))
    if not ids:
        return {}
    index = {node: i for i, node in enumerate(ids)}
    count = len(ids)
    totals = [0.0] * count
    # The edges kept, as packed arrays: a large project has millions (a tuple each took 100 bytes).
    kept_sources, kept_targets, kept_weights = array("q"), array("q"), array("d")
    for source, target, weight in edges:
        if source == target or weight <= 0 or source not in index or target not in index:
            continue
        s = index[source]
        kept_sources.append(s)
        kept_targets.append(index[target])
        kept_weights.append(weight)
        totals[s] += weight
    if not kept_weights:
        return {node: 1.0 for node in ids}
    sources = np.frombuffer(kept_sources, dtype=np.int64)
    targets = np.frombuffer(kept_targets, dtype=np.int64)
    weights = np.frombuffer(kept_weights, dtype=np.float64)
    out = np.asarray(totals)
    shares = weights / out[sources]
    dangling = out == 0.0
    rank = np.full(count, 1.0 / count)
    for _ in range(ITERATIONS):
        base = (1.0 - DAMPING) / count + DAMPING * rank[dangling].sum() / count
        fresh = base + DAMPING * np.bincount(targets, weights=rank[sources] * shares, minlength=count)
        delta = float(np.abs(fresh - rank).sum())
        rank = fresh
        if delta < TOLERANCE:
            break
    scaled = rank * count
    return {node: float(scaled[index[node]]) for node in ids}
