"""Reads a query string: its words, the identifiers in it, and how identifier-like it is.

Also lists the terms the full-text channel matches (`model.MatchTerm`), in no engine's syntax: the
store turns them into its own (store/sqlite/fts.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from codefathom.model import MatchTerm
from codefathom.tokens import operator_symbol, split_identifier

__all__ = ["QueryPlan", "plan_query", "looks_like_identifier", "is_operator", "light_stem", "STOPWORDS"]

STOPWORDS = frozenset(
    """
    a an and are as at be been by can code could do does done for from has have how i if in into is it
    its me my of on or our should so that the their them then there these this those to was we were what
    when where which who whom why will with would you your all any function method class
    implemented implement defined define handled handle happens logic
    """.split()
)
# Irregular English forms the Porter stemmer cannot bring back to the verb code is named after. Forms
# whose verb names little code and whose other sense is common are left out ("meant", "known", "seen").
IRREGULAR = {
    "written": "write", "wrote": "write", "read": "read", "found": "find", "built": "build", "sent": "send",
    "ran": "run", "made": "make", "kept": "keep", "held": "hold", "began": "begin", "begun": "begin",
    "chosen": "choose", "chose": "choose", "drawn": "draw", "drew": "draw", "given": "give", "gave": "give",
    "taken": "take", "took": "take", "thrown": "throw", "threw": "throw", "shown": "show", "hidden": "hide",
    "bound": "bind", "split": "split", "spent": "spend", "left": "leave", "lost": "lose", "got": "get",
    "gotten": "get", "fed": "feed", "led": "lead", "sought": "seek", "caught": "catch", "brought": "bring",
    "bought": "buy", "thought": "think", "told": "tell", "sold": "sell", "stuck": "stick", "woken": "wake",
    "stole": "steal", "stolen": "steal", "broke": "break", "broken": "break", "froze": "freeze",
    "frozen": "freeze", "forgot": "forget", "forgotten": "forget", "grew": "grow", "grown": "grow",
    "shook": "shake", "shaken": "shake", "woke": "wake", "tore": "tear", "torn": "tear", "drove": "drive",
    "driven": "drive", "overrode": "override", "overridden": "override", "rewrote": "rewrite",
    "rewritten": "rewrite", "undone": "undo", "hung": "hang", "slid": "slide", "swept": "sweep", "spun": "spin",
    "paid": "pay", "forbade": "forbid", "forbidden": "forbid",
}
# A C++ operator's name keeps its symbol (`operator==`, `Option::operator[]`): the word alone names
# every operator of the project. Rust's array and slice types own methods (`[T; N]::into_par_iter`):
# written so, a name is asked for, not three words.
_OPERATOR = r"operator(?:\(\)|\[\]|[-+*/%^&|~!=<>]+)(?![\w$])"
_ARRAY_TYPE = r"(?<![\w$\]])\[[A-Za-z_&'][\w$ ;&']*\](?=::|\.)"  # an owner, not an index (`items[0].name`)
_SEGMENT = rf"(?:{_OPERATOR}|{_ARRAY_TYPE}|[A-Za-z_$][\w$]*)"
# `Class.#field` is a JavaScript private member: `.#` separates as `.` does.
_TOKEN = re.compile(rf"{_SEGMENT}(?:(?:\.#?|::|#|->){_SEGMENT})*|\d+")
_SEPARATORS = re.compile(r"\.#?|::|#|->")
# How a sentence asks for a yes or no: what a predicate (`is_closed`, `HasParent`) answers.
_WHETHER = re.compile(
    r"\b(?:whether|true (?:if|when|iff)|(?:true|false)[,;]? (?:if|when)|"
    r"(?:check|checks|checking|determine|determines|test|tests|tell|tells|indicate|indicates) if)\b",
    re.IGNORECASE,
)

# A sentence that says what a thing is, the thing first: "A Sink is used to consume ...", "FiberRefs is
# a data type that ...", "The Effect interface defines ...": the name written first is asked for.
_DEFINES = re.compile(
    r"^\s*(?:(?:[Aa]n?|[Tt]he)\s+)?`?(?P<name>[A-Z][A-Za-z0-9_]*)`?"
    r"(?:\s+(?:interface|type|class|trait|struct|module|object|enum))?"
    r"\s+(?:is|are|represents|describes|defines|knows|provides|holds|contains|models|wraps|manages)\b"
)
# ... and a question that asks what a thing is: "What is an Attribute?", "what does `Registry` do?"
_ASKS_WHAT = re.compile(
    r"^\s*(?i:what\s+(?:is|are|does|do)\s+(?:(?:an?|the)\s+)?)`?(?P<name>[A-Z][A-Za-z0-9_]*|[A-Za-z_]\w*_\w*)`?"
    r"(?i:\s+(?:interface|type|class|trait|struct|module|object|enum))?(?i:\s*(?:\?|$|do\b|for\b|used\b))"
)
_NOT_SUBJECTS = frozenset({"this", "it", "these", "there", "that", "which", "what", "where", "how", "who", "when"})


@dataclass(frozen=True)
class QueryPlan:
    text: str
    tokens: tuple[str, ...]  # as written, qualified ones kept whole (`Store.upsert_file`)
    words: tuple[str, ...]  # lower-case words that carry meaning, stopwords dropped
    identifier_like: bool  # one name, or mostly names: exact matches should lead
    terms: tuple[MatchTerm, ...]  # what the full-text channel matches (any of them); empty: nothing searchable
    # Words of the concept thesaurus the query's words bring in: (query word, related word, weight).
    related: tuple[tuple[str, str, float], ...] = ()
    asks_whether: bool = False  # "returns true if ...", "checks whether ...": a predicate is wanted
    subject: str = ""  # the name a sentence defining a thing begins with (`Sink` in "A Sink is ...")
    asked: str = ""  # the name a question asks what it is (`Attribute` in "What is an Attribute?")

    @property
    def related_terms(self) -> tuple[MatchTerm, ...]:
        """The related words alone, a term each (the concept part of BM25F)."""
        return tuple(MatchTerm(((w,),)) for w in dict.fromkeys(r for _, r, _ in self.related))

    @property
    def name_queries(self) -> list[tuple[str, ...]]:
        """Each token as its qualified segments, for the name channel."""
        return [tuple(s for s in _SEPARATORS.split(t) if s) for t in self.tokens if not t.isdigit()]

    @property
    def joined_word_keys(self) -> list[str]:
        """Runs of 2-4 consecutive words joined (`proxy manager` -> proxymanager) for split-word names;
        and a query of 2-4 words joined whole as written, small words and all (`max by` -> maxby,
        `left and then` -> leftandthen: a name says them too)."""
        words = [w for w in self.words if not w.isdigit()]
        keys = []
        for size in (4, 3, 2):
            for start in range(len(words) - size + 1):
                keys.append("".join(words[start : start + size]))
        if self.spelled_key:
            keys.append(self.spelled_key)
        return list(dict.fromkeys(keys))

    @property
    def spelled_key(self) -> str:
        """A query of 2-4 words joined whole as written, as a name's key (`max by` -> maxby); empty
        for a longer one, or one with a number."""
        written = [p.lower() for t in self.tokens for seg in _SEPARATORS.split(t) for p in split_identifier(seg)]
        return "".join(written) if 2 <= len(written) <= 4 and not any(w.isdigit() for w in written) else ""


# "a command's flags": the `s` of a possessive is no word of its own.
_CLITIC = re.compile(r"(?<=[A-Za-z])['’]s\b")


def plan_query(text: str) -> QueryPlan:
    tokens = tuple(_TOKEN.findall(_CLITIC.sub("", text)))
    words: list[str] = []
    terms: list[MatchTerm] = []
    for token in tokens:
        for segment in _SEPARATORS.split(token):
            if not segment:
                continue
            parts = split_identifier(segment)
            lowered = segment.lower()
            if lowered in STOPWORDS and len(tokens) > 1:
                continue
            words.extend(p for p in parts if p not in STOPWORDS or len(tokens) == 1)
            terms.append(_match_term(lowered, [p for p in parts if p not in STOPWORDS] or parts))
    compact = text.strip()
    identifier_like = bool(tokens) and (
        (len(tokens) == 1 and " " not in compact)
        or sum(1 for t in tokens if looks_like_identifier(t)) * 2 >= len(tokens)
    )
    asked = _named_first(_ASKS_WHAT, text)  # "What is an Attribute?": also the subject
    return QueryPlan(
        text=text, tokens=tokens, words=tuple(dict.fromkeys(words)), identifier_like=identifier_like,
        terms=tuple(dict.fromkeys(terms)), asks_whether=bool(_WHETHER.search(text)),
        subject=_named_first(_DEFINES, text) or asked, asked=asked,
    )


def _named_first(sentence: re.Pattern[str], text: str) -> str:
    """The name a sentence of this form says first ("A Sink is used to ..."), or ""."""
    found = sentence.match(text)
    return found["name"] if found and found["name"].lower() not in _NOT_SUBJECTS else ""


_SUFFIXES = ("ing", "es", "ed", "s")
# An adverb says what its adjective names (`unsafely` ~ `unsafeLast`, `lazily` ~ `lazy`, `atomically` ~
# `atomic`); `apply`, `reply`, `only` are none.
_ADVERBS = (("ically", "ic"), ("ively", "ive"), ("ously", "ous"), ("fully", "ful"), ("ily", "y"), ("ely", "e"))


@functools.lru_cache(maxsize=16384)
def light_stem(word: str) -> str:
    """A light stemmer for matching query words to identifier parts (`parsers` ~ `parser`,
    `written` ~ `write`); both sides go through it, so it only has to be consistent."""
    word = IRREGULAR.get(word, word)
    for suffix, adjective in _ADVERBS:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)] + adjective  # then stemmed as the adjective is
            break
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _match_term(token: str, parts: list[str]) -> MatchTerm:
    """The token as written, or all of its words (`parse_args` also matches "parse the args")."""
    if token in IRREGULAR and IRREGULAR[token] != token:
        return MatchTerm(((token,), (IRREGULAR[token],)))
    if len(parts) <= 1:
        return MatchTerm(((token,),))
    return MatchTerm(((token,), tuple(parts)))


def is_operator(segment: str) -> bool:
    """A C++ operator's name as the query writes it (`operator&`, `operator()`), symbol and all."""
    return operator_symbol(segment) is not None


def looks_like_identifier(token: str) -> bool:
    return bool(_SEPARATORS.search(token)) or "_" in token or (token != token.lower() and token != token.upper()
                                                                  and not token.istitle())
