"""Which file a JavaScript or TypeScript import specifier names.

A relative specifier (`./util`, `../lib/mod.js`) is resolved against the importing file's
directory: the path as written, with each extension, the TypeScript source of a `.js` path
(`./util.js` written for `util.ts`), then the directory's index file. A bare specifier is first
looked up through the nearest `tsconfig.json` (or `jsconfig.json`) above the importing file, as
the TypeScript compiler would: `compilerOptions.paths` patterns, then `baseUrl`, probed like a
relative path; then as a package of the project (`npm`: a workspace package, or the importing
package itself, by name). A bare specifier nothing there answers (`react`, `node:fs`) names a
package outside the project: external.
"""

from __future__ import annotations

import posixpath
import weakref
from dataclasses import dataclass, field

from codefathom.graph import npm
from codefathom.graph.jsfiles import EXTENSIONS, probe, read_json
from codefathom.graphsource import GraphLookup

__all__ = ["EXTENSIONS", "CONFIG_NAMES", "is_relative", "resolve_specifier", "config_scope"]

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")  # tsconfig wins when a directory has both


@dataclass(frozen=True, slots=True)
class _Config:
    """The module options of one tsconfig, after its `extends` chain, as project-relative paths."""
    base_url: str | None  # directory bare specifiers resolve under; None: not set
    paths: tuple[tuple[str, tuple[str, ...]], ...]  # pattern -> targets, in the file's order
    paths_base: str  # directory `paths` targets are relative to


@dataclass
class _Configs:
    by_directory: dict[str, _Config | None] = field(default_factory=dict)  # nearest config, per directory
    chains: dict[str, tuple[str, ...]] = field(default_factory=dict)  # config -> the files its extends chain names
    files: list[str] | None = None  # every indexed tsconfig.json and jsconfig.json
    # (importing directory, specifier) -> file: `export * from` chains ask the same ones again and
    # again (mobx's index re-exports 20 modules: 24,539 probes for 827 imports)
    specifiers: dict[tuple[str, str], int | None] = field(default_factory=dict)


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Configs] = weakref.WeakKeyDictionary()


def is_relative(specifier: str) -> bool:
    return specifier.startswith(("./", "../")) or specifier in (".", "..")


def resolve_specifier(lookup: GraphLookup, importer: int, specifier: str) -> int | None:
    """The file any specifier names from the importing file: relative, or bare through tsconfig
    `paths` and `baseUrl`, then the project's packages; None when no indexed file answers. The
    empty specifier is the importing file itself (`export { a as b }` imports its own `a`)."""
    if not specifier:
        return importer
    directory = posixpath.dirname(lookup.path_of(importer))
    known = _configs(lookup).specifiers
    key = (directory, specifier)
    if key not in known:
        known[key] = _resolve_specifier(lookup, directory, specifier)
    return known[key]


def _resolve_specifier(lookup: GraphLookup, directory: str, specifier: str) -> int | None:
    if is_relative(specifier):
        return probe(lookup, posixpath.join(directory, specifier))
    config = _config_for(lookup, directory)
    if config is not None:
        for target in _path_targets(config, specifier):
            file_id = probe(lookup, posixpath.join(config.paths_base, target))
            if file_id is not None:
                return file_id
        if config.base_url is not None:
            file_id = probe(lookup, posixpath.join(config.base_url, specifier))
            if file_id is not None:
                return file_id
    return npm.resolve_package(lookup, directory, specifier)


def config_scope(lookup: GraphLookup, path: str) -> set[str]:
    """The directories whose bare imports a tsconfig-like file may decide: its own, when it is a
    tsconfig.json or jsconfig.json, and those of the configs whose `extends` chain names it."""
    scope = {posixpath.dirname(path)} if posixpath.basename(path) in CONFIG_NAMES else set()
    configs = _configs(lookup)
    if configs.files is None:
        configs.files = [p for p in lookup.ids_by_path() if posixpath.basename(p) in CONFIG_NAMES]
    scope.update(posixpath.dirname(config) for config in configs.files if path in _chain(lookup, config))
    return scope


