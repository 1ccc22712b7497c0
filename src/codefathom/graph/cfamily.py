"""C and C++ names no scope of the file defines: the project's flat global namespace, and C++
namespaces.

C links every non-`static` top-level definition into one namespace, so a name the file's scopes,
its own top level and its headers do not define means the project's one definition of it. That
binds exact (REACHED) when a header the file includes declares it (a prototype) or defines it, and
likely (UNIQUE) when nothing the file includes does. A function defined once per platform is the
one of the platform the index is built on: files whose path names only other platforms
(`src/win/`, `kqueue.c`, `aix.c`: PLATFORM_WORDS) are set aside, and the one definition left binds
high (PLATFORM); of several left, one in a file named for this platform (`linux.c` beside
`posix-poll.c`) binds likely; otherwise the name stays unbound with their count. A `static`
definition, or a macro of a source file, is its own file's (and an includer's), never another
file's. Prototypes are not symbols: a call binds to the definition, wherever it is; a function
only declared binds nowhere.

C++ namespaces are not symbols either: a namespace is a qualified name that parents the project's
C++ definitions without being a class (`ns.Order`'s `ns`); `ns::f` is looked up among those
members in every file, and `using namespace ns;` adds ns's members to what the global step finds.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field

from codefathom.graph.cinclude import included_files
from codefathom.graph.conditions import compiled_under, host
from codefathom.graph.meaning import Meaning
from codefathom.graphsource import GraphLookup, ImportRow, SymbolRow
from codefathom.parse.hooks.cfamily import NAMESPACE_IMPORT

__all__ = [
    "global_definition", "compiled", "other_platform", "nearest", "namespace_path", "namespace_members",
    "resolve_using", "same_package", "LANGUAGES",
]

LANGUAGES = frozenset({"c", "cpp"})
# What a top level or a namespace defines (a method too: `int util::pad() {}` is written like one).
GLOBAL_KINDS = frozenset({"function", "method", "class", "constant"})
REACHED = 0.9
UNIQUE = 0.5
PLATFORM = 0.7  # the one definition left once other platforms' files are set aside
_STATIC = re.compile(r"\bstatic\b")
_MACRO = re.compile(r"^#\s*define\b")
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".inl", ".ipp", ".tcc")
# Words in a file's path that say which platform it is built for (`src/win/`, `kqueue.c`,
# `os390-syscalls.c`); a file naming another platform than the one the index is built on is not
# compiled here, so its definitions are not what a call means here.
PLATFORM_WORDS: dict[str, frozenset[str]] = {
    "linux": frozenset({"linux", "epoll", "inotify"}),
    "darwin": frozenset({"darwin", "macos", "osx", "apple", "fsevents", "kqueue"}),
    "win32": frozenset({"win", "win32", "win64", "windows", "msvc", "mingw", "winapi"}),
    "bsd": frozenset({"bsd", "freebsd", "openbsd", "netbsd", "dragonfly", "kqueue"}),
    "aix": frozenset({"aix", "ibmi", "os400", "pase"}),
    "zos": frozenset({"os390", "zos", "mvs"}),
    "sunos": frozenset({"sunos", "solaris", "illumos"}),
    "other": frozenset({"haiku", "qnx", "cygwin", "hurd", "android", "ios", "emscripten", "wasi"}),
}
_WORDS = re.compile(r"[a-z0-9]+")



@dataclass
class _Namespaces:
    paths: set[str]  # every namespace of the project's C++ definitions, dotted
    static: set[int]  # the `static` (file-local) functions, by symbol id
    used: dict[int, set[str]] = field(default_factory=dict)  # file -> namespaces its `using namespace` names


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Namespaces] = weakref.WeakKeyDictionary()


def _namespaces(lookup: GraphLookup) -> _Namespaces:
    found = _CACHE.get(lookup)
    if found is None:
        rows = lookup.parents_in(("c", "cpp"))
        classes = {qualified for _, qualified, kind in rows if kind == "class"}
        files = set(lookup.paths().values())
        paths: set[str] = set()
        for parent, _, _ in rows:
            parts = (parent or "").split(".") if parent not in files else []
            for end in range(1, len(parts) + 1):
                prefix = ".".join(parts[:end])
                if prefix in classes:
                    break  # a class's members, and what is nested in it, are no namespace's
                paths.add(prefix)
        static = {
            symbol_id for symbol_id, _, signature in lookup.signatures_in(("c", "cpp"), "function", "%static%")
            if _STATIC.search(signature.split("(", 1)[0])
        }
        # A macro of a source file (not a header) is that file's alone: `# define read _read` in a test.
        static |= {
            symbol_id for symbol_id, path, signature in lookup.signatures_in(("c", "cpp"), "constant", "#%")
            if _MACRO.match(signature) and not path.lower().endswith(HEADER_SUFFIXES)
        }
        found = _Namespaces(paths, static)
        _CACHE[lookup] = found
    return found


def global_definition(lookup: GraphLookup, file_id: int, name: str) -> Meaning | None:
    """The project-wide definition a bare name means in a C or C++ file, if any could."""
    spaces = {""} | _used(lookup, file_id)
    closure = included_files(lookup, file_id)
    candidates = [
        s for s in lookup.by_name(name) if _global(lookup, s, spaces, file_id, closure) and compiled(lookup, s)
    ]
    if not candidates:
        return None
    visible = [s for s in candidates if s.file_id == file_id or s.file_id in closure]
    if visible and len({s.file_id for s in visible}) == 1:  # (a macro defined in two `#if` branches)
        return Meaning(max(visible, key=lambda s: s.start_line), REACHED)
    here = [s for s in candidates if not _foreign(lookup, s.file_id)]
    if len(here) == 1:
        declared = any(_declares(lookup, f, name, spaces) for f in closure | {file_id})
        platform = len(candidates) > 1  # chosen over other platforms' definitions
        return Meaning(here[0], PLATFORM if platform else REACHED if declared else UNIQUE)
    native = [s for s in here if _native(lookup, s.file_id)]
    if len(native) == 1:  # `linux.c` beside a generic `posix-poll.c`
        return Meaning(native[0], UNIQUE)
    return Meaning(None, candidates=len(here)) if here else None


def nearest(lookup: GraphLookup, file_id: int, found: list[SymbolRow]) -> Meaning:
    """Of several definitions of one name in a namespace (one per platform, or a declaration and
    its definition), the one a file sees: its own, else those of one file it includes, else the
    only file defining it; definitions in several files it could mean leave the name unbound."""
    files = {s.file_id for s in found}
    for chosen in ({file_id} & files, files & included_files(lookup, file_id), files):
        if len(chosen) == 1:
            kept = [s for s in found if s.file_id in chosen]
            return Meaning(max(kept, key=lambda s: s.start_line), REACHED)
        if chosen:
            break
    return Meaning(None, candidates=len(files))


def namespace_path(lookup: GraphLookup, scope: str | None, name: str) -> str | None:
    """The namespace a name written in `scope` means (`util` inside `app` may be `app.util`), if it
    names one: the innermost enclosing namespace first."""
    paths = _namespaces(lookup).paths
    parts = scope.split(".") if scope else []
    for end in range(len(parts), -1, -1):
        candidate = ".".join([*parts[:end], name])
        if candidate in paths:
            return candidate
    return None


def namespace_members(lookup: GraphLookup, namespace: str, name: str) -> list[SymbolRow]:
    """The definitions named `name` in a namespace, from every C and C++ file."""
    return [s for s in lookup.members(namespace, name) if s.kind in GLOBAL_KINDS and _c_family(lookup, s)]


def resolve_using(lookup: GraphLookup, row: ImportRow) -> tuple[int | None, int | None, bool, bool]:
    """(file, symbol, external, binds a module) of `using ns::f;` (f's definition) or `using
    namespace ns;` (nothing to point at: the binder reads the namespace from the import itself); a
    namespace the project does not declare (`std`) is external."""
    if row.module not in _namespaces(lookup).paths:
        classes = [s for s in lookup.by_qualified(row.module) if s.kind == "class" and _c_family(lookup, s)]
        if classes and row.name and row.name != NAMESPACE_IMPORT:  # `using Base::f;` in a class
            members = lookup.members(classes[0].qualified_name, row.name)
            return (members[0].file_id, members[0].id, False, False) if members else (None, None, False, False)
        return None, None, True, False
    if row.name == NAMESPACE_IMPORT or not row.name:
        return None, None, False, False
    members = namespace_members(lookup, row.module, row.name)
    return (members[0].file_id, members[0].id, False, False) if members else (None, None, False, False)


def same_package(lookup: GraphLookup, first: int, second: int) -> bool:
    """A C++ class's methods may be defined in any file (`void Foo::bar() {}` in foo.cpp)."""
    return lookup.language_of(first) in LANGUAGES and lookup.language_of(second) in LANGUAGES


def _used(lookup: GraphLookup, file_id: int) -> set[str]:
    spaces = _namespaces(lookup)
    if file_id not in spaces.used:
        spaces.used[file_id] = {
            row.module for row in lookup.imports_of(file_id) if row.name == NAMESPACE_IMPORT and not row.external
        }
    return spaces.used[file_id]


def _global(lookup: GraphLookup, symbol: SymbolRow, spaces: set[str], file_id: int, closure: set[int]) -> bool:
    """Whether a definition is seen project-wide from a file: a top-level (or used namespace's)
    function, type, macro or typedef of C or C++, `static` only in its own file and its includers."""
    if symbol.kind not in GLOBAL_KINDS or not _c_family(lookup, symbol):
        return False
    namespace = "" if symbol.parent == lookup.path_of(symbol.file_id) else symbol.parent or ""
    if namespace not in spaces or (symbol.kind == "method" and not namespace):
        return False  # (a method's parent is a class, unless it is a namespace the file uses)
    local = symbol.file_id == file_id or symbol.file_id in closure
    return local or symbol.id not in _namespaces(lookup).static


def other_platform(path: str) -> bool:
    """Whether a file's path names only platforms other than this one (`src/win/thread.c` on Linux):
    it is not built here."""
    words = set(_WORDS.findall(path.lower()))
    return any(words & marks for marks in PLATFORM_WORDS.values()) and not words & _host_words()


def _foreign(lookup: GraphLookup, file_id: int) -> bool:
    return other_platform(lookup.path_of(file_id))


def _native(lookup: GraphLookup, file_id: int) -> bool:
    return bool(set(_WORDS.findall(lookup.path_of(file_id).lower())) & _host_words())


def _host_words() -> frozenset[str]:
    return PLATFORM_WORDS.get(host(), frozenset())


def compiled(lookup: GraphLookup, symbol: SymbolRow) -> bool:
    """Whether a C or C++ definition is compiled on this platform: false only when the `#if`
    branches around it say it is not (`#ifdef _WIN32`, `#if 0`; see graph/conditions.py)."""
    written = lookup.hint_table(symbol.file_id).get((None, symbol.name), ())
    conditions = [condition for condition, kind, line in written if kind == "condition" and line == symbol.start_line]
    return compiled_under(conditions, lookup.language_of(symbol.file_id) == "cpp")


def _declares(lookup: GraphLookup, file_id: int, name: str, spaces: set[str]) -> bool:
    """Whether a file declares a function of that name (a prototype) at its top level or in a namespace."""
    table = lookup.hint_table(file_id)
    return any(
        kind == "prototype" for space in spaces for _, kind, _ in table.get((space or None, name), [])
    )


def _c_family(lookup: GraphLookup, symbol: SymbolRow) -> bool:
    return lookup.language_of(symbol.file_id) in LANGUAGES
