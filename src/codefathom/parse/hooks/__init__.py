"""Per-language code for what a query cannot say, looked up by language name.

Today: turning an import statement's node into the names it binds.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks import ecmascript, go, python

__all__ = ["IMPORT_PARSERS", "ImportParser"]

ImportParser = Callable[[Node], list[ImportSite]]

IMPORT_PARSERS: dict[str, ImportParser] = {
    "python": python.parse_import,
    "go": go.parse_import,
    "javascript": ecmascript.parse_import,
    "typescript": ecmascript.parse_import,
    "tsx": ecmascript.parse_import,
}