def _path_targets(config: _Config, specifier: str) -> list[str]:
    """The targets of the `paths` pattern that matches a specifier, `*` replaced: an exact key
    first, else the wildcard pattern with the longest prefix (the compiler's choice)."""
    best: tuple[int, list[str]] | None = None
    for pattern, targets in config.paths:
        if pattern == specifier:
            return list(targets)
        prefix, star, suffix = pattern.partition("*")
        if not star or len(specifier) < len(prefix) + len(suffix):
            continue
        if specifier.startswith(prefix) and specifier.endswith(suffix) and (best is None or len(prefix) > best[0]):
            matched = specifier[len(prefix): len(specifier) - len(suffix)]
            best = (len(prefix), [target.replace("*", matched, 1) for target in targets])
    return best[1] if best is not None else []


def _configs(lookup: GraphLookup) -> _Configs:
    configs = _CACHE.get(lookup)
    if configs is None:
        configs = _Configs()
        _CACHE[lookup] = configs
    return configs


def _config_for(lookup: GraphLookup, directory: str) -> _Config | None:
    configs = _configs(lookup)
    if directory in configs.by_directory:
        return configs.by_directory[directory]
    found: _Config | None = None
    files = lookup.ids_by_path()
    for name in CONFIG_NAMES:
        path = posixpath.join(directory, name) if directory else name
        if path in files:
            found = _load(lookup, path)
            break
    else:  # no config file here: the parent directory's applies
        if directory:
            found = _config_for(lookup, posixpath.dirname(directory))
    configs.by_directory[directory] = found
    return found


def _chain(lookup: GraphLookup, path: str) -> tuple[str, ...]:
    """The config files a config's `extends` chain names (itself first), read or not."""
    configs = _configs(lookup)
    if path not in configs.chains:
        files = lookup.ids_by_path()
        seen: list[str] = []
        pending = [path]
        while pending:
            current = pending.pop(0)
            if current in seen:  # an `extends` cycle
                continue
            seen.append(current)
            data = read_json(lookup, current)
            extends = data.get("extends") if data is not None else None
            for base in [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []:
                if isinstance(base, str) and is_relative(base):  # a package's config is outside the project
                    target = posixpath.normpath(posixpath.join(posixpath.dirname(current), base))
                    pending.append(target if target in files or target.endswith(".json") else target + ".json")
        configs.chains[path] = tuple(seen)
    return configs.chains[path]


def _load(lookup: GraphLookup, path: str) -> _Config | None:
    """A config with what it extends merged in; None when it cannot be read (the compiler would
    refuse it, so the project's bare imports stay external to tsconfig rather than guessed)."""
    chain: list[tuple[str, dict[str, object]]] = []  # (directory, compilerOptions), most derived first
    for current in _chain(lookup, path):
        data = read_json(lookup, current)
        if data is None:
            if current == path:
                return None
            continue  # a broken base config: keep what the derived ones say
        options = data.get("compilerOptions")
        chain.append((posixpath.dirname(current), options if isinstance(options, dict) else {}))
    base_url: str | None = None
    paths: dict[str, object] | None = None
    paths_directory = ""
    # Each option comes from the most derived config that sets it, relative to that config's directory.
    for directory, options in reversed(chain):
        value = options.get("baseUrl")
        if isinstance(value, str):
            base_url = posixpath.normpath(posixpath.join(directory, value))
        value = options.get("paths")
        if isinstance(value, dict):
            paths, paths_directory = value, directory
    patterns = tuple(
        (key, tuple(t for t in value if isinstance(t, str)))
        for key, value in (paths or {}).items() if isinstance(value, list)
    )
    if base_url is not None and (base_url == ".." or base_url.startswith("../")):
        base_url = None  # outside the project: nothing indexed there
    if base_url == ".":
        base_url = ""
    return _Config(base_url, patterns, base_url if base_url is not None else paths_directory)
