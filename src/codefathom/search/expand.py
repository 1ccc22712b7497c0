"""Graph expansion: the neighbours of the best results (what they call, what calls them, their bases
and subclasses, what their module imports) added to the results, each right after its source.

A search asks for it (`SearchRequest.expand`). The first `expand_sources` results that are
definitions or module code are sources; each brings at most `expand_per_source` neighbours bound
`exact` or `high` (an import resolved to a file counts as exact), taken in turn from each relation
(the best callee, then the best caller, ...), within a relation exact before high, then by PageRank.
A neighbour must pass the search's filters (languages, kinds, globs, the directory searched,
symbol_name, the cap per file) and not be a result already. Neighbours come on top of the limit,
since asking for them is asking to see them; each is scored between its source and the result after
it, so several indexes' answers still interleave by score and it stays below its source.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from codefathom.model import Expansion, Hit, StoredUnit
from codefathom.store import Neighbour, Scope, Store

if TYPE_CHECKING:
    from codefathom.search import SearchRequest

__all__ = ["with_neighbours", "with_deps", "SOURCE_KINDS", "EXPAND_LABELS", "DEPS_PER_RELATION"]

SOURCE_KINDS = frozenset({"function", "method", "class", "module"})
# Likely and possible bindings guess at a name: a neighbour shown as fact must be one.
EXPAND_LABELS = ("exact", "high")
PER_RELATION = 10  # candidates read per relation, enough to survive the filters
DEPS_PER_RELATION = 5  # names per relation a result's deps list (include_deps)


@dataclass(frozen=True, slots=True)
class _Source:
    hit: Hit
    unit_id: int
    position: int  # among the results


def with_neighbours(
    store: Store, request: SearchRequest, scope: Scope, hits: list[Hit], unit_ids: list[int],
    keep: Callable[[StoredUnit], bool] | None = None,
) -> list[Hit]:
    """`hits` (whose unit row ids are `unit_ids`) with the graph neighbours of the first few, each
    right after its source."""
    config = request.ranking
    sources = [_Source(h, u, i) for i, (h, u) in enumerate(zip(hits, unit_ids, strict=True)) if h.kind in SOURCE_KINDS]
    seen_ids = set(unit_ids)
    seen = {(h.path, h.qualified_name, h.kind) for h in hits}
    per_file: dict[str, int] = {}
    for hit in hits:
        per_file[hit.path] = per_file.get(hit.path, 0) + 1
    added: dict[int, list[Hit]] = {}  # position of the source -> its neighbours
    for source in sources[: config.expand_sources]:
        neighbours = [n for n in store.graph.graph_neighbours(source.unit_id, EXPAND_LABELS, PER_RELATION)
                      if n.unit_id not in seen_ids and (scope.file_ids is None or n.file_id in scope.file_ids)]
        units = store.units_by_id([n.unit_id for n in neighbours], with_content=False)
        picked: list[tuple[Neighbour, StoredUnit]] = []
        for neighbour in _in_turn(neighbours):
            stored = units.get(neighbour.unit_id)
            if stored is None or len(picked) >= config.expand_per_source:
                continue
            identity = (stored.path, stored.unit.qualified_name, stored.unit.kind)
            full = request.max_per_file is not None and per_file.get(stored.path, 0) >= request.max_per_file
            if identity in seen or full or not _passes(stored, scope, keep):
                continue
            seen.add(identity)
            seen_ids.add(neighbour.unit_id)
            per_file[stored.path] = per_file.get(stored.path, 0) + 1
            picked.append((neighbour, stored))
        with_content = store.units_by_id([n.unit_id for n, _ in picked])
        after = hits[source.position + 1].score if source.position + 1 < len(hits) else source.hit.score / 2
        added[source.position] = [
            _hit(with_content.get(neighbour.unit_id, stored), _between(source.hit.score, after, k, len(picked)),
                 source.hit, neighbour, request)
            for k, (neighbour, stored) in enumerate(picked)
        ]
    return [hit for position, found in enumerate(hits) for hit in (found, *added.get(position, ()))]


def with_deps(store: Store, hits: list[Hit], unit_ids: list[int]) -> list[Hit]:
    """`hits` (whose unit row ids are `unit_ids`), each definition or module with its graph neighbours
    named, per relation, in a line each: what it calls and what calls it, its bases and subclasses,
    what a module imports (bound `exact` or `high`, the best first; "..." when there are more)."""
    found = []
    for hit, unit_id in zip(hits, unit_ids, strict=True):
        if hit.kind not in SOURCE_KINDS:
            found.append(hit)
            continue
        neighbours = store.graph.graph_neighbours(unit_id, EXPAND_LABELS, DEPS_PER_RELATION + 1)
        units = store.units_by_id([n.unit_id for n in neighbours], with_content=False)
        by_via: dict[str, list[str]] = {}
        for neighbour in sorted(neighbours, key=lambda n: (n.label != "exact", -n.rank)):
            stored = units.get(neighbour.unit_id)
            if stored is not None:
                by_via.setdefault(neighbour.via, []).append(stored.unit.qualified_name or stored.path)
        deps = tuple(
            (via, tuple(names[:DEPS_PER_RELATION]) + (("...",) if len(names) > DEPS_PER_RELATION else ()))
            for via, names in by_via.items()
        )
        found.append(replace(hit, deps=deps))
    return found


def _between(source: float, after: float, k: int, count: int) -> float:
    """The score of a source's k-th of `count` neighbours: evenly between the source and the result
    after it, so a sort by score keeps it there."""
    return source - (source - after) * (k + 1) / (count + 1)


def _passes(stored: StoredUnit, scope: Scope, keep: Callable[[StoredUnit], bool] | None) -> bool:
    """Whether the search's filters let a unit through (its file was checked against the globs)."""
    unit = stored.unit
    if scope.kinds is not None and unit.kind not in scope.kinds:
        return False
    if scope.languages is not None and unit.language not in scope.languages:
        return False
    return keep is None or keep(stored)


def _in_turn(neighbours: list[Neighbour]) -> list[Neighbour]:
    """One of each relation in turn (relations in the order of their best), each in its own order:
    two neighbours of a function are its best callee and its best caller, not two callees."""
    by_via: dict[str, list[Neighbour]] = {}
    for neighbour in sorted(neighbours, key=lambda n: (n.label != "exact", -n.rank)):
        by_via.setdefault(neighbour.via, []).append(neighbour)
    ordered: list[Neighbour] = []
    for turn in range(max((len(v) for v in by_via.values()), default=0)):
        ordered.extend(v[turn] for v in by_via.values() if turn < len(v))
    return ordered


def _hit(stored: StoredUnit, score: float, source: Hit, neighbour: Neighbour, request: SearchRequest) -> Hit:
    unit = stored.unit
    lines = unit.content.split("\n")
    debug = None
    if request.include_debug:
        debug = {"expanded": {"label": neighbour.label, "rank": round(neighbour.rank, 3)}, "part": unit.part}
    return Hit(
        path=stored.path, start_line=unit.start_line, end_line=unit.end_line, name=unit.name,
        qualified_name=unit.qualified_name, kind=unit.kind, language=unit.language, parent=unit.parent,
        score=round(score, 6), content="\n".join(lines[: request.content_lines]),
        truncated=len(lines) > request.content_lines, signature=unit.signature, debug=debug,
        expanded=Expansion(source.qualified_name, neighbour.via),
    )
