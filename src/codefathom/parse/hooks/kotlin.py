"""Kotlin imports (`import a.b.C`, `import a.b.*`, `import a.b.C as D`) and Kotlin types and receivers
rewritten into the dotted expressions the binder reads.

An import binds its last name (a class, an object, a top-level function or property, an extension
function): module `a.b`, name `C`, alias `C` or the one `as` gives. `import a.b.*` binds every name of
the package (or class) it names, like Java's: name and alias "*". Resolution is Java's
(graph/java.py), whose packages hold both languages' files.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import conversions_as_calls, without_trailing_lambdas
from codefathom.parse.hooks.common import node_text as _text

__all__ = ["parse_import", "rewrite"]

# `<...>` written right after a name and before `(` or `{`: a call's type arguments, kept as `[...]`
# (`listOf<Order>()` -> `listOf[Order]()`): graph/resolve.py applies them to factories and ignores
# them elsewhere. Comparisons (`a < b && c > (d)`) hold characters a type argument list never does.
_TYPE_ARGUMENTS = re.compile(r"(?<=[\w>])<([\w.,\s?*<>]*)>(?=\s*[({])")
_NOT_NULL = re.compile(r"!!")
_LABEL = re.compile(r"\b(this|super)@\w+")  # `this@Outer`, `super@Outer`
_SUPER_TYPE = re.compile(r"\bsuper<[\w.]+>")  # `super<Base>.f()`: Base's, read as the superclass's
_AS = re.compile(r"^(.+?)\s+as\??\s+([\w.]+)$", re.S)  # `x as Foo`, `x as? Foo`, inside parentheses
_TYPE_NOISE = re.compile(r"@[\w.:]+(?:\([^()]*\))?\s*|\b(?:in|out|suspend)\s+|[?!]|\s+")
# The grammar reads `!file.exists()` as `(!file).exists()`: a prefix operator is not the receiver's.
_PREFIX = re.compile(r"^[!+-]+(?=[\w(])")
# Scope functions that give back their receiver (`Foo().apply { }.bar()` is Foo's bar).
_SAME_RECEIVER = re.compile(r"\.(?:also|apply)\(\)")


def parse_import(node: Node) -> list[ImportSite]:
    path_node = next((c for c in node.named_children if c.type in ("qualified_identifier", "identifier")), None)
    if path_node is None:
        return []
    path = "".join(_text(path_node).split())
    line = node.start_point.row + 1
    if any(c.type == "*" for c in node.children):
        return [ImportSite(path, "*", "*", line)]
    alias_node = next((c for c in node.named_children if c.type == "identifier" and c.id != path_node.id), None)
    module, _, name = path.rpartition(".")
    alias = _text(alias_node) if alias_node is not None else name
    return [ImportSite(module, name, alias, line)] if name else []


def rewrite(node: Node, text: str, is_type: bool) -> str:
    """A Kotlin type as the binder reads types (`Map<K, List<V>>?` -> `Map[K, List[V]]`), the qualifier
    of a qualified type (`a.b.Outer.Inner<X>` read as a receiver -> `a.b.Outer`), or an expression as it
    reads expressions (`repo?.find(x)!!.name` -> `repo.find(x).name`, `xs.filter { }.first()` ->
    `xs.filter().first()`, `Foo().apply { }` -> `Foo()`, `(x as Foo).f` -> `Foo(x).f`)."""
    if node.type == "user_type" and not is_type:  # the receiver of a qualified type's last name
        names = [_text(c) for c in node.named_children if c.type == "identifier"]
        return ".".join(names[:-1])
    if is_type:
        return _TYPE_NOISE.sub("", text).replace("<", "[").replace(">", "]")
    if node.type == "as_expression":  # `val x = y as Foo`
        text = f"({text})"
    text = without_trailing_lambdas(text)
    text = _SUPER_TYPE.sub("super", _LABEL.sub(r"\1", text))
    text = _SAME_RECEIVER.sub("", _PREFIX.sub("", _NOT_NULL.sub("", text).replace("?.", ".")))
    text = _TYPE_ARGUMENTS.sub(lambda m: "[" + m.group(1).replace("<", "[").replace(">", "]") + "]", text)
    return conversions_as_calls(text, _AS)


