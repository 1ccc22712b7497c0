"""PHP `use` declarations, and PHP receivers and types rewritten into the dotted expressions the binder
reads.

`use A\\B\\C;` binds C: module "A.B", name "C", alias "C"; `use A\\B\\C as D;` binds D; `use function
A\\f;` and `use const A\\X;` the same (resolution finds the function or constant by its qualified name);
`use A\\{B, C as D};` one site per name, under the group's prefix.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text

__all__ = ["parse_import", "rewrite"]

_ROOTED = re.compile(r"(^|[(\s,|])\.")  # a fully qualified name's leading separator
_VARIABLE = re.compile(r"\$(?=[A-Za-z_])")
_NEW_PARENTHESIZED = re.compile(r"(?<![\w)\]])\(\s*new\s+([\w\\]+)\s*(\([^()]*\))?\s*\)")  # `(new Foo($x))->bar()`
_NEW = re.compile(r"(?:(?<=^)|(?<=[.(\s]))new\s+([\w\\]+)(\s*\()?")


def parse_import(node: Node) -> list[ImportSite]:
    line = node.start_point.row + 1
    group = node.child_by_field_name("body")
    if group is None:
        return [site for clause in _clauses(node) if (site := _site("", clause, line)) is not None]
    prefix = next((c for c in node.named_children if c.type == "namespace_name"), None)
    base = _path(_text(prefix)) if prefix is not None else ""
    return [site for clause in _clauses(group) if (site := _site(base, clause, line)) is not None]


def _clauses(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type == "namespace_use_clause"]


def _site(base: str, clause: Node, line: int) -> ImportSite | None:
    alias = clause.child_by_field_name("alias")
    target = next((c for c in clause.named_children if c.type in ("qualified_name", "name") and c != alias), None)
    if target is None:
        return None
    path = ".".join(p for p in (base, _path(_text(target))) if p)
    module, _, name = path.rpartition(".")
    return ImportSite(module, name, _text(alias) if alias is not None else name, line) if name else None


def rewrite(node: Node, text: str, is_type: bool) -> str:
    """A PHP type as the binder reads types (`?\\App\\Order` -> `App.Order`, `Order|null` as it is), or an
    expression as it reads expressions (`$this->repo?->find($id)` -> `this.repo.find(id)`, `new Foo($x)`
    -> `Foo(x)`, `Foo::bar()` -> `Foo.bar()`)."""
    if is_type:
        return "|".join(_path(part.strip().lstrip("?")) for part in text.split("|"))
    text = _NEW_PARENTHESIZED.sub(lambda m: f"{m.group(1)}{m.group(2) or '()'}", text)
    text = _NEW.sub(lambda m: m.group(1) + ("(" if m.group(2) else "()"), text)
    text = _VARIABLE.sub("", text).replace("?->", ".").replace("->", ".").replace("::", ".")
    return _path(text)


def _path(text: str) -> str:
    """`\\App\\Model\\Order` -> `App.Model.Order`."""
    return _ROOTED.sub(r"\1", text.replace("\\", "."))
