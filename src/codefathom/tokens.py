"""Identifier splitting shared by indexing and querying, so both see the same words.

`getUserById` -> get user by id; `parse_args` -> parse args; `HTTPServer` -> http server.
"""

from __future__ import annotations

import re

__all__ = ["split_identifier", "searchable_text", "name_key", "IDENTIFIER", "TOKENIZER_VERSION"]

# Bump when splitting changes: the index fingerprint includes it, so indexes are rebuilt.
TOKENIZER_VERSION = "1"

IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")


def split_identifier(identifier: str) -> list[str]:
    """The lower-case words of an identifier; a single word gives itself."""
    return [part.lower() for part in _PARTS.findall(identifier)]


def searchable_text(text: str) -> str:
    """`text` followed by the words of its compound identifiers, so both forms match.

    The original tokens stay (`parse_args` is one token for the FTS tokenizer, which keeps `_`
    inside words); their parts are appended once per distinct identifier.
    """
    extra: list[str] = []
    cache = _EXTRA_WORDS
    # dict.fromkeys: distinct identifiers in order of first appearance, deduplicated in C.
    for identifier in dict.fromkeys(IDENTIFIER.findall(text)):
        words = cache.get(identifier)
        if words is None:
            words = _extra_words(identifier)
            if len(cache) >= _EXTRA_WORDS_MAX:
                cache.clear()  # a long-lived process must not grow without bound
            cache[identifier] = words
        if words:
            extra.extend(words)
    if not extra:
        return text
    return f"{text}\n{' '.join(extra)}"


# identifier -> the words searchable_text appends for it (empty when it adds none). Indexing
# meets the same identifiers over and over; splitting each once is most of the saving.
_EXTRA_WORDS: dict[str, tuple[str, ...]] = {}
_EXTRA_WORDS_MAX = 200_000


def _extra_words(identifier: str) -> tuple[str, ...]:
    if "_" in identifier or "$" in identifier or not (identifier.islower() or identifier.isupper()):
        parts = split_identifier(identifier)
        if len(parts) > 1 or (parts and parts[0] != identifier.lower()):
            return tuple(parts)
    return ()


def name_key(name: str) -> str:
    """A name reduced to its lower-case letters and digits: `get_user`, `getUser` -> getuser."""
    lowered = name.lower()
    if lowered.isalnum():
        return lowered
    return _NOT_ALNUM.sub("", lowered)


# re's \w is exactly str.isalnum() plus "_", so this drops what isalnum() rejects.
_NOT_ALNUM = re.compile(r"[\W_]+")
