"""Search: a query and filters become ranked hits from the lexical and symbol-name channels.

`search(store, request)` is the whole surface; `SearchRequest` says what may be returned.
"""

from __future__ import annotations

import fnmatch
import time
from dataclasses import dataclass, field, replace
from typing import Any

from codefathom.errors import UsageError
from codefathom.globs import compile_globs
from codefathom.model import UNIT_KINDS, Hit, Overload, StoredUnit
from codefathom.search import rerank
from codefathom.search.areas import with_areas
from codefathom.search.channels import FIELD_WEIGHTS, Candidate, lexical_channel, name_channel
from codefathom.search.concepts import RARE, with_concepts
from codefathom.search.config import DEFAULT_RANKING, RankingConfig
from codefathom.search.expand import with_deps, with_neighbours
from codefathom.search.explain import explain_details
from codefathom.search.members import Shown, line_terms
from codefathom.search.query import QueryPlan, plan_query
from codefathom.search.rank import (
    MAX_PER_FILE,
    Scored,
    channel_weights,
    names_asked,
    overload_key,
    path_role,
    rank_units,
    reranker,
)
from codefathom.search.vectors import vector_channel, without_vectors
from codefathom.store import Scope, Store, match_expression
from codefathom.tokens import name_key

__all__ = [
    "SearchRequest", "SearchOutcome", "search", "validate_request", "plan_query", "QueryPlan", "MAX_LIMIT",
    "with_kin_nearby",
    "CONTENT_LINES", "MAX_PER_FILE", "RankingConfig", "DEFAULT_RANKING",
    "channel_weights", "gather_channels", "concept_plan",
]

MAX_LIMIT = 200
MAX_QUERY_CHARS = 2000
CONTENT_LINES = 60


@dataclass(frozen=True)
class SearchRequest:
    query: str
    limit: int = 10
    languages: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    path_glob: tuple[str, ...] = ()
    exclude_glob: tuple[str, ...] = ()
    symbol_name: str | None = None
    within: str = ""  # a directory (relative to the root) the search keeps to; globs read from it
    max_per_file: int | None = MAX_PER_FILE
    include_debug: bool = False
    explain: bool = False  # with include_debug: each channel's ranking and each result's score taken apart
    content_lines: int = CONTENT_LINES
    ranking: RankingConfig = DEFAULT_RANKING  # channels, priors and fusion; the default is what ships
    query_vector: Any = None  # the query embedded by the index's embedder (numpy float32), or None
    # Graph expansion: the first results' neighbours (calls, callers, bases, imports) added right after
    # them (search/expand.py). Off by default: it finds no more of the lab's targets (docs/benchmarks.md).
    expand: bool = False
    include_deps: bool = False  # each result's callers, callees, bases and imports, named (search/expand.py)


@dataclass
class SearchOutcome:
    hits: list[Hit]
    debug: dict[str, object] = field(default_factory=dict)
    focus: tuple[str, int, int] | None = None  # a `path:line` query: the lines it names (path, start, end)


