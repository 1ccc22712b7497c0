"""The directory channel: nodes of directories whose files' names, definitions and docs answer a
question about an area ("what does auth/ do?"), merged among the unit hits as results of kind `directory`.

A query is about an area when it is in words (not an identifier) and says so: it asks (what,
where, which, how, or a final "?"), names a path (`auth/`), or speaks of a package, module,
directory, component... Coverage compares the query words (less those area words) a directory's
text holds with those the best unit holds, of the first five results and BM25F's first 20, each
word weighted by its rarity among directories. A directory whose path the query writes leads; one
the query names (its own name is a query word) leads when it covers clearly more than the best
unit, or nearly as much when the query is mostly its name. A source directory the query does not
name comes second when it covers more still. Of several that qualify, the one covering most is
taken. Other queries get no directory (unless only directories are asked for), so naming a symbol
or describing one function is answered as before.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from codefathom.globs import compile_globs
from codefathom.model import Hit
from codefathom.search.query import QueryPlan
from codefathom.search.rank import ROLE_PRIOR, RRF_K, path_role
from codefathom.store import DirectoryRow, Store
from codefathom.tokens import name_key, split_identifier

if TYPE_CHECKING:
    from codefathom.search import SearchRequest

__all__ = ["DIRECTORY", "AREA_FIELD_WEIGHTS", "with_areas", "is_area_query"]

DIRECTORY = "directory"
# BM25F weights in the column order of directories_fts: name, path, files, definitions, doc. The
# directory's own name weighs most, as a unit's does; the docs are the longest and weigh least.
AREA_FIELD_WEIGHTS = (6.0, 3.0, 2.0, 1.5, 1.0)
CANDIDATES = 20  # directories read from the FTS table per query
FILTERED_CANDIDATES = 1000  # ... when filters apply after the match
UNITS_COMPARED = 5  # the best unit hits a directory's coverage of the query is compared with
LEXICAL_COMPARED = 20  # ... and BM25F's best units (the lexical reranker may find one below its fifth)
# Share of the query's word weight a directory must cover beyond the best unit's: one the query
# names, to lead; one it does not name, to come second. Tuned on the quality lab's `tune` split
# (bench/quality.py): lower margins put directories above the function an intent query targets,
# and a question that names a directory ("how does Gson decide which fields get serialized?",
# "where do cookies of a redirect get carried over to the next request?") most often asks about
# one function in it.
NAMED_MARGIN = 0.1
UNNAMED_MARGIN = 0.2
# A query whose words are mostly a directory's name ("what does billing do?", "the auth package") is
# about that directory: it leads unless it covers clearly less than the best unit.
ABOUT_SHARE = 0.5
ABOUT_SLACK = 0.2

# Words that say a query is about a part of the code; they say nothing of which part.
AREA_WORDS = frozenset(
    "directory directories folder folders package packages module modules area areas subsystem subsystems"
    " component components layer layers codebase".split()
)
_AREA_WORDS = re.compile(r"\b(" + "|".join(sorted(AREA_WORDS)) + r")\b", re.I)
_QUESTION = re.compile(r"^\s*(what|where|which|how)\b|\?\s*$", re.I)
_PATH = re.compile(r"(^|[\s`'\"(])[\w.-]+(/[\w.-]+)*/($|[\s`'\"),.?!:;])")


def is_area_query(text: str, plan: QueryPlan) -> bool:
    """Whether a query may be about a part of the code rather than one symbol: it names a path, asks
    (what, where, which, how, a final "?") in words, or speaks of packages, modules..."""
    if _PATH.search(text):
        return True
    if plan.identifier_like:
        return False
    return bool(_QUESTION.search(text) or _AREA_WORDS.search(text))


@dataclass(frozen=True, slots=True)
class _Coverage:
    """Which query words each directory's text holds, and what each word is worth."""

    weights: dict[str, float]  # word -> inverse document frequency over the directories
    covered: dict[int, set[str]]  # directory id -> the query words its text holds
    named: dict[int, set[str]]  # directory id -> the query words its own name is

    @property
    def total(self) -> float:
        return sum(self.weights.values()) or 1.0

    def share(self, words: set[str]) -> float:
        return sum(self.weights[w] for w in words) / self.total


