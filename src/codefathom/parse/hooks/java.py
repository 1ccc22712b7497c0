"""Java imports (`import a.b.C;`, `import a.b.*;`, `import static a.b.C.m;`) and Java types and
receivers rewritten into the dotted expressions the binder reads.

A single-type import binds its last name: module `a.b`, name `C`. An on-demand import binds every
name of the package (or class) it names, like Python's `*`: name and alias "*". A static import is
the same with the class as the module (`a.b.C`, `m`); resolution tells packages from classes.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import conversions_as_calls, substitute_nested
from codefathom.parse.hooks.common import node_text as _text

__all__ = ["parse_import", "rewrite"]

_NEW = re.compile(r"(?:(?<=^)|(?<=[.(\s]))new\s+")
_TYPE_ARGUMENTS = re.compile(r"<[^<>]*>")
_ARRAY = re.compile(r"(\S+?)\[\]")
_WILDCARD = re.compile(r"\?\s*(?:extends|super)\s+|\?")
_ANNOTATION = re.compile(r"@[\w.]+(?:\([^()]*\))?\s*")
# `(Foo) x` inside parentheses, read as `Foo(x)` (an instance of Foo); groups: the value, the type.
_CAST = re.compile(r"^(?=\(\s*[\w.]+(?:\[\])*\s*\)\s*(\S.*)$)\(\s*([\w.]+(?:\[\])*)\s*\)", re.S)


def parse_import(node: Node) -> list[ImportSite]:
    path_node = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
    if path_node is None:
        return []
    path = "".join(_text(path_node).split())
    line = node.start_point.row + 1
    if any(c.type == "asterisk" for c in node.children):
        return [ImportSite(path, "*", "*", line)]
    module, _, name = path.rpartition(".")
    return [ImportSite(module, name, name, line)] if name else []


def rewrite(node: Node, text: str, is_type: bool) -> str:
    """A Java type as the binder reads types (`Map<K, List<V>>` -> `Map[K, List[V]]`, `Foo[]` ->
    `Array[Foo]`), or an expression as it reads expressions (`new Foo<>(x).bar()` -> `Foo(x).bar()`)."""
    if is_type:
        text = _ANNOTATION.sub("", text)
        text = _WILDCARD.sub("", text)
        text = substitute_nested(_ARRAY, r"Array[\1]", text)
        return text.replace("<", "[").replace(">", "]")
    text = _NEW.sub("", text)
    text = substitute_nested(_TYPE_ARGUMENTS, "", text)
    return conversions_as_calls(text, _CAST)
