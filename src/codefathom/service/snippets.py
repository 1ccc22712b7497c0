"""The lines of a result that show why it matched: those holding the query's words, with context.

A compact reply shows a unit's signature and these lines instead of its body, so an agent sees in a
few lines whether a result is the one it wants and which lines to read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codefathom.search.members import line_hits, line_terms

__all__ = ["Snippet", "query_terms", "matching_lines", "focus_lines", "MAX_MATCHING_LINES", "MAX_CONTEXT", "LINE_WIDTH"]

MAX_MATCHING_LINES = 3  # matching lines shown per result; the rest are counted
MAX_CONTEXT = 10  # lines before or after each matching line, at most
LINE_WIDTH = 120  # characters of a shown line (and signature); longer ones are cut with an ellipsis


@dataclass(frozen=True)
class Snippet:
    lines: list[tuple[int, str]]  # (line number, text), in file order; a gap between runs is a jump
    more: int  # matching lines left out


def query_terms(query: str) -> list[str]:
    """Lower-case terms a line must contain to match (search/members.py: the rule that also picks
    the member a window of a long class shows)."""
    return line_terms(query)


def matching_lines(
    content: str, start_line: int, terms: list[str], *, signature: str = "", before: int = 0, after: int = 0,
    limit: int = MAX_MATCHING_LINES, numbers: Sequence[int] | None = None,
) -> Snippet:
    """The lines of `content` (which starts at `start_line`) holding the most of `terms`, at most
    `limit`, each with `before` and `after` lines around it. Lines the signature already shows are
    not matched again. No term on any line: the first lines after the signature (a doc, usually)."""
    lines = content.split("\n")
    body_start = _after_signature(lines, signature)
    scored = []
    for index in range(body_start, len(lines)):
        hits = line_hits(lines[index], terms)
        if hits:
            scored.append((-hits, index))
    chosen = sorted(index for _, index in sorted(scored)[:limit])
    more = len(scored) - len(chosen)
    if not chosen:  # matched by meaning, or by its name only: show how its body begins
        chosen = [index for index in range(body_start, len(lines)) if lines[index].strip()][:2]
        before = after = 0
    shown: dict[int, str] = {}
    for index in chosen:
        for near in range(max(body_start, index - before), min(len(lines), index + after + 1)):
            shown[near] = lines[near]
    return Snippet([(_line_number(start_line, numbers, index), _clip(shown[index])) for index in sorted(shown)], more)


def _line_number(start_line: int, numbers: Sequence[int] | None, index: int) -> int:
    """The file line of the content's line `index`: from `numbers` when the content skips lines."""
    return numbers[index] if numbers is not None else start_line + index


def focus_lines(
    content: str, start_line: int, first: int, last: int, *, before: int = 0, after: int = 0,
    limit: int = MAX_MATCHING_LINES,
) -> Snippet:
    """Lines `first`-`last` of the file (at most `limit`, the rest counted), from `content` (which
    starts at `start_line`), each with `before` and `after` lines around it: what a `path:line`
    query names, shown in the unit around it."""
    lines = content.split("\n")
    end_line = start_line + len(lines) - 1
    chosen = list(range(max(first, start_line), min(last, end_line) + 1))
    more = len(chosen) - limit if len(chosen) > limit else 0
    shown: set[int] = set()
    for number in chosen[:limit]:
        shown.update(range(max(start_line, number - before), min(end_line, number + after) + 1))
    return Snippet([(number, _clip(lines[number - start_line])) for number in sorted(shown)], more)


def _after_signature(lines: list[str], signature: str) -> int:
    """How many first lines the signature (one-lined, perhaps cut) already shows."""
    flat = " ".join(signature.split())
    if not flat:
        return 0
    count = 0
    for line in lines:
        text = " ".join(line.split()).rstrip(":{ ")  # (a signature leaves out the `:` or `{` ending it)
        if not text or text not in flat:
            break
        count += 1
    return count


def _clip(line: str) -> str:
    line = line.rstrip().expandtabs(4)
    return line if len(line) <= LINE_WIDTH else line[: LINE_WIDTH - 1] + "…"
