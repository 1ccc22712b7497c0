"""A result grown to the whole unit holding its matching lines: what `detail: "unit"` shows.

A compact result shows the lines holding the query's words, a full one its stored body; but a stored
body may be a part of a unit: a window of a long function or section (units over 150 lines are stored
as parts of 60, parse/windows.py), the class's own lines of a long class, a window of a plain-text
file. Grown, such a result is the unit itself, whole and named by its lines: the function or section
from its first part to its last, the class as its outline (each member shortened to its header), the
paragraph of text around the best matching line. A window of a long class that shows a method is
already that method (search/members.py).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from codefathom.discover import read_inside, real_root
from codefathom.model import Hit, StoredUnit
from codefathom.search.members import best_line
from codefathom.store import Store

__all__ = ["grown", "GROWN_LINES"]

GROWN_LINES = 200  # lines of a grown result at most; the rest is cut, and says so


def grown(store: Store, root: Path, hit: Hit, terms: list[str]) -> Hit:
    """`hit` as the whole unit holding its matching lines (see the module's docstring)."""
    if hit.kind == "directory" or (hit.part == 0 and hit.kind != "chunk") or hit.kind == "module":
        return _capped(hit)  # already a whole unit (a module's parts are top-level code, not one unit)
    try:
        lines = read_inside(root / hit.path, real_root(root)).decode("utf-8", errors="replace").split("\n")
    except OSError:
        return _capped(hit)  # the file went away since the search: its stored text is all there is
    if hit.kind == "chunk":
        return _paragraph(hit, lines, terms)
    parts = _parts(store, hit)
    first = min(p.unit.start_line for p in parts)
    last = max(p.unit.end_line for p in parts)
    if hit.kind == "class":
        return _outline(store, hit, lines, first, last)
    numbered = [(number, lines[number - 1]) for number in range(first, min(last, len(lines)) + 1)]
    return _with_lines(hit, numbered, first, last)


def _parts(store: Store, hit: Hit) -> list[StoredUnit]:
    """The parts of the unit `hit` is a part of: those of its file with its name and kind that run on
    unbroken from one to the next through the hit's lines (two overloads of one name stay apart)."""
    same = sorted(
        (u for u in _file_units(store, hit.path)
         if u.unit.qualified_name == hit.qualified_name and u.unit.kind == hit.kind and u.unit.part),
        key=lambda u: u.unit.start_line,
    )
    at = next((i for i, u in enumerate(same) if u.unit.start_line == hit.start_line), None)
    if at is None:
        return [u for u in same if u.unit.start_line <= hit.start_line <= u.unit.end_line] or same
    start, end = at, at
    while start > 0 and same[start - 1].unit.end_line + 1 == same[start].unit.start_line \
            and same[start].unit.part == same[start - 1].unit.part + 1:
        start -= 1
    while end + 1 < len(same) and same[end].unit.end_line + 1 == same[end + 1].unit.start_line \
            and same[end + 1].unit.part == same[end].unit.part + 1:
        end += 1
    return same[start : end + 1]


def _outline(store: Store, hit: Hit, lines: list[str], first: int, last: int) -> Hit:
    """A long class as a short one is stored: its own lines, each member cut after its header (the
    lines up to the one naming it, so decorators and a comment above it stay)."""
    prefix = hit.qualified_name + "."
    hidden: set[int] = set()
    for member in _file_units(store, hit.path):
        unit = member.unit
        if not unit.qualified_name.startswith(prefix) or "." in unit.qualified_name[len(prefix):]:
            continue  # not a member of this class, or a member of a member
        if not (first <= unit.start_line and unit.end_line <= last):
            continue
        header = next(
            (n for n in range(unit.start_line, unit.end_line + 1) if unit.name in lines[n - 1]), unit.start_line
        )
        hidden.update(range(header + 1, unit.end_line + 1))
    numbered = [(n, lines[n - 1]) for n in range(first, min(last, len(lines)) + 1) if n not in hidden]
    return _with_lines(hit, numbered, first, last)


def _paragraph(hit: Hit, lines: list[str], terms: list[str]) -> Hit:
    """The lines around the chunk's best matching line up to a blank line each way."""
    line = best_line(hit.content, hit.start_line, terms)
    if line is None or not 1 <= line <= len(lines):
        return _capped(hit)
    first = line
    while first > 1 and lines[first - 2].strip():
        first -= 1
    last = line
    while last < len(lines) and lines[last].strip():
        last += 1
    numbered = [(n, lines[n - 1]) for n in range(first, last + 1)]
    return _with_lines(hit, numbered, first, last)


def _with_lines(hit: Hit, numbered: list[tuple[int, str]], first: int, last: int) -> Hit:
    cut = len(numbered) > GROWN_LINES
    numbered = numbered[:GROWN_LINES]
    contiguous = all(b[0] == a[0] + 1 for a, b in zip(numbered, numbered[1:], strict=False))
    return replace(
        hit, start_line=first, end_line=last, content="\n".join(text.rstrip("\r") for _, text in numbered),
        truncated=cut, line_numbers=None if contiguous else tuple(n for n, _ in numbered), part=0,
    )


def _capped(hit: Hit) -> Hit:
    lines = hit.content.split("\n")
    if len(lines) <= GROWN_LINES:
        return hit
    numbers = hit.line_numbers[:GROWN_LINES] if hit.line_numbers is not None else None
    return replace(hit, content="\n".join(lines[:GROWN_LINES]), truncated=True, line_numbers=numbers)


def _file_units(store: Store, path: str) -> list[StoredUnit]:
    file_id = store.file_ids([path]).get(path)
    ids = store.unit_ids_of_file(file_id) if file_id is not None else []
    return list(store.units_by_id(ids, with_content=False).values())
