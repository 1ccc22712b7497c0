"""Project settings: limits, include/exclude globs and where the index lives.

Read from `.codefathom.toml` or `[tool.codefathom]` in `pyproject.toml`, then the environment.

The store: a SQLite file in the index folder unless `store = "postgresql://..."` (config) or
`$CODEFATHOM_STORE` names a PostgreSQL database. The environment wins, and `CODEFATHOM_STORE=sqlite`
keeps the default whatever the config says: a repository's own config must not be the last word on
where its index (the code, its text) is sent. `store_read` (or `$CODEFATHOM_STORE_READ`) names a
replica that answers the reads; the config's counts only beside the config's `store`, so a
repository cannot send the questions of someone who chose the store elsewhere.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codefathom.errors import UsageError

__all__ = [
    "Settings", "load_settings", "default_home", "index_dir_for", "DEFAULT_MAX_FILE_SIZE", "STORE_ENV",
    "STORE_READ_ENV", "configured_store", "configured_read_store", "redacted_uri",
]

DEFAULT_MAX_FILE_SIZE = 1_000_000
CONFIG_FILE = ".codefathom.toml"
STORE_ENV = "CODEFATHOM_STORE"
STORE_READ_ENV = "CODEFATHOM_STORE_READ"
_DEFAULT_STORE = "sqlite"
_DATABASE_SCHEMES = ("postgresql://", "postgres://")


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
    store: str | None = None  # a postgresql:// URI; None: the SQLite file in index_dir
    store_source: str = ""  # where `store` was set: $CODEFATHOM_STORE or the config file
    store_project: str = ""  # the project's name in that database (default: the index folder's name)
    store_read: str | None = None  # a replica of `store` that answers searches and the other reads

    @property
    def db_path(self) -> Path:
        return self.index_dir / "index.db"

    @property
    def project_name(self) -> str:
        """The project's name in a database store: as configured, else the index folder's name (its
        root's name and a hash of its path), so two checkouts of one repository stay apart."""
        return self.store_project or self.index_dir.name

    @property
    def location(self) -> str:
        """Where the index lives, safe to show: the SQLite file, or the database (no password) and project."""
        if self.store is None:
            return str(self.db_path)
        return f"{redacted_uri(self.store)}#{self.project_name}"


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
    store, store_source = configured_store(table, source)
    store_project = table.get("store_project", "")
    if not isinstance(store_project, str) or (store_project and not store_project.strip()):
        raise UsageError(f"{source}: store_project must be a non-empty string, got {store_project!r}")
    store_read = configured_read_store(store, store_source, table, source)
    known = {"include", "exclude", "max_file_size", "linked", "store", "store_project", "store_read"}
    return Settings(
        root=root,
        index_dir=(index_dir or index_dir_for(root)).expanduser().resolve(),
        include=include,
        exclude=exclude,
        max_file_size=max_size,
        config_file=source,
        linked=linked,
        extra={k: v for k, v in table.items() if k not in known},
        store=store,
        store_source=store_source,
        store_project=store_project.strip(),
        store_read=store_read,
    )


def configured_store(table: dict[str, Any] | None = None, source: Path | None = None) -> tuple[str | None, str]:
    """The PostgreSQL URI the index goes to (None: SQLite) and where that was said. `$CODEFATHOM_STORE`
    first, then the config's `store`; "sqlite" is the default, said explicitly."""
    env = os.environ.get(STORE_ENV, "").strip()
    if env:
        return _store_value(env, f"${STORE_ENV}"), f"${STORE_ENV}"
    value = (table or {}).get("store")
    if value is None:
        return None, ""
    said = str(source) if source else "config"
    if not isinstance(value, str):
        raise UsageError(f"{said}: store must be a string (\"sqlite\" or \"postgresql://...\"), got {value!r}")
    store = _store_value(value.strip(), said)
    return store, said if store else ""


def configured_read_store(
    store: str | None, store_source: str, table: dict[str, Any] | None = None, source: Path | None = None
) -> str | None:
    """The replica that answers reads, if any: `$CODEFATHOM_STORE_READ`, else the config's `store_read`
    when the config also chose `store` (a repository's config must not redirect the reads of a store
    the environment chose). None on SQLite: a replica is of a database."""
    value = (table or {}).get("store_read")
    said = str(source) if source else "config"
    if value is not None and (not isinstance(value, str) or not value.strip().startswith(_DATABASE_SCHEMES)):
        shown = redacted_uri(value) if isinstance(value, str) else repr(value)
        raise UsageError(f"{said}: store_read must be a postgresql:// URI (a replica of store), got {shown!r}")
    if value is not None and store is None and not store_source:
        raise UsageError(
            f"{said}: store_read names a replica of a PostgreSQL store; set store = \"postgresql://...\" too"
        )
    if store is None:
        return None
    env = os.environ.get(STORE_READ_ENV, "").strip()
    if env:
        if not env.startswith(_DATABASE_SCHEMES):
            raise UsageError(f"${STORE_READ_ENV} must be a postgresql:// URI, got {redacted_uri(env)!r}")
        return env
    if value is None or store_source == f"${STORE_ENV}":
        return None
    return str(value).strip()


def _store_value(value: str, said: str) -> str | None:
    if value.lower() == _DEFAULT_STORE:
        return None
    if not value.startswith(_DATABASE_SCHEMES):
        raise UsageError(f"{said}: store must be \"sqlite\" or a postgresql:// URI, got {redacted_uri(value)!r}")
    return value


def redacted_uri(uri: str) -> str:
    """The URI without its password (in the user part or as a `password=` parameter), for display."""
    scheme, sep, rest = uri.partition("://")
    if not sep:
        return uri
    netloc, slash, tail = rest.partition("/")
    userinfo, at, hostport = netloc.rpartition("@")
    if at:
        user = userinfo.partition(":")[0]
        netloc = f"{user}@{hostport}" if user else hostport
    path, question, query = tail.partition("?")
    if question:
        kept = [item for item in query.split("&") if not item.lower().startswith("password=")]
        tail = path + ("?" + "&".join(kept) if kept else "")
    return f"{scheme}://{netloc}{slash}{tail}"


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
