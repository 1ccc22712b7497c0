"""Which file a JavaScript or TypeScript import specifier names.

A relative specifier (`./util`, `../lib/mod.js`) is resolved against the importing file's
directory: the path as written, with each extension, the TypeScript source of a `.js` path
(`./util.js` written for `util.ts`), then the directory's index file. A bare specifier (`react`,
`@scope/pkg`, `node:fs`) names a package outside the project: external. tsconfig `paths` and
`baseUrl` are not read yet.
"""

from __future__ import annotations

import posixpath

from codefathom.store.graph import GraphLookup

__all__ = ["EXTENSIONS", "is_relative", "specifier_file"]

EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".d.ts", ".js", ".jsx", ".mjs", ".cjs")
# A compiled extension written in an import, and the sources it is compiled from.
_SOURCES = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}


def is_relative(specifier: str) -> bool:
    return specifier.startswith(("./", "../")) or specifier in (".", "..")


def specifier_file(lookup: GraphLookup, importer: int, specifier: str) -> int | None:
    """The file a relative specifier names from the importing file, None when none is indexed."""
    directory = posixpath.dirname(lookup.path_of(importer))
    base = posixpath.normpath(posixpath.join(directory, specifier))
    if base.startswith("../") or base == "..":
        return None
    for candidate in _candidates(base.removeprefix("./") if base != "." else ""):
        file_id = lookup.module_file(candidate)  # a file's module symbol is named by its path
        if file_id is not None and lookup.path_of(file_id) == candidate:
            return file_id
    return None


def _candidates(base: str) -> list[str]:
    found: list[str] = []
    stem, extension = posixpath.splitext(base)
    if extension in _SOURCES:
        found.extend(stem + source for source in _SOURCES[extension])
    if base:
        found.append(base)
        found.extend(base + extension for extension in EXTENSIONS)
    prefix = f"{base}/index" if base else "index"
    found.extend(prefix + extension for extension in EXTENSIONS)
    return found
