"""Rust imports (`use` trees, `mod foo;`, `extern crate`) and Rust paths, types and receivers
rewritten into the dotted expressions the binder reads.

Each imported path becomes an ImportSite: module = the path without its last segment, joined with
`::`, name = the last segment, alias = the name it binds (`use a::b as c` binds c; a glob's name
and alias are "*"). `mod foo;` is `self::foo` with level 1: it declares the module, where a `use`
of that path could also mean a function re-exported under the module's name. Paths are made
relative to the file's own module: inside `mod tests { ... }` a `super::` means the file (`self`),
a `self::` means `self::tests`.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text
from codefathom.parse.hooks.common import substitute_nested

__all__ = ["parse_import", "rewrite", "inline_modules"]

_PATH_LEAVES = frozenset({"identifier", "self", "super", "crate", "metavariable", "type_identifier"})
_LIFETIME = re.compile(r"'\w+\s*\+?\s*,?\s*")
_REFERENCE = re.compile(r"&\s*(?:mut\s+)?")
_POINTER = re.compile(r"\*\s*(?:const|mut)\s+")
_KEYWORD = re.compile(r"\b(?:dyn|impl)\s+")
_SLICE = re.compile(r"\[([^\[\];]+?)(?:;[^\[\]]*)?\]")
_BINDING = re.compile(r"\b\w+\s*=\s*")
_TURBOFISH = re.compile(r"::<[^<>]*>")
_AWAIT = re.compile(r"\.await\b")
_TRY = re.compile(r"\?(?=\.|$|\))")
_LEADING = re.compile(r"^(?:&\s*(?:mut\s+)?|\*)+")
_SELF_TYPE = re.compile(r"\bSelf\b")
_SCOPED = frozenset({"scoped_identifier", "scoped_type_identifier"})


def parse_import(node: Node) -> list[ImportSite]:
    line = node.start_point.row + 1
    inline = inline_modules(node)
    if node.type == "mod_item":
        name = node.child_by_field_name("name")
        return [ImportSite("::".join(["self", *inline]), _text(name), _text(name), line, 1)] if name else []
    if node.type == "extern_crate_declaration":
        name = node.child_by_field_name("name")
        alias = node.child_by_field_name("alias")
        if name is None or _text(name) == "self":
            return []
        return [ImportSite("", _text(name), _text(alias) if alias is not None else _text(name), line)]
    argument = node.child_by_field_name("argument")
    if argument is None:
        return []
    sites = []
    for path, bound, glob in _use_tree(argument, []):
        parts = _relative(path, inline)
        if not parts:
            continue
        if glob:
            sites.append(ImportSite("::".join(parts), "*", "*", line))
        elif bound != "_":  # `use Trait as _;` brings a trait's methods, and binds no name
            sites.append(ImportSite("::".join(parts[:-1]), parts[-1], bound or parts[-1], line))
    return sites


def _use_tree(node: Node, prefix: list[str]) -> list[tuple[list[str], str | None, bool]]:
    """(path, alias, is a glob) of each name a use tree imports."""
    kind = node.type
    if kind in _PATH_LEAVES or kind == "scoped_identifier":
        path = prefix + _segments(node)
        if path and path[-1] == "self":  # `a::b::{self}` imports the module b
            path = path[:-1]
        return [(path, None, False)] if path else []
    if kind == "use_as_clause":
        path_node, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
        path = prefix + (_segments(path_node) if path_node is not None else [])
        if path and path[-1] == "self":
            path = path[:-1]
        return [(path, _text(alias) if alias is not None else None, False)] if path else []
    if kind == "use_wildcard":
        inner = [c for c in node.named_children if c.type in _PATH_LEAVES or c.type == "scoped_identifier"]
        return [(prefix + (_segments(inner[0]) if inner else []), None, True)]
    if kind == "scoped_use_list":
        path_node, listed = node.child_by_field_name("path"), node.child_by_field_name("list")
        inner_prefix = prefix + (_segments(path_node) if path_node is not None else [])
        return _use_tree(listed, inner_prefix) if listed is not None else []
    if kind == "use_list":
        return [site for child in node.named_children for site in _use_tree(child, prefix)]
    return []


def _segments(node: Node) -> list[str]:
    if node.type == "scoped_identifier":
        path, name = node.child_by_field_name("path"), node.child_by_field_name("name")
        return (_segments(path) if path is not None else []) + ([_text(name)] if name is not None else [])
    return [_text(node)]


def _relative(path: list[str], inline: list[str]) -> list[str]:
    """A path with `self::` and `super::` made relative to the file's module, not the inline
    module the statement is written in."""
    if not path:
        return path
    if path[0] == "self":
        return ["self", *inline, *path[1:]]
    if path[0] == "super":
        ups = next((i for i, part in enumerate(path) if part != "super"), len(path))
        if ups <= len(inline):
            return ["self", *inline[: len(inline) - ups], *path[ups:]]
        return ["super"] * (ups - len(inline)) + path[ups:]
    return path


def inline_modules(node: Node) -> list[str]:
    """The names of the `mod name { ... }` blocks around a node, outermost first."""
    names = []
    current = node.parent
    while current is not None:
        if current.type == "mod_item":
            name = current.child_by_field_name("name")
            if name is not None:
                names.append(_text(name))
        current = current.parent
    return names[::-1]


def rewrite(node: Node, text: str, is_type: bool) -> str:
    """A Rust type as the binder reads types (`&'a mut Vec<Foo>` -> `Vec[Foo]`, `[Foo]` ->
    `Vec[Foo]`, `Self` -> the impl's type), or a path or expression as it reads expressions
    (`a::b::f(x)?.g().await` -> `a.b.f(x).unwrap().g()`, `Vec::<u8>::new` -> `Vec.new`)."""
    text = " ".join(text.split())
    # A pass is skipped when the text lacks what every match of it holds: most texts are plain
    # names, and looking costs far less than a regex pass.
    if is_type:
        if "'" in text:
            text = _LIFETIME.sub("", text)
        if "&" in text:
            text = _REFERENCE.sub("", text)
        if "*" in text:
            text = _POINTER.sub("", text)
        text = _KEYWORD.sub("", text)
        if "=" in text:
            text = _BINDING.sub("", text)  # `Iterator<Item = Foo>`
        text = _first_bound(text)
        if "[" in text:
            text = substitute_nested(_SLICE, r"Vec<\1>", text)
        impl_type = _impl_type(node)
        if impl_type:
            text = _SELF_TYPE.sub(impl_type, text)
        text = _path(node, text)
        return text.replace("<", "[").replace(">", "]")
    if "::<" in text:
        text = substitute_nested(_TURBOFISH, "", text)
    if ".await" in text:
        text = _AWAIT.sub("", text)
    if "?" in text:
        text = _TRY.sub(".unwrap()", text)
    text = _LEADING.sub("", text)
    return _path(node, text)


def _path(node: Node, text: str) -> str:
    """`crate::a::b` -> `crate.a.b`; `self::a` -> `a`; `super::a` -> `super.a`, or `a` inside an
    inline module (whose `super` is the file). A bare `self` or `super` that is the path of a
    `self::f()` or `super::f()` call is the module: nothing, or `super`."""
    parent = node.parent
    if text in ("self", "super") and parent is not None and parent.type in _SCOPED and \
            parent.child_by_field_name("path") == node:
        text += "::"
    if text.startswith("self::"):
        text = text[len("self::"):]
    elif text.startswith("super::"):
        depth = len(inline_modules(node))
        while depth and text.startswith("super::"):
            text, depth = text[len("super::"):], depth - 1
    return text.removesuffix("::").replace("::", ".")


def _first_bound(text: str) -> str:
    """`Foo + Send + 'static` -> `Foo`: the first of several bounds outside brackets."""
    if "+" not in text:
        return text  # one bound, most types: no walk
    depth = 0
    for position, char in enumerate(text):
        if char in "<([":
            depth += 1
        elif char in ">)]":
            depth -= 1
        elif char == "+" and depth == 0:
            return text[:position].strip()
    return text


def _impl_type(node: Node) -> str:
    """The name of the type whose impl block a node is in (`Foo` for `impl<T> Tr for a::Foo<T>`);
    empty in a trait, where `Self` is any implementing type."""
    current = node.parent
    while current is not None and current.type not in ("impl_item", "trait_item"):
        current = current.parent
    if current is None or current.type == "trait_item":
        return ""
    written = current.child_by_field_name("type")
    while written is not None and written.type in ("generic_type", "reference_type"):
        written = written.child_by_field_name("type")
    if written is None or written.type not in ("type_identifier", "scoped_type_identifier"):
        return ""
    return _text(written)
