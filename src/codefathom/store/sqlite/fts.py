"""Full-text queries as SQLite's FTS5 reads them: a search plan's terms (`model.MatchTerm`) turned
into MATCH text, every word quoted so that user text is never FTS5 syntax.
"""

from __future__ import annotations

from collections.abc import Iterable

from codefathom.model import MatchTerm

__all__ = ["match_expression", "quoted"]


def match_expression(terms: Iterable[MatchTerm]) -> str:
    """`"a" OR ("b" OR ("c" AND "d"))`: any term; of a term, any alternative; of an alternative,
    every word. Empty when there is no term."""
    return " OR ".join(_term(term) for term in terms)


def _term(term: MatchTerm) -> str:
    parts = [_alternative(words) for words in term.alternatives]
    return parts[0] if len(parts) == 1 else f"({' OR '.join(parts)})"


def _alternative(words: tuple[str, ...]) -> str:
    return quoted(words[0]) if len(words) == 1 else f"({' AND '.join(quoted(w) for w in words)})"


def quoted(word: str) -> str:
    """A word as an FTS5 string: in double quotes, its own doubled."""
    return '"' + word.replace('"', '""') + '"'
