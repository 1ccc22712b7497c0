"""Units for files no grammar understands: Markdown split by headings, other text by line windows.

Nothing in a repository is unsearchable: whatever is not code still becomes units.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePosixPath

from codefathom.model import Unit

__all__ = ["line_windows", "markdown_sections", "split_lines", "split_unit", "WINDOW_LINES", "MAX_UNIT_LINES"]

WINDOW_LINES = 60
MAX_UNIT_LINES = 150  # longer units are split into parts of WINDOW_LINES that keep their identity
MAX_UNIT_CHARS = 12_000

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def split_lines(text: str) -> list[str]:
    """Lines as tree-sitter counts them (split on \\n), without their \\r."""
    if "\r" not in text:
        return text.split("\n")  # (most files: no line to strip, and no copy of each)
    return [line.rstrip("\r") for line in text.split("\n")]


def line_windows(path: str, text: str, language: str = "text") -> list[Unit]:
    """The file as consecutive windows of WINDOW_LINES lines, skipping blank windows."""
    lines = split_lines(text)
    name = PurePosixPath(path).name
    units = []
    for start in range(0, len(lines), WINDOW_LINES):
        window = lines[start : start + WINDOW_LINES]
        if not any(line.strip() for line in window):
            continue
        units.append(
            Unit(
                kind="chunk", name=name, qualified_name=path, start_line=start + 1,
                end_line=start + len(window), content=_cap("\n".join(window)), language=language,
            )
        )
    return _number_parts(units)


def markdown_sections(path: str, text: str) -> list[Unit]:
    """One unit per heading, from the heading to the next one; text before any heading too."""
    lines = split_lines(text)
    headings: list[tuple[int, int, str]] = []  # (row, level, title)
    fence: str | None = None
    for row, line in enumerate(lines):
        fence_match = _FENCE.match(line)
        if fence_match:
            marker = fence_match.group(1)[0] * 3
            fence = None if fence == marker else (fence or marker)
            continue
        if fence is None:
            heading = _ATX.match(line)
            if heading:
                headings.append((row, len(heading.group(1)), heading.group(2).strip()))
    stem = PurePosixPath(path).stem
    bounds = [(0, 0, stem)] if not headings or headings[0][0] > 0 else []
    bounds += headings
    units: list[Unit] = []
    trail: list[tuple[int, str]] = []  # enclosing headings by level
    for index, (row, level, title) in enumerate(bounds):
        end_row = bounds[index + 1][0] - 1 if index + 1 < len(bounds) else len(lines) - 1
        while end_row > row and not lines[end_row].strip():
            end_row -= 1
        while trail and trail[-1][0] >= level and level > 0:
            trail.pop()
        parent = trail[-1][1] if trail else None
        qualified = " > ".join([t for _, t in trail] + [title])
        if level > 0:
            trail.append((level, title))
        body = lines[row : end_row + 1]
        if not any(line.strip() for line in body):
            continue
        units.extend(
            split_unit(
                Unit(
                    kind="section", name=title, qualified_name=qualified, start_line=row + 1,
                    end_line=end_row + 1, content="", language="markdown", parent=parent,
                    signature=lines[row].strip() if level else "",
                ),
                lines,
            )
        )
    return units


def split_unit(unit: Unit, lines: list[str], content: str | None = None) -> list[Unit]:
    """The unit with its content, split into parts when it is too long to be one result."""
    first, last = unit.start_line - 1, unit.end_line - 1
    if content is None:
        content = "\n".join(lines[first : last + 1])
    if last - first + 1 <= MAX_UNIT_LINES and len(content) <= MAX_UNIT_CHARS:
        return [_with(unit, content=content)]
    parts = []
    for number, start in enumerate(range(first, last + 1, WINDOW_LINES), start=1):
        end = min(start + WINDOW_LINES - 1, last)
        parts.append(
            _with(
                unit, content=_cap("\n".join(lines[start : end + 1])), start_line=start + 1,
                end_line=end + 1, part=number, doc=unit.doc if number == 1 else "",
            )
        )
    return parts


def _number_parts(units: list[Unit]) -> list[Unit]:
    if len(units) <= 1:
        return units
    return [_with(u, part=i) for i, u in enumerate(units, start=1)]


def _with(unit: Unit, **changes: object) -> Unit:
    return replace(unit, **changes)  # type: ignore[arg-type]


def _cap(text: str) -> str:
    return text if len(text) <= MAX_UNIT_CHARS else text[:MAX_UNIT_CHARS]
