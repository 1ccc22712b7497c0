"""Rust modules: `mod foo;` is foo.rs or foo/mod.rs beside the declaring module, `crate::` starts at
the crate root a Cargo.toml names (src/lib.rs, else src/main.rs), and a `use` path walks modules.

A file's module is its path under its crate root's directory (`src/a/b.rs` and `src/a/b/mod.rs`
are `a::b`); inline `mod x { ... }` blocks qualify what they contain (`a.b.x.Item`). A path's first
segment is `crate`, `self`, `super`, a module or item of the current module, a crate of the project
(by its Cargo.toml name) or an external crate. `#[path]` attributes and macro-generated modules
are not followed.
"""

from __future__ import annotations

import re
import tomllib
import weakref
from dataclasses import dataclass, field
from posixpath import basename, dirname, join

from codefathom.graphsource import GraphLookup, ImportRow, SymbolRow

__all__ = ["resolve_rust_import", "module_member", "implicit_import", "Target"]

MAX_DEPTH = 4  # re-exports followed through `pub use`
STANDARD_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test"})
_ROOT_DIRS = ("tests", "examples", "benches")
_NAME = re.compile(r'^\s*name\s*=\s*"([^"]+)"', re.MULTILINE)

# (file, symbol, external, binds the module): what an import or a path names.
Target = tuple[int | None, int | None, bool, bool]
_UNRESOLVED: Target = (None, None, False, False)
_EXTERNAL: Target = (None, None, True, False)


@dataclass
class _Crate:
    directory: str  # of its Cargo.toml ("" at the project root)
    name: str  # as Rust code spells it (`-` -> `_`)
    lib_file: int | None  # the crate's lib target, src/lib.rs unless [lib] path says otherwise
    dependencies: frozenset[str]
    # `[[bin]] path = "crates/core/main.rs"` (ripgrep): a program whose modules sit beside its main file
    bin_files: tuple[str, ...] = ()


@dataclass
class _Layout:
    crates: list[_Crate]  # deepest directory first
    files: dict[str, int]  # path -> id of each Rust file
    by_name: dict[str, _Crate]
    roots: dict[int, tuple[str, int | None, _Crate | None]] = field(default_factory=dict)  # file -> root info
    # What paths resolved to in this binding run (the index holds still during one): a re-export
    # chain is walked once, not again for every reference and import that goes through it.
    segments: dict[int, list[str] | None] = field(default_factory=dict)
    children: dict[tuple[int, str], int | None] = field(default_factory=dict)
    imports: dict[tuple[int, int], Target] = field(default_factory=dict)  # (import id, depth)
    reexports: dict[tuple[int, str, int, bool], Target | None] = field(default_factory=dict)
    inline: dict[tuple[int, str], bool] = field(default_factory=dict)  # (file, prefix): an inline module


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Layout] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class _Position:
    """Where a path has got to: a module (a file's, or an inline one inside it) or a type."""

    file_id: int
    prefix: str  # the qualified name of the module or type
    is_type: bool = False
    symbol: SymbolRow | None = None

    @property
    def whole_file(self) -> bool:
        return not self.is_type and self.symbol is None


def _layout(lookup: GraphLookup) -> _Layout:
    found = _CACHE.get(lookup)
    if found is None:
        files = {path: file_id for file_id, path in lookup.paths().items() if lookup.language_of(file_id) == "rust"}
        crates = []
        for file_id, path in lookup.paths().items():
            if basename(path) == "Cargo.toml":
                crates.append(_crate(lookup, file_id, path, files))
        crates.sort(key=lambda c: -len(c.directory))
        found = _Layout(crates, files, {c.name: c for c in crates if c.name and c.lib_file is not None})
        _CACHE[lookup] = found
    return found


