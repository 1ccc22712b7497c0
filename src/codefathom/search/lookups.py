"""The lookups an agent makes all day, as pure functions over paths and text: where a `path:line` from a
stack trace points, which indexed file a path names, files by name or fuzzy path, and which of a
pattern's words the full-text index can be asked for first (`prefilter_terms`).

The service (service/lookups.py) reads the index and the files; nothing here touches either.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any

from codefathom.errors import UsageError, shown

__all__ = [
    "Location", "parse_location", "resolve_path", "fuzzy_paths", "compile_pattern",
    "matching_line_numbers", "Prefilter", "prefilter",
]


@dataclass(frozen=True)
class Location:
    """A place a query names: a path, and perhaps a line or a range of lines (1-based, inclusive)."""

    path: str
    start: int | None = None
    end: int | None = None


# `path:120`, `path:120:7` (a column), `path:120-140`, `path#L120`, `path#L120-L140`, and Python's
# traceback line `File "path", line 120, in name`.
_AT_LINE = re.compile(
    r"^(?P<path>[^\s:#]+(?::[\\/][^\s:#]*)?)(?::(?P<a>\d+)(?:[:-](?P<b>\d+))?|#L(?P<c>\d+)(?:-L?(?P<d>\d+))?)$"
)
_TRACEBACK = re.compile(r'^File "(?P<path>[^"]+)", line (?P<a>\d+)')


def parse_location(query: str) -> Location | None:
    """The location `query` names, or None when it is not one path (with a line) alone."""
    text = query.strip().strip("'\"`")
    traceback = _TRACEBACK.match(query.strip())
    if traceback:
        line = int(traceback["a"])
        return Location(traceback["path"], line, line)
    match = _AT_LINE.match(text)
    if match:
        first = match["a"] or match["c"]
        second = match["b"] if match["a"] else match["d"]
        path = match["path"]
        if first is None:
            return Location(path)
        start = int(first)
        # `path:120:7` is a column, `path:120-140` a range: a range never ends before it starts.
        end = int(second) if second and ("-" in text.rsplit(":", 2)[-1] or match["c"]) else start
        return Location(path, start, max(start, end))
    if text and " " not in text and ("/" in text or "." in text):
        return Location(text)
    return None


def resolve_path(paths: list[str], text: str) -> str | None:
    """The indexed path `text` names: exactly, as an absolute or longer path ending in it (a stack
    trace's), or as its last parts (`store/db.py`, `db.py`) when one file ends so. None otherwise."""
    wanted = text.replace("\\", "/").removeprefix("./").strip("/")
    if not wanted:
        return None
    known = set(paths)
    if wanted in known:
        return wanted
    longer = [p for p in paths if wanted.endswith("/" + p)]
    if longer:
        return max(longer, key=len)
    ending = [p for p in paths if p.endswith("/" + wanted)]
    if len(ending) == 1:
        return ending[0]
    return None


def fuzzy_paths(paths: list[str], query: str) -> list[tuple[str, float]]:
    """Paths matching `query` best first, with a score: the file name itself, then names starting
    with it, holding it, paths holding it, then the query's letters in order (`srvlkp` ~
    `service/lookups.py`); case-insensitive, shorter paths first among equals."""
    wanted = query.strip().replace("\\", "/").lower().strip("/")
    if not wanted:
        raise UsageError("give a file name or part of a path")
    letters = re.compile(".*?".join(re.escape(c) for c in wanted.replace(" ", "")))
    words = wanted.split()
    scored = []
    for path in paths:
        lowered = path.lower()
        name = lowered.rsplit("/", 1)[-1]
        stem = name.rsplit(".", 1)[0]
        if wanted in (name, stem, lowered):
            score = 1.0
        elif name.startswith(wanted):
            score = 0.9
        elif wanted in name:
            score = 0.8
        elif wanted in lowered:
            score = 0.7
        elif len(words) > 1 and all(w in lowered for w in words):
            score = 0.6
        else:
            found = letters.search(lowered)
            if not found:
                continue
            score = 0.5 * len(wanted) / max(found.end() - found.start(), 1)
        scored.append((path, round(score - len(path) / 100_000, 5)))
    scored.sort(key=lambda item: (-item[1], item[0]))
    return scored


def compile_pattern(pattern: str, regex: bool) -> re.Pattern[str]:
    """The pattern as a compiled regular expression; a bad one is a usage error of one line."""
    if not pattern:
        raise UsageError("the pattern is empty")
    if "\n" in pattern:
        raise UsageError("the pattern holds a line break: matches are found line by line")
    if not regex:
        return re.compile(re.escape(pattern))
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise UsageError(f"not a valid regular expression: {exc} in {shown(pattern, 80)}") from exc


def matching_line_numbers(text: str, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """(line number, line) of every line `pattern` matches; lines end at `\n` only, as grep's do."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        if pattern.search(line):
            found.append((number, line.removesuffix("\r")))
    return found


# -- which words of a pattern the full-text index can be asked for first -------------------------

_WORD = re.compile(r"[A-Za-z0-9_]+")


def _separator(char: str) -> bool:
    """A character the index's tokenizer never holds inside a word (ASCII, not a letter, digit or `_`)."""
    return char.isascii() and not (char.isalnum() or char == "_")


@dataclass(frozen=True)
class Prefilter:
    """What every line a pattern matches holds, so the index can name the files that may match before
    any is read: whole `words` as the full-text index cuts them, and exact `texts`. Both empty when
    nothing can be told (a regex alternating at its top): every file is read."""

    words: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()


def prefilter(pattern: str, regex: bool) -> Prefilter:
    """The pattern's Prefilter. A word counts only when the pattern itself shows where it begins and
    ends (`def parse(` holds `parse`, not `def`, which may end `undef`); a regex's texts are its runs
    of literal characters at its top level, unless it ignores case."""
    if not regex:
        return Prefilter(_whole_words([(pattern, False, False)]), (pattern,))
    read = _regex_runs(pattern)
    if read is None:
        return Prefilter()
    runs, ignore_case = read
    texts = () if ignore_case else tuple(dict.fromkeys(text for text, _, _ in runs if len(text) >= 2))
    return Prefilter(_whole_words(runs), texts)


def _whole_words(runs: list[tuple[str, bool, bool]]) -> tuple[str, ...]:
    words: list[str] = []
    for text, bounded_before, bounded_after in runs:
        for match in _WORD.finditer(text):
            start, end = match.span()
            before = _separator(text[start - 1]) if start > 0 else bounded_before
            after = _separator(text[end]) if end < len(text) else bounded_after
            if before and after and match.group() not in words:
                words.append(match.group())
    return tuple(words)


def _regex_runs(pattern: str) -> tuple[list[tuple[str, bool, bool]], bool] | None:
    """The regex's runs of literal characters at its top level, each with whether what comes before
    and after it is known to be outside a word (`\\b`, `\\s`, `^`, `$`), and whether it ignores
    case; None when it alternates at its top level (`a|b`)."""
    try:
        # The standard library's own reading of a pattern (re._parser, sre_parse before 3.11).
        parser: Any = importlib.import_module("re._parser")
        constants: Any = importlib.import_module("re._constants")
        parsed = parser.parse(pattern)
    except Exception:  # noqa: BLE001 - a pattern Python cannot read is refused before this
        return None
    items: list[tuple[Any, Any]] = list(parsed)
    runs: list[tuple[str, bool, bool]] = []
    current: list[str] = []
    bounded_before = previous_bound = False  # a match may begin anywhere in a line
    for op, value in items:
        if op is constants.BRANCH:
            return None
        if op is constants.LITERAL:
            if not current:
                bounded_before = previous_bound
            current.append(chr(value))
            continue
        bound = _bounds(op, value, constants)
        if current:
            runs.append(("".join(current), bounded_before, bound))
            current = []
        previous_bound = bound
    if current:
        runs.append(("".join(current), bounded_before, False))  # ... and end anywhere
    return runs, bool(parsed.state.flags & re.IGNORECASE)


def _bounds(op: Any, value: Any, constants: Any) -> bool:
    """Whether the pattern item (op, value) only matches outside a word, or between words."""
    if op is constants.AT:
        return value in (constants.AT_BOUNDARY, constants.AT_BEGINNING, constants.AT_END,
                         constants.AT_BEGINNING_STRING, constants.AT_END_STRING)
    if op is constants.IN:
        return all(
            (kind is constants.CATEGORY and item in (constants.CATEGORY_SPACE, constants.CATEGORY_NOT_WORD))
            or (kind is constants.LITERAL and _separator(chr(item)))
            for kind, item in value
        )
    if op in (constants.MAX_REPEAT, constants.MIN_REPEAT, constants.POSSESSIVE_REPEAT):
        low, _high, inner = value
        inner_items = list(inner)
        return low >= 1 and len(inner_items) == 1 and _bounds(inner_items[0][0], inner_items[0][1], constants)
    return False
