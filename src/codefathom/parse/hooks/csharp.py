"""C# `using` directives and C# types and receivers rewritten into the dotted expressions the binder
reads.

`using A.B;` brings every type of the namespace A.B, like Java's `import a.b.*`: module "A.B", name
and alias "*". `using static A.B.C;` is the same with the class as the module (resolution tells
namespaces from classes). `using X = A.B.C;` binds X: module "A.B", name "C", alias "X". `global
using` is read as a using of the file that writes it.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text
from codefathom.parse.hooks.common import parenthesized_head, substitute_nested

__all__ = ["parse_import", "rewrite"]

_TARGETS = frozenset({"identifier", "qualified_name", "alias_qualified_name", "generic_name"})
_GLOBAL = re.compile(r"\bglobal::")
_TYPE_ARGUMENTS = re.compile(r"<[^<>]*>")
_NEW = re.compile(r"(?:(?<=^)|(?<=[.(\s]))new\s+")
# `new Foo { P = 1 }`, `new Foo(x) { P = 1 }`: an object initializer after the constructor's arguments.
_INITIALIZED = re.compile(r"\bnew\s+([\w.<>\[\], ]+?)\s*(\([^()]*\))?\s*\{[^{}]*\}")
_AWAIT = re.compile(r"^await\s+")
_ARRAY = re.compile(r"([\w.]+(?:<[^<>]*>)?)\[,*\]")
_SUPPRESS = re.compile(r"!(?=[.\[(]|$)")  # `x!.y`: the null-forgiving operator
_VERBATIM = re.compile(r"(?<![\w\"])@(?=[A-Za-z_])")  # `@class` is the identifier `class`
_CAST = re.compile(r"^\(\s*([\w.\[\], ]+?)\s*\)\s*(.+)$", re.S)  # `(Foo)x`, inside parentheses
_TYPE_MODIFIERS = re.compile(r"^(?:ref\s+|readonly\s+|scoped\s+)+")
_AS = re.compile(r"^(.+?)\s+as\s+([\w.\[\], ]+)$", re.S)  # `x as Foo`, inside parentheses


def parse_import(node: Node) -> list[ImportSite]:
    alias_node = node.child_by_field_name("name")
    target = next(
        (c for c in node.named_children if c.type in _TARGETS and (alias_node is None or c.id != alias_node.id)), None
    )
    if target is None:
        return []
    path = _TYPE_ARGUMENTS.sub("", _GLOBAL.sub("", "".join(_text(target).split())))
    line = node.start_point.row + 1
    if alias_node is None:
        return [ImportSite(path, "*", "*", line)] if path else []
    module, _, name = path.rpartition(".")
    return [ImportSite(module, name, _text(alias_node), line)] if name else []


def rewrite(node: Node, text: str, is_type: bool) -> str:
    """A C# type as the binder reads types (`Dictionary<string, List<Foo>>` -> `Dictionary[string,
    List[Foo]]`, `Foo[]` -> `Array[Foo]`, `Foo?` -> `Foo`), or an expression as it reads expressions
    (`new Foo(x).Bar()` -> `Foo(x).Bar()`, `a?.B()` -> `a.B()`, `await F()` -> the task's result)."""
    # A pass is skipped when the text lacks what every match of it holds: most texts are plain
    # names, and looking costs far less than a regex pass.
    if "global::" in text:
        text = _GLOBAL.sub("", text)
    if is_type:
        text = text.replace("?", "").replace("*", "")
        text = _TYPE_MODIFIERS.sub("", text)
        if "[" in text:
            text = substitute_nested(_ARRAY, r"Array[\1]", text)
        return text.replace("<", "[").replace(">", "]")
    if "@" in text:
        text = _VERBATIM.sub("", text)
    text = text.replace("?.", ".").replace("?[", "[")
    if "!" in text:
        text = _SUPPRESS.sub("", text)
    if "new" in text:
        text = _INITIALIZED.sub(lambda m: f"new {m.group(1)}{m.group(2) or '()'}", text)
        text = _NEW.sub("", text)
    if "<" in text:
        text = substitute_nested(_TYPE_ARGUMENTS, "", text)
    return _expression(text)


def _expression(text: str) -> str:
    """What `await` gives is the result of the task the expression is (`Task[Foo]` -> Foo, through
    the spec's element methods)."""
    if _AWAIT.match(text):
        return f"{_converted(_AWAIT.sub('', text))}.GetAwaiter().GetResult()"
    return _converted(text)


def _converted(text: str) -> str:
    """`((Foo)x).Bar` and `(x as Foo).Bar` as `Foo(x).Bar`: a conversion is read as a call of the
    type, which gives an instance of it; other parentheses are dropped (`(a.b).c` -> `a.b.c`)."""
    head = parenthesized_head(text)
    if head is None:
        return text
    inner, rest = head
    cast, conversion = _CAST.match(inner), _AS.match(inner)
    if cast is not None:
        inner = f"{cast.group(1)}({cast.group(2)})"
    elif conversion is not None:
        inner = f"{conversion.group(2)}({conversion.group(1)})"
    else:
        inner = _expression(inner)
    return inner + rest
