"""searchable_text finds identifiers without the IDENTIFIER pattern: it must find the same ones."""

from __future__ import annotations

import random

from codefathom.tokens import IDENTIFIER, searchable_text, split_identifier


def _by_pattern(text: str) -> str:
    """searchable_text as the pattern defines it: each distinct identifier, in order of first
    appearance, adds its words when they differ from the identifier itself."""
    extra: list[str] = []
    for identifier in dict.fromkeys(IDENTIFIER.findall(text)):
        if "_" in identifier or "$" in identifier or not (identifier.islower() or identifier.isupper()):
            parts = split_identifier(identifier)
            if len(parts) > 1 or (parts and parts[0] != identifier.lower()):
                extra.extend(parts)
    return f"{text}\n{' '.join(extra)}" if extra else text


CASES = [
    "",
    "plain words only",
    "getUserById(parse_args, HTTPServer)",
    "x = 0xFFee; y = xFFee; z = 0xFFee",  # a run with leading digits names the same identifier as a later one
    "xFFee then 0xFFee",
    "1abc abc 2abc_def abc_def",
    "$scope.$apply(fn_name) $$ $",
    "naïve café_au_lait Straße getÜber",  # non-ASCII letters separate identifiers
    "\udcff lone\udcffsurrogate_x",
    "3DVector 3D 42 0x1F 1L 100_000 _private __dunder__",
]


def test_searchable_text_matches_the_pattern() -> None:
    for text in CASES:
        assert searchable_text(text) == _by_pattern(text), text


def test_searchable_text_matches_the_pattern_on_random_text() -> None:
    rng = random.Random(15)
    alphabet = "aZ_$09 .\n(é" + "xyzXYZ"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert searchable_text(text) == _by_pattern(text), repr(text)
