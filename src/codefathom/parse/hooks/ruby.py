"""Ruby `require`/`require_relative` calls, and Ruby receivers and values rewritten into the dotted
expressions the binder reads.

A require binds no name (what the file defines is global once loaded); it is kept for the file
dependency it makes: module the path as written, alias "", level 1 for `require_relative` (relative to
the requiring file), 0 for `require` and `load` (through the load path).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text

__all__ = ["parse_import", "plain_name", "rewrite"]

RELATIVE = frozenset({"require_relative"})
_NEW_CALL = re.compile(r"\.new\s*\(")  # `Foo.new(x)`
_NEW_BARE = re.compile(r"\.new\b(?:\s+[^.()]*$)?")  # `Foo.new`, `Foo.new x, y`
_IVAR = re.compile(r"(?<![\w@])@@?(?=[A-Za-z_])")


def parse_import(node: Node) -> list[ImportSite]:
    method = node.child_by_field_name("method")
    arguments = node.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if method is None or first is None or first.type != "string":
        return []
    if any(c.type != "string_content" for c in first.named_children):
        return []  # an interpolated path is known only when it runs
    path = "".join(_text(c) for c in first.named_children).strip()
    if not path:
        return []
    return [ImportSite(path, None, "", node.start_point.row + 1, 1 if _text(method) in RELATIVE else 0)]


def plain_name(text: str) -> str:
    """A name without its sigil: `:total` (attr_reader's symbol), `@repo`, `@@count` -> the name."""
    return text.lstrip(":@")


def rewrite(node: Node, text: str, is_type: bool) -> str:
    """`Shop::Order.new(x).save` -> `Shop.Order(x).save` (an instantiation is a call of the class),
    `@repo` -> `self.repo`, `a&.b` -> `a.b`, `nil` -> `None` (a value to be assigned later)."""
    if text == "nil":
        return "None"
    text = text.replace("&.", ".").replace("::", ".").lstrip(".")
    text = _IVAR.sub("self.", text)
    return _NEW_BARE.sub("()", _NEW_CALL.sub("(", text))
