"""Swift modules: a module is a target of a Swift package (`Sources/<Target>`, `Tests/<Target>`, or the
`path:` its `Package.swift` gives), and every file of a module sees every other's top-level declarations.

A Swift symbol's qualified name is its lexical nesting (`Order`, `Order.save`, `Order.Line`), so a
top-level declaration's parent is its file's path. An `extension Order` is a part of Order, like a
reopened Ruby class (GraphSpec.partial_classes): its members and conformances are Order's wherever it
is written, but the name `Order` means the declaration, never an extension. `import Shop` names a
target of the project (its files' top level, like `import a.b.*`); what no target is named (Foundation,
UIKit, packages the project depends on) is external. Files no target holds (an Xcode project) form one
module.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from posixpath import dirname, join, normpath

from codefathom.graphsource import GraphLookup, ImportRow, SymbolRow

__all__ = ["resolve_swift_import", "package_members", "same_package"]

LANGUAGE = "swift"
MANIFEST = "Package.swift"
# The directories SwiftPM looks for a target in, when its declaration gives no `path:`.
_TARGET_ROOTS = ("Sources", "Tests", "Source", "Plugins")
_TARGET = re.compile(r"\.(target|executableTarget|testTarget|macro|plugin|systemLibrary)\s*\(\s*name:\s*\"([^\"]+)\"")
_PATH = re.compile(r"\bpath:\s*\"([^\"]*)\"")
# An extension's header: attributes and modifiers, then `extension`.
_EXTENSION = re.compile(r"^(?:@[\w.]+(?:\([^()]*\))?\s*|\w+\s+)*extension\b")
_NO_TARGET = ""  # the module of files no target holds


@dataclass
class _Modules:
    targets: dict[str, str]  # target name -> its directory
    of_file: dict[int, str]  # Swift file -> the name of its module
    files: dict[str, list[int]]  # module name -> its files, by path
    extensions: set[int]  # the class symbols that are extensions of a type
    named: dict[tuple[str, str], list[SymbolRow]] = field(default_factory=dict)  # (module, name) -> top level


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Modules] = weakref.WeakKeyDictionary()


def _modules(lookup: GraphLookup) -> _Modules:
    found = _CACHE.get(lookup)
    if found is None:
        paths = lookup.paths()
        targets: dict[str, str] = {}
        for file_id, path in sorted(paths.items(), key=lambda item: item[1]):
            if path == MANIFEST or path.endswith("/" + MANIFEST):
                for name, directory in _declared_targets(lookup.file_text(file_id)):
                    targets.setdefault(name, normpath(join(dirname(path), directory)).lstrip("./") or ".")
        declared = sorted(set(targets.values()))
        swift = sorted((p, i) for i, p in paths.items() if lookup.language_of(i) == LANGUAGE)
        for path, _ in swift:  # SwiftPM's layout, where no manifest of the index says otherwise
            if any(d == "." or path.startswith(d + "/") for d in declared):
                continue
            parts = path.split("/")
            for index in range(len(parts) - 2, 0, -1):
                if parts[index - 1] in _TARGET_ROOTS:
                    targets.setdefault(parts[index], "/".join(parts[: index + 1]))
                    break
        by_depth = sorted(targets.items(), key=lambda t: -len(t[1]))
        of_file: dict[int, str] = {}
        files: dict[str, list[int]] = {}
        for path, file_id in swift:
            module = next((n for n, d in by_depth if d == "." or path.startswith(d + "/")), _NO_TARGET)
            if path.endswith("/" + MANIFEST) or path == MANIFEST:
                module = path  # a manifest is a program of its own
            of_file[file_id] = module
            files.setdefault(module, []).append(file_id)
        extensions = {
            symbol_id for symbol_id, _, signature in lookup.signatures_in((LANGUAGE,), "class")
            if _EXTENSION.match(signature or "")
        }
        found = _Modules(targets, of_file, files, extensions)
        _CACHE[lookup] = found
    return found


def _declared_targets(text: str) -> list[tuple[str, str]]:
    """(name, directory) of each target a manifest declares: its `path:` when the declaration gives
    one before the next target, else SwiftPM's default (`Tests/<name>` for a test target)."""
    matches = list(_TARGET.finditer(text))
    found = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        path = _PATH.search(text, match.end(), end)
        default = f"{'Tests' if match.group(1) == 'testTarget' else 'Sources'}/{match.group(2)}"
        found.append((match.group(2), path.group(1) if path is not None else default))
    return found


def resolve_swift_import(lookup: GraphLookup, row: ImportRow) -> tuple[int | None, int | None, bool, bool]:
    """(file, symbol, external, binds a module) of an import: a file of the target it names (which
    stands for the module), or the declaration `import struct Shop.Order` names; external when no
    target of the project has that name."""
    modules = _modules(lookup)
    module = row.module.split(".")[0]
    files = modules.files.get(module) if module in modules.targets else None
    if not files:
        return None, None, True, False
    if row.name and row.name != "*":
        found = _top_level(lookup, modules, module, row.name)
        return (found[0].file_id, found[0].id, False, False) if found else (files[0], None, False, False)
    return files[0], None, False, True


def package_members(lookup: GraphLookup, file_id: int, name: str) -> list[SymbolRow]:
    """The top-level declarations named `name` in the module of a Swift file, the file's own first;
    extensions are parts of their type, never what its name means."""
    modules = _modules(lookup)
    module = modules.of_file.get(file_id)
    if module is None:
        return []
    found = _top_level(lookup, modules, module, name)
    return sorted(found, key=lambda s: (s.file_id != file_id, lookup.path_of(s.file_id), s.start_line))


def same_package(lookup: GraphLookup, first: int, second: int) -> bool:
    """An extension may add members to a type from any Swift file."""
    return lookup.language_of(first) == lookup.language_of(second) == LANGUAGE


def _top_level(lookup: GraphLookup, modules: _Modules, module: str, name: str) -> list[SymbolRow]:
    key = (module, name)
    if key not in modules.named:
        modules.named[key] = [
            s for s in lookup.by_name(name)
            if s.kind != "module" and modules.of_file.get(s.file_id) == module
            and s.parent == lookup.path_of(s.file_id) and s.id not in modules.extensions
        ]
    return modules.named[key]
