"""Finds the project a path belongs to and the directory within it that a request keeps to.

A path inside a git work tree belongs to that work tree; any other directory is its own project.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from codefathom import gitcmd
from codefathom.errors import PathOutsideRoot, UsageError, path_error, shown

__all__ = ["Project", "resolve_project", "inside_root"]


@dataclass(frozen=True)
class Project:
    root: Path  # absolute, resolved
    within: str  # the requested directory relative to root ("" for the whole project)


def resolve_project(path: str | Path | None) -> Project:
    requested = Path(path or ".").expanduser()
    try:
        resolved = requested.resolve(strict=True)
    except (OSError, RuntimeError, ValueError) as exc:
        cause = str(path_error(None, exc))
        why = "" if isinstance(exc, FileNotFoundError) else f" ({cause})"  # say why when it is not plain absence
        raise UsageError(f"no such directory: {shown(requested)}{why}") from exc
    if not resolved.is_dir():
        raise UsageError(f"not a directory: {shown(requested)}")
    root = _git_toplevel(resolved) or resolved
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


def _git_toplevel(path: Path) -> Path | None:
    try:
        done = gitcmd.run(path, "rev-parse", "--show-toplevel", timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    top = done.stdout.decode("utf-8", errors="surrogateescape").strip()
    if done.returncode != 0 or not top:
        return None
    return Path(top).resolve()
