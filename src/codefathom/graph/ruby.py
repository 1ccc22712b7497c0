"""Ruby requires and Ruby's global namespace: a `require` names a file through the load path, and
every constant and top-level method is one namespace shared by all files.

A Ruby symbol's qualified name is its lexical nesting (`module Shop; class Order` -> `Shop.Order`,
`class Shop::Order` the same), so a top-level class's parent is its file's path. Classes and modules
are reopened across files: a class's members and bases are those of every file that writes it
(GraphSpec.partial_classes). `require_relative` is relative to the requiring file; `require 'a/b'`
looks for `a/b.rb` under a `lib/` directory (the nearest to the requiring file first), then from the
project root; what none holds is a gem or the standard library, external.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from posixpath import dirname, join, normpath

from codefathom.graphsource import GraphLookup, ImportRow, SymbolRow

__all__ = ["resolve_ruby_import", "package_members", "same_package"]

LANGUAGE = "ruby"
EXTENSION = ".rb"
LOAD_ROOT = "lib"  # the directory a gem puts on the load path


@dataclass
class _Files:
    by_path: dict[str, int]  # path -> Ruby file
    named: dict[str, list[SymbolRow]] = field(default_factory=dict)  # name -> top-level definitions


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Files] = weakref.WeakKeyDictionary()


def _files(lookup: GraphLookup) -> _Files:
    found = _CACHE.get(lookup)
    if found is None:
        paths = {path: file_id for file_id, path in lookup.paths().items() if lookup.language_of(file_id) == LANGUAGE}
        found = _Files(paths)
        _CACHE[lookup] = found
    return found


def resolve_ruby_import(lookup: GraphLookup, row: ImportRow) -> tuple[int | None, int | None, bool, bool]:
    """(file, symbol, external, binds a module) of a require: the file it loads, or external."""
    files = _files(lookup)
    wanted = row.module if row.module.endswith(EXTENSION) else row.module + EXTENSION
    importer = lookup.path_of(row.file_id)
    if row.level or wanted.startswith(("./", "../")):
        base = dirname(importer) if row.level else ""
        file_id = files.by_path.get(normpath(join(base, wanted)).lstrip("/"))
        return file_id, None, False, file_id is not None
    for path in _load_path_candidates(files, importer, wanted):
        return files.by_path[path], None, False, True
    return None, None, True, False


def _load_path_candidates(files: _Files, importer: str, wanted: str) -> list[str]:
    """Paths `wanted` may be under a `lib/` directory, nearest to the importer first, then from the root."""
    suffix = f"{LOAD_ROOT}/{wanted}"
    under_lib = [p for p in files.by_path if p == suffix or p.endswith("/" + suffix)]
    under_lib.sort(key=lambda p: (-_shared_prefix(p, importer), p))
    return under_lib + ([wanted] if wanted in files.by_path else [])


def _shared_prefix(first: str, second: str) -> int:
    count = 0
    for a, b in zip(first.split("/"), second.split("/"), strict=False):
        if a != b:
            break
        count += 1
    return count


def package_members(lookup: GraphLookup, file_id: int, name: str) -> list[SymbolRow]:
    """The top-level classes, modules, methods and constants named `name` in every Ruby file, the
    file's own first: Ruby's global namespace."""
    files = _files(lookup)
    if name not in files.named:
        files.named[name] = [
            s for s in lookup.by_name(name)
            if s.kind != "module" and lookup.language_of(s.file_id) == LANGUAGE
            and s.parent == lookup.path_of(s.file_id)
        ]
    return sorted(files.named[name], key=lambda s: (s.file_id != file_id, lookup.path_of(s.file_id), s.start_line))


def same_package(lookup: GraphLookup, first: int, second: int) -> bool:
    """A reopened class's or module's members may be written in any Ruby file."""
    return lookup.language_of(first) == lookup.language_of(second) == LANGUAGE
