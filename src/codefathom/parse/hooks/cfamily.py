"""C and C++ includes and `using` declarations as imports, and C/C++ types and receivers rewritten
into the dotted expressions the binder reads.

`#include "a/b.h"` is an import of module `a/b.h` (`<stdio.h>` keeps its brackets: it is looked for
in include directories only) that brings every name the header defines, like Python's `*`.
`using namespace a::b;` brings a namespace's names (module `a.b`, name "namespace", alias "*");
`using a::b::f;` binds `f` (module `a.b`, name `f`).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text
from codefathom.parse.hooks.common import substitute_nested

__all__ = ["parse_import", "rewrite_c", "rewrite_cpp", "NAMESPACE_IMPORT"]

NAMESPACE_IMPORT = "namespace"  # the name of a `using namespace` import
_QUALIFIERS = re.compile(
    r"\b(?:const|volatile|restrict|__restrict|struct|union|enum|class|typename|static|inline|extern|register|"
    r"mutable|constexpr|signed|unsigned|short|long)\b"
)
_TEMPLATE = re.compile(r"<[^<>]*>")
_CAST = re.compile(r"\b(?:static|dynamic|reinterpret|const)_cast<\s*([\w:]+)[\s*&]*>")
_SUBSCRIPT = re.compile(r"\[[^\[\]]*\]")
_DEREFERENCE = re.compile(r"\(\s*[*&]+\s*([\w.]+)\s*\)")
_NEW = re.compile(r"(?:(?<=^)|(?<=[.(\s]))new\s+")


def parse_import(node: Node) -> list[ImportSite]:
    line = node.start_point.row + 1
    if node.type == "preproc_include":
        path = node.child_by_field_name("path")
        if path is None:
            return []
        written = _text(path).strip()
        module = written if written.startswith("<") else written.strip('"')
        return [ImportSite(module, None, "*", line)] if module.strip("<>") else []
    named = [c for c in node.named_children if c.type in ("identifier", "qualified_identifier")]
    if not named:
        return []
    dotted = "".join(_text(named[0]).split()).lstrip(":").replace("::", ".")
    if any(c.type == "namespace" for c in node.children):
        return [ImportSite(dotted, NAMESPACE_IMPORT, "*", line)]
    module, _, name = dotted.rpartition(".")
    return [ImportSite(module, name, name, line)] if module and name else []


def rewrite_c(node: Node, text: str, is_type: bool) -> str:
    """A C type as the binder reads types (`const struct foo *` -> `foo`), or an expression as it
    reads expressions (`(*p)->q[i].f` -> `p.q.f`: an element of a pointer or array has the type
    written for it, so subscripts are dropped)."""
    if is_type:
        return _type(text, cpp=False)
    return _SUBSCRIPT.sub("", _expression(node, text))


def rewrite_cpp(node: Node, text: str, is_type: bool) -> str:
    """A C++ type (`const std::vector<ns::Order>&` -> `vector[ns.Order]`) or expression
    (`new Foo(x)->bar` -> `Foo(x).bar`, `a::b::f` reached through `a.b`, `static_cast<Foo*>(p)` ->
    `Foo(p)`)."""
    if is_type:
        return _type(text, cpp=True)
    return _expression(node, text)


def _type(text: str, cpp: bool) -> str:
    text = _QUALIFIERS.sub(" ", text.replace("std::", "").lstrip(":"))
    text = re.sub(r"[*&]+|\[[^\]]*\]", " ", text).replace("::", ".")
    if cpp:
        text = text.replace("<", "[").replace(">", "]")
        return re.sub(r"\s*([\[\],])\s*", r"\1", " ".join(text.split()))
    words = text.split()
    return words[-1] if words else "int"  # `unsigned` alone is an int


def _expression(node: Node, text: str) -> str:
    if node.type == "qualified_identifier":  # the scope a name is reached through: `a::b` of `a::b::f`
        while node.parent is not None and node.parent.type == "qualified_identifier":
            node = node.parent
        text = _text(node).rpartition("::")[0]
    text = _CAST.sub(r"\1", " ".join(text.split()))
    text = _NEW.sub("", text)
    text = substitute_nested(_TEMPLATE, "", text)
    text = text.replace("->", ".").replace("::", ".").lstrip(".")
    text = _DEREFERENCE.sub(r"\1", text)
    return text.lstrip("*&").strip()
