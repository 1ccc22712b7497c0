"""The vector channel: cosine similarity of the query's vector with every unit's, by brute force
over one contiguous float32 matrix, within the search's scope; scored in standard deviations.

Brute force is exact and, at the sizes one machine indexes, fast: a matrix product over 100k
rows of 384 floats takes a few milliseconds (docs/benchmarks.md). A store with an index of its own
(PostgreSQL's HNSW on a large project) finds the neighbours instead, and the spread of the query's
cosines is measured on a sample of the vectors, so no process holds them all.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from codefathom.search.channels import Candidate
from codefathom.store import Scope, Store, VectorIndex, VectorMatrix

__all__ = ["vector_channel", "without_vectors"]

# Fewer sampled units in a scope than this: the scope is narrow, and its vectors are read and
# scanned exactly (a few thousand rows at most) rather than measured on so few.
MIN_SAMPLED = 200


def vector_channel(store: Store, query_vector: npt.NDArray[np.float32], scope: Scope, limit: int) -> list[Candidate]:
    query = query_vector.astype(np.float32, copy=False)
    index = store.vector_index(int(query.shape[0]))
    if index is None:
        return _scanned(store.vector_matrix(int(query.shape[0])), query, scope, limit)
    return _through_index(index, query, scope, limit)


def _scanned(matrix: VectorMatrix, query: npt.NDArray[np.float32], scope: Scope, limit: int) -> list[Candidate]:
    if not len(matrix):
        return []
    scores = matrix.vectors @ query
    allowed = _scope_mask(matrix, scope)
    searched = scores
    if allowed is not None:
        searched = scores[allowed]
        scores = np.where(allowed, scores, -np.inf)
    count = min(limit, len(scores))
    # The best `count` without negating a copy of the scores: at 100k units every pass shows.
    top = np.argpartition(scores, len(scores) - count)[len(scores) - count :]
    top = top[np.argsort(-scores[top], kind="stable")]
    mean, spread = _spread(searched)
    return [_candidate(int(matrix.unit_ids[i]), float(scores[i]), mean, spread) for i in top if np.isfinite(scores[i])]


def _through_index(index: VectorIndex, query: npt.NDArray[np.float32], scope: Scope, limit: int) -> list[Candidate]:
    sample = index.sample
    allowed = _scope_mask(sample, scope)
    sampled = sample.vectors @ query if allowed is None else sample.vectors[allowed] @ query
    if len(sampled) < MIN_SAMPLED:
        return _scanned(index.scoped(scope), query, scope, limit)
    mean, spread = _spread(sampled)
    return [_candidate(uid, cosine, mean, spread) for uid, cosine in index.nearest(query, limit, scope)[:limit]]


def _spread(cosines: npt.NDArray[np.float32]) -> tuple[float, float]:
    """Mean and standard deviation of a query's cosines over the units searched. Cosines of one
    embedder bunch up (0.85-0.90 for e5): in standard deviations, a gap means the same on any index
    and any query."""
    if not len(cosines):
        return 0.0, 1.0
    spread = float(cosines.std())
    return float(cosines.mean()), spread if spread > 1e-9 else 1.0


def _candidate(unit_id: int, cosine: float, mean: float, spread: float) -> Candidate:
    return Candidate(unit_id, (cosine - mean) / spread, f"cosine {cosine:.3f}")


def _scope_mask(matrix: VectorMatrix, scope: Scope) -> npt.NDArray[np.bool_] | None:
    mask: npt.NDArray[np.bool_] | None = None
    for values, allowed in (
        (matrix.file_ids, scope.file_ids), (matrix.languages, scope.languages), (matrix.kinds, scope.kinds),
    ):
        if allowed is None:
            continue
        keep = np.isin(values, np.array(sorted(allowed)))
        mask = keep if mask is None else mask & keep
    return mask


def without_vectors(store: Store, dims: int, unit_ids: set[int]) -> frozenset[int]:
    """Those of `unit_ids` that have no vector yet (embedding runs after the index)."""
    index = store.vector_index(dims)
    if index is not None:
        return index.lacking(unit_ids)
    matrix = store.vector_matrix(dims)
    ids = np.fromiter(unit_ids, dtype=np.int64, count=len(unit_ids))
    return frozenset(int(i) for i in ids[~np.isin(ids, matrix.unit_ids)])
