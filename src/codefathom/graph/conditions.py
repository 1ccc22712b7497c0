"""What a C preprocessor condition says on the machine an index is built on: whether a definition
under `#ifdef _WIN32` or `#if defined(__linux__) || defined(__APPLE__)` is compiled here.

Only the platforms' own macros are known (PLATFORM_MACROS: defined when they are this platform's,
0 when another's); any other name (`HAVE_EPOLL`, a header guard) is unknown, and so is every
condition that depends on one. Three values, as the preprocessor would read them where it can.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable

from codefathom.parse.hooks.cfamily import PLATFORM_MACROS

__all__ = ["compiled_here", "compiled_under", "host"]

_TOKEN = re.compile(r"\s*(?:(\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|[!()<>]))")
Value = int | None  # None: unknown


def host() -> str:
    """The platform the index is built on, as PLATFORM_MACROS names it."""
    if sys.platform.startswith("linux"):
        return "linux"
    if sys.platform.startswith(("freebsd", "openbsd", "netbsd", "dragonfly")):
        return "bsd"
    return {"darwin": "darwin", "win32": "win32", "cygwin": "other", "aix": "aix", "sunos5": "sunos"}.get(
        sys.platform, sys.platform
    )


def compiled_here(condition: str, cpp: bool) -> bool | None:
    """Whether code under `condition` is compiled on this platform (None: cannot tell). `cpp`: the
    file is C++, which defines `__cplusplus`."""
    tokens = _tokens(condition)
    if tokens is None:
        return None
    parser = _Parser(tokens, _defined(cpp))
    try:
        value = parser.expression()
    except (IndexError, ValueError):
        return None
    if parser.position != len(tokens):
        return None
    return None if value is None else value != 0


def compiled_under(conditions: Iterable[str], cpp: bool) -> bool:
    """Whether code under all these conditions may be compiled here: false only when one of them
    says it is not (an unknown one says nothing)."""
    return all(compiled_here(condition, cpp) is not False for condition in conditions)


def _defined(cpp: bool) -> dict[str, bool]:
    """Each known macro: defined here or not."""
    here = PLATFORM_MACROS.get(host(), frozenset())
    known = {name: name in here for names in PLATFORM_MACROS.values() for name in names}
    known["__cplusplus"] = cpp
    return known


def _tokens(text: str) -> list[str] | None:
    tokens, position = [], 0
    text = text.strip()
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None or found.end() == position:
            return None  # arithmetic, a string, a macro call: not read
        tokens.append(found.group(1) or found.group(2) or found.group(3))
        position = found.end()
    return tokens


class _Parser:
    """Recursive descent over `||`, `&&`, comparisons, `!`, `defined`, names, numbers, parentheses."""

    def __init__(self, tokens: list[str], defined: dict[str, bool]) -> None:
        self.tokens = tokens
        self.position = 0
        self.defined = defined

    def expression(self) -> Value:
        values = [self.conjunction()]
        while self._take("||"):
            values.append(self.conjunction())
        if any(v is not None and v != 0 for v in values):
            return 1
        return None if None in values else 0

    def conjunction(self) -> Value:
        values = [self.comparison()]
        while self._take("&&"):
            values.append(self.comparison())
        if any(v == 0 for v in values):
            return 0
        return None if None in values else 1

    def comparison(self) -> Value:
        left = self.unary()
        operator = self.tokens[self.position] if self.position < len(self.tokens) else ""
        if operator not in ("==", "!=", "<", ">", "<=", ">="):
            return left
        self.position += 1
        right = self.unary()
        if left is None or right is None:
            return None
        return int({"==": left == right, "!=": left != right, "<": left < right, ">": left > right,
                    "<=": left <= right, ">=": left >= right}[operator])

    def unary(self) -> Value:
        if self._take("!"):
            value = self.unary()
            return None if value is None else int(value == 0)
        if self._take("("):
            value = self.expression()
            if not self._take(")"):
                raise ValueError("unbalanced parentheses")
            return value
        token = self.tokens[self.position]
        self.position += 1
        if token.isdigit():
            return int(token)
        if token == "defined":
            parenthesized = self._take("(")
            name = self.tokens[self.position]
            self.position += 1
            if parenthesized and not self._take(")"):
                raise ValueError("defined( without )")
            known = self.defined.get(name)
            return None if known is None else int(known)
        if self.position < len(self.tokens) and self.tokens[self.position] == "(":
            raise ValueError("a function-like macro")  # `__has_include(...)`, `GCC_VERSION(4, 2)`
        known = self.defined.get(token)
        return None if known is None else int(known)  # a known macro undefined here is 0

    def _take(self, token: str) -> bool:
        if self.position < len(self.tokens) and self.tokens[self.position] == token:
            self.position += 1
            return True
        return False
