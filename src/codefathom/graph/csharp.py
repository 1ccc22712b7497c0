"""C# namespaces: a namespace is every indexed file that declares a type in it (a block or a
file-scoped `namespace`), and a `using` directive names a namespace, a class or an alias of either.

A C# symbol's qualified name is `<namespace>.<Type>[.<Nested>].<member>`, so a top-level type's
parent is its namespace; a type outside every namespace is in the global namespace, qualified by its
own name, its parent the file's path. Code in a namespace sees the types of that namespace and of
the namespaces around it from every file (GraphSpec.open_namespaces, graph/resolve.py), then the
global namespace's. A partial class's parts may be written in several files, so a class's members
are looked for in every C# file. Namespaces the project does not declare (System, NuGet packages)
are external.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from codefathom.graphsource import GraphLookup, ImportRow, SymbolRow

__all__ = ["resolve_csharp_import", "package_members", "same_package", "GLOBAL_NAMESPACE"]

GLOBAL_NAMESPACE = ""
LANGUAGE = "csharp"


@dataclass
class _Namespaces:
    files: dict[str, list[int]]  # namespace -> the C# files declaring a type in it, by path
    of_file: dict[int, list[str]]  # file -> the namespaces it declares types in, in order
    named: dict[tuple[str, str], list[SymbolRow]] = field(default_factory=dict)  # (namespace, name) -> types


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Namespaces] = weakref.WeakKeyDictionary()


def _namespaces(lookup: GraphLookup) -> _Namespaces:
    """The namespaces of every C# file, from the parents of its top-level types (a type whose parent
    is no type of the same file)."""
    found = _CACHE.get(lookup)
    if found is None:
        rows = lookup.definitions_in(LANGUAGE, ("class",))
        types: dict[int, set[str]] = {}
        for file_id, qualified, _ in rows:
            types.setdefault(file_id, set()).add(qualified)
        of_file: dict[int, list[str]] = {}
        files: dict[str, list[int]] = {}
        for file_id, _, parent in rows:
            if parent in types[file_id]:
                continue  # a nested type
            namespace = GLOBAL_NAMESPACE if parent == lookup.path_of(file_id) else parent or GLOBAL_NAMESPACE
            spaces = of_file.setdefault(file_id, [])
            if namespace not in spaces:
                spaces.append(namespace)
                files.setdefault(namespace, []).append(file_id)
        for ids in files.values():
            ids.sort(key=lambda i: (len(of_file[i]) > 1, lookup.path_of(i)))  # a file of that namespace alone first
        found = _Namespaces(files, of_file)
        _CACHE[lookup] = found
    return found


def resolve_csharp_import(lookup: GraphLookup, row: ImportRow) -> tuple[int | None, int | None, bool, bool]:
    """(file, symbol, external, binds a module) of a `using`. `using A.B;` names a namespace (a file
    of it stands for it); `using static A.B.C;` a class, whose members it brings; `using X = A.B.C;` a
    class or a namespace. A namespace the project does not declare is outside it."""
    spaces = _namespaces(lookup)
    path = row.module if row.name == "*" else f"{row.module}.{row.name}" if row.module else row.name or ""
    if not path:
        return None, None, True, False
    if row.name == "*" and path in spaces.files:
        return spaces.files[path][0], None, False, True
    cls = _class(lookup, path)
    if cls is not None:
        return cls.file_id, cls.id, False, False
    if path in spaces.files:  # an alias of a namespace
        return spaces.files[path][0], None, False, True
    return None, None, _outside(spaces, path), False


def package_members(lookup: GraphLookup, file_id: int, name: str) -> list[SymbolRow]:
    """The top-level types named `name` in the namespaces of a C# file, from every file, its own
    first; the global namespace's when those have none."""
    spaces = _namespaces(lookup)
    if file_id not in spaces.of_file:
        return []
    found = [s for namespace in spaces.of_file[file_id] for s in _in_namespace(lookup, namespace, name)]
    if not found and GLOBAL_NAMESPACE not in spaces.of_file[file_id]:
        found = _in_namespace(lookup, GLOBAL_NAMESPACE, name)
    return sorted(found, key=lambda s: (s.file_id != file_id, lookup.path_of(s.file_id)))


def same_package(lookup: GraphLookup, first: int, second: int) -> bool:
    """A partial class's members may be written in any C# file of the project."""
    return lookup.language_of(first) == lookup.language_of(second) == LANGUAGE


def _in_namespace(lookup: GraphLookup, namespace: str, name: str) -> list[SymbolRow]:
    key = (namespace, name)
    spaces = _namespaces(lookup)
    if key not in spaces.named:
        if namespace == GLOBAL_NAMESPACE:
            found = [
                s for s in lookup.by_qualified(name)
                if s.kind == "class" and _is_csharp(lookup, s) and s.parent == lookup.path_of(s.file_id)
            ]
        else:
            found = [s for s in lookup.members(namespace, name) if s.kind == "class" and _is_csharp(lookup, s)]
        spaces.named[key] = found
    return spaces.named[key]


def _class(lookup: GraphLookup, qualified: str) -> SymbolRow | None:
    found = [s for s in lookup.by_qualified(qualified) if s.kind == "class" and _is_csharp(lookup, s)]
    return min(found, key=lambda s: lookup.path_of(s.file_id)) if found else None


def _is_csharp(lookup: GraphLookup, symbol: SymbolRow) -> bool:
    return lookup.language_of(symbol.file_id) == LANGUAGE


def _outside(spaces: _Namespaces, path: str) -> bool:
    """Whether a namespace (or a class's namespace) is none the project declares."""
    parts = path.split(".")
    return not any(".".join(parts[:end]) in spaces.files for end in range(len(parts), 0, -1))
