"""C and C++ includes and `using` declarations as imports, and C/C++ types and receivers rewritten
into the dotted expressions the binder reads.

`#include "a/b.h"` is an import of module `a/b.h` (`<stdio.h>` keeps its brackets: it is looked for
in include directories only) that brings every name the header defines, like Python's `*`.
`using namespace a::b;` brings a namespace's names (module `a.b`, name "namespace", alias "*");
`using a::b::f;` binds `f` (module `a.b`, name `f`).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codefathom.model import ImportSite
from codefathom.parse.hooks.common import node_text as _text
from codefathom.parse.hooks.common import substitute_nested

__all__ = [
    "parse_import", "rewrite_c", "rewrite_cpp", "NAMESPACE_IMPORT", "preprocessor_branches", "Branch",
    "PLATFORM_MACROS", "says_platform",
]

NAMESPACE_IMPORT = "namespace"  # the name of a `using namespace` import
_QUALIFIERS = re.compile(
    r"\b(?:const|volatile|restrict|__restrict|struct|union|enum|class|typename|static|inline|extern|register|"
    r"mutable|constexpr|signed|unsigned|short|long)\b"
)
_TEMPLATE = re.compile(r"<[^<>]*>")
_CAST = re.compile(r"\b(?:static|dynamic|reinterpret|const)_cast<\s*([\w:]+)[\s*&]*>")
_SUBSCRIPT = re.compile(r"\[[^\[\]]*\]")
_DEREFERENCE = re.compile(r"\(\s*[*&]+\s*([\w.]+)\s*\)")
_NEW = re.compile(r"(?:(?<=^)|(?<=[.(\s]))new\s+")
_POINTERS_AND_ARRAYS = re.compile(r"[*&]+|\[[^\]]*\]")
_SPACE_AROUND_BRACKETS = re.compile(r"\s*([\[\],])\s*")


def parse_import(node: Node) -> list[ImportSite]:
    line = node.start_point.row + 1
    if node.type == "preproc_include":
        path = node.child_by_field_name("path")
        if path is None:
            return []
        written = _text(path).strip()
        module = written if written.startswith("<") else written.strip('"')
        return [ImportSite(module, None, "*", line)] if module.strip("<>") else []
    named = [c for c in node.named_children if c.type in ("identifier", "qualified_identifier")]
    if not named:
        return []
    dotted = "".join(_text(named[0]).split()).lstrip(":").replace("::", ".")
    if any(c.type == "namespace" for c in node.children):
        return [ImportSite(dotted, NAMESPACE_IMPORT, "*", line)]
    module, _, name = dotted.rpartition(".")
    return [ImportSite(module, name, name, line)] if module and name else []


def rewrite_c(node: Node, text: str, is_type: bool) -> str:
    """A C type as the binder reads types (`const struct foo *` -> `foo`), or an expression as it
    reads expressions (`(*p)->q[i].f` -> `p.q.f`: an element of a pointer or array has the type
    written for it, so subscripts are dropped)."""
    if is_type:
        return _type(text, cpp=False)
    text = _expression(node, text)
    return _SUBSCRIPT.sub("", text) if "[" in text else text  # (most have none: the pass costs more)


def rewrite_cpp(node: Node, text: str, is_type: bool) -> str:
    """A C++ type (`const std::vector<ns::Order>&` -> `vector[ns.Order]`) or expression
    (`new Foo(x)->bar` -> `Foo(x).bar`, `a::b::f` reached through `a.b`, `static_cast<Foo*>(p)` ->
    `Foo(p)`)."""
    if is_type:
        return _type(text, cpp=True)
    return _expression(node, text)


def _type(text: str, cpp: bool) -> str:
    text = _QUALIFIERS.sub(" ", text.replace("std::", "").lstrip(":"))
    text = _POINTERS_AND_ARRAYS.sub(" ", text).replace("::", ".")
    if cpp:
        text = " ".join(text.replace("<", "[").replace(">", "]").split())
        return _SPACE_AROUND_BRACKETS.sub(r"\1", text)
    words = text.split()
    return words[-1] if words else "int"  # `unsigned` alone is an int


def _expression(node: Node, text: str) -> str:
    if node.type == "qualified_identifier":  # the scope a name is reached through: `a::b` of `a::b::f`
        while node.parent is not None and node.parent.type == "qualified_identifier":
            node = node.parent
        text = _text(node).rpartition("::")[0]
    text = " ".join(text.split())
    # A pass is skipped when the text lacks what every match of it holds: most texts are plain
    # names, and looking costs far less than a regex pass.
    if "_cast" in text:
        text = _CAST.sub(r"\1", text)
    if "new" in text:
        text = _NEW.sub("", text)
    if "<" in text:
        text = substitute_nested(_TEMPLATE, "", text)
    text = text.replace("->", ".").replace("::", ".").lstrip(".")
    if "(" in text:
        text = _DEREFERENCE.sub(r"\1", text)
    return text.lstrip("*&").strip()


# The macros compilers predefine per platform: what a condition that names one says can be read
# on the machine an index is built on (graph/cfamily.py); other conditions (header guards, a
# project's own `HAVE_X`) say nothing there, so branches under them are not recorded.
PLATFORM_MACROS: dict[str, frozenset[str]] = {
    "linux": frozenset({"__linux__", "__linux", "linux", "__gnu_linux__", "__unix__", "__unix", "unix", "__ELF__"}),
    "darwin": frozenset({"__APPLE__", "__MACH__", "TARGET_OS_MAC", "TARGET_OS_IPHONE", "TARGET_OS_OSX"}),
    "win32": frozenset({
        "_WIN32", "_WIN64", "WIN32", "_WINDOWS", "__WIN32__", "__MINGW32__", "__MINGW64__", "_MSC_VER",
    }),
    "bsd": frozenset({"__FreeBSD__", "__OpenBSD__", "__NetBSD__", "__DragonFly__", "__unix__", "__unix", "unix",
                      "__ELF__"}),
    "aix": frozenset({"_AIX", "__PASE__", "__OS400__"}),
    "zos": frozenset({"__MVS__", "__TOS_MVS__"}),
    "sunos": frozenset({"__sun", "sun", "__SVR4", "__svr4__", "__illumos__", "__unix__", "__unix"}),
    "other": frozenset({"__HAIKU__", "__QNX__", "__QNXNTO__", "__CYGWIN__", "__GNU__", "__ANDROID__",
                        "__EMSCRIPTEN__", "__wasi__", "__OS2__"}),
}
_PLATFORM_NAMES = frozenset().union(*PLATFORM_MACROS.values()) | {"__cplusplus"}
_IDENTIFIERS = re.compile(r"[A-Za-z_]\w*")


def says_platform(condition: str) -> bool:
    """Whether a condition names a platform's macro or is a constant (`#if 0`)."""
    return condition.strip("() ") in ("0", "1") or any(
        word in _PLATFORM_NAMES for word in _IDENTIFIERS.findall(condition)
    )


