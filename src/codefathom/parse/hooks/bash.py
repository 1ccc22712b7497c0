"""Bash `source` and `.` commands: the file each one reads, as written or relative to the script,
and a trap handler's name without its quotes.

A sourced file binds no name of its own (what it defines is global once it runs); it is kept for the
file dependency it makes and for the functions it brings (graph/shell.py): module the path, alias "",
level 0 for a literal path (`source lib/x.sh`, `. ./x.sh`), 1 for the literal rest of one written after
expansions, which most often name the script's or the project's directory (`"$(dirname "$0")/x.sh"`,
`"${BASH_SOURCE%/*}/x.sh"`, `"$ROOT/$LIBDIR/x/y.sh"`: `x.sh`, `x/y.sh`). A path whose last part is
expanded is known only when it runs (`"$config"`, `"$dir/$name.sh"`): kept as written, with its `$`,
and external.
"""

from __future__ import annotations

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text

__all__ = ["parse_import", "plain_name"]

LITERAL_PARTS = frozenset({"word", "string_content", "raw_string", "number"})


def parse_import(node: Node) -> list[ImportSite]:
    arguments = node.children_by_field_name("argument")
    if not arguments:
        return []
    line = node.start_point.row + 1
    parts = _parts(arguments[0])
    kinds = [literal for literal, _ in parts]
    written = " ".join(_text(arguments[0]).split())
    if all(kinds):  # (`source ""` has no parts, and names nothing)
        path = "".join(text for _, text in parts)
        return [ImportSite(path, None, "", line, 0)] if path else []
    after = len(kinds) - kinds[::-1].index(False)  # the literal rest after the last expansion
    tail = "".join(text for _, text in parts[after:])
    if tail.startswith("/") and tail.strip("/"):
        return [ImportSite(tail.lstrip("/"), None, "", line, 1)]
    return [ImportSite(written, None, "", line, 0)]  # `source "$config"`, `source "$dir/$name.sh"`


def _parts(node: Node) -> list[tuple[bool, str]]:
    """(literal, text) of each piece of a word as the shell joins them: `"$(dirname "$0")"/lib.sh`
    -> [(False, `$(dirname "$0")`), (True, "/lib.sh")]."""
    kind = node.type
    if kind in ("concatenation", "string"):
        return [part for child in node.named_children for part in _parts(child)]
    if kind == "raw_string":
        return [(True, _text(node)[1:-1])]
    if kind in LITERAL_PARTS:
        return [(True, _text(node))]
    return [(False, _text(node))]


def plain_name(text: str) -> str:
    """A command's name as the shell reads it: `'cleanup'` (a trap handler) -> `cleanup`."""
    return text.strip("'\"")
