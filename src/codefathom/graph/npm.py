"""Bare specifiers that name a package of the project: a workspace package of an npm, yarn or pnpm
monorepo (`@shop/core`, `@shop/core/util`), or the importing package itself, by its name.

Workspace roots are the directories above the importing file whose `package.json` has
`workspaces` (a list of globs, or `{packages: [...]}`) or that hold a `pnpm-workspace.yaml` with a
`packages:` list; `!glob` leaves directories out. A workspace package is a directory those globs
match whose `package.json` has a `name`. The nearest `package.json` above the importing file is
its own package, which it may import by name.

In the package, a subpath (`.` for the bare name) goes through `exports` (a string, a `"."` key,
subpath keys and `"./*"` patterns, conditions tried in the order types, import, module, require,
node, default, then the others; a `null` target closes the subpath); when no target there reaches
an indexed file, `.` tries `types`/`typings`, `module`, `main`, then `index` and `src/index`, and
another subpath is a path in the package. A `#name` specifier goes through the importing
package's own `imports` map, the same way.

Entries often name build output the repository does not hold (`dist/index.js`,
`dist/index.d.ts`): a target the index lacks is mapped back to its source by dropping its compiled
extension and leading output directories (`dist`, `build`, `lib`, `out`, `esm`, `cjs`, `dts`,
...), then probed under `src/` and at the package's top (`dist/util.js` -> `src/util.ts`, else
`util.ts`).
"""

from __future__ import annotations

import json
import logging
import posixpath
import weakref
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from codefathom.graph.jsfiles import ancestors, probe, read_json, read_text, under
from codefathom.graphsource import GraphLookup

__all__ = ["MANIFEST", "WORKSPACE_FILE", "resolve_package", "package_scope", "split_specifier", "yaml_packages"]

log = logging.getLogger(__name__)

MANIFEST = "package.json"
WORKSPACE_FILE = "pnpm-workspace.yaml"
# Directories builds write to, dropped from an entry the index lacks to find the source it came from.
_OUTPUT_DIRS = frozenset({
    "dist", "build", "lib", "out", "esm", "cjs", "es", "umd", "mjs", "commonjs", "module", "dts", "types", "typings",
    "declarations",
})
_COMPILED = (".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs", ".jsx")
# Export conditions in the order their targets are tried: types first, as TypeScript does.
_CONDITIONS = ("types", "import", "module", "require", "node", "default")


@dataclass(frozen=True, slots=True)
class _Package:
    directory: str
    name: str
    manifest: dict[str, object]


@dataclass
class _State:
    manifests: list[str]  # directories holding an indexed package.json, in path order
    # directory -> the workspace globs it declares, None: no workspace root
    globs: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    members: dict[str, dict[str, _Package]] = field(default_factory=dict)  # workspace root -> its packages by name
    nearest: dict[str, _Package | None] = field(default_factory=dict)  # directory -> the package it lies in


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _State] = weakref.WeakKeyDictionary()


def resolve_package(lookup: GraphLookup, directory: str, specifier: str) -> int | None:
    """The file a bare specifier names in a package of the project, from a file in `directory`:
    its own package first, then the workspaces above it, nearest first; None when none answers."""
    state = _state(lookup)
    own = _nearest(lookup, state, directory)
    if specifier.startswith("#"):  # a subpath import: the `imports` map of the package itself
        targets = _mapped(own.manifest.get("imports"), specifier) if own is not None else None
        return _first(lookup, own.directory, targets) if own is not None and targets else None
    split = split_specifier(specifier)
    if split is None:
        return None
    name, subpath = split
    candidates = [own] if own is not None and own.name == name else []
    for root in ancestors(directory):
        if _globs(lookup, state, root) is not None:
            member = _members(lookup, state, root).get(name)
            if member is not None:
                candidates.append(member)
    for package in candidates:
        found = _entry(lookup, package, subpath)
        if found is not None:
            return found
    return None


def package_scope(lookup: GraphLookup, path: str) -> set[str]:
    """The directories whose bare imports a package.json or pnpm-workspace.yaml may decide: its
    own (its package's self-imports, or the workspace it declares) and the workspace roots above
    it (whose files may import it by name)."""
    directory = posixpath.dirname(path)
    state = _state(lookup)
    return {directory} | {root for root in ancestors(directory) if _globs(lookup, state, root) is not None}


def split_specifier(specifier: str) -> tuple[str, str] | None:
    """(package name, subpath) of a bare specifier: `@a/b/c` -> (`@a/b`, `./c`), `a` -> (`a`, `.`);
    None for what cannot name a package (`node:fs`, `@a`)."""
    parts = specifier.split("/")
    size = 2 if specifier.startswith("@") else 1
    if len(parts) < size or not all(parts[:size]) or ":" in specifier:
        return None
    rest = "/".join(parts[size:])
    return "/".join(parts[:size]), f"./{rest}" if rest else "."