def with_areas(
    store: Store, plan: QueryPlan, request: SearchRequest, hits: list[Hit], unit_ids: list[int],
    lexical_ids: Sequence[int] = (),
) -> list[Hit]:
    """`hits` (whose unit row ids are `unit_ids`) with the directories that answer the query merged
    in by score, at most `request.limit` in all. A directory's coverage of the query's words is
    compared with the best of the first results' and of BM25F's first (`lexical_ids`): results
    ranked by meaning may hold fewer of the words than a unit the words found, and a directory
    must not lead for that."""
    only = bool(request.kinds) and set(request.kinds) == {DIRECTORY}  # directories asked for: no gate
    if not request.ranking.areas or request.symbol_name or (request.kinds and DIRECTORY not in request.kinds):
        return hits
    if not plan.terms or not (only or is_area_query(request.query, plan)):
        return hits
    filtered = bool(request.within or request.languages or request.path_glob or request.exclude_glob)
    limit = FILTERED_CANDIDATES if filtered or only else CANDIDATES
    found = store.directory_candidates(plan.terms, AREA_FIELD_WEIGHTS, limit)
    rows = store.directories_by_id([d for d, _ in found])
    allowed = _allowed(store, request, [rows[d] for d, _ in found if d in rows])
    ranked = [(d, bm25) for d, bm25 in found if d in allowed]
    if not ranked:
        return hits
    if only:
        placed = [(d, bm25, ROLE_PRIOR[_role(rows[d])] / (RRF_K + rank)) for rank, (d, bm25) in enumerate(ranked, 1)]
        coverage, unit_best = None, 0.0
    else:
        coverage = _coverage(store, plan)
        # Named means the whole name: `admin` does not name `admin_doc/`, "admin doc" does.
        whole = {d: w for d, w in coverage.named.items() if d in rows and _named_whole(rows[d].path, plan)}
        coverage = replace(coverage, named=whole)
        compared = unit_ids[:UNITS_COMPARED] + list(lexical_ids[:LEXICAL_COMPARED])
        unit_best = _unit_coverage(store, coverage, compared)
        written = _written_paths(request.query)
        placed = _place(ranked, rows, coverage, unit_best, [h.score for h in hits], written)
    merged = list(hits)
    for directory_id, bm25, score in placed:
        row = rows[directory_id]
        debug = None
        if request.include_debug:
            position = next(i for i, (d, _) in enumerate(ranked, 1) if d == directory_id)
            debug = {"ranks": {"areas": position}, "evidence": {"areas": f"bm25f {bm25:.2f}"}, "role": _role(row)}
            if coverage is not None:
                mine = coverage.covered.get(directory_id, set())
                debug |= {"coverage": round(coverage.share(mine), 3), "best_unit_coverage": round(unit_best, 3),
                          "named": directory_id in coverage.named, "words": sorted(mine)}
        merged.append(_hit(row, round(score, 6), request.content_lines, debug))
    merged.sort(key=lambda h: -h.score)  # stable: a directory placed level with a unit follows it
    return merged[: request.limit]


def _place(
    ranked: list[tuple[int, float]], rows: dict[int, DirectoryRow], coverage: _Coverage, unit_best: float,
    scores: list[float], written: list[str],
) -> list[tuple[int, float, float]]:
    """(directory id, bm25, score) of at most one directory to lead and one to come second: of
    those that qualify, the one whose path the query writes, else the one covering most."""
    first = scores[0] if scores else 1.0
    # Scores sit on the units' scale, so that several indexes' answers still interleave by score.
    lead_score = first * 1.001
    second_score = (first + scores[1]) / 2 if len(scores) > 1 else first * 0.999
    leads: list[tuple[bool, float, int]] = []  # (path written, share, BM25 position)
    follows: list[tuple[float, int]] = []
    for position, (directory_id, _bm25) in enumerate(ranked):
        share = coverage.share(coverage.covered.get(directory_id, set()))
        path = rows[directory_id].path
        if any(path == w or path.endswith("/" + w) for w in written):
            leads.append((True, share, position))
        elif directory_id in coverage.named:
            about = coverage.share(coverage.named[directory_id]) >= ABOUT_SHARE  # "what does billing do?"
            if share >= unit_best + (-ABOUT_SLACK if about else NAMED_MARGIN):
                leads.append((False, share, position))
        elif share >= unit_best + UNNAMED_MARGIN and _role(rows[directory_id]) == "source":
            follows.append((share, position))
    placed: list[tuple[int, float, float]] = []
    if leads:
        _, _, position = max(leads, key=lambda c: (c[0], c[1], -c[2]))
        placed.append((*ranked[position], lead_score))
    if follows:
        _, position = max(follows, key=lambda c: (c[0], -c[1]))
        placed.append((*ranked[position], second_score))
    return placed


