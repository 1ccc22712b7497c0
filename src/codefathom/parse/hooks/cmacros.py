"""C and C++ attribute-like macros hidden from the parser: `EIGEN_DEVICE_FUNC inline`, `UV_EXTERN int`,
`class Q_CORE_EXPORT QObject`, `FMT_DEPRECATED("...") void f()`.

Without the preprocessor such a macro reads as a type, and the declaration after it as an error
that swallows the members that follow it. Blanked (same length, same lines), the declaration parses;
units, signatures and docs are still cut from the file's own text.
"""

from __future__ import annotations

import re

__all__ = ["without_attribute_macros"]

# What code around a macro is read as: comments, strings and preprocessor lines are passed over
# whole (a `#define` keeps the name it defines); a name in capitals is a macro candidate.
_SCAN = re.compile(
    rb"(?P<skip>//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    rb"|(?m:^[ \t]*#(?:[^\n]*\\\r?\n)*[^\n]*))"
    rb"|(?P<macro>\b_*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_?\b)",
    re.DOTALL,
)
_NAME = re.compile(rb"\s*(~?[A-Za-z_]\w*)")
_CAPITALS = re.compile(rb"_*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_?")
# The classes a file defines (`class EXPORT Name<T> final : Base {`): their constructors follow macros too.
_CLASS = re.compile(
    rb"\b(?:class|struct)\s+(?:_*[A-Z][A-Z0-9_]*\s+)?([A-Za-z_]\w*)\s*(?:<[^;{]{0,300}>\s*)?(?:final\s*)?[:{]"
)
# Words that can follow an attribute but never a type: what comes after the macro starts a declaration.
_DECLARES = frozenset(
    b"inline static explicit virtual constexpr consteval constinit extern friend void bool char short int long"
    b" float double signed unsigned auto typename template struct class union enum typedef mutable thread_local"
    b" operator wchar_t char8_t char16_t char32_t __inline __forceinline".split()
)
_TYPE_KEYWORDS = frozenset(b"class struct union".split())
_QUALIFIERS = frozenset(b"const volatile".split())
# Words before a type, not types: after them a name in capitals is the type (`static HANDLE h;`).
_SPECIFIERS = frozenset(
    b"const volatile register restrict __restrict static extern typedef inline virtual explicit friend mutable"
    b" constexpr thread_local struct class union enum template typename auto".split()
)
_NOT_NAMES = _QUALIFIERS | _DECLARES
# Words after a function's parameters, before or after a macro that ends its declaration.
_TRAILING = frozenset(b"const volatile override final noexcept".split())
# Words a name in capitals after them is an expression (`return FOO;`, `if (x) FOO;`), not a macro
# in a declaration.
_STATEMENTS = frozenset(
    b"if while for switch return case goto sizeof alignof decltype typeof new delete throw else do and or not"
    b" catch co_return co_yield co_await static_assert enum namespace using".split()
)
_STATEMENT_STARTS = frozenset(b"for while do if switch return".split())
_MAX_ARGUMENTS = 400  # bytes of a function-like attribute's arguments (`DEPRECATED("use g")`)
_LOOK_AHEAD = 3  # macros in a row the scan did not reach, looked at one after another
_MAX_NESTING = 8  # brackets within an attribute's arguments or a type's template arguments
_PARENTHESES = re.compile(rb"[(){};]")
_ANGLES = re.compile(rb"[<>{};]")


def without_attribute_macros(data: bytes) -> bytes:
    """The file with every attribute-like macro (and its arguments) replaced by spaces."""
    classes = frozenset(_CLASS.findall(data))
    macros = [match.span() for match in _SCAN.finditer(data) if match.lastgroup == "macro"]
    known: dict[int, int | None] = {}
    for start, end in reversed(macros):  # a macro's verdict may rest on the next one's (`A_ATTR B_ATTR int f()`)
        known[start] = _attribute_end(data, start, end, classes, known, 0)
    masked: bytearray | None = None
    for start, _ in macros:
        stop = known[start]
        if stop is not None:
            masked = masked if masked is not None else bytearray(data)
            masked[start:stop] = _blank(data[start:stop])
    return bytes(masked) if masked is not None else data


def _blank(text: bytes) -> bytes:
    return bytes(c if c in b"\r\n" else 0x20 for c in text)


def _attribute_end(
    data: bytes, start: int, end: int, classes: frozenset[bytes], known: dict[int, int | None], depth: int
) -> int | None:
    """Where the attribute-like macro at `start` (with its arguments) ends, or None when the name
    is not one: a type, a constant, a call, a function named in capitals. `classes`: the names of
    the file's classes, whose constructors follow a macro as a function follows a type; `known`:
    the verdicts on the macros after this one."""
    before = data[max(0, start - 2) : start]
    if end - start < 3 or before.endswith(b".") or before in (b"::", b"->"):
        return None
    after = _skip_space(data, end)
    if data[after : after + 1] == b"(":
        if _previous_word(data, start) == b"if":
            return end  # `if FMT_CONSTEXPR20 (cond)`: the macro says `constexpr`, the condition follows
        closing = _closing(data, after)
        after = _skip_space(data, closing) if closing is not None else 0
        if closing is None or b"\n" in data[closing:after]:
            return None  # a call on a line of its own declares things itself (`RB_GENERATE_STATIC(...)`)
        end = closing
    elif _ends_declaration(data, start, after) or _between_type_and_name(data, start, after):
        return end
    following = _NAME.match(data, after)
    if following is None:
        return None
    return end if _starts_declaration(data, start, following, classes, known, depth) else None


def _ends_declaration(data: bytes, start: int, after: int) -> bool:
    """`int size() const EIGEN_NOEXCEPT {`: after a function's parameters, before its body or `;`."""
    return _after_parameters(data, start) and (
        data[after : after + 1] in (b"{", b";", b"=", b":") or data[after : after + 2] == b"->"
        or _word(data, after) in _TRAILING
    )


def _starts_declaration(
    data: bytes, start: int, following: re.Match[bytes], classes: frozenset[bytes], known: dict[int, int | None],
    depth: int,
) -> bool:
    """Whether the words after the macro at `start` (`following` the first) begin a declaration that
    the macro is an attribute of: a declaration keyword, a destructor, a constructor, another
    attribute, or a type and then a name."""
    word = following.group(1)
    if word in _DECLARES or word.startswith(b"~"):
        return True
    if word in _STATEMENT_STARTS:  # `EIGEN_UNROLL_LOOP for (...)`: a pragma of a statement
        position = _skip_space_back(data, start)
        return data[position - 1 : position] in (b";", b"{", b"}", b"") or b"\n" in data[position:start]
    if word in classes and data.startswith(b"(", _skip_space(data, following.end())):
        return True  # `EIGEN_STRONG_INLINE MaxSizeVector(size_t n)`
    if _CAPITALS.fullmatch(word):
        later = following.start(1)
        if later in known:
            if known[later] is not None:
                return True
        elif depth < _LOOK_AHEAD:  # a name the scan passed over (in a comment between them)
            if _attribute_end(data, later, following.end(1), classes, known, depth + 1) is not None:
                return True
    if word in _QUALIFIERS:  # `ATTR const Scalar& coeff()`, not `TYPE const x;`
        qualified = _NAME.match(data, following.end())
        if qualified is None:
            return False
        return qualified.group(1) in _DECLARES or _names_after_type(data, qualified.end())
    if _previous_word(data, start) in _TYPE_KEYWORDS:  # `class EXPORT Name {` or `: base`: one word
        rest = _skip_space(data, following.end())
        return data[rest : rest + 1] in (b"{", b":") and data[rest : rest + 2] != b"::"
    return _names_after_type(data, following.end())


def _names_after_type(data: bytes, position: int) -> bool:
    """Whether a name follows the type that ends at `position` (its template arguments, `::` parts,
    `*` and `&` passed over): then the macro before that type was not the type."""
    while True:
        position = _skip_space(data, position)
        if data[position : position + 1] == b"<":
            closing = _closing(data, position, b"<", b">")
            if closing is None:
                return False
            position = closing
        elif data[position : position + 2] == b"::":
            name = _NAME.match(data, position + 2)
            if name is None:
                return False
            position = name.end()
        else:
            break
    while data[position : position + 1] in (b"*", b"&") or data[position : position + 1].isspace():
        position += 1
    name = _NAME.match(data, position)
    if name is None:
        return False
    word = name.group(1)
    return word == b"operator" or (word not in _NOT_NAMES and not word.startswith(b"~"))


def _closing(data: bytes, opening: int, open_: bytes = b"(", close: bytes = b")") -> int | None:
    """The position after the bracket that closes the one at `opening`, within _MAX_ARGUMENTS and
    before any `;`, `{` or `}` (which would mean it was not an attribute's arguments)."""
    depth = 0
    brackets = _PARENTHESES if open_ == b"(" else _ANGLES
    for found in brackets.finditer(data, opening, min(len(data), opening + _MAX_ARGUMENTS)):
        char = found.group()
        if char == open_:
            depth += 1
            if depth > _MAX_NESTING:
                return None
        elif char == close:
            depth -= 1
            if depth == 0:
                return found.end()
        else:
            return None
    return None


def _after_parameters(data: bytes, start: int) -> bool:
    """Whether `start` follows a function's parameter list (and `const`, `override`...): the `)` of
    `name(...)`, not of `if (...)` or a cast `(int)`."""
    position = start
    while True:
        position = _skip_space_back(data, position)
        word = _previous_word(data, position)
        if word not in _TRAILING:
            break
        position -= len(word)
    if data[position - 1 : position] != b")":
        return False
    depth, opening = 0, position - 1
    while opening >= max(0, position - _MAX_ARGUMENTS):
        char = data[opening : opening + 1]
        depth += char == b")"
        depth -= char == b"("
        if depth == 0:
            break
        opening -= 1
    else:
        return False
    name = _previous_word(data, opening)
    return bool(name) and not name[:1].isdigit() and name not in _STATEMENTS


def _between_type_and_name(data: bytes, start: int, after: int) -> bool:
    """`Type MACRO name;`: a type before the macro, and a name after it that a declaration ends."""
    if b"\n" in data[_skip_space_back(data, start) : start]:
        return False  # a declaration's type and name share a line
    previous = _previous_word(data, start)
    if not previous:
        position = _skip_space_back(data, start)
        if data[position - 1 : position] not in (b"&", b"*", b">") or data[position - 2 : position] == b"->":
            return False
    elif previous in _STATEMENTS or previous in _SPECIFIERS or previous[:1].isdigit():
        return False  # `static HANDLE handle;`, `typedef LONG NTSTATUS;`: the name in capitals is the type
    following = _NAME.match(data, after)
    if following is None or following.group(1) in _NOT_NAMES:
        return False
    rest = _skip_space(data, following.end())
    return data[rest : rest + 1] in (b";", b"=", b",", b"[", b")")


def _word(data: bytes, position: int) -> bytes:
    name = _NAME.match(data, position)
    return name.group(1) if name else b""


def _skip_space(data: bytes, position: int) -> int:
    while data[position : position + 1].isspace():
        position += 1
    return position


def _skip_space_back(data: bytes, position: int) -> int:
    while position > 0 and data[position - 1 : position].isspace():
        position -= 1
    return position


def _previous_word(data: bytes, start: int) -> bytes:
    position = _skip_space_back(data, start)
    begin = position
    while begin > 0 and (data[begin - 1 : begin].isalnum() or data[begin - 1 : begin] == b"_"):
        begin -= 1
    return data[begin:position]
