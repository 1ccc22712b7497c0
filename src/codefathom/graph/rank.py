"""PageRank over the bound reference graph, for files and for symbols.

A file (or definition) that much of the project depends on ranks high; search uses it as a prior.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["pagerank"]

DAMPING = 0.85
ITERATIONS = 40
TOLERANCE = 1e-9


def pagerank(nodes: Iterable[int], edges: Iterable[tuple[int, int, float]]) -> dict[int, float]:
    """Scores for `nodes` given weighted edges (source, target, weight), scaled so the mean is 1.0.

    Dangling nodes spread their rank evenly, as in the original formulation; self-loops are ignored.
    """
    ids = sorted(set(nodes))
    if not ids:
        return {}
    index = {node: i for i, node in enumerate(ids)}
    count = len(ids)
    outgoing: list[list[tuple[int, float]]] = [[] for _ in ids]
    totals = [0.0] * count
    for source, target, weight in edges:
        if source == target or weight <= 0 or source not in index or target not in index:
            continue
        s = index[source]
        outgoing[s].append((index[target], weight))
        totals[s] += weight
    rank = [1.0 / count] * count
    for _ in range(ITERATIONS):
        dangling = sum(rank[i] for i in range(count) if totals[i] == 0.0)
        base = (1.0 - DAMPING) / count + DAMPING * dangling / count
        fresh = [base] * count
        for s, targets in enumerate(outgoing):
            if not targets:
                continue
            share = DAMPING * rank[s] / totals[s]
            for t, weight in targets:
                fresh[t] += share * weight
        delta = sum(abs(a - b) for a, b in zip(fresh, rank, strict=True))
        rank = fresh
        if delta < TOLERANCE:
            break
    return {node: rank[index[node]] * count for node in ids}