def search(store: Store, request: SearchRequest) -> SearchOutcome:
    started = time.perf_counter()
    validate_request(request)
    plan = plan_query(request.query)
    plan = concept_plan(store, plan, request.ranking)
    scope = _scope(store, request)
    timings: dict[str, float] = {}
    pool = max(50, request.limit * 10) * (5 if request.symbol_name or request.max_per_file else 1)

    config = request.ranking
    channels = gather_channels(store, plan, scope, request, pool, timings)
    units = store.units_by_id(
        {c.unit_id for candidates in channels.values() for c in candidates}, with_rank=config.pagerank_weight > 0,
        with_content=False,
    )
    if reranker(plan, channels, config):
        with_kin_nearby(store, channels, units, config.pagerank_weight > 0)
    symbol = request.symbol_name
    keep = (lambda u: _name_matches(symbol, u.unit.name, u.unit.qualified_name)) if symbol else None
    missing: frozenset[int] = frozenset()
    if channels["vectors"]:
        # The reranker weighs every candidate's vector; fusion, for a name, only the named units'.
        reranked = config.rerank and rerank.applies(plan, channels, dict(config.rerank_weights))
        asked = set(units) if reranked else {c.unit_id for c in names_asked(channels)}
        missing = without_vectors(store, int(request.query_vector.shape[0]), asked) if asked else frozenset()
    kinds = set(request.kinds)
    shown = Shown(
        store, units, line_terms(request.query),
        lambda member: (not kinds or member.unit.kind in kinds) and (keep is None or keep(member)),
    )
    kept, weights = rank_units(
        channels, plan, units, config, request.limit, request.max_per_file, keep, missing, shown.identity
    )
    lexical, names, vectors = channels["lexical"], channels["names"], channels["vectors"]
    unit_ids = [shown.unit(scored.unit_id).id for scored in kept]
    _with_every_overload(store, kept, units, scope, set(unit_ids))
    overloads = {scored.unit_id: _overloads(scored, units) for scored in kept if scored.overloads}
    # The source of the results only: the other candidates were ranked without theirs.
    units.update(store.units_by_id(unit_ids, with_rank=config.pagerank_weight > 0))

    summaries = store.unit_summaries(unit_ids)  # {} when no summary was ever written
    hits = []
    for scored, unit_id in zip(kept, unit_ids, strict=True):
        stored = units[unit_id]
        unit = stored.unit
        content, truncated = _clip(unit.content, request.content_lines)
        debug = None
        if request.include_debug:
            debug = {
                "ranks": scored.ranks, "evidence": scored.evidence, "prior": round(scored.prior, 3),
                "role": path_role(stored.path), "part": unit.part,
            }
        hits.append(
            Hit(
                path=stored.path, start_line=unit.start_line, end_line=unit.end_line, name=unit.name,
                qualified_name=unit.qualified_name, kind=unit.kind, language=unit.language, parent=unit.parent,
                score=round(scored.score, 6), content=content, truncated=truncated, signature=unit.signature,
                debug=debug, summary=summaries.get(unit_id, ""), part=unit.part,
                overloads=overloads.get(scored.unit_id, ()),
            )
        )
    if request.include_deps:
        t0 = time.perf_counter()
        hits = with_deps(store, hits, unit_ids)
        timings["deps_ms"] = _ms(t0)
    if request.expand:
        t0 = time.perf_counter()
        hits = with_neighbours(store, request, scope, hits, unit_ids, keep)
        timings["expand_ms"] = _ms(t0)
    t0 = time.perf_counter()
    hits = with_areas(store, plan, request, hits, unit_ids, [c.unit_id for c in lexical])  # directory nodes
    timings["areas_ms"] = _ms(t0)
    outcome = SearchOutcome(hits)
    if request.include_debug:
        timings["total_ms"] = _ms(started)
        outcome.debug = {
            "query": {
                "words": list(plan.words), "identifier_like": plan.identifier_like, "fts": match_expression(plan.terms),
            },
            "channel_weights": weights, "field_weights": list(config.field_weights or FIELD_WEIGHTS),
            "candidates": {"lexical": len(lexical), "names": len(names), "vectors": len(vectors), "units": len(units)},
            "timings": timings,
        }
        if request.explain:
            outcome.debug.update(explain_details(store, plan, channels, weights, config, kept, units, scope,
                                                 bool(missing)))
    return outcome


def _with_every_overload(
    store: Store, kept: list[Scored], units: dict[int, StoredUnit], scope: Scope, shown: set[int], limit: int = 1000
) -> None:
    """Each result's overloads: every other definition of its name in its file, not only those the
    channels found. An overload the query's words miss is still the answer's other half (Eigen's
    `offset()` beside the documented `offset() const`)."""
    named = {key: scored for scored in kept if scored.unit_id in units
             and (key := overload_key(units[scored.unit_id])) is not None}
    if not named:
        return
    keys = list(dict.fromkeys(name_key(units[scored.unit_id].unit.name) for scored in named.values()))
    wanted = {(path, qualified) for path, qualified, _kind in named}
    files = frozenset(store.file_ids({path for path, _ in wanted}).values())
    taken = shown | {uid for scored in kept for uid in (scored.unit_id, *scored.overloads)}
    rows = [uid for uid, _name, qualified, path in store.name_candidates(keys, replace(scope, file_ids=files), limit)
            if (path, qualified) in wanted and uid not in taken]
    read = store.units_by_id([uid for uid in rows if uid not in units], with_content=False)  # shown by line
    for uid in rows:
        stored = units.get(uid) or read.get(uid)
        if stored is not None and (key := overload_key(stored)) is not None and (group := named.get(key)) is not None:
            units[uid] = stored
            group.overloads.append(uid)


def _overloads(scored: Scored, units: dict[int, StoredUnit]) -> tuple[Overload, ...]:
    """The other definitions of a result's name in its file, by line."""
    found = [units[uid].unit for uid in scored.overloads if uid in units]
    return tuple(Overload(u.start_line, u.end_line, u.signature) for u in sorted(found, key=lambda u: u.start_line))


def concept_plan(store: Store, plan: QueryPlan, config: RankingConfig) -> QueryPlan:
    """The plan with the thesaurus's words for those of its words the project hardly says, when the
    ranking uses concepts; a phrase short enough to spell a name is kept as it is."""
    if not config.concepts:
        return plan
    return with_concepts(plan, config.name_bonus_max_words + 1, lambda words: store.term_units(words, RARE))


