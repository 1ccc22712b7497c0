"""Java, Kotlin and Scala packages: a package is every indexed Java, Kotlin or Scala file whose `package`
declaration names it, wherever it lies (`src/main/java`, `src/main/kotlin`, `src/main/scala`,
`src/test/...`, generated sources), and an import names a class (Kotlin, Scala: also a top-level
function or property) of one.

A symbol's qualified name is `<package>.<Class>[.<Nested>].<member>`, so a top-level definition's
parent is its package (a file without a package declaration qualifies by its path instead, and
forms the default package with the others like it). The languages share packages: a Kotlin or
Scala file sees the Java classes of its package and imports them, and the other way round; only
Kotlin and Scala see top-level functions and properties by their bare names. `java.lang` is imported implicitly
(Kotlin's default imports, `kotlin.*`, `kotlin.collections.*`, ..., too, when the project is them).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from codefathom.graphsource import GraphLookup, ImportRow, SymbolRow

__all__ = ["resolve_java_import", "package_members", "same_package", "DEFAULT_PACKAGE"]

DEFAULT_PACKAGE = ""
# What a file's own package and imports do not name, it may find here, by language.
IMPLICIT_PACKAGES = {
    "java": ("java.lang",),
    "kotlin": (
        "kotlin", "kotlin.annotation", "kotlin.collections", "kotlin.comparisons", "kotlin.io", "kotlin.ranges",
        "kotlin.sequences", "kotlin.text", "kotlin.jvm", "java.lang",
    ),
    "scala": ("scala", "scala.collection", "scala.collection.immutable", "java.lang"),
}
# The kinds of top-level definition a file of each language sees by bare name in a package.
TOP_LEVEL_KINDS = {
    "java": frozenset({"class"}),
    "kotlin": frozenset({"class", "function", "constant"}),
    "scala": frozenset({"class", "function", "constant"}),  # Scala 3 top-level defs and vals
}
LANGUAGES = tuple(TOP_LEVEL_KINDS)
_TOP_LEVEL_ANY = frozenset().union(*TOP_LEVEL_KINDS.values())


@dataclass
class _Packages:
    files: dict[str, list[int]]  # package -> its Java and Kotlin files (that define something), by path
    package_of: dict[int, str]  # file -> package
    top_level: dict[int, str]  # file -> the parent its top-level definitions have (package or path)
    named: dict[tuple[str, str], list[SymbolRow]] = field(default_factory=dict)  # (package, name) -> top level


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Packages] = weakref.WeakKeyDictionary()


def _packages(lookup: GraphLookup) -> _Packages:
    """The package of every Java and Kotlin file, from its first (outermost) definition: the parent
    of a top-level class (Kotlin: function, property) is the package its file declares."""
    found = _CACHE.get(lookup)
    if found is None:
        rows = lookup.outer_parents(LANGUAGES, sorted(_TOP_LEVEL_ANY))
        top_level: dict[int, str] = {}
        for file_id, parent in rows:
            top_level.setdefault(file_id, parent or "")
        files: dict[str, list[int]] = {}
        package_of = {}
        for file_id, parent in top_level.items():
            package = DEFAULT_PACKAGE if parent == lookup.path_of(file_id) else parent
            package_of[file_id] = package
            files.setdefault(package, []).append(file_id)
        for ids in files.values():
            ids.sort(key=lookup.path_of)
        found = _Packages(files, package_of, top_level)
        _CACHE[lookup] = found
    return found


def resolve_java_import(lookup: GraphLookup, row: ImportRow) -> tuple[int | None, int | None, bool, bool]:
    """(file, symbol, external, binds a module) of an import. `a.b.C` and `a.b.C.m` (static) are
    looked up by qualified name, so a nested class or a static member needs no source root; `a.b.*`
    names a package (its first file stands for it) or a class (`import static a.b.C.*`). A package
    the project does not declare is outside it: the JDK, a library."""
    packages = _packages(lookup)
    if row.name == "*":
        ids = packages.files.get(row.module)
        if ids:
            return ids[0], None, False, True
        cls = _class(lookup, row.module)
        if cls is not None:
            return cls.file_id, cls.id, False, False
        return None, None, _outside(packages, row.module), False
    if not row.name:
        return None, None, True, False
    qualified = f"{row.module}.{row.name}" if row.module else row.name
    member = _java_symbol(lookup, qualified)
    if member is not None:
        return member.file_id, member.id, False, False
    owner = _class(lookup, row.module)
    if owner is not None:  # a static member the project does not name (an inherited field)
        return owner.file_id, None, False, False
    return None, None, _outside(packages, row.module), False


def package_members(lookup: GraphLookup, file_id: int, name: str) -> list[SymbolRow]:
    """The top-level definitions named `name` in the package of a Java or Kotlin file that the file
    sees by bare name, its own file's first; the implicit packages' when its package has none (the
    project is the JDK, or Kotlin's standard library)."""
    packages = _packages(lookup)
    if file_id not in packages.package_of:
        return []
    language = lookup.language_of(file_id)
    kinds = TOP_LEVEL_KINDS.get(language, frozenset())
    package = packages.package_of[file_id]
    found = [s for s in _in_package(lookup, packages, package, name) if s.kind in kinds]
    for implicit in IMPLICIT_PACKAGES.get(language, ()):
        if found or implicit == package:
            break
        found = [s for s in _in_package(lookup, packages, implicit, name) if s.kind in kinds]
    return sorted(found, key=lambda s: (s.file_id != file_id, lookup.path_of(s.file_id)))


def same_package(lookup: GraphLookup, first: int, second: int) -> bool:
    """A Java class's members are all written in its own file; a Kotlin class's in the files that
    declare it (a multiplatform `expect class` and its `actual` classes, one per platform). An
    extension function is no member: graph/resolve.py finds it by its receiver's type."""
    return first == second or lookup.language_of(first) == lookup.language_of(second) == "kotlin"


def _in_package(lookup: GraphLookup, packages: _Packages, package: str, name: str) -> list[SymbolRow]:
    key = (package, name)
    if key not in packages.named:
        packages.named[key] = _in_package_uncached(lookup, packages, package, name)
    return packages.named[key]


def _in_package_uncached(lookup: GraphLookup, packages: _Packages, package: str, name: str) -> list[SymbolRow]:
    if package == DEFAULT_PACKAGE:
        return [
            s for file_id in packages.files.get(DEFAULT_PACKAGE, [])
            for s in lookup.members(packages.top_level[file_id], name)
            if s.file_id == file_id and s.kind in _TOP_LEVEL_ANY
        ]
    return [
        s for s in lookup.members(package, name)
        if s.kind in _TOP_LEVEL_ANY and lookup.language_of(s.file_id) in TOP_LEVEL_KINDS
    ]


def _java_symbol(lookup: GraphLookup, qualified: str) -> SymbolRow | None:
    found = [s for s in lookup.by_qualified(qualified) if lookup.language_of(s.file_id) in TOP_LEVEL_KINDS]
    classes = [s for s in found if s.kind == "class"]
    return (classes or found)[0] if found else None


def _class(lookup: GraphLookup, qualified: str) -> SymbolRow | None:
    symbol = _java_symbol(lookup, qualified) if qualified else None
    return symbol if symbol is not None and symbol.kind == "class" else None


def _outside(packages: _Packages, module: str) -> bool:
    """Whether a package (or a class's package) is none the project declares."""
    parts = module.split(".")
    return not any(".".join(parts[:end]) in packages.files for end in range(len(parts), 0, -1))
