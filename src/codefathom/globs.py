"""Gitignore-style path globs, validated so a bad pattern is refused with its reason.

Shared by discovery (config include/exclude) and search (path_glob, exclude_glob).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pathspec

from codefathom.errors import UsageError

__all__ = ["PathGlobs", "compile_globs", "MAX_GLOB_LENGTH"]

MAX_GLOB_LENGTH = 1000


@dataclass(frozen=True)
class PathGlobs:
    """A compiled set of gitignore-style patterns; a path matches if any pattern names it."""

    patterns: tuple[str, ...]
    _spec: pathspec.GitIgnoreSpec

    def matches(self, path: str) -> bool:
        return bool(self._spec.match_file(path))

    def __bool__(self) -> bool:
        return bool(self.patterns)


def compile_globs(patterns: str | Iterable[str] | None, what: str = "glob") -> PathGlobs:
    """Validate and compile `patterns`; `what` names the option in error messages."""
    if patterns is None:
        items: list[str] = []
    elif isinstance(patterns, str):
        items = [patterns]
    else:
        items = list(patterns)
    for pattern in items:
        _check(pattern, what)
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(items)
    except Exception as exc:  # pathspec raises its own error types for invalid patterns
        raise UsageError(f"invalid {what} {items!r}: {exc}") from exc
    return PathGlobs(tuple(items), spec)


def _check(pattern: object, what: str) -> None:
    if not isinstance(pattern, str):
        raise UsageError(f"invalid {what} {pattern!r}: a glob must be a string")
    text = pattern.strip()
    if not text:
        raise UsageError(f"invalid {what}: the pattern is empty")
    if len(text) > MAX_GLOB_LENGTH:
        raise UsageError(f"invalid {what}: longer than {MAX_GLOB_LENGTH} characters")
    if text.startswith("!"):
        raise UsageError(f"invalid {what} {text!r}: negation ('!') is not supported here; use an exclude glob")
    if any(part == ".." for part in text.split("/")):
        raise UsageError(f"invalid {what} {text!r}: '..' would leave the project root")
    if "\x00" in text:
        raise UsageError(f"invalid {what}: contains a NUL character")
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]" and depth:
            depth -= 1
    if depth:
        raise UsageError(f"invalid {what} {text!r}: unclosed '[' character class")
    if text.endswith("\\") and not text.endswith("\\\\"):
        raise UsageError(f"invalid {what} {text!r}: ends with a lone backslash")
