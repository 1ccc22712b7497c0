"""Per-language code for what a query cannot say, looked up by language name.

Today: (TypeScript) hiding from the parser what its grammar does not know, (C, C++) attribute-like
macros the parser cannot expand, turning an import
statement's node into the names it binds, (Java, Kotlin, Scala, Rust, C#, Ruby,
PHP, C, C++, Swift) rewriting a receiver or a type as written into the dotted expressions the binder reads,
(Ruby) reading a name written with a sigil, and (Bash) a referenced name written in quotes.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks import (
    bash,
    cfamily,
    cmacros,
    csharp,
    ecmascript,
    go,
    java,
    kotlin,
    php,
    python,
    ruby,
    rust,
    scala,
    swift,
)

__all__ = [
    "IMPORT_PARSERS", "ImportParser", "NAMES", "REFERENCE_NAMES", "REWRITERS", "Rewriter", "PARSER_INPUT",
    "ARGUMENT_TYPES",
]

ImportParser = Callable[[Node], list[ImportSite]]
# (the node written, its text, whether it is a type) -> the text the binder reads
Rewriter = Callable[[Node, str, bool], str]

# What the type of a call's argument is as written, for telling overloads apart (`String`, `int`,
# `Foo` of `new Foo()` or `(Foo) x`, `=name` for a variable the binder types, `?` when unknown).
ARGUMENT_TYPES: dict[str, Callable[[Node], str]] = {"java": java.argument_type}

# The bytes the parser is given instead of the file's, same length and lines (units and
# signatures are still cut from the file's own text).
PARSER_INPUT: dict[str, Callable[[bytes], bytes]] = {
    "typescript": ecmascript.typescript_parser_input,
    "tsx": ecmascript.without_variance,
    "c": cmacros.without_attribute_macros,
    "cpp": cmacros.without_attribute_macros,
}

IMPORT_PARSERS: dict[str, ImportParser] = {
    "python": python.parse_import,
    "go": go.parse_import,
    "javascript": ecmascript.parse_import,
    "typescript": ecmascript.parse_import,
    "tsx": ecmascript.parse_import,
    "java": java.parse_import,
    "kotlin": kotlin.parse_import,
    "scala": scala.parse_import,
    "rust": rust.parse_import,
    "csharp": csharp.parse_import,
    "ruby": ruby.parse_import,
    "php": php.parse_import,
    "c": cfamily.parse_import,
    "cpp": cfamily.parse_import,
    "swift": swift.parse_import,
    "bash": bash.parse_import,
}

REWRITERS: dict[str, Rewriter] = {
    "java": java.rewrite,
    "kotlin": kotlin.rewrite,
    "scala": scala.rewrite,
    "rust": rust.rewrite,
    "csharp": csharp.rewrite,
    "ruby": ruby.rewrite,
    "php": php.rewrite,
    "c": cfamily.rewrite_c,
    "cpp": cfamily.rewrite_cpp,
    "swift": swift.rewrite,
}

# A field's or variable's name as written (`:total`, `@repo`) -> the name itself.
NAMES: dict[str, Callable[[str], str]] = {
    "ruby": ruby.plain_name,
}

# A referenced name as written -> the name (Bash: `trap 'cleanup' EXIT` calls `cleanup`).
REFERENCE_NAMES: dict[str, Callable[[str], str]] = {
    "bash": bash.plain_name,
}
