"""Which imports a changed configuration file may resolve differently: tsconfig.json and the configs
it extends, package.json, pnpm-workspace.yaml, go.mod, created, edited or deleted.

These files are indexed like any other (as text), so a sync sees their changes by the stat it
already takes; `rebind` then resolves again the imports they govern:
- a tsconfig.json or jsconfig.json: the bare imports of the JS/TS files under its directory, and a
  JSON file another config's `extends` chain names, those under that config's directory;
- a package.json or pnpm-workspace.yaml: the bare imports under its directory and under the
  workspace roots above it (a workspace package is imported by name from anywhere in its workspace);
- a go.mod: every Go import (a module path may be imported from anywhere in the project).
Relative JS/TS imports never depend on these files, so they are left alone.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from codefathom.graph import ecmascript, npm
from codefathom.graph.jsfiles import under
from codefathom.graph.specs import spec_for
from codefathom.graphsource import GraphLookup, ImportRow

__all__ = ["is_config", "governed_imports"]

GO_MODULE = "go.mod"


def is_config(path: str) -> bool:
    """Whether a changed file may change how imports resolve (any JSON file may be a tsconfig's base)."""
    name = posixpath.basename(path)
    return name in (GO_MODULE, npm.WORKSPACE_FILE) or name.endswith(".json")


def governed_imports(lookup: GraphLookup, paths: Iterable[str]) -> list[ImportRow]:
    """The imports the changed (or removed) config files at `paths` govern."""
    directories: set[str] = set()  # where bare JS/TS imports may now resolve differently
    go = False
    for path in paths:
        name = posixpath.basename(path)
        if name == GO_MODULE:
            go = True
        elif name in (npm.MANIFEST, npm.WORKSPACE_FILE):
            directories |= npm.package_scope(lookup, path)
        elif name.endswith(".json"):
            directories |= ecmascript.config_scope(lookup, path)
    if not directories and not go:
        return []
    wanted: dict[int, str] = {}
    for file_id, path in lookup.paths().items():
        system = spec_for(lookup.language_of(file_id)).module_system
        if (system == "go" and go) or (system == "ecmascript" and any(under(path, d) for d in directories)):
            wanted[file_id] = system
    return [
        row for row in lookup.imports_in(wanted)
        if wanted[row.file_id] == "go" or not ecmascript.is_relative(row.module)
    ]
