"""Go imports: `import "a/b"`, `import c "a/b"`, `import . "a/b"`, `import _ "a/b"`.

Each import spec binds its package under the explicit name, else the path's last element (the
package name by convention). A dot import brings every exported name, like Python's `*`: its
alias is "*"; a blank import's is "_".
"""

from __future__ import annotations

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text

__all__ = ["parse_import"]


def parse_import(node: Node) -> list[ImportSite]:
    path_node = node.child_by_field_name("path")
    if path_node is None:
        return []
    path = _text(path_node).strip("\"`")
    if not path:
        return []
    name = node.child_by_field_name("name")
    alias = _text(name) if name is not None else path.rstrip("/").rsplit("/", 1)[-1]
    if alias == ".":
        alias = "*"
    return [ImportSite(path, None, alias, node.start_point.row + 1)]
