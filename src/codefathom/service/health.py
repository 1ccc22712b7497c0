"""Code health verbs: duplicated definitions (graph/clones.py over the index's units), grouped,
the largest saving first, each group saying how alike its copies are and which lines differ; and the
codebase's conventions (graph/conventions.py over the index's definitions, imports and files read
from disk), each with its share, two examples and the places that break it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codefathom.discover import read_inside, real_root
from codefathom.errors import UsageError
from codefathom.graph.clones import CloneGroup, CloneUnit, find_clones
from codefathom.graph.conventions import (
    MIN_CASES,
    NAMED_KINDS,
    Choice,
    Convention,
    Import,
    Name,
    Place,
    Source,
    find_conventions,
    group_of,
)
from codefathom.parse import graph_languages
from codefathom.search.roles import path_role
from codefathom.service.graph import ServiceBase
from codefathom.service.languages import wanted_languages

__all__ = [
    "HealthVerbs", "DuplicatesResponse", "ConventionsResponse", "DUPLICATES_LIMIT", "CONVENTIONS_LIMIT",
    "CONVENTIONS_DETAIL",
]

DUPLICATES_LIMIT = 20
CONVENTIONS_LIMIT = 3  # places listed that break each convention
CONVENTIONS_DETAIL = ("compact", "full")
MAX_FILES = 4000  # files read per language for conventions: beyond that, a sample spread over the paths
MIN_FILES = 3  # a language with fewer files (a script in another project) is left out unless asked for
DEFINITIONS = ("function", "method")


@dataclass
class DuplicatesResponse:
    project_root: str
    groups: list[CloneGroup]  # the first `limit`, the largest saving first
    total_groups: int = 0
    duplicated_lines: int = 0  # over every group: lines that copies repeat
    limit: int = 0
    notices: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "project_root": self.project_root, "total_groups": self.total_groups,
            "duplicated_lines": self.duplicated_lines, "limit": self.limit,
            "groups": [
                {"copies": len(g.units), "lines": g.lines, "similarity": g.similarity, "exact": g.exact,
                 "units": [{"path": u.path, "name": u.name, "start_line": u.start_line, "end_line": u.end_line,
                            "differs": [list(r) for r in g.differs.get(u.id, [])]} for u in g.units]}
                for g in self.groups
            ],
        }

    def to_text(self) -> str:
        if not self.groups:
            return "No duplicated definitions found."
        lines = [f"# {self.total_groups:,} groups of duplicated definitions, {self.duplicated_lines:,} lines"
                 f" repeated; the largest {len(self.groups)}:"]
        for number, group in enumerate(self.groups, 1):
            alike = "the same text" if group.exact else (
                "the same after renaming" if group.similarity == 1 else f"{group.similarity:.0%} alike")
            lines.append(f"{number}. {len(group.units)} copies of {group.lines} lines, {alike}")
            for unit in group.units:
                differs = group.differs.get(unit.id)
                where = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in differs[:4]) if differs else ""
                more = f" (+{len(differs) - 4})" if differs and len(differs) > 4 else ""
                lines.append(f"   {unit.path}:{unit.start_line}-{unit.end_line}  {unit.name}"
                             + (f"  differs: {where}{more}" if where else ""))
        if self.total_groups > len(self.groups):
            lines.append(f"(+{self.total_groups - len(self.groups):,} more groups: a higher limit, or 0, lists them)")
        return "\n".join(lines)


@dataclass
class ConventionsResponse:
    project_root: str
    conventions: list[Convention]  # by language, then topic
    files: dict[str, int]  # language -> files read
    limit: int = CONVENTIONS_LIMIT  # places listed that break each convention (0: all kept)
    notices: list[str] = field(default_factory=list)
    # "compact": a line per convention, its leading choices, one example, the outliers counted and the
    # first `limit` named; "full": every choice with two examples, conventions of few cases too
    detail: str = "compact"

    def _outliers(self, convention: Convention) -> list[tuple[str, Place]]:
        found = convention.outliers()
        return found[: self.limit or None]

    def _said(self) -> list[Convention]:
        """The conventions a compact reply gives: a handful of cases says nothing of a habit, except
        which test framework or library is used."""
        if self.detail == "full":
            return self.conventions
        return [c for c in self.conventions if c.total >= MIN_CASES or c.topic in ("tests", "libraries")]

    def to_json(self) -> dict[str, Any]:
        items = []
        full = self.detail == "full"
        said = self._said()
        for c in said:
            outliers = self._outliers(c)
            dominant = c.dominant
            item: dict[str, Any] = {
                "language": c.language, "topic": c.topic, "aspect": c.aspect, "unit": c.unit, "total": c.total,
                "dominant": dominant.label if dominant else None,
            }
            if full:
                item["choices"] = [
                    {"label": choice.label, "count": choice.count, "share": round(c.share(choice), 3),
                     "examples": [_place_json(p) for p in choice.examples()]} for choice in c.choices]
            else:
                shown = _shown(c)
                item["choices"] = [{"label": choice.label, "count": choice.count, "share": round(c.share(choice), 3)}
                                   for choice in shown]
                if len(c.choices) > len(shown):
                    item["more_choices"] = len(c.choices) - len(shown)
                item["example"] = next((_place_json(p) for p in c.choices[0].examples(1)), None)
            item["outliers"] = [{**_place_json(place), "choice": label} for label, place in outliers]
            item["more_outliers"] = c.outlier_count - len(outliers)
            if c.value:
                item["value"] = c.value
            items.append(item)
        few = {} if full else {"few_cases": len(self.conventions) - len(said)}
        return {"project_root": self.project_root, "files": self.files, "limit": self.limit, "detail": self.detail,
                "conventions": items, **few, **({"notices": self.notices} if self.notices else {})}

    def to_text(self) -> str:
        """A line per convention (those with too few cases to say anything are left to --detail full):
        compact, its leading choices, an example and the places that break it, counted, the first named;
        full, two examples and a line of the places that break it."""
        if not self.conventions:
            return "\n".join(self.notices_text() + ["No conventions found: no file here is parsed into definitions."])
        read = ", ".join(f"{language} {count:,} files" for language, count in self.files.items())
        full = self.detail == "full"
        what = "two examples; ! what breaks it" if full else "an example; ! how many break it, the first named"
        lines = [f"# Conventions ({read}): commonest first with its share and {what}"]
        language = ""
        for c in self.conventions:
            if c.total < MIN_CASES and c.topic not in ("tests", "libraries"):  # facts, however few
                continue
            if c.language != language:
                language = c.language
                lines.append(language)
            lines.extend(_convention_text(c, self._outliers(c)) if full else [_convention_line(c, self._outliers(c))])
        return "\n".join(self.notices_text() + lines)

    def notices_text(self) -> list[str]:
        return [f"# {notice}" for notice in self.notices]


def _place_json(place: Place) -> dict[str, Any]:
    return {"path": place.path, "line": place.line, **({"text": place.text} if place.text else {})}


def _shown(c: Convention) -> list[Choice]:
    """The choices worth naming: up to three, each at least 5 % of the cases."""
    return [choice for choice in c.choices[:3] if c.share(choice) >= 0.05] or c.choices[:1]


def _where(c: Convention, place: Place) -> str:
    return str(place) if c.topic in ("naming", "libraries") else f"{place.path}:{place.line}"


def _convention_line(c: Convention, outliers: list[tuple[str, Place]]) -> str:
    said = ", ".join(f"{choice.label} {c.share(choice):.0%}" for choice in _shown(c))
    line = f"  {c.topic} {c.aspect}: {said} of {c.total:,} {c.unit}"
    if c.dominant is None and len(c.choices) > 1:
        line += " (mixed)"
    line += "".join(f"  e.g. {_where(c, place)}" for place in c.choices[0].examples(1))
    if c.outlier_count:
        breaking = [choice for choice in c.choices if choice is not c.dominant]
        counted = ", ".join(f"{choice.count:,} {choice.label}" for choice in breaking)
        named = len(breaking) > 1  # which choice each place is, when there are several
        line += f"  ! {counted}: " + ", ".join(
            f"{label} {_where(c, place)}" if named else _where(c, place) for label, place in outliers)
        if c.outlier_count > len(outliers):
            line += ", ..."
    return line


def _convention_text(c: Convention, outliers: list[tuple[str, Place]]) -> list[str]:
    def where(place: Place) -> str:
        return _where(c, place)

    shown = _shown(c)
    said = ", ".join(f"{choice.label} {c.share(choice):.0%}" for choice in shown)
    head = f"  {c.topic} {c.aspect}: {said} of {c.total:,} {c.unit}"
    if c.dominant is None and len(c.choices) > 1:
        head += " (mixed)"
    out = [head + "  " + ", ".join(where(p) for p in c.choices[0].examples())]
    if outliers:
        by_choice: dict[str, list[Place]] = {}
        for label, place in outliers:
            by_choice.setdefault(label, []).append(place)
        more = c.outlier_count - len(outliers)
        out.append("    ! " + "; ".join(f"{label}: " + ", ".join(where(p) for p in places)
                                        for label, places in by_choice.items())
                   + (f" (+{more} more)" if more else ""))
    return out


def _compared(role: str, include_tests: bool) -> bool:
    """Vendored copies are someone else's code to change; tests repeat setups on purpose."""
    return role in ("source", "example") or (include_tests and role == "test")


