"""Parameter types read from a TypeScript signature as written, for the binder: what a function
passed as an argument receives (`operate(init: (source: Observable<T>, subscriber: Subscriber<R>) => void)`).

Only the text is read, no type checking: generic arguments are kept for the binder to ignore or
use, a parameter whose type is not a plain function type (an alias, an overload set) gives nothing.
"""

from __future__ import annotations

import re

__all__ = ["callback_parameter"]

_MODIFIERS = re.compile(r"^(?:(?:public|private|protected|readonly|override)\s+)+")
_ARRAY = re.compile(r"([\w.]+)\[\]")
_CLOSING = {"(": ")", "[": "]", "{": "}", "<": ">"}


def callback_parameter(signature: str, argument: int, parameter: int) -> str | None:
    """The type, in the binder's spelling (`Subscriber[R]`), that a function's `signature` gives
    parameter `parameter` of the function passed as argument `argument`; None when it says none."""
    outer = _parameters(signature)
    if outer is None or argument >= len(outer) or outer[argument][0].startswith("..."):
        return None
    function = _function_type(outer[argument][1])
    inner = _parameters(function) if function is not None else None
    if inner is None or parameter >= len(inner) or inner[parameter][0].startswith("..."):
        return None
    written = inner[parameter][1]
    if not written or "=>" in written:
        return None
    return _ARRAY.sub(r"Array[\1]", written.replace("<", "[").replace(">", "]"))


def _parameters(text: str) -> list[tuple[str, str]] | None:
    """(name, type) of each parameter of the first parameter list in `text`, `this` left out."""
    start = _list_start(text)
    if start is None:
        return None
    inside = _balanced(text, start)
    if inside is None:
        return None
    found = []
    for part in _split(inside, ","):
        part = _MODIFIERS.sub("", part.strip())
        if not part:
            continue
        name, _, written = _cut(part, ":")
        written = _cut(written, "=")[0].strip()  # a default value
        name = name.strip().rstrip("?")
        if name != "this":
            found.append((name, written))
    return found


def _function_type(written: str) -> str | None:
    """The parameter list of a function type (`(a: A) => R`, also optional or in parentheses)."""
    head, arrow, _ = _cut(written, "=>")  # `(a: A) => B | void`: the union is the return type's
    if arrow:
        return head.strip() if head.strip().endswith(")") else None
    members = [m.strip() for m in _split(written, "|") if m.strip() not in ("undefined", "null", "")]
    if len(members) != 1 or not members[0].startswith("(") or _balanced(members[0], 0) != members[0][1:-1]:
        return None
    return _function_type(members[0][1:-1])  # `((a: A) => R) | undefined`


def _list_start(text: str) -> int | None:
    """Where the first parameter list opens: the first `(` outside type parameters."""
    depth = 0
    for index, char in enumerate(text):
        if char == "<":
            depth += 1
        elif char == ">" and text[index - 1 : index] != "=":
            depth -= 1
        elif char == "(" and depth == 0:
            return index
    return None


def _balanced(text: str, start: int) -> str | None:
    """The text inside the brackets that open at `start`."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1 : index]
    return None


def _split(text: str, separator: str) -> list[str]:
    """`text` split at `separator` outside brackets, angle brackets and strings (`=>` is no bracket)."""
    parts: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in _CLOSING:
            depth += 1
        elif char in ")]}" or (char == ">" and text[index - 1 : index] != "="):
            depth -= 1
        elif char == separator and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


def _cut(text: str, separator: str) -> tuple[str, str, str]:
    """`text` cut at the first `separator` outside brackets (`=` is not part of `=>`)."""
    depth, quote = 0, ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in _CLOSING:
            depth += 1
        elif char in ")]}" or (char == ">" and text[index - 1 : index] != "="):
            depth -= 1
        elif depth == 0 and text.startswith(separator, index):
            if separator == "=" and text[index + 1 : index + 2] == ">":
                continue
            return text[:index], separator, text[index + len(separator) :]
    return text, "", ""
