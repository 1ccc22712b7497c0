"""Import resolution: which file (and symbol) an import statement names, per module system.

Unresolved imports are third-party or standard-library modules and are kept as external. Go,
Java and Kotlin packages (one model for both), C# namespaces and Swift modules span several files
(`package_members`); Rust reaches some modules without an import (`implicit_import`: `crate`,
`super`, crates), C and C++ the project's global definitions (`graph/cfamily.py`); a C or C++
`#include` names a header (`graph/cinclude.py`); a shell `source` a script, whose functions a command
finds through the files it sources (`graph/shell.py`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from codefathom.graph import cfamily, cinclude, csharp, ecmascript, gomod, java, php, ruby, rust, shell, swift
from codefathom.graph.gomod import resolve_go_import
from codefathom.graph.meaning import Meaning
from codefathom.graph.specs import spec_for
from codefathom.graphsource import GraphLookup, ImportRow, SymbolRow

__all__ = [
    "ImportTarget", "resolve_import", "member_of_module", "package_members", "same_package", "implicit_import",
    "namespace_of", "namespace_path", "namespace_members", "nearest_definition", "compiled", "remembering",
]

MAX_REEXPORT_DEPTH = 3
# Languages whose top level spans several files (a Go package: its directory; a Java or Kotlin package
# or a C# namespace: the files that declare it; Ruby's one global namespace), by language: the
# top-level definitions of a name there, and whether two files are in one package.
_PACKAGE_MEMBERS: dict[str, Callable[[GraphLookup, int, str], list[SymbolRow]]] = {
    "go": gomod.package_members, "java": java.package_members, "kotlin": java.package_members,
    "scala": java.package_members,
    "csharp": csharp.package_members, "ruby": ruby.package_members, "php": php.package_members,
    "swift": swift.package_members,
}
_SAME_PACKAGE: dict[str, Callable[[GraphLookup, int, int], bool]] = {
    "go": gomod.same_package, "java": java.same_package, "kotlin": java.same_package, "scala": java.same_package,
    "csharp": csharp.same_package,
    "ruby": ruby.same_package, "php": php.same_package,
    "c": cfamily.same_package, "cpp": cfamily.same_package, "swift": swift.same_package,
}
# Languages whose names mean a definition of the whole project, found without an import.
_GLOBAL_DEFINITIONS: dict[str, Callable[[GraphLookup, int, str], Meaning | None]] = {
    **dict.fromkeys(shell.LANGUAGES, shell.global_definition),
    **dict.fromkeys(cfamily.LANGUAGES, cfamily.global_definition),
}
# Module systems whose imports are resolved once, the same way at any depth of re-exports.
_DIRECT_SYSTEMS = frozenset({"go", "java", "csharp", "ruby", "php", "c", "swift", "shell"})


@dataclass(frozen=True, slots=True)
class ImportTarget:
    file_id: int | None  # the module's file
    symbol_id: int | None  # the imported symbol, when the import names one
    external: bool
    module: bool = False  # the import binds the module itself (`import a.b`, `from a import b` of a submodule)
    confidence: float = 0.0  # how sure a meaning found without an import is (0: as sure as an import)
    candidates: int = 0  # no symbol: the number of definitions the name could mean


def resolve_import(lookup: GraphLookup, row: ImportRow, system: str) -> ImportTarget:
    if system == "python":
        return _python(lookup, row, 0)
    if system == "go":
        file_id, external = resolve_go_import(lookup, row)
        return ImportTarget(file_id, None, external, file_id is not None)
    if system == "ecmascript":
        return _ecmascript(lookup, row, 0)
    if system == "java":
        return ImportTarget(*java.resolve_java_import(lookup, row))
    if system == "rust":
        return ImportTarget(*rust.resolve_rust_import(lookup, row))
    if system == "csharp":
        return ImportTarget(*csharp.resolve_csharp_import(lookup, row))
    if system == "ruby":
        return ImportTarget(*ruby.resolve_ruby_import(lookup, row))
    if system == "php":
        return ImportTarget(*php.resolve_php_import(lookup, row))
    if system == "swift":
        return ImportTarget(*swift.resolve_swift_import(lookup, row))
    if system == "shell":
        return ImportTarget(*shell.resolve_source(lookup, row))
    if system == "c":
        resolved = cinclude.resolve_include(lookup, row) if row.name is None else cfamily.resolve_using(lookup, row)
        return ImportTarget(*resolved)
    return ImportTarget(None, None, False)


def package_members(lookup: GraphLookup, file_id: int, name: str) -> list[SymbolRow]:
    """The top-level definitions of `name` in the package of a file, for languages whose packages
    span files; empty for the others."""
    members = _PACKAGE_MEMBERS.get(lookup.language_of(file_id))
    return members(lookup, file_id, name) if members is not None else []


def compiled(lookup: GraphLookup, symbol: SymbolRow) -> bool:
    """Whether a definition exists on this platform: false for a C or C++ one in an `#if` branch
    this platform's compiler drops (graph/conditions.py); true for every other language."""
    return lookup.language_of(symbol.file_id) not in cfamily.LANGUAGES or cfamily.compiled(lookup, symbol)


