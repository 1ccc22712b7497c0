"""Candidate generators: BM25F over the FTS5 fields, and the symbol-name channel.

Each returns unit ids best first, with the evidence that put them there (for diagnostics).
"""

from __future__ import annotations

from dataclasses import dataclass

from codefathom.search.query import QueryPlan, is_operator, looks_like_identifier
from codefathom.store import Scope, Store
from codefathom.tokens import name_key

__all__ = ["Candidate", "lexical_channel", "name_channel", "FIELD_WEIGHTS", "NameMatch"]

# BM25F field weights, in the column order of units_fts: name, qualified_name, signature, doc,
# path, body, summary. Names weigh most: a unit *called* what you typed beats one that mentions it.
# A summary (`codefathom summarize`) is prose about the unit, as its doc is, and weighs as a doc does;
# a unit without one has an empty field, which changes no score.
FIELD_WEIGHTS = (10.0, 5.0, 3.0, 2.0, 1.5, 1.0, 2.0)


@dataclass(frozen=True)
class Candidate:
    unit_id: int
    score: float
    evidence: str


class NameMatch:
    """How well a unit's name answers a name query; lower is better."""

    QUALIFIED = 0  # `Store.upsert_file` is the tail of the unit's qualified name
    EXACT = 1  # the name, case and all
    FOLDED = 2  # same letters, other case or separators (`parse_args` ~ `parseArgs`)
    WORDS = 3  # the query's words joined (`proxy manager` ~ `ProxyManager`)
    NAME_ONLY = 4  # a qualified query whose last part matches but whose owner does not
    PREFIX = 5  # the name starts with the query

    LABELS = {0: "qualified name", 1: "exact name", 2: "name (case/separators folded)", 3: "name from words",
              4: "name, other owner", 5: "name prefix"}

    @staticmethod
    def names_it(tier: int | None) -> bool:
        """The query names the unit itself: its qualified, exact or folded name (a phrase that spells
        it, `max by`, included), not a part of it or a namesake of another owner."""
        return tier is not None and tier <= NameMatch.FOLDED


def lexical_channel(
    store: Store, plan: QueryPlan, scope: Scope, limit: int, weights: tuple[float, ...] = FIELD_WEIGHTS,
    concept_weight: float = 0.0,
) -> list[Candidate]:
    """BM25F over the query's words; with related words (plan.related) and a concept weight, plus
    that weight times BM25F over the related words, so code that says it otherwise is found too."""
    if not plan.terms:
        return []
    rows = store.fts_candidates(plan.terms, weights, scope, limit)
    if not (plan.related and concept_weight > 0):
        return [Candidate(uid, score, f"bm25f {score:.2f}") for uid, score in rows]
    scores = dict(rows)
    concept = dict(store.fts_candidates(plan.related_terms, weights, scope, limit))
    combined = {uid: scores.get(uid, 0.0) + concept_weight * concept.get(uid, 0.0) for uid in scores | concept}
    best = sorted(combined.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [
        Candidate(uid, score, f"bm25f {scores.get(uid, 0.0):.2f} + concepts {concept.get(uid, 0.0):.2f}")
        for uid, score in best
    ]


def name_channel(store: Store, plan: QueryPlan, scope: Scope, limit: int) -> list[Candidate]:
    """Units whose name is what the query names, ranked by NameMatch then by shape of the unit."""
    best: dict[int, tuple[int, str]] = {}

    def offer(uid: int, tier: int) -> None:
        if uid not in best or tier < best[uid][0]:
            best[uid] = (tier, NameMatch.LABELS[tier])

    named: list[tuple[tuple[str, ...], str]] = []  # (the name query's segments, its last segment's key)
    for segments in plan.name_queries:
        if (not plan.identifier_like and not looks_like_identifier("".join(segments)) and len(segments) == 1
                and segments[0] != plan.asked):
            continue  # a plain word in a sentence is not a name query ("where is the *index* written")
        if key := name_key(segments[-1]):
            named.append((segments, key))
    prefixed = [key for segments, key in named
                if len(plan.tokens) == 1 and len(key) >= 3 and not is_operator(segments[-1])]
    # Every key in one lookup (and the prefixes in one more): a store across a network answers each
    # call in a round trip. A unit's name key is name_key(its name), so rows go back to their keys.
    exact = _by_key(store.name_candidates(_distinct([key for _, key in named] + list(plan.joined_word_keys)),
                                          scope, limit))
    for segments, key in named:
        for uid, name, qualified, _path in exact.get(key, ()):
            if (tier := _tier(segments, name, qualified)) is not None:
                offer(uid, tier)
    for uid, _name, _q, _p in store.name_candidates(_distinct(prefixed), scope, limit, prefix=True):
        offer(uid, NameMatch.PREFIX)
    for uid, _name, _q, _p in exact.get(plan.spelled_key, ()) if plan.spelled_key else ():
        offer(uid, NameMatch.FOLDED)  # the query spells the name, with other separators (`max by`)
    for key in plan.joined_word_keys:
        for uid, _name, _q, _p in exact.get(key, ()):
            offer(uid, NameMatch.WORDS)
    ranked = sorted(best.items(), key=lambda item: (item[1][0], item[0]))
    return [Candidate(uid, float(-tier), label) for uid, (tier, label) in ranked[:limit]]


def _distinct(keys: list[str]) -> list[str]:
    return list(dict.fromkeys(keys))


def _by_key(rows: list[tuple[int, str, str, str]]) -> dict[str, list[tuple[int, str, str, str]]]:
    grouped: dict[str, list[tuple[int, str, str, str]]] = {}
    for row in rows:
        grouped.setdefault(name_key(row[1]), []).append(row)
    return grouped


def _tier(segments: tuple[str, ...], name: str, qualified: str) -> int | None:
    """How well a unit whose name has the query's key answers it; None when the key is all they share
    (`operator=` for `operator&`: an operator is named by its symbol, which keys leave out)."""
    if is_operator(segments[-1]) and name != segments[-1]:
        return None
    if len(segments) > 1:
        # A JavaScript private member is written `Class.#name` and asked for as `Class#name` too.
        tail = [part.lstrip("#") for part in qualified.split(".")[-len(segments) :]]
        if tail == list(segments):
            return NameMatch.QUALIFIED
        if [s.lower() for s in tail] == [s.lower() for s in segments]:
            return NameMatch.FOLDED  # `StrPrinter._print_str` for `StrPrinter._print_Str`: another name
        return NameMatch.NAME_ONLY
    if name == segments[0]:
        return NameMatch.EXACT
    return NameMatch.FOLDED
