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

__all__ = ["parse_import", "rewrite", "argument_type"]

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
    # A pass is skipped when the text lacks what every match of it holds: most texts are plain
    # names, and looking costs far less than a regex pass.
    if is_type:
        if "@" in text:
            text = _ANNOTATION.sub("", text)
        if "?" in text:
            text = _WILDCARD.sub("", text)
        if "[]" in text:
            text = substitute_nested(_ARRAY, r"Array[\1]", text)
        return text.replace("<", "[").replace(">", "]")
    if "new" in text:
        text = _NEW.sub("", text)
    if "<" in text:
        text = substitute_nested(_TYPE_ARGUMENTS, "", text)
    return conversions_as_calls(text, _CAST)


MAX_ARGUMENT_TEXT = 120  # longer expressions are not evaluated for their type
_LITERALS = {
    "string_literal": "String", "text_block": "String", "character_literal": "char", "true": "boolean",
    "false": "boolean", "null_literal": "null", "class_literal": "Class",
}
_INTEGERS = frozenset({
    "decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal",
})


def argument_type(node: Node) -> str:
    """The type of a call's argument as the code writes it: a literal's, a cast's or a `new`'s
    type (without type arguments), `=name` for a variable (the binder knows its type), else `?`."""
    kind = node.type
    if kind in _LITERALS:
        return _LITERALS[kind]
    if kind in _INTEGERS:
        return "long" if _text(node).rstrip().endswith(("l", "L")) else "int"
    if kind in ("decimal_floating_point_literal", "hex_floating_point_literal"):
        return "float" if _text(node).rstrip().endswith(("f", "F")) else "double"
    if kind in ("cast_expression", "object_creation_expression", "array_creation_expression"):
        written = node.child_by_field_name("type")
        if written is None:
            return "?"
        name = substitute_nested(_TYPE_ARGUMENTS, "", "".join(_text(written).split())).rsplit(".", 1)[-1]
        if kind == "array_creation_expression":
            name += "[]" * max(1, sum(1 for c in node.named_children if c.type in ("dimensions", "dimensions_expr")))
        return name if name.replace("[]", "").isidentifier() else "?"
    if kind == "identifier":
        return f"={_text(node)}"
    field = node.child_by_field_name("field") if kind == "field_access" else None
    if field is not None and _text(field) == "length":
        return "int"  # an array's length
    if kind in ("method_invocation", "field_access", "parenthesized_expression"):
        text = " ".join(_text(node).split())
        return f"={rewrite(node, text, False)}" if len(text) <= MAX_ARGUMENT_TEXT and "\t" not in text else "?"
    return "?"
