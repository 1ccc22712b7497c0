"""Fuses channel rankings with reciprocal-rank fusion, applies structural priors, diversifies.

Every factor is kept per result so a ranking can be explained stage by stage.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace

from codefathom.model import StoredUnit
from codefathom.search import rerank
from codefathom.search.channels import Candidate, NameMatch
from codefathom.search.config import DEFAULT_RANKING, RankingConfig
from codefathom.search.query import QueryPlan
from codefathom.search.roles import path_role

__all__ = [
    "Scored", "fuse", "apply_priors", "path_role", "role_weight", "diversify", "rank_units", "channel_weights",
    "names_asked", "overload_key",
    "name_bonus", "RRF_K", "reranker",
]

RRF_K = 60
# Added to the fused score of a unit whose name answers the query, so that naming a symbol
# brings its definition first whatever the text statistics say.
NAME_BONUS = {
    NameMatch.QUALIFIED: 0.060, NameMatch.EXACT: 0.045, NameMatch.FOLDED: 0.035, NameMatch.WORDS: 0.025,
    NameMatch.NAME_ONLY: 0.010, NameMatch.PREFIX: 0.004,
}
KIND_PRIOR = {"class": 1.0, "function": 1.0, "method": 1.0, "section": 0.9, "module": 0.85, "chunk": 0.8}
ROLE_PRIOR = {"source": 1.0, "example": 0.8, "vendored": 0.7, "test": 0.6}

@dataclass
class Scored:
    unit_id: int
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)  # channel -> 1-based rank
    evidence: dict[str, str] = field(default_factory=dict)
    name_tier: int | None = None
    prior: float = 1.0
    features: dict[str, float] | None = None  # set when the reranker ordered this result
    overloads: list[int] = field(default_factory=list)  # other definitions of its name shown with it


def fuse(
    channels: dict[str, list[Candidate]], weights: dict[str, float], config: RankingConfig = DEFAULT_RANKING
) -> dict[int, Scored]:
    """Reciprocal-rank fusion: each channel adds weight / (k + rank); or, with the
    "sum-of-scores" fusion, weight times its score min-max scaled to [0, 1] within the channel."""
    fused: dict[int, Scored] = {}
    for channel, candidates in channels.items():
        weight = weights.get(channel, 1.0)
        scale = _min_max(candidates) if config.fusion == "sum-of-scores" else None
        for rank, candidate in enumerate(candidates, start=1):
            scored = fused.setdefault(candidate.unit_id, Scored(candidate.unit_id))
            scored.ranks[channel] = rank
            scored.evidence[channel] = candidate.evidence
            scored.score += weight * scale(candidate.score) if scale else weight / (config.rrf_k + rank)
            if channel == "names":
                tier = int(-candidate.score)
                scored.name_tier = tier
                scored.score += name_bonus(tier, config) * weights.get("name_bonus", 1.0)
    return fused


def name_bonus(tier: int | None, config: RankingConfig) -> float:
    """The bonus of a name-match grade, on the scale of the fusion: the table is written for
    k = RRF_K, and a smaller k makes every rank's share larger, so the bonus grows with it."""
    if tier is None or not config.name_bonus:
        return 0.0
    return NAME_BONUS.get(tier, 0.0) * (RRF_K + 1) / (config.rrf_k + 1)


def _min_max(candidates: list[Candidate]) -> Callable[[float], float]:
    if not candidates:
        return lambda score: 0.0
    low, high = min(c.score for c in candidates), max(c.score for c in candidates)
    if high <= low:
        return lambda score: 1.0
    return lambda score: (score - low) / (high - low)


def apply_priors(
    scored: Scored, kind: str, path: str, config: RankingConfig = DEFAULT_RANKING, rank: float = 0.0
) -> None:
    kind_prior = KIND_PRIOR.get(kind, 1.0) if config.kind_prior else 1.0
    role_prior = role_weight(scored, path, config)
    rank_prior = 1.0 + config.pagerank_weight * math.log1p(max(rank, 0.0))
    scored.prior = kind_prior * role_prior * rank_prior
    scored.score *= scored.prior


def role_weight(scored: Scored, path: str, config: RankingConfig = DEFAULT_RANKING) -> float:
    """The prior of the result's file role (ROLE_PRIOR); 1 when the query names the unit itself: a
    name asked for is asked for wherever it lives, and a test named exactly is not weighed down."""
    named = NameMatch.names_it(scored.name_tier)
    return ROLE_PRIOR[path_role(path)] if config.role_prior and not named else 1.0


