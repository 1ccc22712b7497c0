"""What a result shows: the member a window of a long class holds, and one result per unit.

A unit longer than 150 lines is stored as parts of 60 lines (parse/windows.py) that keep its name. For
a class those parts hold its methods' code, which the methods' own units hold too: a part would come
back labelled `Session` while showing `Session.request`, and beside `Session.request` itself. So a
result is named by the unit it shows (a class part becomes the innermost member holding its best
matching line), and one unit is one result (two parts of a long function, or a class part and the
member it shows, are not two).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from codefathom.model import StoredUnit
from codefathom.search.query import STOPWORDS, plan_query
from codefathom.store import Store

__all__ = ["Shown", "line_terms", "line_hits"]

_SUFFIXES = ("ing", "ed", "es", "s")


def line_terms(query: str) -> list[str]:
    """Lower-case terms a line must contain to match: each name as written (`Store.replace_file`:
    `store`, `replace_file`); for words, also each word cut to a crude stem (`cookies` -> `cookie`,
    `merged` -> `merg`) so that other forms match too. A name's parts alone (`replace`) do not match."""
    plan = plan_query(query)
    terms: list[str] = []
    for token in plan.tokens:
        for segment in token.replace("::", ".").replace("#", ".").replace("->", ".").split("."):
            if len(segment) >= 3 and segment.lower() not in STOPWORDS:
                terms.append(segment.lower())
    if not plan.identifier_like:
        terms.extend(_stem(word) for word in plan.words if len(word) >= 3)
    return list(dict.fromkeys(terms))


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def line_hits(line: str, terms: list[str]) -> int:
    """How many of `terms` the line holds (any case)."""
    lowered = line.lower()
    return sum(1 for term in terms if term in lowered)


def best_line(content: str, start_line: int, terms: list[str]) -> int | None:
    """The file line of `content` holding the most of `terms` (the first of a tie); None if none does."""
    best, found = 0, None
    for index, line in enumerate(content.split("\n")):
        hits = line_hits(line, terms)
        if hits > best:
            best, found = hits, start_line + index
    return found


@dataclass
class Shown:
    """Per candidate, the unit its result shows and what makes two results one, found when ranking
    reaches it: only the few kept results and those passed over cost a read."""

    store: Store
    units: dict[int, StoredUnit]
    terms: list[str]
    # Whether a member may stand for a class part: the search's filters (kinds, a name glob).
    allowed: Callable[[StoredUnit], bool] = lambda stored: True
    _shown: dict[int, StoredUnit] = field(default_factory=dict)
    _members: dict[str, list[StoredUnit]] = field(default_factory=dict)

    def unit(self, unit_id: int) -> StoredUnit:
        """The unit the result of candidate `unit_id` shows (itself, unless it is a class part)."""
        if unit_id not in self._shown:
            stored = self.units[unit_id]
            self._shown[unit_id] = self._member(stored) if stored.unit.kind == "class" and stored.unit.part else stored
        return self._shown[unit_id]

    def identity(self, unit_id: int) -> Hashable:
        """Equal for two candidates that would show one unit: a unit's parts are one unit."""
        shown = self.unit(unit_id)
        if shown.unit.part:
            return (shown.path, shown.unit.kind, shown.unit.qualified_name)
        return shown.id

    def _member(self, window: StoredUnit) -> StoredUnit:
        """The innermost member of the class holding the window's best matching line; without one (the
        window matched by meaning), the member covering most of the window; else the window."""
        first, last = window.unit.start_line, window.unit.end_line
        prefix = window.unit.qualified_name + "."
        members = [
            m for m in self._file_units(window.path)
            if m.unit.qualified_name.startswith(prefix) and m.unit.start_line <= last and m.unit.end_line >= first
            and self.allowed(m)
        ]
        if not members:
            return window
        content = window.unit.content or self.store.units_by_id([window.id])[window.id].unit.content
        line = best_line(content, first, self.terms)
        if line is not None:
            holding = [m for m in members if m.unit.start_line <= line <= m.unit.end_line]
            if not holding:
                return window  # the class's own lines (its header, attributes): the class shows them
            return min(holding, key=lambda m: (m.unit.end_line - m.unit.start_line, m.unit.start_line))
        return max(
            members, key=lambda m: (min(m.unit.end_line, last) - max(m.unit.start_line, first), -m.unit.start_line)
        )

    def _file_units(self, path: str) -> list[StoredUnit]:
        if path not in self._members:
            file_id = self.store.file_ids([path]).get(path)
            ids = self.store.unit_ids_of_file(file_id) if file_id is not None else []
            self._members[path] = list(self.store.units_by_id(ids, with_content=False).values())
        return self._members[path]
