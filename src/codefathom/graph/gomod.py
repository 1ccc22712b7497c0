"""Go packages: an import path names a directory of a module that a `go.mod` declares, and a
package's top level is every file of that directory.

A Go symbol's qualified name is `<package>.<Name>` (a method's `<package>.<Type>.<Name>`), so a
top-level symbol is one whose parent has no dot; the module symbol of a Go file is its path.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from posixpath import dirname, join, normpath

from codefathom.graphsource import GraphLookup, ImportRow, SymbolRow

__all__ = ["resolve_go_import", "package_member", "package_members", "same_package"]

_MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?\s*(?://.*)?$", re.MULTILINE)


@dataclass
class _Packages:
    modules: list[tuple[str, str]]  # (module path, directory of its go.mod), longest module path first
    files: dict[str, list[int]]  # directory -> its Go files, non-test files first
    package_names: dict[int, str | None] = field(default_factory=dict)
    # (directory, package, name) -> its definitions, for one binding run (the index holds still)
    members: dict[tuple[str, str | None, str], list[SymbolRow]] = field(default_factory=dict)


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Packages] = weakref.WeakKeyDictionary()


def _packages(lookup: GraphLookup) -> _Packages:
    found = _CACHE.get(lookup)
    if found is None:
        modules = []
        files: dict[str, list[int]] = {}
        for file_id, path in lookup.paths().items():
            if path == "go.mod" or path.endswith("/go.mod"):
                match = _MODULE_LINE.search(lookup.file_text(file_id))
                if match:
                    modules.append((match.group(1).rstrip("/"), dirname(path)))
            elif path.endswith(".go") and lookup.language_of(file_id) == "go":
                files.setdefault(dirname(path), []).append(file_id)
        for ids in files.values():
            ids.sort(key=lambda i: (lookup.path_of(i).endswith("_test.go"), lookup.path_of(i)))
        modules.sort(key=lambda m: (-len(m[0]), m[1]))
        found = _Packages(modules, files)
        _CACHE[lookup] = found
    return found


def resolve_go_import(lookup: GraphLookup, row: ImportRow) -> tuple[int | None, bool]:
    """(a file of the imported package, whether it is outside the project). The package is the
    directory the import path names under the longest module path that prefixes it."""
    packages = _packages(lookup)
    path = row.module.strip("/")
    for module, directory in packages.modules:
        if path != module and not path.startswith(module + "/"):
            continue
        rest = path[len(module):].strip("/")
        target = normpath(join(directory, rest)) if rest else (directory or ".")
        ids = packages.files.get("" if target == "." else target, [])
        return (ids[0] if ids else None), False
    return None, True


def package_members(lookup: GraphLookup, file_id: int, name: str) -> list[SymbolRow]:
    """The top-level definitions named `name` in the package of a Go file: its directory."""
    packages = _packages(lookup)
    directory = dirname(lookup.path_of(file_id))
    package = _package_name(lookup, packages, file_id)
    key = (directory, package, name)
    if key not in packages.members:
        packages.members[key] = _package_members(lookup, directory, package, name)
    return packages.members[key]


def _package_members(lookup: GraphLookup, directory: str, package: str | None, name: str) -> list[SymbolRow]:
    found = []
    for symbol in lookup.by_name(name):
        parent = symbol.parent
        if symbol.kind == "module" or not parent or "." in parent or (package is not None and parent != package):
            continue
        if lookup.language_of(symbol.file_id) == "go" and dirname(lookup.path_of(symbol.file_id)) == directory:
            found.append(symbol)
    return sorted(found, key=lambda s: (lookup.path_of(s.file_id).endswith("_test.go"), lookup.path_of(s.file_id)))


def package_member(lookup: GraphLookup, file_id: int, name: str) -> SymbolRow | None:
    members = package_members(lookup, file_id, name)
    return members[0] if members else None


def same_package(lookup: GraphLookup, first: int, second: int) -> bool:
    """Whether two Go files are in one package: one directory (a type's methods may be in any)."""
    return first == second or (
        lookup.language_of(first) == lookup.language_of(second) == "go"
        and dirname(lookup.path_of(first)) == dirname(lookup.path_of(second))
    )


def _package_name(lookup: GraphLookup, packages: _Packages, file_id: int) -> str | None:
    """The package clause of a Go file, as its symbols are qualified (None: it defines nothing)."""
    if file_id not in packages.package_names:
        qualified = lookup.first_definition(file_id)
        packages.package_names[file_id] = qualified.split(".")[0] if qualified is not None else None
    return packages.package_names[file_id]
