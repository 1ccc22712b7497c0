"""PHP namespaces: a namespace is every indexed file that declares a class or function in it (`namespace
A\\B;` or a `namespace A\\B { }` block), and a `use` declaration names a class, function, constant or
namespace by its fully qualified name.

A PHP symbol's qualified name is `<namespace>.<Class>.<member>` (`App\\Model\\Order::save` ->
`App.Model.Order.save`), so a top-level class's or function's parent is its namespace; one outside every
namespace is global, qualified by its own name, its parent the file's path. Code in a namespace sees the
classes and functions of that namespace from every file; functions and constants fall back to the
global namespace, classes do not. A name the project does not declare may still be the project's
through `composer.json`'s `autoload.psr-4` (a prefix mapped to a directory: `App\\Foo\\Bar` ->
`src/Foo/Bar.php`); a namespace neither declares nor maps (a vendor package, PHP's own) is external.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field
from posixpath import dirname, join, normpath

from codefathom.graphsource import GraphLookup, ImportRow, SymbolRow

__all__ = ["resolve_php_import", "package_members", "same_package", "namespace_of", "GLOBAL_NAMESPACE"]

GLOBAL_NAMESPACE = ""
LANGUAGE = "php"
MEMBER_KINDS = frozenset({"class", "function", "constant"})
FALLBACK_KINDS = frozenset({"function", "constant"})  # what an unqualified name finds in the global namespace


@dataclass
class _Namespaces:
    files: dict[str, list[int]]  # namespace -> the PHP files declaring something in it, by path
    of_file: dict[int, str]  # file -> its (first) namespace
    prefixes: set[str]  # every declared namespace and each namespace around one (`App`, `App.Model`)
    autoload: list[tuple[str, str]]  # (namespace prefix, directory) of composer.json psr-4 maps, longest first
    paths: dict[str, int]  # path -> PHP file
    named: dict[tuple[str, str], list[SymbolRow]] = field(default_factory=dict)


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Namespaces] = weakref.WeakKeyDictionary()


def _namespaces(lookup: GraphLookup) -> _Namespaces:
    found = _CACHE.get(lookup)
    if found is None:
        rows = lookup.definitions_in(LANGUAGE, ("class", "function"))
        classes = {(file_id, qualified) for file_id, qualified, _ in rows}
        of_file: dict[int, str] = {}
        files: dict[str, list[int]] = {}
        for file_id, _, parent in rows:
            if (file_id, parent) in classes or file_id in of_file:
                continue  # a member, or a file whose namespace is known
            namespace = GLOBAL_NAMESPACE if parent == lookup.path_of(file_id) else parent or GLOBAL_NAMESPACE
            of_file[file_id] = namespace
            files.setdefault(namespace, []).append(file_id)
        for ids in files.values():
            ids.sort(key=lookup.path_of)
        prefixes = {".".join(n.split(".")[:end]) for n in files if n for end in range(1, n.count(".") + 2)}
        paths = {p: i for i, p in lookup.paths().items() if lookup.language_of(i) == LANGUAGE}
        found = _Namespaces(files, of_file, prefixes, _autoload(lookup), paths)
        _CACHE[lookup] = found
    return found


def _autoload(lookup: GraphLookup) -> list[tuple[str, str]]:
    """(namespace prefix, directory) of every indexed composer.json's `autoload` and `autoload-dev`
    psr-4 maps, longest prefix first; a malformed file maps nothing."""
    maps = []
    for file_id, path in lookup.paths().items():
        if path != "composer.json" and not path.endswith("/composer.json"):
            continue
        try:
            config = json.loads(lookup.file_text(file_id))
        except ValueError:
            continue
        for section in ("autoload", "autoload-dev"):
            psr4 = config.get(section, {}).get("psr-4", {}) if isinstance(config.get(section), dict) else {}
            for prefix, directories in psr4.items() if isinstance(psr4, dict) else ():
                for directory in [directories] if isinstance(directories, str) else directories:
                    maps.append((prefix.strip("\\").replace("\\", "."), normpath(join(dirname(path), directory))))
    return sorted(maps, key=lambda m: (-len(m[0]), m[1]))


def resolve_php_import(lookup: GraphLookup, row: ImportRow) -> tuple[int | None, int | None, bool, bool]:
    """(file, symbol, external, binds a module) of a `use`: a class, function or constant by its qualified
    name, a namespace (a file of it stands for it), a file psr-4 maps the name to, or outside the project."""
    spaces = _namespaces(lookup)
    path = f"{row.module}.{row.name}" if row.module else row.name or ""
    if not path:
        return None, None, True, False
    symbol = _qualified(lookup, path) or next(iter(_constants(lookup, spaces, row.module, row.name or "")), None)
    if symbol is not None:
        return symbol.file_id, symbol.id, False, False
    if path in spaces.files:
        return spaces.files[path][0], None, False, True
    mapped = _autoloaded(spaces, path)
    if mapped is not None:  # the file psr-4 maps the name to, and the class of that name in it
        named = [s for s in lookup.by_name(row.name or "") if s.file_id == mapped and s.kind == "class"]
        return mapped, named[0].id if named else None, False, False
    return None, None, not _declared(spaces, path), False


def package_members(lookup: GraphLookup, file_id: int, name: str) -> list[SymbolRow]:
    """The classes, functions and constants named `name` in the namespace of a PHP file, from every file,
    its own first; the global namespace's functions and constants when that has none."""
    spaces = _namespaces(lookup)
    namespace = spaces.of_file.get(file_id, GLOBAL_NAMESPACE)
    found = _in_namespace(lookup, spaces, namespace, name)
    if not found and namespace != GLOBAL_NAMESPACE:
        found = [s for s in _in_namespace(lookup, spaces, GLOBAL_NAMESPACE, name) if s.kind in FALLBACK_KINDS]
    return sorted(found, key=lambda s: (s.file_id != file_id, lookup.path_of(s.file_id)))


