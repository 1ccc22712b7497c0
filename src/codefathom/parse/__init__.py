"""Parsing: a file's text becomes units (definitions, sections, line windows) with parse health.

`parse(path, text)` never raises for bad input; a failure is recorded on the ParsedFile.
"""

from __future__ import annotations

from functools import cache

from codefathom.model import ParsedFile
from codefathom.parse.extract import extract_units
from codefathom.parse.facts import has_graph_query
from codefathom.parse.languages import LANGUAGES, MARKDOWN, TEXT, LanguageSpec, language_for
from codefathom.parse.windows import line_windows, markdown_sections

__all__ = ["parse", "language_name", "supported_languages", "graph_languages", "LANGUAGES", "LanguageSpec"]


def language_name(path: str) -> str:
    spec = language_for(path)
    return spec.name if isinstance(spec, LanguageSpec) else spec


def graph_languages() -> frozenset[str]:
    """Languages whose references are extracted (they have a `<name>-graph.scm` query)."""
    return _graph_languages()


@cache
def _graph_languages() -> frozenset[str]:
    return frozenset(spec.name for spec in LANGUAGES if has_graph_query(spec))


def supported_languages() -> list[str]:
    return [spec.name for spec in LANGUAGES] + [MARKDOWN]


def parse(path: str, text: str) -> ParsedFile:
    """Units of one file; grammar failures fall back to line windows with the error recorded."""
    spec = language_for(path, text)
    if spec == MARKDOWN:
        return ParsedFile(path, MARKDOWN, tuple(markdown_sections(path, text)))
    if spec == TEXT or not isinstance(spec, LanguageSpec):
        return ParsedFile(path, TEXT, tuple(line_windows(path, text)), status="text")
    try:
        return extract_units(spec, path, text)
    except Exception as exc:  # a grammar or query bug must cost one file, never the index
        units = tuple(line_windows(path, text, spec.name))
        return ParsedFile(path, spec.name, units, status="failed", error=f"{type(exc).__name__}: {exc}")