class HealthVerbs:
    def duplicates(
        self: ServiceBase, *, min_lines: int = 6, min_similarity: float = 0.9, include_tests: bool = False,
        limit: int = DUPLICATES_LIMIT, languages: object = (), fresh: bool = True,
    ) -> DuplicatesResponse:
        """Functions and methods that are copies of each other (renamed, edited a little, or exact)."""
        if not 0.5 <= min_similarity <= 1:
            raise UsageError(f"similarity must be between 0.5 and 1, got {min_similarity}")
        if min_lines < 2 or limit < 0:
            raise UsageError("min_lines must be at least 2 and limit at least 0 (0: all)")
        wanted = wanted_languages(languages)
        store = self._graph_store(fresh)
        within = self.within
        units = [
            CloneUnit(uid, path, name, start, end, language, content)
            for uid, path, name, start, end, language, content in store.definition_units(DEFINITIONS)
            if end - start + 1 >= min_lines and (not within or path.startswith(within + "/"))
            and _compared(path_role(path), include_tests) and (not wanted or language in wanted)
        ]
        groups = find_clones(units, min_similarity=min_similarity)
        return DuplicatesResponse(
            str(self.root), groups[: limit or None], total_groups=len(groups),
            duplicated_lines=sum(g.weight for g in groups), limit=limit,
        )

    def conventions(
        self: ServiceBase, *, languages: object = (), include_tests: bool = False, limit: int = CONVENTIONS_LIMIT,
        fresh: bool = True, detail: str = "compact",
    ) -> ConventionsResponse:
        """How this codebase names, raises, logs, tests, imports, formats, and which libraries it uses:
        learned from its own definitions, imports and files, each with its share and examples."""
        if limit < 0:
            raise UsageError("limit must be at least 0 (0: all)")
        if detail not in CONVENTIONS_DETAIL:
            raise UsageError(f"detail must be one of {', '.join(CONVENTIONS_DETAIL)}, got {detail!r}")
        wanted = wanted_languages(languages)
        store = self._graph_store(fresh)
        within = self.within
        parsed = set(graph_languages())
        by_language: dict[str, list[str]] = {}
        for _id, path, language in store.indexed_files():
            if (language in parsed and (not wanted or language in wanted)
                    and (not within or path.startswith(within + "/"))
                    and _compared(path_role(path), include_tests=True)):
                by_language.setdefault(language, []).append(path)
        root = real_root(self.root)
        sources: list[Source] = []
        for language, paths in by_language.items():
            for path in _spread(paths, MAX_FILES):
                try:
                    text = read_inside(self.root / path, root).decode("utf-8", errors="replace")
                except OSError:
                    continue  # gone since the index was synced, or no longer a regular file
                sources.append(Source(path, language, path_role(path), text))
        kept = {s.path for s in sources}
        names = [Name(*row) for row in store.graph.definition_names(tuple(NAMED_KINDS)) if row[0] in kept]
        imports = [Import(*row) for row in store.graph.import_modules() if row[0] in kept]
        files: dict[str, int] = {}
        for source in sources:
            if include_tests or source.role != "test":
                files[group_of(source.language)] = files.get(group_of(source.language), 0) + 1
        notices = self._state_notices()
        few = sorted(language for language, count in files.items() if count < MIN_FILES and not wanted)
        if few:
            notices.append(f"left out (fewer than {MIN_FILES} files; -l asks for them): {', '.join(few)}")
        found = [c for c in find_conventions(sources, names, imports, include_tests=include_tests)
                 if c.language not in few]
        files = {language: count for language, count in sorted(files.items(), key=lambda kv: -kv[1])
                 if language not in few}
        return ConventionsResponse(str(self.root), found, files, limit=limit, notices=notices, detail=detail)


def _spread(paths: list[str], cap: int) -> list[str]:
    """At most `cap` of `paths`, spread evenly over them (paths sorted: every directory keeps its share)."""
    if len(paths) <= cap:
        return paths
    step = len(paths) / cap
    return [paths[int(i * step)] for i in range(cap)]
