"""Import resolution: which file (and symbol) an import statement names, per module system.

Unresolved imports are third-party or standard-library modules and are kept as external.
"""

from __future__ import annotations

from dataclasses import dataclass

from codefathom.store.graph import GraphLookup, ImportRow

__all__ = ["ImportTarget", "resolve_import"]

MAX_REEXPORT_DEPTH = 3


@dataclass(frozen=True, slots=True)
class ImportTarget:
    file_id: int | None  # the module's file
    symbol_id: int | None  # the imported symbol, when the import names one
    external: bool


def resolve_import(lookup: GraphLookup, row: ImportRow, system: str) -> ImportTarget:
    if system == "python":
        return _python(lookup, row, 0)
    return ImportTarget(None, None, False)


def _python(lookup: GraphLookup, row: ImportRow, depth: int) -> ImportTarget:
    module = _absolute_module(lookup, row)
    if row.name is None or row.name == "*":
        file_id = lookup.module_file(module)
        return ImportTarget(file_id, None, file_id is None)
    submodule = lookup.module_file(f"{module}.{row.name}" if module else row.name)
    if submodule is not None:
        return ImportTarget(submodule, None, False)
    file_id = lookup.module_file(module)
    if file_id is None:
        return ImportTarget(None, None, True)
    defined = lookup.members(module, row.name)
    if defined:
        return ImportTarget(file_id, defined[0].id, False)
    if depth < MAX_REEXPORT_DEPTH:  # `from .models import User` inside a package's __init__
        for again in lookup.imports_of(file_id):
            if again.alias == row.name and again.name is not None:
                target = _python(lookup, again, depth + 1)
                if target.symbol_id is not None or target.file_id is not None:
                    return target
    return ImportTarget(file_id, None, False)


def _absolute_module(lookup: GraphLookup, row: ImportRow) -> str:
    if not row.level:
        return row.module
    importer = lookup.module_of(row.file_id)
    parts = importer.qualified_name.split(".") if importer else []
    if not lookup.path_of(row.file_id).endswith("__init__.py"):
        parts = parts[:-1]  # a module's package is its parent; a package's __init__ is the package
    parts = parts[: len(parts) - (row.level - 1)] if row.level > 1 else parts
    return ".".join(parts + ([row.module] if row.module else []))
