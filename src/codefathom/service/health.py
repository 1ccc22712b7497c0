"""Code health verbs: duplicated definitions (graph/clones.py over the index's units), grouped,
the largest saving first, each group saying how alike its copies are and which lines differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codefathom.errors import UsageError
from codefathom.graph.clones import CloneGroup, CloneUnit, find_clones
from codefathom.search.roles import path_role
from codefathom.service.graph import ServiceBase

__all__ = ["HealthVerbs", "DuplicatesResponse", "DUPLICATES_LIMIT"]

DUPLICATES_LIMIT = 20
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


def _compared(role: str, include_tests: bool) -> bool:
    """Vendored copies are someone else's code to change; tests repeat setups on purpose."""
    return role in ("source", "example") or (include_tests and role == "test")


class HealthVerbs:
    def duplicates(
        self: ServiceBase, *, min_lines: int = 6, min_similarity: float = 0.9, include_tests: bool = False,
        limit: int = DUPLICATES_LIMIT, fresh: bool = True,
    ) -> DuplicatesResponse:
        """Functions and methods that are copies of each other (renamed, edited a little, or exact)."""
        if not 0.5 <= min_similarity <= 1:
            raise UsageError(f"similarity must be between 0.5 and 1, got {min_similarity}")
        if min_lines < 2 or limit < 0:
            raise UsageError("min_lines must be at least 2 and limit at least 0 (0: all)")
        store = self._graph_store(fresh)
        within = self.within
        units = [
            CloneUnit(uid, path, name, start, end, language, content)
            for uid, path, name, start, end, language, content in store.definition_units(DEFINITIONS)
            if end - start + 1 >= min_lines and (not within or path.startswith(within + "/"))
            and _compared(path_role(path), include_tests)
        ]
        groups = find_clones(units, min_similarity=min_similarity)
        return DuplicatesResponse(
            str(self.root), groups[: limit or None], total_groups=len(groups),
            duplicated_lines=sum(g.weight for g in groups), limit=limit,
        )
