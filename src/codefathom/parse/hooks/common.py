"""Text helpers the per-language hooks share: a node's text, and the head of an expression written
in parentheses (`(x as Foo).f`), which several languages' rewriters take apart.
"""

from __future__ import annotations

from tree_sitter import Node

__all__ = ["node_text", "parenthesized_head"]


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
