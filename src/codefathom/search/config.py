"""The ranking's knobs in one frozen record, so an experiment is a configuration, not a code edit.

`DEFAULT_RANKING` is the ranking codefathom ships: these defaults with the weights fitted on the
quality lab's tune split read over them from `ranking.toml` (written by bench/fit_ranking.py).
The lab (`bench/quality.py`) switches channels, priors and the fusion rule off or over one at a
time and measures what each is worth.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

__all__ = ["RankingConfig", "DEFAULT_RANKING", "FUSIONS", "RANKING_FILE"]

RANKING_FILE = Path(__file__).with_name("ranking.toml")

FUSIONS = ("rrf", "sum-of-scores")


@dataclass(frozen=True)
class RankingConfig:
    lexical: bool = True  # the BM25F channel over the FTS5 fields
    names: bool = True  # the symbol-name channel
    areas: bool = True  # directory nodes for queries about an area (search/areas.py)
    vectors: bool = True  # the vector channel, when the index has vectors and the query one
    lexical_weight: float = 1.0
    names_weight_identifier: float = 2.0  # the name channel's weight for identifier-like queries
    names_weight_phrase: float = 0.8  # ... and for queries in words
    vector_weight_identifier: float = 0.5  # the vector channel's weight for identifier-like queries
    vector_weight_phrase: float = 1.5  # ... and for queries in words, where meaning matters most
    vector_pool: int = 100  # nearest units the vector channel offers: further ones are weak evidence
    field_weights: tuple[float, ...] | None = None  # BM25F weights per FTS column; None: channels.FIELD_WEIGHTS
    name_bonus: bool = True  # a bonus per name-match grade on top of the fused score
    name_bonus_max_words: int = 99  # ... for queries in words, only up to this many words
    kind_prior: bool = True  # definitions over module code and line windows
    role_prior: bool = True  # source over examples, vendored code and tests
    # PageRank prior: the score is multiplied by 1 + weight * ln(1 + rank) (rank: the unit's
    # definition's PageRank over bound references, mean 1.0); 0 turns it off.
    pagerank_weight: float = 0.0
    # File relevance: the score is multiplied by 1 + weight * ln(1 + n), n being the other units of
    # the same file among the 100 best fused candidates (a file that answers in several places); 0: off.
    file_weight: float = 0.0
    fusion: str = "rrf"  # "rrf": weight / (k + rank); "sum-of-scores": weighted sum of min-max scores
    rrf_k: int = 60
    # The reranker (search/rerank.py) for questions in words searched with a vector: feature ->
    # weight of its linear model; empty leaves every query to fusion and priors.
    rerank: bool = True
    # Graph expansion (search/expand.py, when a search asks for it): the first `expand_sources`
    # definitions among the results each bring at most `expand_per_source` neighbours.
    expand_sources: int = 3
    expand_per_source: int = 2
    rerank_weights: tuple[tuple[str, float], ...] = ()
    # ... for the same questions when some candidates have no vector yet (an index being embedded);
    # empty: the model above, which takes a unit without a vector for a middling vector candidate.
    rerank_partial_weights: tuple[tuple[str, float], ...] = ()
    # ... and for questions in words searched without a vector (more than name_bonus_max_words words).
    rerank_lexical_weights: tuple[tuple[str, float], ...] = ()
    # The concept thesaurus (search/concepts.py) for questions in words: related words join BM25F
    # as a second match whose score, times concept_weight, adds to the first.
    concepts: bool = True
    concept_weight: float = 0.3

    def __post_init__(self) -> None:
        if self.fusion not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}, got {self.fusion!r}")
        if self.rrf_k < 0:
            raise ValueError("rrf_k must not be negative")
        from codefathom.search.rerank import FEATURES, LEXICAL_FEATURES, PARTIAL_FEATURES  # it imports this package

        for weights, known in ((self.rerank_weights, FEATURES), (self.rerank_partial_weights, PARTIAL_FEATURES),
                               (self.rerank_lexical_weights, LEXICAL_FEATURES)):
            unknown = sorted({name for name, _ in weights} - set(known))
            if unknown:
                raise ValueError(f"unknown reranker feature(s) {unknown}; features are: {', '.join(known)}")

    def with_(self, **changes: object) -> RankingConfig:
        return replace(self, **changes)  # type: ignore[arg-type]


def _fitted(path: Path = RANKING_FILE) -> RankingConfig:
    """The defaults with the fitted weights over them; a key the config does not know is an error."""
    if not path.exists():
        return RankingConfig()
    values = tomllib.loads(path.read_text("utf-8"))
    known = {f.name for f in fields(RankingConfig)}
    unknown = set(values) - known
    if unknown:
        raise ValueError(f"{path}: unknown ranking setting(s) {sorted(unknown)}")
    settings: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    for table in ("rerank_weights", "rerank_partial_weights", "rerank_lexical_weights"):
        if table in settings:
            settings[table] = tuple((str(k), float(v)) for k, v in settings[table].items())
    return RankingConfig(**settings)


DEFAULT_RANKING = _fitted()
