"""Shell `source` resolution, and the function a command's name means: shell functions are global
once the file defining them has run, so a name is looked for in the files a script sources.

`source x` and `. x` (parse/hooks/bash.py) are read from the script's directory, then from the project
root (a literal path is relative to the directory the script runs in, which is one of the two for
most projects); the literal rest of a path written after expansions (`"$(dirname "$0")/x.sh"`,
`"${BASH_SOURCE%/*}/x.sh"`, `"$ROOT/$LIBDIR/x/y.sh"`) the same way, then as the end of the one project
path that ends so (`lib/x/y.sh`). Absolute paths, `~`, paths whose last part is an expansion and
files the project lacks are external.

A command no enclosing function and no definition of the file itself answers (graph/resolve.py's
first steps) means, in order: the definition in the files the file sources (MAX_SOURCE_DEPTH levels)
— exact when one file defines it, else the one loaded last at `high` (a later `source` redefines it,
unless it was conditional); the project's only function of that name (likely: sourced by whoever
runs the file, as a library's functions are by its callers); several such functions leave it
unbound with their count; none is a builtin (GraphSpec.builtins) or an external program.
"""

from __future__ import annotations

import weakref
from posixpath import dirname, join, normpath

from codefathom.graph.meaning import Meaning
from codefathom.graphsource import GraphLookup, ImportRow

__all__ = ["resolve_source", "global_definition", "sourced_files", "LANGUAGES", "MAX_SOURCE_DEPTH"]

LANGUAGES = frozenset({"bash"})
MAX_SOURCE_DEPTH = 4  # files sourced by sourced files: how far a script's sources are followed
SOURCED_ONE = 0.9  # one file the script sources defines the name
SOURCED_LAST = 0.7  # several do: the last loaded, unless a `source` was conditional
UNIQUE = 0.5  # the project's only definition, which the file does not source itself


# file -> what it sources, in load order, once per lookup
_LOADS: weakref.WeakKeyDictionary[GraphLookup, dict[int, list[int]]] = weakref.WeakKeyDictionary()


def resolve_source(lookup: GraphLookup, row: ImportRow) -> tuple[int | None, int | None, bool, bool]:
    """(file, symbol, external, binds a module) of a `source`: the file it reads, or external."""
    path = row.module
    if not path or "$" in path or path.startswith(("/", "~")):
        return None, None, True, False
    files = lookup.ids_by_path()
    here = dirname(lookup.path_of(row.file_id))
    for base in dict.fromkeys((here, "")):
        candidate = normpath(join(base, path))
        if not candidate.startswith("../") and candidate in files:
            return files[candidate], None, False, True
    if row.level:  # the expansions named some directory: the project's one path ending so
        parts = normpath(path).split("/")
        while parts and parts[0] in ("..", "."):
            parts.pop(0)  # `$DIR/../lib/x.sh`: where $DIR is, is unknown
        end = "/".join(parts)
        ending = [f for p, f in files.items() if p == end or p.endswith("/" + end)] if end else []
        if len(ending) == 1:
            return ending[0], None, False, True
    return None, None, True, False


def sourced_files(lookup: GraphLookup, file_id: int) -> list[int]:
    """The files a file sources and those they source, in the order the shell loads them (a file after
    what it sources first), MAX_SOURCE_DEPTH levels deep; the file itself is not among them."""
    loads = _LOADS.setdefault(lookup, {})
    if file_id not in loads:
        order: list[int] = []
        seen = {file_id}

        def visit(current: int, depth: int) -> None:
            rows = sorted(lookup.imports_of(current), key=lambda r: r.line)
            for row in rows:
                target = row.target_file_id
                if target is None or target in seen:
                    continue
                seen.add(target)
                if depth < MAX_SOURCE_DEPTH:
                    visit(target, depth + 1)
                order.append(target)

        visit(file_id, 1)
        loads[file_id] = order
    return loads[file_id]


def global_definition(lookup: GraphLookup, file_id: int, name: str) -> Meaning | None:
    """The function a command's name means beyond the file's own definitions, if the project has one."""
    candidates = [
        s for s in lookup.by_name(name) if s.kind == "function" and lookup.language_of(s.file_id) in LANGUAGES
    ]
    if not candidates:
        return None
    own = [s for s in candidates if s.file_id == file_id]  # a nested function, defined when its outer one runs
    if own:
        return Meaning(max(own, key=lambda s: s.start_line), SOURCED_ONE)
    loaded = sourced_files(lookup, file_id)
    position = {f: index for index, f in enumerate(loaded)}
    reached = [s for s in candidates if s.file_id in position]
    if reached:
        last = max(reached, key=lambda s: (position[s.file_id], s.start_line))
        several = len({s.file_id for s in reached}) > 1
        return Meaning(last, SOURCED_LAST if several else SOURCED_ONE)
    files = {s.file_id for s in candidates}
    if len(files) == 1:
        return Meaning(max(candidates, key=lambda s: s.start_line), UNIQUE)
    return Meaning(None, candidates=len(files))
