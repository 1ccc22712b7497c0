"""The vector channel: cosine similarity of the query's vector with every unit's, by brute force
over one contiguous float32 matrix, within the search's scope; scored in standard deviations.

Brute force is exact and, at the sizes one machine indexes, fast: a matrix product over 100k
rows of 384 floats takes a few milliseconds (docs/benchmarks.md).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from codefathom.search.channels import Candidate
from codefathom.store import Scope, Store, VectorMatrix

__all__ = ["vector_channel", "without_vectors"]


def vector_channel(store: Store, query_vector: npt.NDArray[np.float32], scope: Scope, limit: int) -> list[Candidate]:
    matrix = store.vector_matrix(int(query_vector.shape[0]))
    if not len(matrix):
        return []
    scores = matrix.vectors @ query_vector.astype(np.float32, copy=False)
    allowed = _scope_mask(matrix, scope)
    searched = scores
    if allowed is not None:
        searched = scores[allowed]
        scores = np.where(allowed, scores, -np.inf)
    count = min(limit, len(scores))
    # The best `count` without negating a copy of the scores: at 100k units every pass shows.
    top = np.argpartition(scores, len(scores) - count)[len(scores) - count :]
    top = top[np.argsort(-scores[top], kind="stable")]
    # Cosines of one embedder bunch up (0.85-0.90 for e5): in standard deviations of this query's
    # cosine over the searched units, a gap means the same on any index and any query.
    mean, spread = (float(searched.mean()), float(searched.std())) if len(searched) else (0.0, 0.0)
    spread = spread if spread > 1e-9 else 1.0
    return [
        Candidate(int(matrix.unit_ids[i]), (float(scores[i]) - mean) / spread, f"cosine {scores[i]:.3f}")
        for i in top
        if np.isfinite(scores[i])
    ]


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
    matrix = store.vector_matrix(dims)
    ids = np.fromiter(unit_ids, dtype=np.int64, count=len(unit_ids))
    return frozenset(int(i) for i in ids[~np.isin(ids, matrix.unit_ids)])