# A branch of `#if`/`#ifdef`/`#elif`/`#else`: its first and last line and the condition under which
# the preprocessor keeps it, as one C expression (`!(defined(_WIN32)) && (defined(__linux__))`).
Branch = tuple[int, int, str]
_CONDITIONALS = frozenset({"preproc_if", "preproc_ifdef"})
_ALTERNATIVES = frozenset({"preproc_elif", "preproc_elifdef", "preproc_else"})


def preprocessor_branches(conditionals: list[Node]) -> list[Branch]:
    """Every branch of the conditionals of a file (`#if`, `#ifdef`: every one, nested ones too, as
    the graph query's `@conditional` finds them) whose condition names a platform (`#ifdef _WIN32`,
    `#if defined(__linux__) || defined(__APPLE__)`, `#if 0`)."""
    # Outer conditionals first, whatever order they come in: a definition's conditions are joined
    # in this order.
    found = sorted(conditionals, key=lambda node: (node.start_byte, -node.end_byte))
    return [branch for node in found for branch in _branches(node)]


def _branches(node: Node) -> list[Branch]:
    found: list[Branch] = []
    earlier: list[str] = []  # the conditions of the branches before: not taken, if this one is
    current: Node | None = node
    while current is not None:
        alternative = current.child_by_field_name("alternative")
        condition = _condition(current)
        first = current.start_point.row + 2  # (the directive's own line is not in the branch)
        end = current.end_point
        last = alternative.start_point.row if alternative is not None else end.row + (end.column > 0)
        parts = [f"!({c})" for c in earlier] + ([f"({condition})"] if condition else [])
        if parts and first <= last and (says_platform(condition or "") or any(map(says_platform, earlier))):
            found.append((first, last, " && ".join(parts)))
        if condition is None:
            break  # `#else`, or a condition not read: what follows says nothing either
        earlier.append(condition)
        current = alternative if alternative is not None and alternative.type in _ALTERNATIVES else None
    return found


def _condition(node: Node) -> str | None:
    """A conditional's or alternative's own condition as a C expression; None for `#else`."""
    if node.type in ("preproc_if", "preproc_elif"):
        condition = node.child_by_field_name("condition")
        return " ".join(_text(condition).split()) if condition is not None else None
    if node.type in ("preproc_ifdef", "preproc_elifdef"):
        name = node.child_by_field_name("name")
        if name is None:
            return None
        negated = _text(node.children[0]).strip() in ("#ifndef", "#elifndef")
        return f"{'!' if negated else ''}defined({_text(name)})"
    return None
