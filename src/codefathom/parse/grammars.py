"""Loads the pip-installed tree-sitter grammars and query files, once per language per process.

Nothing here touches the network: a grammar is a wheel, a query is a file in this package.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib import resources

from tree_sitter import Language, Parser, Query

from codefathom.parse.languages import LanguageSpec

__all__ = ["grammar_for", "parser_for", "query_for", "query_text"]


@cache
def grammar_for(spec: LanguageSpec) -> Language:
    module = importlib.import_module(spec.grammar_module)
    return Language(getattr(module, spec.grammar_function)())


def parser_for(spec: LanguageSpec) -> Parser:
    # Parsers keep state between parses; a fresh one per call is cheap and thread-safe.
    return Parser(grammar_for(spec))


def query_text(spec: LanguageSpec) -> str:
    folder = resources.files("codefathom.parse").joinpath("queries")
    return "\n".join(folder.joinpath(f"{name}.scm").read_text("utf-8") for name in spec.query_files)


@cache
def query_for(spec: LanguageSpec) -> Query:
    return Query(grammar_for(spec), query_text(spec))
