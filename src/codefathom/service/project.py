"""Finds the project a path belongs to and the directory within it that a request keeps to.

A path inside a git work tree belongs to that work tree; any other directory to the nearest
directory at or above it that has an index (SQLite's file, or the project's rows in the database
store it is configured with), else it is a project of its own.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codefathom import gitcmd
from codefathom.config import index_dir_for, load_settings
from codefathom.errors import CodefathomError, PathOutsideRoot, UsageError, path_error, shown
from codefathom.store import StoreError, database_projects

__all__ = ["Project", "resolve_project", "inside_root"]


@dataclass(frozen=True)
class Project:
    root: Path  # absolute, resolved
    within: str  # the requested directory relative to root ("" for the whole project)


def resolve_project(path: str | Path | None, may_adopt: Callable[[Path], bool] = lambda _: True) -> Project:
    """The project `path` belongs to. Outside git, an indexed directory above it that `may_adopt`
    allows (a server: one inside the roots it serves) is its project: a folder of an indexed
    project searched on its own keeps the project's names, index and vectors."""
    requested = Path(path or ".").expanduser()
    try:
        resolved = requested.resolve(strict=True)
    except (OSError, RuntimeError, ValueError) as exc:
        cause = str(path_error(None, exc))
        why = "" if isinstance(exc, FileNotFoundError) else f" ({cause})"  # say why when it is not plain absence
        raise UsageError(f"no such directory: {shown(requested)}{why}") from exc
    if not resolved.is_dir():
        raise UsageError(f"not a directory: {shown(requested)}")
    root = _git_toplevel(resolved) or _indexed_ancestor(resolved, may_adopt) or resolved
    within = resolved.relative_to(root).as_posix()
    return Project(root=root, within="" if within == "." else within)


def inside_root(root: Path, candidate: str | Path) -> Path:
    """`candidate` (relative to root, or absolute) resolved, refused when it leads outside root."""
    path = Path(candidate)
    try:
        full = (path if path.is_absolute() else root / path).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a link loop, a name too long, a NUL
        raise path_error(candidate, exc) from exc
    if not full.is_relative_to(root):
        raise PathOutsideRoot(f"{shown(candidate)} is outside the project root {root}")
    return full


def _indexed_ancestor(path: Path, may_adopt: Callable[[Path], bool]) -> Path | None:
    """The nearest directory at or above `path` with an index in the home directory."""
    for candidate in (path, *path.parents):
        if _has_index(candidate):
            return candidate if candidate == path or may_adopt(candidate) else None
    return None


def _has_index(directory: Path) -> bool:
    """Whether `directory` is an indexed project: SQLite's file in the home, or, for a project kept
    in a database, its row there. Only a directory this machine synced (its local folder holds the
    lock and the listing) is looked up in the database: no connection for every parent of a path."""
    folder = index_dir_for(directory)
    if (folder / "index.db").is_file():
        return True
    if not folder.is_dir():
        return False
    try:
        settings = load_settings(directory)
        return settings.store is not None and settings.project_name in database_projects(settings.store)
    except (CodefathomError, StoreError):
        return False  # a broken config or an unreachable database: the command that opens it says so


def _git_toplevel(path: Path) -> Path | None:
    try:
        done = gitcmd.run(path, "rev-parse", "--show-toplevel", timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    top = done.stdout.decode("utf-8", errors="surrogateescape").strip()
    if done.returncode != 0 or not top:
        return None
    return Path(top).resolve()
