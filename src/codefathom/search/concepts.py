"""The concept thesaurus: words that name the same thing in code and in questions ("remove" ~
"delete", "ctx" ~ "context"), so a question in words also finds code that says it otherwise.

The words are data (`concepts.txt`, one group of related words a line, each with an optional
weight); this module reads them once and answers which words a query's words bring in, and how strongly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from codefathom.search.query import STOPWORDS, QueryPlan, light_stem

__all__ = ["CONCEPTS_FILE", "abbreviations", "initialisms", "related_words", "thesaurus", "with_concepts"]

CONCEPTS_FILE = Path(__file__).with_name("concepts.txt")
PER_WORD = 4  # related words one query word brings at most
PER_QUERY = 12  # ... and a whole query: more words bring more noise than answers
RARE = 3  # a query word in fewer units than this is one the project does not say: its synonyms may be


@functools.cache
def thesaurus(path: Path = CONCEPTS_FILE) -> dict[str, tuple[tuple[str, float], ...]]:
    """word -> its related words and weights (0-1], both directions."""
    pairs: dict[str, dict[str, float]] = {}
    for line in path.read_text("utf-8").splitlines():
        if "=" in line.split("#")[0]:
            continue  # an initialism (`initialisms`)
        group = [_weighted(item) for item in line.split("#")[0].split()]
        for word, weight in group:
            known = pairs.setdefault(word, {})
            for other, other_weight in group:
                if other != word:
                    known[other] = max(known.get(other, 0.0), min(weight, other_weight))
    return {w: tuple(sorted(rel.items(), key=lambda kv: -kv[1])) for w, rel in pairs.items()}


def _weighted(item: str) -> tuple[str, float]:
    word, _, weight = item.partition(":")
    return word.lower(), float(weight) if weight else 1.0


def with_concepts(
    plan: QueryPlan, min_words: int = 1, units_with: Callable[[Sequence[str]], Sequence[int]] | None = None
) -> QueryPlan:
    """The plan with the words its words bring in (`plan.related`) when it has at least `min_words`
    words; a name, a name-like query or a phrase short enough to spell one is taken as written.
    With `units_with` (how many units of the index hold each word, counted up to RARE), only a word the
    project hardly says brings others in: a word the code uses is answered by the code's own use."""
    if plan.identifier_like or len(plan.words) < min_words:
        return plan
    own = {light_stem(w) for w in plan.words}
    related: list[tuple[str, str, float]] = []
    counts = units_with(plan.words) if units_with is not None else [0] * len(plan.words)
    for word, count in zip(plan.words, counts, strict=True):
        if count >= RARE:
            continue
        found = [(other, weight) for other, weight in related_words(word)
                 if other not in STOPWORDS and light_stem(other) not in own]
        related.extend((word, other, weight) for other, weight in found[:PER_WORD])
    related.sort(key=lambda r: -r[2])
    return replace(plan, related=tuple(related[:PER_QUERY]))


def related_words(word: str) -> list[tuple[str, float]]:
    """The thesaurus's words for `word` or its plain form (`merged`, `uploads`, `cookies`), strongest first."""
    table = thesaurus()
    found: dict[str, float] = {}
    for form in _forms(word):
        for other, weight in table.get(form, ()):
            found[other] = max(found.get(other, 0.0), weight)
    return sorted(found.items(), key=lambda kv: -kv[1])


def _forms(word: str) -> list[str]:
    stem = light_stem(word)
    forms = [word, stem, stem + "e"]
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    if word.endswith("s"):
        forms.append(word[:-1])
    return list(dict.fromkeys(forms))


@functools.cache
def abbreviations(path: Path = CONCEPTS_FILE) -> dict[str, frozenset[str]]:
    """Stemmed word -> the words of the thesaurus that abbreviate it or that it abbreviates (`buf` ~
    `buffer`, `cfg` ~ `config`, `avg` ~ `average`): pairs of full weight where the shorter spells the
    longer's first letter and then letters of it in order. A name says a word by its abbreviation
    as surely as by the word, which a synonym (`remove` ~ `delete`) does not."""
    found: dict[str, set[str]] = {}
    for word, related in thesaurus(path).items():
        for other, weight in related:
            if weight >= 1.0 and (_abbreviates(word, other) or _abbreviates(other, word)):
                found.setdefault(light_stem(word), set()).add(light_stem(other))
    for short, words in initialisms(path).items():
        for word in words:
            found.setdefault(light_stem(word), set()).add(short)
    return {word: frozenset(others) for word, others in found.items()}


@functools.cache
def initialisms(path: Path = CONCEPTS_FILE) -> dict[str, tuple[str, ...]]:
    """A name's word made of a phrase's first letters -> the phrase's words that say it (`lt` is "less
    than", `uid` "user id"): lines `short = words` of the thesaurus, stopwords left out."""
    found: dict[str, tuple[str, ...]] = {}
    for line in path.read_text("utf-8").splitlines():
        short, equals, phrase = line.split("#")[0].partition("=")
        if equals:
            found[short.strip().lower()] = tuple(w for w in phrase.lower().split() if w not in STOPWORDS)
    return found


def _abbreviates(short: str, long: str) -> bool:
    if len(short) >= len(long) or short[:1] != long[:1]:
        return False
    letters = iter(long)
    return all(letter in letters for letter in short)
