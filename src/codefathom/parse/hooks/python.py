"""Python imports: `import a.b as c`, `from ..pkg import x as y`, `from m import *`.

Each imported name becomes an ImportSite bound to the local name Python binds.
"""

from __future__ import annotations

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text

__all__ = ["parse_import"]


def parse_import(node: Node) -> list[ImportSite]:
    line = node.start_point.row + 1
    if node.type == "import_statement":
        sites = []
        for child in node.children_by_field_name("name"):
            module, alias = _name_and_alias(child)
            # `import a.b` binds `a`; `import a.b as c` binds `c` to a.b.
            sites.append(ImportSite(module, None, alias or module.split(".")[0], line))
        return sites
    module_node = node.child_by_field_name("module_name")
    if module_node is None:
        return []
    level, module = _module_of(module_node)
    sites = []
    for child in node.children_by_field_name("name"):
        name, alias = _name_and_alias(child)
        sites.append(ImportSite(module, name, alias or name, line, level))
    if any(c.type == "wildcard_import" for c in node.children):
        sites.append(ImportSite(module, "*", "*", line, level))
    return sites


def _name_and_alias(node: Node) -> tuple[str, str | None]:
    if node.type == "aliased_import":
        name = node.child_by_field_name("name")
        alias = node.child_by_field_name("alias")
        return _text(name), _text(alias) if alias is not None else None
    return _text(node), None


def _module_of(node: Node) -> tuple[int, str]:
    if node.type != "relative_import":
        return 0, _text(node)
    level = 0
    module = ""
    for child in node.children:
        if child.type == "import_prefix":
            level = len(_text(child).strip())
        elif child.type == "dotted_name":
            module = _text(child)
    return level, module
