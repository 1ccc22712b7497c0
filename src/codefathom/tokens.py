"""Identifier splitting shared by indexing and querying, so both see the same words.

`getUserById` -> get user by id; `parse_args` -> parse args; `HTTPServer` -> http server.
"""

from __future__ import annotations

import re

__all__ = [
    "split_identifier", "searchable_text", "name_key", "operator_symbol", "spelled_out", "IDENTIFIER",
    "TOKENIZER_VERSION",
]

# Bump when splitting changes: the index fingerprint includes it, so indexes are rebuilt.
TOKENIZER_VERSION = "4"

# What an overloaded operator does, in the words a question asks for it by (`operator<<` prints to a
# stream, `operator==` compares for equality): its name has no words of its own.
OPERATOR_WORDS = {
    "<<": "shift left stream output write print", ">>": "shift right stream input read",
    "==": "equal equality compare", "!=": "not equal unequal compare", "<=>": "compare three way order",
    "<": "less than compare order", "<=": "less equal compare", ">": "greater than compare",
    ">=": "greater equal compare", "+": "add plus sum", "-": "subtract minus negate", "*": "multiply product",
    "/": "divide quotient", "%": "modulo remainder", "=": "assign assignment copy move",
    "+=": "add assign append", "-=": "subtract assign", "*=": "multiply assign scale", "/=": "divide assign",
    "%=": "modulo assign", "[]": "index subscript element access", "()": "call invoke apply",
    "->": "member access pointer", "++": "increment next advance", "--": "decrement previous",
    "!": "not negate logical", "&&": "and logical", "||": "or logical", "&": "and bitwise",
    "|": "or bitwise", "^": "xor bitwise", "~": "complement bitwise not", "<<=": "shift left assign",
    ">>=": "shift right assign", "&=": "and assign bitwise", "|=": "or assign bitwise", "^=": "xor assign bitwise",
}
_OPERATOR_NAME = re.compile(r"operator\s*([^\w\s]+)")
# The standard mathematical functions by what their names abbreviate (`acos` is the arc cosine, `log2`
# the base-2 logarithm), for names that are nothing else in code.
MATH_WORDS = {
    "sqrt": "square root", "rsqrt": "reciprocal square root", "cbrt": "cube root", "exp": "exponential",
    "exp2": "exponential base 2", "expm1": "exponential minus one", "log": "logarithm",
    "log2": "logarithm base 2", "log10": "logarithm base 10", "log1p": "logarithm one plus", "sin": "sine",
    "cos": "cosine", "tan": "tangent", "asin": "arc sine", "acos": "arc cosine", "atan": "arc tangent",
    "atan2": "arc tangent", "sinh": "hyperbolic sine", "cosh": "hyperbolic cosine", "tanh": "hyperbolic tangent",
    "asinh": "inverse hyperbolic sine", "acosh": "inverse hyperbolic cosine", "atanh": "inverse hyperbolic tangent",
    "abs": "absolute value", "fabs": "absolute value", "pow": "power", "hypot": "hypotenuse",
    "erf": "error function", "erfc": "complementary error function", "lgamma": "logarithm gamma",
    "tgamma": "gamma function", "fmod": "remainder modulo", "gcd": "greatest common divisor",
    "lcm": "least common multiple", "lerp": "linear interpolation",
}

IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")


def operator_symbol(name: str) -> str | None:
    """An overloaded operator's symbol (`operator<<`, `operator <<` -> `<<`); None for any other name."""
    found = _OPERATOR_NAME.fullmatch(name)
    return found.group(1) if found else None


def spelled_out(name: str) -> str:
    """The words a name stands for that splitting it does not find: an overloaded operator's
    (`operator <<` -> shift left stream ...), a mathematical function's (`acos` -> arc cosine); ""
    for any other name."""
    symbol = operator_symbol(name)
    if symbol is not None:
        return OPERATOR_WORDS.get(symbol, "")
    return MATH_WORDS.get(name.lower(), "")


def split_identifier(identifier: str) -> list[str]:
    """The lower-case words of an identifier; a single word gives itself."""
    return [part.lower() for part in _PARTS.findall(identifier)]


def searchable_text(text: str) -> str:
    """`text` followed by the words of its compound identifiers, so both forms match.

    The original tokens stay (`parse_args` is one token for the FTS tokenizer, which keeps `_`
    inside words); their parts are appended once per distinct identifier.
    """
    # What IDENTIFIER finds, without running it: every byte outside its characters becomes a space
    # (non-ASCII ones too, as they are for the pattern), and a run of the rest is an identifier once
    # its leading digits are dropped. bytes.translate and split do in C what the pattern's scan did
    # a character at a time (most of this function's cost).
    runs = dict.fromkeys(text.encode("utf-8", "surrogatepass").translate(_IDENTIFIER_BYTES).split())
    extra: list[str] = []
    cache = _EXTRA_WORDS
    for run in runs:
        words = cache.get(run)
        if words is None:
            identifier = run.lstrip(_DIGITS) if run[0] in _DIGIT_BYTES else run
            words = _extra_words(identifier.decode("ascii")) if identifier else ()
            if len(cache) >= _EXTRA_WORDS_MAX:
                cache.clear()  # a long-lived process must not grow without bound
            cache[run] = words
        if words:
            if run[0] in _DIGIT_BYTES:
                # `0xFFee` is the identifier `xFFee`, which `xFFee` written elsewhere in the text
                # also is: the runs' order of first appearance is no longer the identifiers'.
                return _searchable_text_deduplicated(text, runs)
            extra.extend(words)
    if not extra:
        return text
    return f"{text}\n{' '.join(extra)}"


def _searchable_text_deduplicated(text: str, runs: dict[bytes, None]) -> str:
    """searchable_text for a text where some run starts with digits: each identifier once, in
    order of its first appearance."""
    extra: list[str] = []
    for identifier in dict.fromkeys(run.lstrip(_DIGITS) for run in runs):
        if identifier:
            extra.extend(_extra_words(identifier.decode("ascii")))
    if not extra:
        return text
    return f"{text}\n{' '.join(extra)}"


# A byte of an identifier stays, any other becomes a space: IDENTIFIER's characters.
_IDENTIFIER_BYTES = bytes(
    c if chr(c) in "$_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" else 32 for c in range(256)
)
_DIGITS = b"0123456789"
_DIGIT_BYTES = frozenset(_DIGITS)
# a run (bytes of identifier characters) -> the words searchable_text appends for it (empty when
# it adds none). Indexing meets the same identifiers over and over; splitting each once is most
# of the saving.
_EXTRA_WORDS: dict[bytes, tuple[str, ...]] = {}
_EXTRA_WORDS_MAX = 200_000


def _extra_words(identifier: str) -> tuple[str, ...]:
    if "_" in identifier or "$" in identifier or not (identifier.islower() or identifier.isupper()):
        parts = split_identifier(identifier)
        if len(parts) > 1 or (parts and parts[0] != identifier.lower()):
            return tuple(parts)
    return ()


def name_key(name: str) -> str:
    """A name reduced to its lower-case letters and digits: `get_user`, `getUser` -> getuser; an
    operator keeps its symbol (`operator<<`), or every operator would have one key."""
    lowered = name.lower()
    if lowered.isalnum():
        return lowered
    if (symbol := operator_symbol(lowered)) is not None:
        return "operator" + symbol
    return _NOT_ALNUM.sub("", lowered)


# re's \w is exactly str.isalnum() plus "_", so this drops what isalnum() rejects.
_NOT_ALNUM = re.compile(r"[\W_]+")
