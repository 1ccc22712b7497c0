"""Per-language code for what a query cannot say, looked up by language name.

Today: turning an import statement's node into the names it binds, and (Java, Kotlin, Rust, C#) rewriting a
receiver or a type as written into the dotted expressions the binder reads.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks import csharp, ecmascript, go, java, kotlin, python, rust

__all__ = ["IMPORT_PARSERS", "ImportParser", "REWRITERS", "Rewriter"]

ImportParser = Callable[[Node], list[ImportSite]]
# (the node written, its text, whether it is a type) -> the text the binder reads
Rewriter = Callable[[Node, str, bool], str]

IMPORT_PARSERS: dict[str, ImportParser] = {
    "python": python.parse_import,
    "go": go.parse_import,
    "javascript": ecmascript.parse_import,
    "typescript": ecmascript.parse_import,
    "tsx": ecmascript.parse_import,
    "java": java.parse_import,
    "kotlin": kotlin.parse_import,
    "rust": rust.parse_import,
    "csharp": csharp.parse_import,
}

REWRITERS: dict[str, Rewriter] = {
    "java": java.rewrite,
    "kotlin": kotlin.rewrite,
    "rust": rust.rewrite,
    "csharp": csharp.rewrite,
}