def _crate(lookup: GraphLookup, file_id: int, path: str, files: dict[str, int]) -> _Crate:
    directory = dirname(path)
    text = lookup.file_text(file_id)
    name, lib_path = "", "src/lib.rs"
    dependencies: set[str] = set()
    try:
        manifest = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        match = _NAME.search(text)  # a manifest split oddly into windows: its name at least
        manifest = {"package": {"name": match.group(1)}} if match else {}
    package = manifest.get("package")
    if isinstance(package, dict) and isinstance(package.get("name"), str):
        name = package["name"]
    lib_table = manifest.get("lib")
    if isinstance(lib_table, dict):
        name = lib_table.get("name", name) if isinstance(lib_table.get("name"), str) else name
        lib_path = lib_table.get("path", lib_path) if isinstance(lib_table.get("path"), str) else lib_path
    tables = [manifest]
    target = manifest.get("target")
    if isinstance(target, dict):
        tables.extend(t for t in target.values() if isinstance(t, dict))
    for table in tables:
        for key in ("dependencies", "dev-dependencies", "build-dependencies"):
            listed = table.get(key)
            if isinstance(listed, dict):
                dependencies.update(listed)
    lib_target = files.get(_join(directory, lib_path.removeprefix("./")))
    bins = manifest.get("bin")
    paths = [b.get("path") for b in bins if isinstance(b, dict)] if isinstance(bins, list) else []
    bin_files = tuple(_join(directory, p.removeprefix("./")) for p in paths if isinstance(p, str))
    return _Crate(
        directory, name.replace("-", "_"), lib_target, frozenset(d.replace("-", "_") for d in dependencies), bin_files,
    )


def _join(directory: str, path: str) -> str:
    return join(directory, path) if directory else path


def _root(lookup: GraphLookup, file_id: int) -> tuple[str, int | None, _Crate | None]:
    """(the directory a file's module path starts in, its crate root file, its crate). A file of
    `tests/`, `examples/`, `benches/` or `src/bin/` is a crate root of its own, as is one of their
    subdirectories' `main.rs`; other files belong to src/lib.rs, else src/main.rs."""
    layout = _layout(lookup)
    if file_id in layout.roots:
        return layout.roots[file_id]
    path = lookup.path_of(file_id)
    crate = next((c for c in layout.crates if not c.directory or path.startswith(c.directory + "/")), None)
    base = crate.directory if crate is not None else ""
    rest = path[len(base) + 1:] if base else path
    found: tuple[str, int | None, _Crate | None]
    for top in (*_ROOT_DIRS, "src/bin"):
        if rest.startswith(top + "/"):
            directory = _join(base, top)
            inner = rest[len(top) + 1:]
            if "/" not in inner:
                found = (directory, file_id, crate)
            else:
                sub = _join(directory, inner.split("/", 1)[0])
                found = (sub, layout.files.get(sub + "/main.rs"), crate)
            break
    else:
        source = _join(base, "src")
        lib_file = crate.lib_file if crate is not None else layout.files.get(source + "/lib.rs")
        main = layout.files.get(source + "/main.rs")
        if crate is not None and lib_file is not None and dirname(lookup.path_of(lib_file)) != source:
            source = dirname(lookup.path_of(lib_file))  # `[lib] path = "lib.rs"`
        if file_id == main:
            found = (source, main, crate)
        elif path.startswith(source + "/"):
            found = (source, lib_file if lib_file is not None else main, crate)
        else:
            program = next((b for b in crate.bin_files if path.startswith(dirname(b) + "/")), None) if crate else None
            if program is not None:  # `[[bin]] path`: the program's main file is the root of the files beside it
                found = (dirname(program), layout.files.get(program), crate)
            else:
                found = (dirname(path), None, crate)  # no crate around it: its own directory
    layout.roots[file_id] = found
    return found


def _segments(lookup: GraphLookup, file_id: int) -> list[str] | None:
    """The module path of a file under its crate root's directory (None: not under it)."""
    known = _layout(lookup).segments
    if file_id not in known:
        known[file_id] = _segments_uncached(lookup, file_id)
    return known[file_id]


def _segments_uncached(lookup: GraphLookup, file_id: int) -> list[str] | None:
    directory, root, _ = _root(lookup, file_id)
    if file_id == root:
        return []
    path = lookup.path_of(file_id)
    if directory and not path.startswith(directory + "/"):
        return None
    parts = (path[len(directory) + 1:] if directory else path).removesuffix(".rs").split("/")
    if parts[-1] == "mod":
        parts = parts[:-1]
    return parts


