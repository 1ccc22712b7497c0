"""What JavaScript and TypeScript resolution reads of the index: the file a path names (with its
extensions, the TypeScript source of a `.js` path, a directory's index file), and config files.

Config files (tsconfig.json, package.json, pnpm-workspace.yaml) are read as the index holds them,
once per binding run, so that resolution depends on the index alone, whichever process binds.
"""

from __future__ import annotations

import json
import logging
import posixpath
import re
import weakref

from codefathom.graphsource import GraphLookup

__all__ = ["EXTENSIONS", "SOURCES", "probe", "read_json", "read_text", "ancestors", "under"]

log = logging.getLogger(__name__)

EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".d.ts", ".js", ".jsx", ".mjs", ".cjs")
# A compiled extension written in an import, and the sources it is compiled from.
SOURCES = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
# A string is matched first so that `//`, `/*` and `,` inside one are left alone.
_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r'"(?:[^"\\\n]|\\.)*"|,(\s*[}\]])')


# JSON file -> its object, once per lookup
_PARSED: weakref.WeakKeyDictionary[GraphLookup, dict[str, dict[str, object] | None]] = weakref.WeakKeyDictionary()


def read_text(lookup: GraphLookup, path: str) -> str | None:
    """An indexed file's text, None when the index does not hold it."""
    file_id = lookup.ids_by_path().get(path)
    return lookup.file_text(file_id) if file_id is not None else None


def read_json(lookup: GraphLookup, path: str) -> dict[str, object] | None:
    """An indexed JSON file's object, comments and trailing commas allowed (tsconfig's dialect);
    None when it is not indexed or cannot be read, which is logged: the imports it would have
    answered stay external rather than guessed."""
    parsed = _PARSED.setdefault(lookup, {})
    if path in parsed:
        return parsed[path]
    data: dict[str, object] | None = None
    text = read_text(lookup, path)
    if text is not None:
        text = _COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", text)
        text = _TRAILING_COMMA.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(0), text)
        try:
            loaded = json.loads(text)
        except ValueError as error:
            log.debug("ignoring unreadable %s: %s", path, error)
        else:
            data = loaded if isinstance(loaded, dict) else None
    parsed[path] = data
    return data


def probe(lookup: GraphLookup, path: str) -> int | None:
    """The indexed file a project-relative path names as an import would: as written, with each
    extension, the source of a compiled name, then the directory's index file."""
    base = posixpath.normpath(path)
    if base.startswith(("../", "/")) or base == "..":  # outside the project: never indexed
        return None
    for candidate in _candidates(base.removeprefix("./") if base != "." else ""):
        file_id = lookup.module_file(candidate)  # a file's module symbol is named by its path
        if file_id is not None and lookup.path_of(file_id) == candidate:
            return file_id
    return None


def _candidates(base: str) -> list[str]:
    found: list[str] = []
    stem, extension = posixpath.splitext(base)
    if extension in SOURCES:
        found.extend(stem + source for source in SOURCES[extension])
    if base:
        found.append(base)
        found.extend(base + extension for extension in EXTENSIONS)
    prefix = f"{base}/index" if base else "index"
    found.extend(prefix + extension for extension in EXTENSIONS)
    return found


def ancestors(directory: str) -> list[str]:
    """A project-relative directory and those above it, nearest first, ending with the root ""."""
    found = [directory]
    while directory:
        directory = posixpath.dirname(directory)
        found.append(directory)
    return found


def under(path: str, directory: str) -> bool:
    """Whether a project-relative path lies in a directory ("" is the project root)."""
    return not directory or path == directory or path.startswith(directory + "/")
