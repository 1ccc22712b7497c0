"""PageRank over the bound reference graph, for files and for symbols.

A file (or definition) that much of the project depends on ranks high; search uses it as a prior.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from codefathom.graphsource import BoundRef, GraphLookup, RankInputs

__all__ = ["pagerank", "RankEdges", "rank_inputs_of"]

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


# -- PageRank's edges, summed as references are bound ------------------------------------------


class _PairSums:
    """Weights added per (source, target) pair, each pair's summed in the order they were added (a
    running float sum from 0.0, as a dict of sums gives it), kept as packed arrays until summed:
    24 bytes an addition, where a dict of a million pairs took 130 MB."""

    def __init__(self) -> None:
        self.sources, self.targets, self.weights = array("q"), array("q"), array("d")

    def add(self, source: int, target: int, weight: float) -> None:
        self.sources.append(source)
        self.targets.append(target)
        self.weights.append(weight)

    def summed(self) -> Iterator[tuple[int, int, float]]:
        """(source, target, sum) of each pair, by source then target; lets the additions go."""
        if not self.weights:
            return iter(())
        sources, targets = np.frombuffer(self.sources, dtype=np.int64), np.frombuffer(self.targets, dtype=np.int64)
        weights = np.frombuffer(self.weights, dtype=np.float64)
        if int(sources.min()) >= 0 and int(targets.min()) >= 0 and int(sources.max()) < 1 << 31 \
                and int(targets.max()) < 1 << 31:
            keys, inverse = np.unique((sources << 32) | targets, return_inverse=True)
            firsts, seconds = keys >> 32, keys & 0xFFFFFFFF
        else:  # (ids this large: pairs sorted as rows, slower)
            rows, inverse = np.unique(np.stack([sources, targets], axis=1), axis=0, return_inverse=True)
            firsts, seconds = rows[:, 0], rows[:, 1]
        sums = np.zeros(len(firsts), dtype=np.float64)
        np.add.at(sums, inverse.reshape(-1), weights)  # one addition at a time, in the order made
        self.sources, self.targets, self.weights = array("q"), array("q"), array("d")
        return _rows_of(firsts, seconds, sums)


def _rows_of(firsts: Any, seconds: Any, sums: Any) -> Iterator[tuple[int, int, float]]:
    """The arrays' rows as Python values, a slice at a time (all at once, a million edges as Python
    ints and floats took 100 MB more at PageRank's peak)."""
    for start in range(0, len(sums), 1 << 16):
        end = start + (1 << 16)
        yield from zip(firsts[start:end].tolist(), seconds[start:end].tolist(), sums[start:end].tolist(), strict=True)


class RankEdges:
    """PageRank's edges summed from references as they are bound: what a whole-project binding
    keeps of its references for PageRank, an addition per edge of each. `add` must be given the
    bound references in id order over the whole run, as the store's `rank_inputs` sums them, so
    that each weight is the same sum to the last bit."""

    def __init__(self, lookup: GraphLookup) -> None:
        self.lookup = lookup
        self.by_files = _PairSums()
        self.by_symbols = _PairSums()
        self._sources: dict[tuple[int, str | None], list[int]] = {}

    def add(self, bound: Iterable[BoundRef]) -> None:
        """Add a batch's bound references (whole files, but for parts of one with many): where each
        edge starts is asked again of the next batch rather than kept for all of them."""
        self._sources.clear()
        lookup, by_files, by_symbols, sources = self.lookup, self.by_files, self.by_symbols, self._sources
        for file_id, scope, target, confidence in bound:
            symbol = lookup.symbol(target)
            if symbol is None:
                continue  # not in the index (the store's rank_inputs drops it too)
            if symbol.file_id != file_id:
                by_files.add(file_id, symbol.file_id, confidence)
            where = (file_id, scope)
            if where not in sources:
                sources[where] = _rank_sources(lookup, file_id, scope)
            for source in sources[where]:
                by_symbols.add(source, target, confidence)


def rank_inputs_of(lookup: GraphLookup, bound: RankEdges) -> RankInputs:
    """What the store's `rank_inputs` reads (`GraphLookup.rank_inputs`), from the edges of the
    references just bound and the preloaded symbols: the same nodes and edges in the same order,
    each weight summed in the same order, so that PageRank gives the same ranks to the last bit."""
    files = lookup.ranked_files()
    imported: dict[tuple[int, int], int] = {}
    for rows in lookup.all_imports():
        for row in rows:
            if row.target_file_id is not None and row.target_file_id != row.file_id:
                key = (row.file_id, row.target_file_id)
                imported[key] = imported.get(key, 0) + 1
    file_edges = list(bound.by_files.summed())
    file_edges += [(a, b, 0.5 * count) for (a, b), count in sorted(imported.items())]
    return files, file_edges, lookup.symbol_ids(), bound.by_symbols.summed()


def _rank_sources(lookup: GraphLookup, file_id: int, scope: str | None) -> list[int]:
    """The symbols a reference's edge starts from, as the store's rank_inputs gives them: the
    definitions of its scope in its file (each one), else the file's module symbol."""
    defined = [s.id for s in lookup.by_qualified(scope) if s.file_id == file_id] if scope is not None else []
    modules = lookup.module_symbols(file_id)
    if defined:
        return [s for s in defined for _ in range(max(1, len(modules)))]
    return list(modules)