def _module_file(lookup: GraphLookup, file_id: int, segments: list[str]) -> int | None:
    """The file of a module of the same crate as `file_id`, by its module path."""
    directory, root, _ = _root(lookup, file_id)
    if not segments:
        return root
    files = _layout(lookup).files
    stem = _join(directory, "/".join(segments))
    return files.get(stem + ".rs") or files.get(stem + "/mod.rs")


def _child(lookup: GraphLookup, file_id: int, name: str) -> int | None:
    """The file of `mod name;` declared in a file."""
    known = _layout(lookup).children
    key = (file_id, name)
    if key not in known:
        known[key] = _child_uncached(lookup, file_id, name)
    return known[key]


def _child_uncached(lookup: GraphLookup, file_id: int, name: str) -> int | None:
    own = _segments(lookup, file_id)
    if own is None:
        directory = dirname(lookup.path_of(file_id))
        files = _layout(lookup).files
        stem = _join(directory, name)
        return files.get(stem + ".rs") or files.get(stem + "/mod.rs")
    return _module_file(lookup, file_id, [*own, name])


def _file_position(lookup: GraphLookup, file_id: int | None) -> _Position | None:
    if file_id is None:
        return None
    module = lookup.module_of(file_id)
    return _Position(file_id, module.qualified_name) if module is not None else None


def _crate_root(lookup: GraphLookup, file_id: int) -> _Position | None:
    return _file_position(lookup, _root(lookup, file_id)[1])


def _parent(lookup: GraphLookup, file_id: int) -> _Position | None:
    own = _segments(lookup, file_id)
    if not own:
        return None
    return _file_position(lookup, _module_file(lookup, file_id, own[:-1]))


def implicit_import(lookup: GraphLookup, file_id: int, name: str) -> Target | None:
    """What a path's first segment names without a `use`: `crate`, `super`, a crate of the project,
    the standard library or a dependency (external); None for any other name."""
    if name == "crate":
        position = _crate_root(lookup, file_id)
    elif name == "super":
        position = _parent(lookup, file_id)
    else:
        layout = _layout(lookup)
        crate = _root(lookup, file_id)[2]
        own = layout.by_name.get(name)
        if own is not None and own.lib_file is not None:
            position = _file_position(lookup, own.lib_file)
        elif name in STANDARD_CRATES or (crate is not None and name in crate.dependencies):
            return _EXTERNAL
        else:
            return None
    return (position.file_id, None, False, True) if position is not None else _UNRESOLVED


def resolve_rust_import(lookup: GraphLookup, row: ImportRow, depth: int = 0) -> Target:
    """(file, symbol, external, binds a module) of a `use`, `mod` or `extern crate` import."""
    known = _layout(lookup).imports
    key = (row.id, depth)
    if key not in known:
        known[key] = _resolve_uncached(lookup, row, depth)
    return known[key]


def _resolve_uncached(lookup: GraphLookup, row: ImportRow, depth: int) -> Target:
    parts = [p for p in row.module.split("::") if p]
    if row.name and row.name != "*":
        parts.append(row.name)
    if not parts:
        return _UNRESOLVED
    head, rest = parts[0], parts[1:]
    position: _Position | None
    if head == "self":
        position = _file_position(lookup, row.file_id)
    elif head in ("crate", "super"):
        position = _crate_root(lookup, row.file_id) if head == "crate" else _parent(lookup, row.file_id)
        while head == "super" and rest and rest[0] == "super" and position is not None:
            position, rest = _parent(lookup, position.file_id), rest[1:]
    else:
        here = _file_position(lookup, row.file_id)
        first = _step(lookup, here, head, depth) if here is not None and row.module else None
        if first is not None:
            position = first
        else:
            implicit = implicit_import(lookup, row.file_id, head)
            if implicit is None:
                return _EXTERNAL  # a crate the manifest does not list (a workspace's, a renamed one)
            if implicit[2] or implicit[0] is None:
                return implicit
            position = _file_position(lookup, implicit[0])
    if position is None:
        return _UNRESOLVED
    for segment in rest[:-1] if row.name != "*" else rest:
        following = _step(lookup, position, segment, depth)
        if following is None:
            return _UNRESOLVED
        position = following
    if row.name == "*":
        if position.whole_file:
            return position.file_id, None, False, True
        return _as_target(position)
    if not rest:
        return _as_target(position)
    found = _member(lookup, position, rest[-1], depth, module=row.level == 1)  # level 1: `mod x;`
    return found if found is not None else (position.file_id, None, False, False)


