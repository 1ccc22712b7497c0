"""Parameters read from a signature as written, for the binder: how many arguments a Java, C#,
Kotlin, Scala or C++ method takes (which overload a call means), and, from a TypeScript signature,
what a function passed as an argument receives (`operate(init: (source: Observable<T>, subscriber:
Subscriber<R>) => void)`).

Only the text is read, no type checking: generic arguments are kept for the binder to ignore or
use, a parameter whose type is not a plain function type (an alias, an overload set) gives nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["callback_parameter", "parameter_range", "parameter_types"]

_MODIFIERS = re.compile(r"^(?:(?:public|private|protected|readonly|override)\s+)+")
_ARRAY = re.compile(r"([\w.]+)\[\]")
_CLOSING = {"(": ")", "[": "]", "{": "}", "<": ">"}
_ANNOTATION = re.compile(r"@[\w.]+(?:\([^()]*\))?")
_FINAL = re.compile(r"\bfinal\s+")
_GENERIC = re.compile(r"<[^<>]*>")


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


def parameter_range(signature: str, name: str) -> tuple[int, int | None] | None:
    """(fewest, most) arguments a function named `name` takes by its signature, most None when
    unbounded (varargs `T...`, `params T[]`, `...`); None when the parameter list cannot be read
    (a signature cut short, a name not followed by one). Defaults (`x = 0`) and `x?` are optional,
    C's `f(void)` takes none, and C#'s `this` parameter of an extension method is the receiver."""
    opening = _parameter_list(signature, name)
    inside = _balanced(signature, opening) if opening is not None else None
    if inside is None:
        return None
    fewest, most = 0, 0
    unbounded = False
    for part in _split(inside, ","):
        part = part.strip()
        if not part or part == "void" or part.startswith("this "):
            continue
        if "..." in part or part.startswith(("params ", "*")):
            unbounded = True
            continue
        most += 1
        optional = bool(_cut(part, "=")[1]) or _cut(part, ":")[0].strip().endswith("?")
        fewest += 0 if optional else 1
    return fewest, None if unbounded else most


def parameter_types(signature: str, name: str) -> list[str] | None:
    """The types of a Java method's parameters as written, without annotations, modifiers, type
    arguments or package (`byte[]`, `Object...`, `Map`); None when the parameter list cannot be read."""
    opening = _parameter_list(signature, name)
    inside = _balanced(signature, opening) if opening is not None else None
    if inside is None:
        return None
    found = []
    for part in _split(inside, ","):
        part = _FINAL.sub("", _ANNOTATION.sub("", part)).strip()
        if not part:
            continue
        written = part.rsplit(None, 1)[0] if len(part.split()) > 1 else part
        written = _GENERIC.sub("", "".join(written.split()))
        while _GENERIC.search(written):
            written = _GENERIC.sub("", written)
        varargs = "..." if written.endswith("...") else ""
        found.append(written.removesuffix("...").rsplit(".", 1)[-1] + varargs)
    return found


def _parameter_list(signature: str, name: str) -> int | None:
    """Where the `(` after the function's name is (`name(`, `name<T>(`); None when nowhere. (A
    search, not a regex per name: there are as many names as functions.)"""
    start = signature.find(name)
    while start >= 0:
        before = signature[start - 1] if start else " "
        index = start + len(name)
        if not (before.isalnum() or before in "_$"):
            while index < len(signature) and signature[index] == " ":
                index += 1
            if signature.startswith("<", index):
                closing = signature.find(">", index)
                index = closing + 1 if closing > 0 and "(" not in signature[index:closing] else index
                while index < len(signature) and signature[index] == " ":
                    index += 1
            if signature.startswith("(", index):
                return index
        start = signature.find(name, start + 1)
    return None


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
    parts, start = [], 0
    for index in _top_level(text):
        if text[index] == separator:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def _cut(text: str, separator: str) -> tuple[str, str, str]:
    """`text` cut at the first `separator` outside brackets (`=` is not part of `=>`)."""
    for index in _top_level(text):
        if text.startswith(separator, index) and not (separator == "=" and text[index + 1 : index + 2] == ">"):
            return text[:index], separator, text[index + len(separator) :]
    return text, "", ""


def _top_level(text: str) -> Iterator[int]:
    """The positions of the characters of `text` outside brackets, angle brackets and strings
    (the `>` of `=>` closes nothing)."""
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
        elif depth == 0:
            yield index