# Results one file may give a search unless asked otherwise: more shows a family of definitions
# whole, fewer leaves room for other files.
MAX_PER_FILE = 4
# ... and, for a question in words, this many more whose names say a word the file's others do not: a
# family of documented siblings fills the file's share with its docs' words, and the one whose name
# says the question's word (`mean` in "the mean of each column") was cut. Not past a cap asked for.
NAMED_PAST_CAP = 1


def diversify(
    ranked: list[tuple[Scored, str]], limit: int, max_per_file: int | None,
    identity: Callable[[int], Hashable] | None = None, overload: Callable[[int], Hashable] | None = None,
    says: Callable[[int], frozenset[int]] | None = None,
) -> list[Scored]:
    """The best `limit` results with at most `max_per_file` from any one file and, given `identity`
    (what a result shows, search/members.py), none showing what a better one shows; given `overload`
    (a definition's name in its file, None for what has no overloads), a definition whose name a
    better result has is one of that result's `overloads`, not a result of its own; given `says`
    (which of the query's words a result's name says), NAMED_PAST_CAP more of a full file whose names
    say a word none of its results' names say."""
    per_file: dict[str, int] = {}
    said: dict[str, set[int]] = {}  # per file, the query's words its kept results' names say
    seen: set[Hashable] = set()
    named: dict[Hashable, Scored] = {}
    kept: list[Scored] = []
    for scored, path in ranked:
        key = overload(scored.unit_id) if overload is not None else None
        if key is not None and key in named:
            named[key].overloads.append(scored.unit_id)
            continue
        if len(kept) >= limit:
            if overload is None:
                break
            continue  # full: only the overloads of what is kept are still looked for
        if max_per_file is not None and per_file.get(path, 0) >= max_per_file:
            if not (says is not None and per_file[path] < max_per_file + NAMED_PAST_CAP
                    and says(scored.unit_id) - said.get(path, set())):
                continue
        if identity is not None:
            shows = identity(scored.unit_id)
            if shows in seen:
                continue
            seen.add(shows)
        if key is not None:
            named[key] = scored
        per_file[path] = per_file.get(path, 0) + 1
        if says is not None:
            said.setdefault(path, set()).update(says(scored.unit_id))
        kept.append(scored)
    return kept


def overload_key(stored: StoredUnit) -> tuple[str, str, str] | None:
    """A definition's name in its file, shared by its overloads (`rerank.overload_name`), None for what
    has none."""
    name = rerank.overload_name(stored.unit)
    return None if name is None else (stored.path, *name)


def overload_of(units: dict[int, StoredUnit]) -> Callable[[int], Hashable]:
    """`overload_key` by unit id."""

    def key(unit_id: int) -> Hashable:
        stored = units.get(unit_id)
        return None if stored is None else overload_key(stored)

    return key


def channel_weights(plan: QueryPlan, config: RankingConfig) -> dict[str, float]:
    """How much each channel counts for this query: names lead for identifiers, meaning for prose."""
    identifier = plan.identifier_like
    return {
        "lexical": config.lexical_weight,
        "names": config.names_weight_identifier if identifier else config.names_weight_phrase,
        "vectors": config.vector_weight_identifier if identifier else config.vector_weight_phrase,
        # A short phrase that spells a name ("pool manager") asks for it; a sentence that happens
        # to contain a name's words does not.
        "name_bonus": 1.0 if identifier or len(plan.words) <= config.name_bonus_max_words else 0.0,
    }


def rank_units(
    channels: dict[str, list[Candidate]], plan: QueryPlan, units: dict[int, StoredUnit], config: RankingConfig,
    limit: int, max_per_file: int | None, keep: Callable[[StoredUnit], bool] | None = None,
    without_vectors: frozenset[int] = frozenset(), identity: Callable[[int], Hashable] | None = None,
) -> tuple[list[Scored], dict[str, float]]:
    """The channels' candidates fused, weighed by their priors and diversified: the final ranking.

    Pure over its inputs, so the ranking's weights can be fitted offline (bench/fit_ranking.py)."""
    weights = channel_weights(plan, config)
    if _names_an_unembedded(channels, without_vectors):
        # The vectors cannot see the unit the query names: they weigh as for an identifier.
        weights["vectors"] = min(weights["vectors"], config.vector_weight_identifier)
    fused = fuse(channels, weights, config)
    model = reranker(plan, channels, config, partial=bool(without_vectors))
    if model:
        ordered = {**channels, "lexical": rerank.with_kin(channels["lexical"], plan, units, limit)}
        reranked = _reranked(fused, ordered, plan, units, model, limit, max_per_file, keep, without_vectors, identity)
        return _definition_first(reranked, units), weights
    support = _file_support(fused, units) if config.file_weight else {}
    ranked = []
    for uid, scored in fused.items():
        stored = units.get(uid)
        if stored is None or (keep is not None and not keep(stored)):
            continue
        apply_priors(scored, stored.unit.kind, stored.path, config, stored.rank)
        if support:
            factor = 1.0 + config.file_weight * math.log1p(max(support.get(stored.path, 1) - 1, 0))
            scored.prior *= factor
            scored.score *= factor
        ranked.append((scored, stored.path))
    ranked.sort(key=lambda item: (-item[0].score, item[1], units[item[0].unit_id].unit.start_line))
    return _definition_first(diversify(ranked, limit, max_per_file, identity, overload_of(units)), units), weights