def _state(lookup: GraphLookup) -> _State:
    found = _CACHE.get(lookup)
    if found is None:
        manifests = sorted(posixpath.dirname(p) for p in lookup.ids_by_path() if posixpath.basename(p) == MANIFEST)
        found = _State(manifests)
        _CACHE[lookup] = found
    return found


def _package(lookup: GraphLookup, directory: str) -> _Package | None:
    manifest = read_json(lookup, posixpath.join(directory, MANIFEST))
    name = manifest.get("name") if manifest is not None else None
    return _Package(directory, name, manifest) if isinstance(name, str) and name and manifest is not None else None


def _nearest(lookup: GraphLookup, state: _State, directory: str) -> _Package | None:
    """The package a directory lies in: that of the nearest package.json above it (None when that
    one has no name, as Node's self-reference needs one)."""
    if directory not in state.nearest:
        files = lookup.ids_by_path()
        found: _Package | None = None
        if posixpath.join(directory, MANIFEST) in files:
            found = _package(lookup, directory)
        elif directory:
            found = _nearest(lookup, state, posixpath.dirname(directory))
        state.nearest[directory] = found
    return state.nearest[directory]


def _globs(lookup: GraphLookup, state: _State, directory: str) -> tuple[str, ...] | None:
    """The workspace globs a directory declares (package.json `workspaces`, pnpm-workspace.yaml
    `packages`), None when it is no workspace root."""
    if directory not in state.globs:
        globs: list[str] = []
        manifest = read_json(lookup, posixpath.join(directory, MANIFEST))
        declared = manifest.get("workspaces") if manifest is not None else None
        if isinstance(declared, dict):
            declared = declared.get("packages")
        if isinstance(declared, list):
            globs += [g for g in declared if isinstance(g, str)]
        path = posixpath.join(directory, WORKSPACE_FILE)
        text = read_text(lookup, path)
        listed = yaml_packages(text) if text is not None else []
        if listed is None:
            log.debug("ignoring unreadable %s: `packages` is not a list of globs", path)
        else:
            globs += listed
        state.globs[directory] = tuple(globs) if globs else None
    return state.globs[directory]


def _members(lookup: GraphLookup, state: _State, root: str) -> dict[str, _Package]:
    """The packages of a workspace root by name (the first in path order when two share one)."""
    if root not in state.members:
        globs = [_normal(g) for g in _globs(lookup, state, root) or ()]
        include = [g for g in globs if g and not g.startswith("!")]
        exclude = [g[1:] for g in globs if g.startswith("!")]
        found: dict[str, _Package] = {}
        for directory in state.manifests:
            if directory == root or not under(directory, root):
                continue
            relative = directory[len(root) + 1:] if root else directory
            if any(_matches(g, relative) for g in include) and not any(_matches(g, relative) for g in exclude):
                package = _package(lookup, directory)
                if package is not None:
                    found.setdefault(package.name, package)
        state.members[root] = found
    return state.members[root]


def _normal(glob: str) -> str:
    negated = glob.strip().startswith("!")
    body = glob.strip().removeprefix("!").strip()
    while body.startswith("./"):
        body = body[2:]
    body = body.rstrip("/").removesuffix("/" + MANIFEST)
    return f"!{body}" if negated else body


def _matches(glob: str, path: str) -> bool:
    return _match_parts(glob.split("/"), path.split("/"))


def _match_parts(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_match_parts(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], pattern[0]) and _match_parts(pattern[1:], parts[1:])


# -- a package's entry points ------------------------------------------------------------------


def _entry(lookup: GraphLookup, package: _Package, subpath: str) -> int | None:
    """The file a subpath of a package names: through `exports`, else the fields and files a
    package's main entry is found by, else (a deeper subpath) the path in the package."""
    manifest = package.manifest
    targets = _export_targets(manifest.get("exports"), subpath)
    if targets is None:
        return None  # closed by `exports`: Node refuses it, and so does the compiler
    if subpath == ".":
        targets += [v for k in ("types", "typings", "module", "main") if isinstance(v := manifest.get(k), str)]
        targets += ["./index", "./src/index"]
    else:
        targets.append(subpath)
    return _first(lookup, package.directory, targets)


def _first(lookup: GraphLookup, directory: str, targets: list[str]) -> int | None:
    for target in targets:
        found = _target(lookup, directory, target)
        if found is not None:
            return found
    return None


def _export_targets(exports: object, subpath: str) -> list[str] | None:
    """The targets `exports` gives a subpath, in the order they are tried (`*` replaced); None
    when the matching key's value is null, which closes the subpath."""
    if isinstance(exports, str | list) or (isinstance(exports, dict) and not any(k.startswith(".") for k in exports)):
        exports = {".": exports}  # the main entry alone, maybe by condition
    return _mapped(exports, subpath)


