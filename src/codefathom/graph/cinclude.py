"""C and C++ `#include` resolution: a quoted header is looked for next to the including file, then
in the project's include directories; an angle-bracket header in the include directories only.

Include directories, in order: those a `compile_commands.json` names with `-I` or a `CMakeLists.txt`
with `include_directories(...)`/`target_include_directories(...)` (when the project indexes them),
then every directory named `include` (the one sharing the longest path with the includer first),
`src`, and the project root. A header found in none is outside the project (the system's, a
library's, a generated one): external.
"""

from __future__ import annotations

import json
import re
import weakref
from dataclasses import dataclass, field
from posixpath import basename, dirname, join, normpath

from codefathom.graphsource import GraphLookup, ImportRow

__all__ = ["resolve_include", "included_files", "MAX_INCLUDE_DEPTH"]

MAX_INCLUDE_DEPTH = 4  # headers included by included headers: how far a file's includes are followed
CONVENTIONAL_DIRS = ("include", "src")  # directories projects put headers in, besides the root
_CMAKE_CALL = re.compile(r"\b(?:target_)?include_directories\s*\(([^)]*)\)", re.IGNORECASE)
_CMAKE_WORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"})
_CMAKE_ROOTS = re.compile(r"\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR|PROJECT_SOURCE_DIR|"
                          r"CMAKE_SOURCE_DIR)\}/?")
_GENERATOR = re.compile(r"\$<(?:BUILD_INTERFACE|INSTALL_INTERFACE):([^>]*)>")
_INCLUDE_FLAG = re.compile(r"(?:^|\s)-I\s*(\"[^\"]+\"|\S+)")


@dataclass
class _Layout:
    files: dict[str, int]  # path -> file id, every indexed file
    directories: set[str]  # every directory holding an indexed file, and their parents ("" the root)
    declared: list[str]  # include directories build files name, in the order found
    conventional: list[str]  # directories named like CONVENTIONAL_DIRS
    closures: dict[int, set[int]] = field(default_factory=dict)  # file -> the files it includes, transitively


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Layout] = weakref.WeakKeyDictionary()


def _layout(lookup: GraphLookup) -> _Layout:
    found = _CACHE.get(lookup)
    if found is None:
        paths = lookup.paths()
        files = {path: file_id for file_id, path in paths.items()}
        directories = {""}
        for path in files:
            parent = dirname(path)
            while parent not in directories:
                directories.add(parent)
                parent = dirname(parent)
        declared: list[str] = []
        for file_id, path in sorted(paths.items(), key=lambda item: item[1]):
            if basename(path) == "CMakeLists.txt":
                declared += _cmake_dirs(lookup.file_text(file_id), dirname(path), directories)
            elif basename(path) == "compile_commands.json":
                declared += _compile_db_dirs(lookup.file_text(file_id), directories)
        conventional = sorted(d for d in directories if basename(d) in CONVENTIONAL_DIRS)
        found = _Layout(files, directories, list(dict.fromkeys(declared)), conventional)
        _CACHE[lookup] = found
    return found


def resolve_include(lookup: GraphLookup, row: ImportRow) -> tuple[int | None, int | None, bool, bool]:
    """(file, symbol, external, binds a module) of an `#include`: the header, which brings every
    name it defines; None and external when the project has no such header."""
    layout = _layout(lookup)
    written = row.module
    angle = written.startswith("<")
    header = written.strip("<>").strip()
    importer = lookup.path_of(row.file_id)
    places = ([] if angle else [dirname(importer)]) + _include_dirs(layout, importer)
    for place in places:
        candidate = normpath(join(place, header)) if place else normpath(header)
        file_id = layout.files.get(candidate)
        if file_id is not None and file_id != row.file_id and not candidate.startswith("../"):
            return file_id, None, False, True
    return None, None, True, False


def included_files(lookup: GraphLookup, file_id: int) -> set[int]:
    """The project files a file includes, and those they include, MAX_INCLUDE_DEPTH levels deep."""
    layout = _layout(lookup)
    if file_id not in layout.closures:
        seen = {file_id}
        frontier = [file_id]
        for _ in range(MAX_INCLUDE_DEPTH):
            reached = [
                row.target_file_id for current in frontier for row in lookup.imports_of(current)
                if row.alias == "*" and row.target_file_id is not None and row.target_file_id not in seen
            ]
            seen.update(reached)
            frontier = list(dict.fromkeys(reached))
        layout.closures[file_id] = seen - {file_id}
    return layout.closures[file_id]


def _include_dirs(layout: _Layout, importer: str) -> list[str]:
    """Where an include is looked for after the includer's own directory: declared directories,
    then conventional ones nearest the includer first, then the root."""
    def shared(directory: str) -> int:
        parts, mine = directory.split("/"), importer.split("/")
        count = 0
        while count < min(len(parts), len(mine)) and parts[count] == mine[count]:
            count += 1
        return count

    nearest = sorted(layout.conventional, key=lambda d: (-shared(d), d))
    return list(dict.fromkeys([*layout.declared, *nearest, ""]))


def _cmake_dirs(text: str, base: str, directories: set[str]) -> list[str]:
    """Directories `include_directories(...)` and `target_include_directories(...)` name, relative
    to the CMakeLists.txt; paths made of variables other than the source roots are left out."""
    found = []
    for call in _CMAKE_CALL.finditer(text):
        words = _GENERATOR.sub(r"\1", call.group(1)).split()
        if call.group(0).lower().startswith("target_"):
            words = words[1:]  # the target's name
        for word in words:
            word = _CMAKE_ROOTS.sub("", word.strip('"'))
            if word.upper() in _CMAKE_WORDS or "$" in word or word.startswith("/"):
                continue
            directory = normpath(join(base, word)) if word else base
            directory = "" if directory == "." else directory
            if directory in directories:
                found.append(directory)
    return found


def _compile_db_dirs(text: str, directories: set[str]) -> list[str]:
    """Directories the `-I` flags of a compilation database name, as project directories: an
    absolute path (the database was written on another machine) by its longest tail that is one."""
    try:
        entries = json.loads(text)
    except ValueError:
        return []
    found = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        command = entry.get("command") or " ".join(str(a) for a in entry.get("arguments") or [])
        for flag in _INCLUDE_FLAG.findall(str(command)):
            parts = normpath(flag.strip('"')).strip("/").split("/")
            tails = ("/".join(parts[start:]) for start in range(len(parts)))
            directory = next((tail for tail in tails if tail in directories and tail), None)
            if directory is not None:
                found.append(directory)
    return found
