"""Scala imports (`import a.b.C`, `import a.b._`, `import a.b.*`, `import a.b.{C, D => E, F => _}`,
`import a.B, c.D`) and Scala types and receivers rewritten into the dotted expressions the binder reads.

An import binds its last names (a class, an object, a trait, a top-level def or val): module `a.b`,
name `C`, alias `C` or the one `=>` (Scala 3: `as`) gives; a selector renamed to `_` hides the name and
binds nothing. `import a.b._` binds every name of the package (or object) it names, like Java's `*`.
Resolution is Java's (graph/java.py), whose packages hold the JVM languages' files.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text
from codefathom.parse.hooks.common import parenthesized_head, without_trailing_lambdas

__all__ = ["parse_import", "rewrite"]

_WILDCARDS = frozenset({"namespace_wildcard", "wildcard"})
_NEW = re.compile(r"(?:(?<=^)|(?<=[.(\s]))new\s+")
# What a written type holds that says nothing of its class: by-name `=> Foo`, repeated `Foo*`,
# annotations, variance and bounds of wildcards (`_ <: Foo` is read as Foo).
# Members of collections and options written without parentheses (`xs.head.save()`): called, as the
# binder reads element and iterator methods (graph/specs.py's scala row).
_PARAMETERLESS = re.compile(
    r"\.(head|last|headOption|lastOption|get|tail|init|reverse|sorted|distinct|toList|toSeq|toVector|toSet"
    r"|toArray|iterator|view)(?![\w(\[])"
)
_TYPE_NOISE = re.compile(r"^=>\s*|\*$|@[\w.]+(?:\([^()]*\))?\s*|[+-](?=\w)|_\s*<:\s*|\s+")


def parse_import(node: Node) -> list[ImportSite]:
    """Each path of an import declaration (`import a.b.C, d.E` has two: tree-sitter-scala writes one
    declaration node per statement, paths as `path:` identifiers then selectors)."""
    line = node.start_point.row + 1
    sites: list[ImportSite] = []
    path: list[str] = []
    for index, child in enumerate(node.children):
        kind = child.type
        if node.field_name_for_child(index) == "path" and kind == "identifier":
            path.append(_text(child))
        elif kind in _WILDCARDS:
            sites.append(ImportSite(".".join(path), "*", "*", line))
            path = []
        elif kind == "namespace_selectors":
            sites.extend(_selectors(".".join(path), child, line))
            path = []
        elif kind == "," and path:
            sites.append(_single(path, line))
            path = []
        elif kind == "as_renamed_identifier" or kind == "arrow_renamed_identifier":  # `import a.B as C`
            name, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
            if name is not None and alias is not None and _text(alias) != "_":
                sites.append(ImportSite(".".join(path), _text(name), _text(alias), line))
            path = []
    if path:
        sites.append(_single(path, line))
    return [site for site in sites if site.name]


def _single(path: list[str], line: int) -> ImportSite:
    module, _, name = ".".join(path).rpartition(".")
    return ImportSite(module, name, name, line)


def _selectors(module: str, node: Node, line: int) -> list[ImportSite]:
    sites = []
    for child in node.named_children:
        if child.type == "identifier":
            sites.append(ImportSite(module, _text(child), _text(child), line))
        elif child.type in _WILDCARDS:
            sites.append(ImportSite(module, "*", "*", line))
        elif child.type in ("arrow_renamed_identifier", "as_renamed_identifier"):
            name, alias = child.child_by_field_name("name"), child.child_by_field_name("alias")
            if name is not None and alias is not None and _text(alias) != "_":  # `C => _` hides C
                sites.append(ImportSite(module, _text(name), _text(alias), line))
    return sites


def rewrite(node: Node, text: str, is_type: bool) -> str:
    """A Scala type as the binder reads types (`=> Seq[Foo]` -> `Seq[Foo]`, `Foo*` -> `Foo`), the
    qualifier of a qualified name (`a.b` of `a.b.Foo`: the node is the qualifier itself), or an
    expression as it reads expressions (`new Foo(x).f` -> `Foo(x).f`, `xs.map { o => o }.head` ->
    `xs.map().head`, `(x: Foo).f` -> `Foo(x).f`)."""
    if is_type:
        return _TYPE_NOISE.sub("", text)
    text = _PARAMETERLESS.sub(r".\1()", _NEW.sub("", without_trailing_lambdas(text)))
    head = parenthesized_head(text)
    if head is not None:  # `(a.b).c`, and the type ascription `(x: Foo).f`, read as a conversion
        inner, rest = head
        value, colon, written = inner.rpartition(":")
        if colon and re.fullmatch(r"\s*[\w.]+\s*", written) and value.strip():
            return f"{written.strip()}({value.strip()}){rest}"
        return inner + rest
    return text
