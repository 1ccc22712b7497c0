"""The ranking's knobs in one frozen record, so an experiment is a configuration, not a code edit.

`RankingConfig()` is the ranking codefathom ships; the quality lab (`bench/quality.py`) switches
channels, priors and the fusion rule off or over one at a time and measures what each is worth.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["RankingConfig", "DEFAULT_RANKING", "FUSIONS"]

FUSIONS = ("rrf", "sum-of-scores")


@dataclass(frozen=True)
class RankingConfig:
    lexical: bool = True  # the BM25F channel over the FTS5 fields
    names: bool = True  # the symbol-name channel
    lexical_weight: float = 1.0
    names_weight_identifier: float = 2.0  # the name channel's weight for identifier-like queries
    names_weight_phrase: float = 0.8  # ... and for queries in words
    field_weights: tuple[float, ...] | None = None  # BM25F weights per FTS column; None: channels.FIELD_WEIGHTS
    name_bonus: bool = True  # a bonus per name-match grade on top of the fused score
    kind_prior: bool = True  # definitions over module code and line windows
    role_prior: bool = True  # source over examples, vendored code and tests
    # PageRank prior: the score is multiplied by 1 + weight * ln(1 + rank) (rank: the unit's
    # definition's PageRank over bound references, mean 1.0); 0 turns it off.
    pagerank_weight: float = 0.0
    fusion: str = "rrf"  # "rrf": weight / (k + rank); "sum-of-scores": weighted sum of min-max scores
    rrf_k: int = 60

    def __post_init__(self) -> None:
        if self.fusion not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}, got {self.fusion!r}")
        if self.rrf_k < 0:
            raise ValueError("rrf_k must not be negative")

    def with_(self, **changes: object) -> RankingConfig:
        return replace(self, **changes)  # type: ignore[arg-type]


DEFAULT_RANKING = RankingConfig()
