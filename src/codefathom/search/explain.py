"""What `explain` (the CLI's, and search_code's) shows of one search: each channel's own ranking,
and for the top results the fused score taken apart (channel contributions, name bonus, priors), or for a
reranked query each feature's part in the reranker's score.

Built from the same records the ranking used, so the explanation cannot drift from the ranking.
"""

from __future__ import annotations

import math
from typing import Any

from codefathom.model import StoredUnit
from codefathom.search import rerank
from codefathom.search.channels import Candidate
from codefathom.search.config import RankingConfig
from codefathom.search.query import QueryPlan
from codefathom.search.rank import KIND_PRIOR, Scored, name_bonus, path_role, reranker, role_weight
from codefathom.store import Scope, Store, match_expression

__all__ = ["explain_details", "CHANNEL_TOP"]

CHANNEL_TOP = 10  # candidates shown per channel


def explain_details(
    store: Store, plan: QueryPlan, channels: dict[str, list[Candidate]], weights: dict[str, float],
    config: RankingConfig, kept: list[Scored], units: dict[int, StoredUnit], scope: Scope, partial: bool = False,
) -> dict[str, Any]:
    reranked = any(scored.features is not None for scored in kept)
    model = reranker(plan, channels, config, partial)
    shown = {c.unit_id for candidates in channels.values() for c in candidates[:CHANNEL_TOP]}
    named = store.units_by_id(shown - set(units))
    named.update(units)
    return {
        "analysis": {
            "kind": "identifier" if plan.identifier_like else "prose",
            "tokens": list(plan.tokens), "words": list(plan.words), "fts": match_expression(plan.terms),
            "mode": _mode(plan, reranked, bool(channels.get("vectors"))),
        },
        "filters": {
            "files": None if scope.file_ids is None else len(scope.file_ids),
            "languages": sorted(scope.languages) if scope.languages else None,
            "kinds": sorted(scope.kinds) if scope.kinds else None,
        },
        "channels": {
            name: {
                "weight": weights.get(name, 0.0) if getattr(config, name, True) else 0.0,
                "candidates": len(candidates),
                "top": [_candidate(r, c, named.get(c.unit_id)) for r, c in enumerate(candidates[:CHANNEL_TOP], 1)],
            }
            for name, candidates in channels.items()
        },
        "fusion": {"rule": config.fusion, "rrf_k": config.rrf_k, "reranker": reranked},
        "results": [_breakdown(scored, weights, config, units[scored.unit_id], model) for scored in kept],
    }


def _mode(plan: QueryPlan, reranked: bool, vectors: bool) -> str:
    if plan.identifier_like:
        return "lexical and names lead"
    if reranked:
        if not vectors:
            return "reranked without vectors: the query's words in names, docs and nearby lead"
        return "reranked: meaning and the query's words in names lead"
    return "meaning (vectors) leads" if vectors else "words and names (no vectors for this search)"


def _candidate(rank: int, candidate: Candidate, stored: StoredUnit | None) -> dict[str, Any]:
    found: dict[str, Any] = {"rank": rank, "score": round(candidate.score, 4), "evidence": candidate.evidence}
    if stored is not None:
        found.update(name=stored.unit.qualified_name or stored.unit.name, path=stored.path,
                     line=stored.unit.start_line, kind=stored.unit.kind)
    return found


def _breakdown(
    scored: Scored, weights: dict[str, float], config: RankingConfig, stored: StoredUnit, model: dict[str, float]
) -> dict[str, Any]:
    if scored.features is not None:
        return _reranked(scored, stored, model)
    contributions = {}
    if config.fusion == "rrf":
        contributions = {ch: round(weights.get(ch, 1.0) / (config.rrf_k + r), 5) for ch, r in scored.ranks.items()}
    bonus = name_bonus(scored.name_tier, config) * weights.get("name_bonus", 1.0)
    role = path_role(stored.path)
    kind_prior = KIND_PRIOR.get(stored.unit.kind, 1.0) if config.kind_prior else 1.0
    role_prior = role_weight(scored, stored.path, config)
    rank_prior = 1.0 + config.pagerank_weight * math.log1p(max(stored.rank, 0.0))
    return {
        "name": stored.unit.qualified_name or stored.unit.name, "path": stored.path, "line": stored.unit.start_line,
        "score": round(scored.score, 6), "ranks": dict(scored.ranks), "contributions": contributions,
        "name_bonus": bonus,
        "priors": {
            "kind": kind_prior, "role": role_prior, "role_is": role, "pagerank": round(rank_prior, 4),
            "file": round(scored.prior / (kind_prior * role_prior * rank_prior), 4),  # other hits in its file
            "product": round(scored.prior, 4),
        },
        "evidence": dict(scored.evidence),
    }


def _reranked(scored: Scored, stored: StoredUnit, model: dict[str, float]) -> dict[str, Any]:
    """The reranker's score taken apart: each feature's value times its weight; the model's sum,
    and the score shown, its softmax share over the candidates."""
    features = {
        name: {"value": round(value, 4), "weight": model[name], "contribution": round(model[name] * value, 4)}
        for name, value in (scored.features or {}).items()
        if value and model.get(name)
    }
    return {
        "name": stored.unit.qualified_name or stored.unit.name, "path": stored.path, "line": stored.unit.start_line,
        "score": round(scored.score, 6), "ranks": dict(scored.ranks),
        "reranker": {"model_score": round(rerank.score(scored.features or {}, model), 4), "features": features},
        "evidence": dict(scored.evidence),
    }