def gather_channels(
    store: Store, plan: QueryPlan, scope: Scope, request: SearchRequest, pool: int, timings: dict[str, float]
) -> dict[str, list[Candidate]]:
    """Each channel's candidates, best first: BM25F, names, and vectors when the query has a vector."""
    config = request.ranking
    t0 = time.perf_counter()
    use_vectors = config.vectors and request.query_vector is not None
    vectors = vector_channel(store, request.query_vector, scope, min(pool, config.vector_pool)) if use_vectors else []
    timings["vectors_ms"] = _ms(t0)
    # The reranker reads only BM25F's best few, and deeper only for their kin: the rest would be read
    # from the index and dropped.
    if reranker(plan, {"vectors": vectors}, config):
        pool = min(pool, rerank.kin_depth(request.limit))
    t0 = time.perf_counter()
    concept_weight = config.concept_weight if config.concepts else 0.0
    fields = config.field_weights or FIELD_WEIGHTS
    lexical = lexical_channel(store, plan, scope, pool, fields, concept_weight) if config.lexical else []
    timings["lexical_ms"] = _ms(t0)
    t0 = time.perf_counter()
    names = name_channel(store, plan, scope, pool) if config.names else []
    timings["names_ms"] = _ms(t0)
    return {"lexical": lexical, "names": names, "vectors": vectors}


def with_kin_nearby(
    store: Store, channels: dict[str, list[Candidate]], units: dict[int, StoredUnit], with_rank: bool
) -> None:
    """BM25F's candidates and their units, with the undocumented definitions near its best documented
    few after them (`rerank.kin_lines`), for the reranker to read as their kin."""
    lexical = channels["lexical"]
    around: dict[str, list[tuple[int, int]]] = {}
    for path, first, last in rerank.kin_lines(lexical, units):
        around.setdefault(path, []).append((first, last))
    files = store.file_ids(around) if around else {}
    # One read a file (a store across a network answers each in a round trip), over its windows' span.
    ids = [uid for path, spans in around.items() if path in files
           for uid in store.unit_ids_of_file(files[path], (min(f for f, _ in spans), max(t for _, t in spans)))
           if uid not in units]
    for uid, stored in store.units_by_id(ids, with_rank=with_rank, with_content=False).items():
        near = any(first <= stored.unit.start_line <= last for first, last in around[stored.path])
        if near and not stored.unit.doc and stored.unit.name:
            units[uid] = stored
            lexical.append(Candidate(uid, 0.0, "kin"))


def validate_request(request: SearchRequest) -> None:
    """Raise UsageError with the reason when the request cannot be answered as asked."""
    if not request.query.strip():
        raise UsageError("the query is empty: give words the code would use, or a name")
    if len(request.query) > MAX_QUERY_CHARS:
        raise UsageError(f"the query is longer than {MAX_QUERY_CHARS} characters")
    if not 1 <= request.limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}, got {request.limit}")
    unknown = [k for k in request.kinds if k not in UNIT_KINDS]
    if unknown:
        raise UsageError(f"unknown kind(s) {unknown}; kinds are: {', '.join(UNIT_KINDS)}")
    if request.max_per_file is not None and request.max_per_file < 1:
        raise UsageError("max_per_file must be at least 1")
    compile_globs(request.path_glob, "path_glob")
    compile_globs(request.exclude_glob, "exclude_glob")


def _scope(store: Store, request: SearchRequest) -> Scope:
    include = compile_globs(request.path_glob, "path_glob") if request.path_glob else None
    exclude = compile_globs(request.exclude_glob, "exclude_glob") if request.exclude_glob else None
    file_ids = None
    within = request.within.strip("/")
    if include or exclude or within:
        allowed = set()
        for file_id, path in store.file_paths():
            if within:
                if not path.startswith(within + "/"):
                    continue
                path = path[len(within) + 1 :]
            if include and not include.matches(path):
                continue
            if exclude and exclude.matches(path):
                continue
            allowed.add(file_id)
        file_ids = frozenset(allowed)
    return Scope(
        file_ids=file_ids,
        languages=frozenset(request.languages) or None,
        kinds=frozenset(request.kinds) or None,
    )


def _name_matches(pattern: str, name: str, qualified: str) -> bool:
    """Whether a symbol_name glob names the unit: in any case when the glob is in lower case (`parse_*`
    ~ `Parse_Args`, `store.*` ~ `Store.put`), else case and all (`Store.*` leaves out module `store`)."""
    if pattern == pattern.lower():
        name, qualified = name.lower(), qualified.lower()
    return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(qualified, pattern) or (
        "." in pattern and fnmatch.fnmatchcase(qualified, "*." + pattern)
    )


def _clip(content: str, max_lines: int) -> tuple[str, bool]:
    lines = content.split("\n")
    if len(lines) <= max_lines:
        return content, False
    return "\n".join(lines[:max_lines]), True


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)