def _named_whole(path: str, plan: QueryPlan) -> bool:
    name = posixpath.basename(path)
    return len(split_identifier(name)) <= 1 or name_key(name) in plan.joined_word_keys


def _written_paths(text: str) -> list[str]:
    """The directory paths a query writes out (`auth/`, `src/auth/`), without the slashes around."""
    return [m.group(0).strip(" `'\"(),.?!:;").strip("/").removeprefix("./") for m in _PATH.finditer(text)]


def _coverage(store: Store, plan: QueryPlan) -> _Coverage:
    total = store.directory_count() or 1
    weights: dict[str, float] = {}
    covered: dict[int, set[str]] = {}
    named: dict[int, set[str]] = {}
    # A directory is named by a word written on its own, not by a part of a compound name
    # (`DependenciesBlock` does not name `dependencies/`).
    standalone = {t.lower() for t in plan.tokens if len(split_identifier(t)) <= 1}
    for word in plan.words:
        if word.isdigit() or word in AREA_WORDS:
            continue
        holding = store.directories_holding(word)
        if not holding:
            continue  # a word no directory has cannot tell one from another
        weights[word] = math.log(1.0 + total / len(holding))
        for directory_id in holding:
            covered.setdefault(directory_id, set()).add(word)
        if word in standalone:
            for directory_id in store.directories_holding(word, in_name=True):
                named.setdefault(directory_id, set()).add(word)
    return _Coverage(weights, covered, named)


def _unit_coverage(store: Store, coverage: _Coverage, unit_ids: list[int]) -> float:
    """The largest share of the query's word weight one of these units covers."""
    ids = list(dict.fromkeys(unit_ids))
    per_unit: dict[int, float] = {}
    for word, weight in coverage.weights.items():
        for unit_id in store.units_holding(word, ids) if ids else ():
            per_unit[unit_id] = per_unit.get(unit_id, 0.0) + weight
    return max(per_unit.values(), default=0.0) / coverage.total


def _allowed(store: Store, request: SearchRequest, rows: list[DirectoryRow]) -> set[int]:
    """Directories inside the directory searched that hold files of the languages and paths asked for."""
    within = request.within.strip("/")
    include = compile_globs(request.path_glob, "path_glob") if request.path_glob else None
    exclude = compile_globs(request.exclude_glob, "exclude_glob") if request.exclude_glob else None
    with_files: set[str] | None = None
    if include or exclude:
        # A directory stays when one of its own files passes the globs, as that file's units would.
        with_files = set()
        for _id, path in store.file_paths():
            relative = path
            if within:
                if not path.startswith(within + "/"):
                    continue
                relative = path[len(within) + 1 :]
            if (include and not include.matches(relative)) or (exclude and exclude.matches(relative)):
                continue
            with_files.add(posixpath.dirname(path))
    kept = set()
    for row in rows:
        if within and row.path != within and not row.path.startswith(within + "/"):
            continue
        if request.languages and not set(request.languages) & set(row.languages):
            continue
        if with_files is not None and row.path not in with_files:
            continue
        kept.add(row.id)
    return kept


def _role(row: DirectoryRow) -> str:
    return path_role(row.path + "/")


def _hit(row: DirectoryRow, score: float, content_lines: int, debug: dict[str, object] | None) -> Hit:
    lines = row.summary.split("\n")
    return Hit(
        path=row.path, start_line=0, end_line=0, name=posixpath.basename(row.path), qualified_name=row.path + "/",
        kind=DIRECTORY, language=next(iter(row.languages), ""), parent=None, score=score,
        content="\n".join(lines[:content_lines]), truncated=len(lines) > content_lines, debug=debug, files=row.files,
    )
