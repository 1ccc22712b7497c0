"""Replies of `tests` (the tests of a symbol or file) and `cochange` (files changed together).

Each as a JSON-ready dict and as compact text.
"""

from __future__ import annotations

from typing import Any

from codefathom.service.related import CoChangeResponse, TestsResponse
from codefathom.service.render.common import _count, _noticed_json, _noticed_text
from codefathom.service.render.graph import _no_symbol, _without_references

__all__ = ["tests_json", "tests_text", "cochange_json", "cochange_text"]


# -- related: tests of a symbol or file, files changed together -------------------------------------

_STRENGTH_TEXT = {"direct": "direct", "helper": "via helper", "named": "by name"}


@_noticed_json
def tests_json(response: TestsResponse) -> dict[str, Any]:
    """The target, then its tests strongest first: `rank` direct > helper > named, with `why`."""
    data: dict[str, Any] = {
        "project_root": response.project_root, "target": response.target, "target_kind": response.target_kind,
    }
    if response.target_kind == "symbol":
        data["symbols"] = [f"{s.path}:{s.start_line} {s.qualified_name}" for s in response.symbols]
    tests = []
    for test in response.tests:
        item: dict[str, Any] = {"path": test.path, "rank": test.strength, "why": test.reasons}
        if test.functions:
            item["functions"] = test.functions
        tests.append(item)
    data["tests"] = tests
    if response.more:
        data["more"] = response.more
    note = _tests_note(response)
    if note:
        data["note"] = note
    return data


@_noticed_text
def tests_text(response: TestsResponse) -> str:
    """`path  (rank: why)` per test file, then the test functions that reach the target."""
    what = "file" if response.target_kind == "file" else "symbol"
    lines = [f"tests of {what} {response.target} ({len(response.tests) + response.more}):"]
    for test in response.tests:
        lines.append(f"  {test.path}  ({_STRENGTH_TEXT[test.strength]}: {'; '.join(test.reasons)})")
        for function in test.functions:
            lines.append(f"    {function}")
    if response.more:
        lines.append(f"  (+{response.more:,} more test files, weaker evidence)")
    note = _tests_note(response)
    if note:
        lines.append(f"# {note}")
    return "\n".join(lines)


def _tests_note(response: TestsResponse) -> str:
    if response.target_kind == "symbol" and not response.symbols:
        return _no_symbol(response.target)
    if response.tests:
        return ""
    paths = [response.target] if response.target_kind == "file" else [s.path for s in response.symbols]
    return _without_references(paths) or "No test references it, through a helper or by name."


def cochange_json(response: CoChangeResponse) -> dict[str, Any]:
    """The file, the history read, and the files changed with it, most often first."""
    files = []
    for item in response.files:
        entry: dict[str, Any] = {"path": item.path, "together": item.together, "confidence": item.confidence,
                                 "support": item.support}
        if not item.exists:
            entry["exists"] = False
        files.append(entry)
    data: dict[str, Any] = {
        "project_root": response.project_root, "path": response.path, "head": response.head,
        "commits": response.commits, "file_commits": response.file_commits,
        "skipped_large_commits": response.skipped_large, "files": files,
    }
    note = _cochange_note(response)
    if note:
        data["note"] = note
    return data


def cochange_text(response: CoChangeResponse) -> str:
    """`together  confidence  path` per file, after a line on the history read."""
    ignored = f"; {_count(response.skipped_large, 'commit')} of over 50 files ignored" if response.skipped_large else ""
    lines = [
        f"{response.path}: changed in {_count(response.file_commits, 'commit')} of the last {response.commits}"
        f" (head {response.head[:12]}{ignored})"
    ]
    for item in response.files:
        gone = "  (deleted)" if not item.exists else ""
        lines.append(f"  {item.together:>4}  {item.confidence:>4.0%}  {item.path}{gone}")
    note = _cochange_note(response)
    if note:
        lines.append(f"# {note}")
    return "\n".join(lines)


def _cochange_note(response: CoChangeResponse) -> str:
    if not response.file_commits:
        return f"No commit among the last {response.commits} changed {response.path} (check the path)."
    if not response.files:
        return f"{response.path} was always committed alone."
    return ""
