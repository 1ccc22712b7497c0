"""Fuses channel rankings with reciprocal-rank fusion, applies structural priors, diversifies.

Every factor is kept per result so a ranking can be explained stage by stage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codefathom.search.channels import Candidate, NameMatch

__all__ = ["Scored", "fuse", "apply_priors", "path_role", "diversify", "RRF_K"]

RRF_K = 60
# Added to the fused score of a unit whose name answers the query, so that naming a symbol
# brings its definition first whatever the text statistics say.
NAME_BONUS = {
    NameMatch.QUALIFIED: 0.060, NameMatch.EXACT: 0.045, NameMatch.FOLDED: 0.035, NameMatch.WORDS: 0.025,
    NameMatch.NAME_ONLY: 0.010, NameMatch.PREFIX: 0.004,
}
KIND_PRIOR = {"class": 1.0, "function": 1.0, "method": 1.0, "section": 0.9, "module": 0.85, "chunk": 0.8}
ROLE_PRIOR = {"source": 1.0, "example": 0.8, "vendored": 0.7, "test": 0.6}

_TEST = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs|testing|testdata|test_data|fixtures)/|(^|/)test_[^/]*$"
    r"|(^|/)conftest\.py$|_tests?\.[A-Za-z]+$|\.(test|spec)\.[A-Za-z]+$|_spec\.rb$"
    r"|(^|/)[^/]*Tests?\.(java|kt|cs|scala|swift|php)$"
)
_EXAMPLE = re.compile(r"(^|/)(examples?|samples?|demos?|docs?|benchmarks?|bench)/")
_VENDORED = re.compile(r"(^|/)(vendor|vendored|third_party|thirdparty|external|extern)/")


def path_role(path: str) -> str:
    """What a file is for, from its path: test, example, vendored or source."""
    if _TEST.search(path):
        return "test"
    if _VENDORED.search(path):
        return "vendored"
    if _EXAMPLE.search(path):
        return "example"
    return "source"


@dataclass
class Scored:
    unit_id: int
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)  # channel -> 1-based rank
    evidence: dict[str, str] = field(default_factory=dict)
    name_tier: int | None = None
    prior: float = 1.0


def fuse(channels: dict[str, list[Candidate]], weights: dict[str, float]) -> dict[int, Scored]:
    """Reciprocal-rank fusion: each channel adds weight / (RRF_K + rank)."""
    fused: dict[int, Scored] = {}
    for channel, candidates in channels.items():
        weight = weights.get(channel, 1.0)
        for rank, candidate in enumerate(candidates, start=1):
            scored = fused.setdefault(candidate.unit_id, Scored(candidate.unit_id))
            scored.ranks[channel] = rank
            scored.evidence[channel] = candidate.evidence
            scored.score += weight / (RRF_K + rank)
            if channel == "names":
                tier = int(-candidate.score)
                scored.name_tier = tier
                scored.score += NAME_BONUS.get(tier, 0.0)
    return fused


def apply_priors(scored: Scored, kind: str, path: str) -> None:
    scored.prior = KIND_PRIOR.get(kind, 1.0) * ROLE_PRIOR[path_role(path)]
    scored.score *= scored.prior


def diversify(ranked: list[tuple[Scored, str]], limit: int, max_per_file: int | None) -> list[Scored]:
    """The best `limit` results with at most `max_per_file` from any one file."""
    per_file: dict[str, int] = {}
    kept = []
    for scored, path in ranked:
        if max_per_file is not None and per_file.get(path, 0) >= max_per_file:
            continue
        per_file[path] = per_file.get(path, 0) + 1
        kept.append(scored)
        if len(kept) >= limit:
            break
    return kept