def same_package(lookup: GraphLookup, first: int, second: int) -> bool:
    """A PHP class is written in one file."""
    return first == second


def namespace_of(lookup: GraphLookup, file_id: int, name: str) -> str | None:
    """The namespace a name written as a qualifier means (`Model` in `new Model\\Order()`): one inside the
    file's namespace, else one from the root; None when the project declares neither."""
    spaces = _namespaces(lookup)
    namespace = spaces.of_file.get(file_id, GLOBAL_NAMESPACE)
    inside = f"{namespace}.{name}" if namespace else name
    if inside in spaces.prefixes:
        return inside
    return name if name in spaces.prefixes else None


def _in_namespace(lookup: GraphLookup, spaces: _Namespaces, namespace: str, name: str) -> list[SymbolRow]:
    key = (namespace, name)
    if key not in spaces.named:
        if namespace == GLOBAL_NAMESPACE:
            found = [
                s for s in lookup.by_name(name)
                if s.kind in MEMBER_KINDS and _is_php(lookup, s) and s.parent == lookup.path_of(s.file_id)
                and spaces.of_file.get(s.file_id, GLOBAL_NAMESPACE) == GLOBAL_NAMESPACE
            ]
        else:
            found = [s for s in lookup.members(namespace, name) if s.kind in MEMBER_KINDS and _is_php(lookup, s)]
            found += _constants(lookup, spaces, namespace, name)
        spaces.named[key] = found
    return spaces.named[key]


def _constants(lookup: GraphLookup, spaces: _Namespaces, namespace: str, name: str) -> list[SymbolRow]:
    """`const X = 1;` at a namespace's top level (qualified by its file's path, like a global's)."""
    return [
        s for file_id in spaces.files.get(namespace, []) if namespace
        for s in lookup.members(lookup.path_of(file_id), name) if s.kind == "constant" and s.file_id == file_id
    ]


def _qualified(lookup: GraphLookup, qualified: str) -> SymbolRow | None:
    found = [s for s in lookup.by_qualified(qualified) if s.kind in MEMBER_KINDS and _is_php(lookup, s)]
    classes = [s for s in found if s.kind == "class"]
    return (classes or found)[0] if found else None


def _autoloaded(spaces: _Namespaces, path: str) -> int | None:
    """The file psr-4 maps a class name to, when indexed."""
    for prefix, directory in spaces.autoload:
        if prefix and not path.startswith(prefix + "."):
            continue
        rest = path[len(prefix):].strip(".").replace(".", "/")
        file_id = spaces.paths.get(normpath(join(directory, rest + ".php")))
        if file_id is not None:
            return file_id
    return None


def _declared(spaces: _Namespaces, path: str) -> bool:
    """Whether a name is under a namespace the project declares or maps."""
    parts = path.split(".")
    heads = {".".join(parts[:end]) for end in range(1, len(parts))}
    return bool(heads & spaces.prefixes) or any(p and path.startswith(p + ".") for p, _ in spaces.autoload)


def _is_php(lookup: GraphLookup, symbol: SymbolRow) -> bool:
    return lookup.language_of(symbol.file_id) == LANGUAGE