def names_asked(channels: dict[str, list[Candidate]]) -> list[Candidate]:
    """The units the query names: by their qualified or exact name, or folded (`check chunks len`)."""
    return [c for c in channels.get("names", ()) if NameMatch.names_it(int(-c.score))]


def _names_an_unembedded(channels: dict[str, list[Candidate]], without_vectors: frozenset[int]) -> bool:
    """The query names a unit not embedded yet."""
    return bool(without_vectors) and any(c.unit_id in without_vectors for c in names_asked(channels))


def _definition_first(kept: list[Scored], units: dict[int, StoredUnit]) -> list[Scored]:
    """A type shown with its other definitions of one name (a Rust struct and its `impl` blocks) is
    shown as its documented one, else its first: the definition, not whichever impl matched more of
    the query. The result keeps its place and score."""
    for at, scored in enumerate(kept):
        stored = units.get(scored.unit_id)
        if not scored.overloads or stored is None or stored.unit.kind != "class":
            continue
        members = [uid for uid in (scored.unit_id, *scored.overloads) if uid in units]
        lead = min(members, key=lambda uid: (not units[uid].unit.doc, units[uid].unit.start_line))
        if lead != scored.unit_id:
            kept[at] = replace(scored, unit_id=lead, overloads=[uid for uid in members if uid != lead])
    return kept


def reranker(
    plan: QueryPlan, channels: dict[str, list[Candidate]], config: RankingConfig, partial: bool = False
) -> dict[str, float]:
    """The weights of the reranker that orders this query's candidates; empty when fusion does.
    `partial`: some candidates have no vector yet."""
    if not config.rerank:
        return {}
    with_vectors = dict(config.rerank_weights)
    if rerank.applies(plan, channels, with_vectors):
        return dict(config.rerank_partial_weights) if partial and config.rerank_partial_weights else with_vectors
    lexical = dict(config.rerank_lexical_weights)
    if rerank.applies_lexical(plan, channels, lexical, config.name_bonus_max_words):
        return lexical
    return {}


def _reranked(
    fused: dict[int, Scored], channels: dict[str, list[Candidate]], plan: QueryPlan, units: dict[int, StoredUnit],
    model: dict[str, float], limit: int, max_per_file: int | None, keep: Callable[[StoredUnit], bool] | None,
    without_vectors: frozenset[int], identity: Callable[[int], Hashable] | None = None,
) -> list[Scored]:
    """The reranker's order; each result's score is the model's softmax share over the candidates
    (positive, the best first), so directory nodes and other indexes' hits still interleave by score."""
    values = rerank.features(plan, channels, units, without_vectors)
    raw = {uid: rerank.score(v, model) for uid, v in values.items() if keep is None or keep(units[uid])}
    if not raw:
        return []
    top = max(raw.values())
    total = sum(math.exp(s - top) for s in raw.values())
    ranked = []
    for uid, value in raw.items():
        scored = fused[uid]
        scored.score, scored.prior, scored.features = math.exp(value - top) / total, 1.0, values[uid]
        ranked.append((scored, units[uid].path))
    ranked.sort(key=lambda item: (-item[0].score, item[1], units[item[0].unit_id].unit.start_line))
    says = rerank.name_says(plan, units) if max_per_file == MAX_PER_FILE else None
    return diversify(ranked, limit, max_per_file, identity, overload_of(units), says)


def _file_support(fused: dict[int, Scored], units: dict[int, StoredUnit], top: int = 100) -> dict[str, int]:
    """Per file, how many of the best `top` fused candidates it holds."""
    best = sorted(fused.values(), key=lambda s: -s.score)[:top]
    counts: dict[str, int] = {}
    for scored in best:
        stored = units.get(scored.unit_id)
        if stored is not None:
            counts[stored.path] = counts.get(stored.path, 0) + 1
    return counts