def same_package(lookup: GraphLookup, first: int, second: int) -> bool:
    """Whether a class's members may be written in either file (Go: one package; C#: a partial class)."""
    check = _SAME_PACKAGE.get(lookup.language_of(first))
    return first == second or (check is not None and check(lookup, first, second))


def implicit_import(lookup: GraphLookup, file_id: int, name: str) -> ImportTarget | None:
    """What a name means without an import in the file's module system, if anything: Rust's
    `crate`, `super` and crate names; the C and C++ project's global definition of it; the shell
    function the files a script sources define."""
    language = lookup.language_of(file_id)
    global_definition = _GLOBAL_DEFINITIONS.get(language)
    if global_definition is not None:
        meaning = global_definition(lookup, file_id, name)
        if meaning is None:
            return None
        symbol = meaning.symbol
        return ImportTarget(symbol.file_id if symbol else None, symbol.id if symbol else None, False,
                            confidence=meaning.confidence, candidates=meaning.candidates)
    if language != "rust":
        return None
    found = rust.implicit_import(lookup, file_id, name)
    return ImportTarget(*found) if found is not None else None


def namespace_of(lookup: GraphLookup, file_id: int, name: str) -> str | None:
    """The namespace a bare name written as a qualifier means, for languages whose qualified names are
    namespace paths no import binds (PHP's `Model\\Order`, `\\App\\Model\\Order`); None otherwise."""
    return php.namespace_of(lookup, file_id, name) if lookup.language_of(file_id) == "php" else None
def namespace_path(lookup: GraphLookup, file_id: int, scope: str | None, name: str) -> str | None:
    """The namespace a name written in a scope means, in languages whose namespaces are reached by
    qualified names (C++ `ns::f`)."""
    return cfamily.namespace_path(lookup, scope, name) if lookup.language_of(file_id) in cfamily.LANGUAGES else None


def namespace_members(lookup: GraphLookup, namespace: str, name: str) -> list[SymbolRow]:
    return cfamily.namespace_members(lookup, namespace, name)


def nearest_definition(lookup: GraphLookup, file_id: int, found: list[SymbolRow]) -> ImportTarget:
    """Of the definitions of one name in an open namespace, the one a file means (C++)."""
    meaning = cfamily.nearest(lookup, file_id, found)
    symbol = meaning.symbol
    return ImportTarget(symbol.file_id if symbol else None, symbol.id if symbol else None, False,
                        confidence=meaning.confidence, candidates=meaning.candidates)


def _python(lookup: GraphLookup, row: ImportRow, depth: int) -> ImportTarget:
    module = _absolute_module(lookup, row)
    if row.name is None or row.name == "*":
        file_id = lookup.module_file(module)
        return ImportTarget(file_id, None, file_id is None, file_id is not None)
    submodule = lookup.module_file(f"{module}.{row.name}" if module else row.name)
    if submodule is not None:
        return ImportTarget(submodule, None, False, True)
    file_id = lookup.module_file(module)
    if file_id is None:
        return ImportTarget(None, None, True)
    found = member_of_module(lookup, module, file_id, row.name, depth)
    return found if found is not None else ImportTarget(file_id, None, False)


def _ecmascript(lookup: GraphLookup, row: ImportRow, depth: int) -> ImportTarget:
    """An ES module or CommonJS import: the file a specifier names (relative, or bare through
    tsconfig `paths`/`baseUrl`, then the project's packages by name), and in it the member
    imported. A default import (`name` "default") binds the file's top-level definition of its own
    name (`import Foo from "./foo"` for `export default class Foo`), when it has one."""
    file_id = ecmascript.resolve_specifier(lookup, row.file_id, row.module)
    if file_id is None:
        # a bare specifier neither tsconfig nor a package of the project answers names a package outside it
        return ImportTarget(None, None, not ecmascript.is_relative(row.module))
    if row.name is None or row.name == "*":
        return ImportTarget(file_id, None, False, True)
    module = lookup.module_of(file_id)
    if module is None:
        return ImportTarget(file_id, None, False)
    name = row.alias if row.name == "default" else row.name
    found = member_of_module(lookup, module.qualified_name, file_id, name, depth)
    return found if found is not None else ImportTarget(file_id, None, False)


