"""The fingerprint of everything that shapes stored facts; a different one means re-parse all.

Schema, query files, tokenizer and grammar wheel versions all count.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata

from codefathom.parse import LANGUAGES
from codefathom.parse.facts import graph_query_text
from codefathom.parse.grammars import query_text
from codefathom.store import fingerprint_of, schema_sql
from codefathom.tokens import TOKENIZER_VERSION

__all__ = ["index_fingerprint", "EXTRACTOR_VERSION"]

# 15: a C++ operator named by its symbol without spaces, a conversion by its type; 14: C/C++ a
# statement's pragma on a line of its own; 13: `if MACRO (cond)`; 12: C/C++ attribute-like macros hidden
# from the parser; 11: TS for...of, destructuring, `x!`, `as`, `Partial<T>`, generic arrays;
# 10: TS input (generic signatures after `}` or a lone `<`, commented variance); 9: unused locals of
# functions dropped; 8: TS type aliases of unions; 7: `export var`; 6: arity, `#if`; 5: TS input
EXTRACTOR_VERSION = "15"


@cache
def index_fingerprint() -> str:
    parts = [schema_sql(), TOKENIZER_VERSION, EXTRACTOR_VERSION]
    for spec in LANGUAGES:
        try:
            parts.append(query_text(spec))
        except FileNotFoundError:
            parts.append(f"{spec.name}: no query")
        parts.append(graph_query_text(spec) or f"{spec.name}: no graph query")
        dist = spec.grammar_module.replace("_", "-")
        try:
            parts.append(f"{dist}=={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist} missing")
    return fingerprint_of(*parts)
