"""The reply of `impact --diff`: changed definitions, their references, dependent files and tests.

Each as a JSON-ready dict and as compact text.
"""

from __future__ import annotations

from typing import Any

from codefathom.service.changes import ChangedFile, ChangeImpactResponse
from codefathom.service.render.common import _count, _noticed_json, _noticed_text
from codefathom.service.render.graph import MODULE_LEVEL, _without_references, ref_json

__all__ = ["change_impact_json", "change_impact_text"]


# -- change impact of a diff ------------------------------------------------------------------------

_STATUS_LETTER = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R"}
_TEST_RANK_TEXT = {"changed": "changed", "direct": "direct", "helper": "via helper", "depends": "depends",
                   "named": "by name"}


@_noticed_json
def change_impact_json(response: ChangeImpactResponse) -> dict[str, Any]:
    """Counts, then changed files, changed definitions, their dependents (only definitions that have
    some), impacted files by distance and the tests to run, strongest tie first."""
    data: dict[str, Any] = {
        "project_root": response.project_root, "source": response.source, "depth": response.depth,
        "counts": _change_counts(response),
        "changed_files": [_changed_file_json(f) for f in response.changed_files],
        "changed_symbols": [
            {"path": s.path, "start_line": s.start_line, "end_line": s.end_line, "kind": s.kind,
             "qualified_name": s.qualified_name, "change": s.change, "lines": s.lines}
            for s in response.changed_symbols
        ],
    }
    dependents = []
    for group in response.dependents:
        item: dict[str, Any] = {
            "symbol": group.changed.qualified_name, "path": group.changed.path, "change": group.changed.change,
            "references": [ref_json(r) for r in group.references], "total": group.total,
        }
        if group.unbound_elsewhere:
            item["unbound_elsewhere"] = group.unbound_elsewhere
        if group.by_name:
            item["by_name"] = True
        dependents.append(item)
    data["dependents"] = dependents
    data["impacted_files"] = [
        {"path": f.path, "distance": f.distance, "via": f.via, "via_types": f.dep_types}
        for f in response.impacted_files
    ]
    tests = []
    for test in response.tests:
        entry: dict[str, Any] = {"path": test.path, "rank": test.rank, "why": test.reasons}
        if test.functions:
            entry["functions"] = test.functions
        tests.append(entry)
    data["tests"] = tests
    notes = _change_notes(response)
    if notes:
        data["notes"] = notes
    if response.truncated:
        data["truncated"] = response.truncated
    return data


@_noticed_text
def change_impact_text(response: ChangeImpactResponse) -> str:
    """Files (git-style letters), each changed definition with the references to it, impacted files
    by distance, then the tests to run with the reason."""
    counts = _change_counts(response)
    by_change = ", ".join(f"{counts[c]} {c}" for c in ("added", "modified", "removed") if counts[c])
    lines = [
        f"change impact of {response.source}: {_count(counts['files'], 'file')},"
        f" {_count(counts['symbols'], 'definition')}" + (f" ({by_change})" if by_change else "")
    ]
    if response.changed_files:
        lines.append("files:")
    for file in response.changed_files:
        name = f"{file.old_path} -> {file.path}" if file.old_path else file.path
        if file.binary:
            lines.append(f"  {_STATUS_LETTER[file.status]} {name}  (binary, ignored)")
            continue
        size = " ".join(part for part in (f"+{file.added}" if file.added else "",
                                          f"-{file.removed}" if file.removed else "") if part)
        extra = "  (untracked)" if file.untracked else ""
        if not file.indexed and file.status != "deleted":
            extra += "  (not indexed)"
        lines.append(f"  {_STATUS_LETTER[file.status]} {name}  {size}".rstrip() + extra)
    groups = {id(g.changed): g for g in response.dependents}
    if response.changed_symbols:
        lines.append("definitions:")
    for changed in response.changed_symbols:
        where = f"{changed.path}:{changed.start_line}-{changed.end_line}"
        where += " (old lines)" if changed.change == "removed" else ""
        group = groups.get(id(changed))
        tail = ""
        if group is not None:
            tail = f"  ({_count(group.total, 'reference')}{' still using its name' if group.by_name else ''})"
        elif changed.analysed:
            tail = "  (no references)"
        lines.append(f"  {changed.change:<8}  {changed.kind}  {changed.qualified_name}  {where}{tail}")
        if group is None:
            continue
        for ref in group.references:
            kind = "" if ref.kind == "call" else f"  ({ref.kind})"
            lines.append(f"      {ref.path}:{ref.line}  {ref.label}  {ref.scope or MODULE_LEVEL}{kind}")
        if group.total > len(group.references):
            lines.append(f"      … {group.total - len(group.references)} more")
        if group.unbound_elsewhere:
            lines.append(f"      # {_count(group.unbound_elsewhere, 'other reference')} to `{changed.name}` could"
                         " not be bound to one definition")
    if response.impacted_files:
        lines.append(f"impacted files ({response.impacted_total}, depth {response.depth}):")
    for impacted in response.impacted_files:
        via = ", ".join(f"{kind} {n}" for kind, n in impacted.dep_types.items())
        lines.append(f"  {impacted.distance}  {impacted.path}  <- {impacted.via} ({via})")
    lines.append(f"tests to run ({response.tests_total}):")
    for test in response.tests:
        lines.append(f"  {test.path}  ({_TEST_RANK_TEXT[test.rank]}: {'; '.join(test.reasons)})")
        lines.extend(f"    {function}" for function in test.functions)
    if not response.tests:
        lines.append("  (none found)")
    for note in _change_notes(response) + [f"cut: {t}" for t in response.truncated]:
        lines.append(f"# {note}")
    return "\n".join(lines)


def _changed_file_json(file: ChangedFile) -> dict[str, Any]:
    data: dict[str, Any] = {"path": file.path, "status": file.status, "added": file.added, "removed": file.removed}
    if file.old_path:
        data["old_path"] = file.old_path
    if not file.indexed and file.status != "deleted" and not file.binary:
        data["indexed"] = False
    if file.binary:
        data["binary"] = True
    if file.untracked:
        data["untracked"] = True
    return data


def _change_counts(response: ChangeImpactResponse) -> dict[str, int]:
    counts = {"files": len(response.changed_files), "symbols": len(response.changed_symbols)}
    for change in ("added", "modified", "removed"):
        counts[change] = sum(1 for s in response.changed_symbols if s.change == change)
    counts["analysed"] = response.analysed
    counts["references"] = sum(g.total for g in response.dependents if not g.by_name)
    counts["references_to_removed"] = sum(g.total for g in response.dependents if g.by_name)
    counts["unbound_elsewhere"] = sum(g.unbound_elsewhere for g in response.dependents)
    counts["impacted_files"] = response.impacted_total
    counts["tests"] = response.tests_total
    return counts


def _change_notes(response: ChangeImpactResponse) -> list[str]:
    notes = list(response.notes)
    if any(g.by_name for g in response.dependents):
        notes.append(
            "references listed under a removed definition still use its name and bind to no definition of it:"
            " likely broken, though some may mean something else of the same name"
        )
    if not response.dependents and response.changed_symbols:
        without = _without_references(s.path for s in response.changed_symbols)
        if without:
            notes.append(without)
    return notes