def _resolve(lookup: GraphLookup, row: ImportRow, system: str, depth: int) -> ImportTarget:
    if system == "ecmascript":
        return _ecmascript(lookup, row, depth)
    if system == "rust":
        return ImportTarget(*rust.resolve_rust_import(lookup, row, depth))
    if system in _DIRECT_SYSTEMS:
        return resolve_import(lookup, row, system)
    return _python(lookup, row, depth)


def _star_origin(lookup: GraphLookup, row: ImportRow, system: str) -> tuple[str, int] | None:
    """The module (name and file) a `*` import brings the names of."""
    if system == "c":  # an include resolves alike wherever it is read: its stored answer
        module = lookup.module_of(row.target_file_id) if row.target_file_id is not None else None
        return (module.qualified_name, module.file_id) if module is not None else None
    if system in ("java", "rust", "csharp", "swift"):
        target = resolve_import(lookup, row, system)
        module = lookup.module_of(target.file_id) if target.module and target.file_id is not None else None
        return (module.qualified_name, module.file_id) if module is not None else None
    if system == "ecmascript":
        file_id = ecmascript.resolve_specifier(lookup, row.file_id, row.module)
        module = lookup.module_of(file_id) if file_id is not None else None
        return (module.qualified_name, file_id) if module is not None and file_id is not None else None
    origin = _absolute_module(lookup, row)
    origin_file = lookup.module_file(origin)
    return (origin, origin_file) if origin_file is not None else None


_MemberKey = tuple[str, int, str, int]
_REMEMBERED: weakref.WeakKeyDictionary[GraphLookup, dict[_MemberKey, ImportTarget | None]] = (
    weakref.WeakKeyDictionary()
)


@contextmanager
def remembering(lookup: GraphLookup) -> Iterator[None]:
    """Within it, `member_of_module` answers each question once: for a stretch of work during which
    the index does not change (every import of a first index: a barrel file that re-exports a
    package is asked for the same names by each of its importers, 1.1 million questions of which
    220,000 differ over a 28k-file TypeScript monorepo)."""
    _REMEMBERED[lookup] = {}
    try:
        yield
    finally:
        _REMEMBERED.pop(lookup, None)


def member_of_module(lookup: GraphLookup, module: str, file_id: int, name: str, depth: int = 0) -> ImportTarget | None:
    """What `name` means at the top level of a module: its own definition (the last one: an
    `@overload` stub comes before the implementation), else what the module imports under that
    name (`from .models import User` in a package's __init__), else what a `*` import brings.
    A Go or Java file's top level is its package's (a C# file's, its namespaces'); a Rust module's holds
    its child modules too."""
    memo = _REMEMBERED.get(lookup)
    if memo is None:
        return _member_of_module(lookup, module, file_id, name, depth)
    key = (module, file_id, name, depth)  # (depth too: what lies past the re-export limit is not found)
    if key not in memo:
        memo[key] = _member_of_module(lookup, module, file_id, name, depth)
    return memo[key]


def _member_of_module(lookup: GraphLookup, module: str, file_id: int, name: str, depth: int) -> ImportTarget | None:
    language = lookup.language_of(file_id)
    if language in _PACKAGE_MEMBERS:
        members = package_members(lookup, file_id, name)
        return ImportTarget(members[0].file_id, members[0].id, False) if members else None
    if language == "rust":
        found = rust.module_member(lookup, file_id, name, depth)
        return ImportTarget(*found) if found is not None else None
    defined = [s for s in lookup.members(module, name) if s.file_id == file_id]
    if defined:
        last = max(defined, key=lambda s: s.start_line)
        return ImportTarget(file_id, last.id, False)
    if depth >= MAX_REEXPORT_DEPTH:
        return None
    system = spec_for(lookup.language_of(file_id)).module_system
    if system in ("c", "shell"):
        return None  # what a header's (a script's) own includes define is found through its closure
    stars = []
    for again in lookup.imports_of(file_id):
        if again.alias == "*":
            stars.append(again)
        elif again.alias == name:
            target = _resolve(lookup, again, system, depth + 1)
            if target.symbol_id is not None or target.module or target.external:
                return target
    for star in stars:
        origin = _star_origin(lookup, star, system)
        if origin is not None:
            starred = member_of_module(lookup, origin[0], origin[1], name, depth + 1)
            if starred is not None:
                return starred
    return None


def _absolute_module(lookup: GraphLookup, row: ImportRow) -> str:
    if not row.level:
        return row.module
    importer = lookup.module_of(row.file_id)
    parts = importer.qualified_name.split(".") if importer else []
    if not lookup.path_of(row.file_id).endswith("__init__.py"):
        parts = parts[:-1]  # a module's package is its parent; a package's __init__ is the package
    parts = parts[: len(parts) - (row.level - 1)] if row.level > 1 else parts
    return ".".join(parts + ([row.module] if row.module else []))