def module_member(lookup: GraphLookup, file_id: int, name: str, depth: int = 0) -> Target | None:
    """What `name` means at the top level of a Rust file's module: an item, a child module, or
    what the module re-exports under that name (`pub use`, globs)."""
    position = _file_position(lookup, file_id)
    return _member(lookup, position, name, depth) if position is not None else None


def _member(lookup: GraphLookup, position: _Position, name: str, depth: int, module: bool = False) -> Target | None:
    """An item of a module or type; a module's child module or re-export. A name may be a module and a
    function at once (`mod read; pub use self::read::read;`): `module` says which a path wants."""
    found = [s for s in lookup.members(position.prefix, name) if s.file_id == position.file_id]
    if found and not (module and position.whole_file and _child(lookup, position.file_id, name) is not None):
        return position.file_id, _first(found).id, False, False
    if not position.whole_file:
        return None
    child = _child(lookup, position.file_id, name) if module else None
    if child is not None:
        return child, None, False, True
    reexported = _reexported(lookup, position.file_id, name, depth, module)
    if reexported is not None:
        return reexported
    child = _child(lookup, position.file_id, name)
    return (child, None, False, True) if child is not None else None


def _reexported(lookup: GraphLookup, file_id: int, name: str, depth: int, module: bool = False) -> Target | None:
    if depth >= MAX_DEPTH:
        return None
    known = _layout(lookup).reexports
    key = (file_id, name, depth, module)
    if key not in known:
        known[key] = _reexported_uncached(lookup, file_id, name, depth, module)
    return known[key]


def _reexported_uncached(lookup: GraphLookup, file_id: int, name: str, depth: int, module: bool) -> Target | None:
    globs = []
    fallback = None
    for row in lookup.imports_of(file_id):
        if row.alias == "*":
            globs.append(row)
        elif row.alias == name:
            target = resolve_rust_import(lookup, row, depth + 1)
            if target[3] != module and (target[1] is not None or target[3]):
                fallback = fallback or target  # a module where an item is wanted, or the other way
            elif target[1] is not None or target[3] or target[2]:
                return target
    if fallback is not None:
        return fallback
    for row in globs:
        origin = resolve_rust_import(lookup, row, depth + 1)
        if origin[0] is None or not origin[3] or origin[0] == file_id:
            continue
        found = module_member(lookup, origin[0], name, depth + 1)
        if found is not None and (found[1] is not None or found[3]):
            return found
    return None


def _step(lookup: GraphLookup, position: _Position | None, segment: str, depth: int) -> _Position | None:
    """The module or type a path segment names from a position."""
    if position is None:
        return None
    if position.is_type:
        return None  # associated items are the path's last segment, never a step
    found = _member(lookup, position, segment, depth, module=True)
    if found is not None:
        file_id, symbol_id, external, binds_module = found
        if binds_module and file_id is not None:
            return _file_position(lookup, file_id)
        if symbol_id is not None and file_id is not None:
            symbol = lookup.symbol(symbol_id)
            if symbol is not None and symbol.kind == "class":
                return _Position(file_id, symbol.qualified_name, True, symbol)
        return None
    inline = f"{position.prefix}.{segment}"  # `mod x { ... }` qualifies what it holds
    known = _layout(lookup).inline
    key = (position.file_id, inline)
    if key not in known:
        known[key] = lookup.holds_under(position.file_id, inline)
    return _Position(position.file_id, inline, False, _INLINE) if known[key] else None


def _as_target(position: _Position) -> Target:
    if position.whole_file:
        return position.file_id, None, False, True
    if position.symbol is not None and position.symbol is not _INLINE:
        return position.file_id, position.symbol.id, False, False
    return position.file_id, None, False, False


def _first(symbols: list[SymbolRow]) -> SymbolRow:
    """Of an item's definitions, the type before the functions or fields that share its name."""
    return min(symbols, key=lambda s: (s.kind != "class", s.start_line))


# Marks an inline module position: neither the whole file nor a type.
_INLINE = SymbolRow(-1, -1, "module", "", "", None, 0, 0)
