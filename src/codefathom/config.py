"""Project settings: limits, include/exclude globs and where the index lives.

Read from `.codefathom.toml` or `[tool.codefathom]` in `pyproject.toml`, then the environment.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codefathom.errors import UsageError

__all__ = ["Settings", "load_settings", "default_home", "index_dir_for", "DEFAULT_MAX_FILE_SIZE"]

DEFAULT_MAX_FILE_SIZE = 1_000_000
CONFIG_FILE = ".codefathom.toml"


@dataclass(frozen=True)
class Settings:
    """Everything that shapes which files are indexed and where the index is kept."""

    root: Path
    index_dir: Path
    include: tuple[str, ...] = ()  # when set, only files these globs name are indexed
    exclude: tuple[str, ...] = ()  # added to the default excludes
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    config_file: Path | None = None
    linked: tuple[str, ...] = ()  # projects inside this one searched with it (paths from its root)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def db_path(self) -> Path:
        return self.index_dir / "index.db"


def default_home() -> Path:
    """Where indexes live unless told otherwise: $CODEFATHOM_HOME, else ~/.cache/codefathom."""
    home = os.environ.get("CODEFATHOM_HOME")
    if home:
        return Path(home).expanduser()
    return Path.home() / ".cache" / "codefathom"


def index_dir_for(root: Path, home: Path | None = None) -> Path:
    """One directory per project root: readable name plus a hash of the full path."""
    digest = hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:12]
    safe_name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in root.name) or "root"
    return (home or default_home()) / f"{safe_name}-{digest}"


def load_settings(root: Path, index_dir: Path | None = None) -> Settings:
    """Settings for the project at `root`, from its config file when it has one."""
    table, source = _read_config_table(root)
    include = _glob_list(table, "include", source)
    exclude = _glob_list(table, "exclude", source)
    max_size = table.get("max_file_size", DEFAULT_MAX_FILE_SIZE)
    if not isinstance(max_size, int) or isinstance(max_size, bool) or max_size <= 0:
        raise UsageError(f"{source}: max_file_size must be a positive integer (bytes), got {max_size!r}")
    linked = _glob_list(table, "linked", source, "paths")
    known = {"include", "exclude", "max_file_size", "linked"}
    return Settings(
        root=root,
        index_dir=(index_dir or index_dir_for(root)).expanduser().resolve(),
        include=include,
        exclude=exclude,
        max_file_size=max_size,
        config_file=source,
        linked=linked,
        extra={k: v for k, v in table.items() if k not in known},
    )


def _read_config_table(root: Path) -> tuple[dict[str, Any], Path | None]:
    own = root / CONFIG_FILE
    if own.is_file():
        return _load_toml(own), own
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = _load_toml(pyproject)
        except UsageError:
            return {}, None  # a broken pyproject.toml is the project's business, not ours
        table = data.get("tool", {}).get("codefathom")
        if isinstance(table, dict):
            return table, pyproject
    return {}, None


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc


def _glob_list(table: dict[str, Any], key: str, source: Path | None, what: str = "glob strings") -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{source}: {key} must be a list of {what}")
    return tuple(value)