def _mapped(table: object, subpath: str) -> list[str] | None:
    """The targets a subpath map (`exports`, `imports`) gives a key: exact, else the pattern with
    the longest fixed prefix."""
    if not isinstance(table, dict):
        return []
    if subpath in table:
        return None if table[subpath] is None else _conditional(table[subpath])
    best: tuple[int, list[str] | None] | None = None  # (length of the key's fixed prefix, its targets)
    for key, value in table.items():
        prefix, star, suffix = key.partition("*")
        if star and subpath.startswith(prefix) and subpath.endswith(suffix) and len(subpath) >= len(key) - 1:
            if best is None or len(prefix) > best[0]:
                matched = subpath[len(prefix): len(subpath) - len(suffix)]
                targets = None if value is None else [t.replace("*", matched) for t in _conditional(value)]
                best = (len(prefix), targets)
        elif key.endswith("/") and subpath.startswith(key) and (best is None or len(key) > best[0]):
            # a folder mapping (deprecated in Node, still met)
            best = (len(key), [target + subpath[len(key):] for target in _conditional(value)])
    return best[1] if best is not None else []  # no key: the fallbacks of `_entry` alone


def _conditional(value: object) -> list[str]:
    """The targets of an export's value: a path, a list of fallbacks, or conditions (nested)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [target for item in value for target in _conditional(item)]
    if isinstance(value, dict):
        known = [value[c] for c in _CONDITIONS if c in value]
        return [t for item in known + [v for k, v in value.items() if k not in _CONDITIONS] for t in _conditional(item)]
    return []  # null: the subpath is closed


def _target(lookup: GraphLookup, directory: str, target: str) -> int | None:
    """An entry as written, else the source it was built from (see the module's docstring)."""
    path = posixpath.normpath(posixpath.join(directory, target))
    if not under(path, directory):
        return None  # an entry outside its package
    found = probe(lookup, path)
    if found is not None:
        return found
    inner = posixpath.normpath(target).removeprefix("./")
    for suffix in _COMPILED:
        if inner.endswith(suffix):
            inner = inner[: -len(suffix)]
            break
    parts = inner.split("/") if inner not in ("", ".") else []
    while parts and parts[0] in _OUTPUT_DIRS:
        parts.pop(0)
    rest = "/".join(parts)
    for source in (posixpath.join(directory, "src", rest), posixpath.join(directory, rest)):
        found = probe(lookup, source.rstrip("/"))
        if found is not None:
            return found
    return None


# -- pnpm-workspace.yaml -----------------------------------------------------------------------


def yaml_packages(text: str) -> list[str] | None:
    """The globs of a pnpm-workspace.yaml's top-level `packages:` list (block or flow style, items
    quoted or not); [] when there is no such key, None when it is there but not a list of strings.
    Only this subset of YAML is read: nothing else in the file matters here."""
    lines = text.splitlines()
    found = _top_level_key(lines, "packages")
    if found is None:
        return []
    index, rest = found
    if rest.startswith("["):
        flow = rest
        for more in lines[index + 1:]:
            if flow.endswith("]"):
                break
            flow += " " + _uncommented(more).strip()
        if not flow.endswith("]"):
            return None
        items = [_scalar(item) for item in flow[1:-1].split(",") if item.strip()]
    elif rest:
        return None  # a scalar or a mapping where the list belongs
    else:
        items = []
        for line in lines[index + 1:]:
            stripped = _uncommented(line).strip()
            if not stripped:
                continue
            if not stripped.startswith("-"):
                if line[:1].isspace():
                    return None  # a nested mapping, not a list
                break  # the next top-level key
            items.append(_scalar(stripped[1:]))
    return None if any(item is None for item in items) else [item for item in items if item is not None]


def _top_level_key(lines: list[str], name: str) -> tuple[int, str] | None:
    """(line index, what follows the colon) of a key written at the start of a line."""
    for index, line in enumerate(lines):
        key, colon, rest = _uncommented(line).partition(":")
        if colon and key.rstrip() == name and not line[:1].isspace():
            return index, rest.strip()
    return None


def _uncommented(line: str) -> str:
    """A YAML line without its comment: a `#` at the start or after a space, outside quotes."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip()
    return line.rstrip()


def _scalar(item: str) -> str | None:
    """A plain, single- or double-quoted YAML scalar's value; None when it is none of these."""
    item = item.strip()
    if len(item) >= 2 and item[0] == item[-1] == "'":
        return item[1:-1].replace("''", "'")
    if len(item) >= 2 and item[0] == item[-1] == '"':
        try:
            value = json.loads(item)
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    if not item or item[0] in "'\"[]{}&|>%@`":
        return None
    return item
