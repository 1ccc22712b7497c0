"""Swift imports (`import Shop`, `@testable import Shop`, `import struct Shop.Order`) and Swift types
and receivers rewritten into the dotted expressions the binder reads.

`import Shop` brings every top-level declaration of the module Shop, like Java's `import a.b.*`:
module "Shop", name and alias "*" (a submodule, `import Foundation.NSData`, is its module's). `import
struct Shop.Order` binds one name: module "Shop", name and alias "Order". Resolution: graph/swift.py.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import conversions_as_calls, without_trailing_lambdas
from codefathom.parse.hooks.common import node_text as _text

__all__ = ["parse_import", "rewrite"]

_IMPORT_KINDS = frozenset({"typealias", "struct", "class", "enum", "protocol", "let", "var", "func", "actor"})
# `try`, `try?`, `try!`, `await`, `consume`, `copy` in front of an expression: its value is the expression's.
_EFFECTS = re.compile(r"^(?:(?:try[?!]?|await|consume|copy)\s+)+")
# `x!.y`, `x?.y`, `f()!`: unwrapping gives the optional's value, which the binder types alike.
_UNWRAP = re.compile(r"(?<=[\w)\]])[!?](?=[.\[)]|$)")
_INIT = re.compile(r"\.init(?=\()")  # `Foo.init(x)` is `Foo(x)`
# `<...>` right after a name and before `(`: a call's type arguments, kept as `[...]` (`Set<Order>()`).
_TYPE_ARGUMENTS = re.compile(r"(?<=\w)<([\w.,\s?<>\[\]:]*)>(?=\()")
_AS = re.compile(r"^(.+?)\s+as[?!]?\s+([\w.]+)$", re.S)  # `x as? Foo`, inside parentheses
_TYPE_NOISE = re.compile(r"@\w+(?:\([^()]*\))?\s*|\b(?:inout|some|any|borrowing|consuming)\s+|\.Type\b|[?!]|\s+")


def parse_import(node: Node) -> list[ImportSite]:
    path_node = next((c for c in node.named_children if c.type == "identifier"), None)
    if path_node is None:
        return []
    parts = [_text(c) for c in path_node.named_children if c.type == "simple_identifier"]
    if not parts:
        return []
    line = node.start_point.row + 1
    if len(parts) > 1 and any(c.type in _IMPORT_KINDS for c in node.children if not c.is_named):
        return [ImportSite(".".join(parts[:-1]), parts[-1], parts[-1], line)]
    return [ImportSite(parts[0], "*", "*", line)]


def rewrite(node: Node, text: str, is_type: bool) -> str:
    """A Swift type as the binder reads types (`[String: [Order]]?` -> `Dictionary[String,
    Array[Order]]`, `Set<Order>` -> `Set[Order]`, `some Shape` -> `Shape`), the qualifier of a
    qualified type (`Outer.Inner` read as a receiver -> `Outer`), or an expression as it reads
    expressions (`try? repo?.find(x)!.name` -> `repo.find(x).name`, `xs.filter { }.first` ->
    `xs.filter().first`, `(x as? Foo)?.f` -> `Foo(x).f`, `Foo.init(x)` -> `Foo(x)`)."""
    if node.type == "user_type" and not is_type:  # the receiver of a qualified type's last name
        names = [_text(c) for c in node.named_children if c.type == "type_identifier"]
        return ".".join(names[:-1])
    if is_type:
        return _type(_TYPE_NOISE.sub("", text))
    if node.type == "as_expression":  # `let x = y as? Foo`
        text = f"({text})"
    text = without_trailing_lambdas(_EFFECTS.sub("", text))
    text = _INIT.sub("", _UNWRAP.sub("", text.replace("?.", ".").replace("!.", ".")))
    text = _TYPE_ARGUMENTS.sub(lambda m: "[" + _type(_TYPE_NOISE.sub("", m.group(1))) + "]", text)
    return conversions_as_calls(text, _AS)


def _type(text: str) -> str:
    """`[K: V]` -> `Dictionary[K, V]`, `[T]` -> `Array[T]`, `A<B, C>` -> `A[B, C]`, inside out; a
    function or tuple type is left as written (the binder reads nothing of it)."""
    if text.startswith("[") and text.endswith("]") and _closing(text, 0, "[", "]") == len(text) - 1:
        parts = _split_top(text[1:-1], ":")
        if len(parts) == 2:
            return f"Dictionary[{_type(parts[0])}, {_type(parts[1])}]"
        return f"Array[{_type(text[1:-1])}]"
    start = text.find("<")
    if start > 0 and text.endswith(">") and _closing(text, start, "<", ">") == len(text) - 1:
        arguments = ", ".join(_type(a) for a in _split_top(text[start + 1 : -1], ","))
        return f"{text[:start]}[{arguments}]"
    return text


def _closing(text: str, start: int, opening: str, closing: str) -> int:
    depth = 0
    for position in range(start, len(text)):
        depth += 1 if text[position] == opening else -1 if text[position] == closing else 0
        if depth == 0:
            return position
    return -1


def _split_top(text: str, separator: str) -> list[str]:
    """`text` split at each `separator` outside brackets."""
    parts: list[str] = []
    depth, start = 0, 0
    for position, char in enumerate(text):
        depth += 1 if char in "[<(" else -1 if char in "]>)" else 0
        if char == separator and depth == 0:
            parts.append(text[start:position])
            start = position + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


