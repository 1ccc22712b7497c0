"""Which file a JavaScript or TypeScript import specifier names.

A relative specifier (`./util`, `../lib/mod.js`) is resolved against the importing file's
directory: the path as written, with each extension, the TypeScript source of a `.js` path
(`./util.js` written for `util.ts`), then the directory's index file. A bare specifier is first
looked up through the nearest `tsconfig.json` (or `jsconfig.json`) above the importing file, as
the TypeScript compiler would: `compilerOptions.paths` patterns, then `baseUrl`, probed like a
relative path. A bare specifier nothing there answers (`react`, `@scope/pkg`, `node:fs`) names a
package outside the project: external.
"""

from __future__ import annotations

import json
import logging
import posixpath
import re
import weakref
from dataclasses import dataclass, field

from codefathom.store.graph import GraphLookup

__all__ = ["EXTENSIONS", "is_relative", "specifier_file", "resolve_specifier"]

log = logging.getLogger(__name__)

EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".d.ts", ".js", ".jsx", ".mjs", ".cjs")
# A compiled extension written in an import, and the sources it is compiled from.
_SOURCES = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")  # tsconfig wins when a directory has both
# A string is matched first so that `//`, `/*` and `,` inside one are left alone.
_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r'"(?:[^"\\\n]|\\.)*"|,(\s*[}\]])')


@dataclass(frozen=True, slots=True)
class _Config:
    """The module options of one tsconfig, after its `extends` chain, as project-relative paths."""
    base_url: str | None  # directory bare specifiers resolve under; None: not set
    paths: tuple[tuple[str, tuple[str, ...]], ...]  # pattern -> targets, in the file's order
    paths_base: str  # directory `paths` targets are relative to


@dataclass
class _Configs:
    files: dict[str, int]  # every indexed file's id, by path: config files are found without a query
    by_directory: dict[str, _Config | None] = field(default_factory=dict)  # nearest config, per directory
    parsed: dict[str, dict[str, object] | None] = field(default_factory=dict)  # config path -> its JSON


_CACHE: weakref.WeakKeyDictionary[GraphLookup, _Configs] = weakref.WeakKeyDictionary()


def is_relative(specifier: str) -> bool:
    return specifier.startswith(("./", "../")) or specifier in (".", "..")


def resolve_specifier(lookup: GraphLookup, importer: int, specifier: str) -> int | None:
    """The file any specifier names from the importing file: relative, or bare through tsconfig
    `paths` and `baseUrl`; None when no indexed file answers."""
    if is_relative(specifier):
        return specifier_file(lookup, importer, specifier)
    config = _config_for(lookup, posixpath.dirname(lookup.path_of(importer)))
    if config is None:
        return None
    for target in _path_targets(config, specifier):
        file_id = _probe(lookup, posixpath.join(config.paths_base, target))
        if file_id is not None:
            return file_id
    if config.base_url is not None:
        return _probe(lookup, posixpath.join(config.base_url, specifier))
    return None


def specifier_file(lookup: GraphLookup, importer: int, specifier: str) -> int | None:
    """The file a relative specifier names from the importing file, None when none is indexed."""
    directory = posixpath.dirname(lookup.path_of(importer))
    return _probe(lookup, posixpath.join(directory, specifier))


def _probe(lookup: GraphLookup, path: str) -> int | None:
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
    if extension in _SOURCES:
        found.extend(stem + source for source in _SOURCES[extension])
    if base:
        found.append(base)
        found.extend(base + extension for extension in EXTENSIONS)
    prefix = f"{base}/index" if base else "index"
    found.extend(prefix + extension for extension in EXTENSIONS)
    return found


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


def _config_for(lookup: GraphLookup, directory: str) -> _Config | None:
    configs = _CACHE.get(lookup)
    if configs is None:
        configs = _Configs({p: i for i, p in lookup.paths().items()})
        _CACHE[lookup] = configs
    if directory in configs.by_directory:
        return configs.by_directory[directory]
    found: _Config | None = None
    for name in _CONFIG_NAMES:
        path = posixpath.join(directory, name) if directory else name
        if path in configs.files:
            found = _load(lookup, configs, path)
            break
    else:  # no config file here: the parent directory's applies
        if directory:
            found = _config_for(lookup, posixpath.dirname(directory))
    configs.by_directory[directory] = found
    return found


def _load(lookup: GraphLookup, configs: _Configs, path: str) -> _Config | None:
    """A config with what it extends merged in; None when it cannot be read (the compiler would
    refuse it, so the project's bare imports stay external rather than guessed)."""
    chain: list[tuple[str, dict[str, object]]] = []  # (directory, compilerOptions), most derived first
    seen: set[str] = set()
    pending = [path]
    while pending:
        current = pending.pop(0)
        if current in seen:  # an `extends` cycle
            continue
        seen.add(current)
        data = _parse(lookup, configs, current)
        if data is None:
            if current == path:
                return None
            continue  # a broken base config: keep what the derived ones say
        options = data.get("compilerOptions")
        chain.append((posixpath.dirname(current), options if isinstance(options, dict) else {}))
        extends = data.get("extends")
        for base in [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []:
            if isinstance(base, str) and is_relative(base):  # a package's config is outside the project
                target = posixpath.normpath(posixpath.join(posixpath.dirname(current), base))
                pending.append(target if target in configs.files or target.endswith(".json") else target + ".json")
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


def _parse(lookup: GraphLookup, configs: _Configs, path: str) -> dict[str, object] | None:
    if path in configs.parsed:
        return configs.parsed[path]
    data: dict[str, object] | None = None
    file_id = configs.files.get(path)
    if file_id is not None:
        text = _COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", lookup.file_text(file_id))
        text = _TRAILING_COMMA.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(0), text)
        try:
            loaded = json.loads(text)
        except ValueError as error:
            log.debug("ignoring unreadable %s: %s", path, error)
        else:
            data = loaded if isinstance(loaded, dict) else None
    configs.parsed[path] = data
    return data
