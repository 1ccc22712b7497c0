"""Text helpers the per-language hooks share: a node's text, and the head of an expression written
in parentheses (`(x as Foo).f`) and trailing lambdas, which several languages' rewriters take apart.
"""

from __future__ import annotations

import re

from tree_sitter import Node

__all__ = ["node_text", "parenthesized_head", "without_trailing_lambdas", "conversions_as_calls", "substitute_nested"]

_STRING_QUOTES = "\"'"


def node_text(node: Node | None) -> str:
    return "" if node is None else (node.text or b"").decode("utf-8", errors="replace")


def parenthesized_head(text: str) -> tuple[str, str] | None:
    """(what the leading parentheses hold, what follows them) of `(a as B).c`, or None when the
    text does not start with a balanced parenthesized expression."""
    if not text.startswith("("):
        return None
    depth = 0
    for position, char in enumerate(text):
        depth += 1 if char == "(" else -1 if char == ")" else 0
        if depth == 0:
            return text[1:position].strip(), text[position + 1 :]
    return None


def without_trailing_lambdas(text: str) -> str:
    """Trailing lambdas (Kotlin) and closures (Swift) dropped: `f { x }` -> `f()`, `f(a) { x }` ->
    `f(a)`; a call's result does not depend on them for the binder (`xs.filter { it.ok }.first()`)."""
    if "{" not in text:
        return text
    kept: list[str] = []
    depth = 0
    quote = ""
    for char in text:
        if quote:
            if depth == 0:
                kept.append(char)
            if char == quote:
                quote = ""
            continue
        if char in _STRING_QUOTES:
            quote = char
        elif char == "{":
            if depth == 0:
                before = "".join(kept).rstrip()
                kept = list(before)
                if not before.endswith(")"):
                    kept.append("()")
            depth += 1
            continue
        elif char == "}":
            depth = max(depth - 1, 0)
            continue
        if depth == 0:
            kept.append(char)
    return "".join(kept)


def conversions_as_calls(text: str, conversion: re.Pattern[str]) -> str:
    """`(x as Foo).f` as `Foo(x).f`: a conversion (`conversion` matches the inside of the parentheses,
    groups: the value, the type) is read as a call of the type, which gives an instance of it; other
    parentheses around a head are dropped (`(a.b).c` -> `a.b.c`)."""
    head = parenthesized_head(text)
    if head is None:
        return text
    inner, rest = head
    found = conversion.match(inner)
    inner = f"{found.group(2)}({found.group(1)})" if found is not None else conversions_as_calls(inner, conversion)
    return inner + rest


def substitute_nested(pattern: re.Pattern[str], replacement: str, text: str, rounds: int = 4) -> str:
    """`pattern` replaced until nothing changes, innermost first: type arguments and array
    suffixes nest (`Map<K, List<V>>`, `Foo[][]`), and one pass of a regex takes one level."""
    for _ in range(rounds):
        replaced = pattern.sub(replacement, text)
        if replaced == text:
            break
        text = replaced
    return text
