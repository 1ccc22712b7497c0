"""Lists a project's files the way git sees them: tracked plus untracked-but-not-ignored.

Outside a git work tree the `.gitignore` files are read directly. Symlinks never lead out.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from codefathom.config import Settings
from codefathom.discover.filters import excluded_dir, excluded_name
from codefathom.globs import compile_globs
from codefathom.model import SkippedFile, SourceFile

__all__ = ["Discovery", "discover"]

GIT_TIMEOUT_S = 60


@dataclass
class Discovery:
    """The files to index, the ones left out with a reason, and how the list was made."""

    files: list[SourceFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    method: str = "walk"  # "git" or "walk"


def discover(settings: Settings) -> Discovery:
    """Every indexable file under `settings.root`, in path order."""
    root = settings.root
    include = compile_globs(settings.include, "include glob in the config")
    exclude = compile_globs(settings.exclude, "exclude glob in the config")
    result = Discovery()
    candidates = _git_paths(root)
    if candidates is not None:
        result.method = "git"
    else:
        candidates = _walk_paths(root, result.skipped)
    real_root = root.resolve()
    for rel in sorted(set(candidates)):
        parts = rel.split("/")
        if any(excluded_dir(p) for p in parts[:-1]):
            continue
        if include and not include.matches(rel):
            continue
        if exclude and exclude.matches(rel):
            continue
        reason = excluded_name(parts[-1])
        if reason:
            result.skipped.append(SkippedFile(rel, reason))
            continue
        source = _stat_file(root, real_root, rel, settings.max_file_size, result.skipped)
        if source is not None:
            result.files.append(source)
    return result


def _stat_file(
    root: Path, real_root: Path, rel: str, max_size: int, skipped: list[SkippedFile]
) -> SourceFile | None:
    path = root / rel
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            target = path.resolve(strict=True)
            if not target.is_relative_to(real_root):
                skipped.append(SkippedFile(rel, "symlink leads outside the project"))
                return None
            info = os.stat(target)
    except (OSError, RuntimeError) as exc:  # RuntimeError: symlink loop on older Pythons
        if not os.path.lexists(path):
            return None  # deleted since git listed it
        skipped.append(SkippedFile(rel, f"cannot stat: {_os_reason(exc)}"))
        return None
    if not stat.S_ISREG(info.st_mode):
        return None  # directories (submodules, symlinked dirs), sockets, devices
    if info.st_size > max_size:
        skipped.append(SkippedFile(rel, f"larger than the {max_size:,}-byte limit ({info.st_size:,} bytes)"))
        return None
    return SourceFile(path=rel, abs_path=path, size=info.st_size, mtime_ns=info.st_mtime_ns)


def _git_paths(root: Path) -> list[str] | None:
    """Paths git tracks or would track under `root`, or None when git cannot say."""
    git = shutil.which("git")
    if git is None:
        return None
    try:
        inside = subprocess.run(
            [git, "-C", str(root), "rev-parse", "--is-inside-work-tree"],
            capture_output=True, text=True, timeout=GIT_TIMEOUT_S,
        )
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return None
        listed = subprocess.run(
            [git, "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, timeout=GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if listed.returncode != 0:
        return None
    raw = listed.stdout.decode("utf-8", errors="surrogateescape")
    return [p for p in raw.split("\0") if p]


def _walk_paths(root: Path, skipped: list[SkippedFile]) -> Iterator[str]:
    """Walk without git, honouring every `.gitignore` on the way down; never follows dir links."""
    ignores: list[tuple[str, pathspec.GitIgnoreSpec]] = []

    def on_error(exc: OSError) -> None:
        where = Path(exc.filename).relative_to(root).as_posix() if exc.filename else "?"
        skipped.append(SkippedFile(where, f"cannot read directory: {_os_reason(exc)}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        ignores = [(base, spec) for base, spec in ignores if _is_within(rel_dir, base)]
        spec = _read_gitignore(Path(dirpath) / ".gitignore")
        if spec is not None:
            ignores.append((rel_dir, spec))
        if (Path(dirpath) / "pyvenv.cfg").exists() and rel_dir:
            dirnames[:] = []
            continue
        kept = []
        for name in sorted(dirnames):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if excluded_dir(name) or _ignored(rel + "/", ignores):
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in filenames:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if not _ignored(rel, ignores):
                yield rel


def _read_gitignore(path: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:
        # One malformed line must not disable the whole file: keep the lines that compile.
        good = []
        for line in lines:
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
                good.append(line)
            except Exception:
                continue
        return pathspec.GitIgnoreSpec.from_lines(good)


def _ignored(rel: str, ignores: list[tuple[str, pathspec.GitIgnoreSpec]]) -> bool:
    for base, spec in ignores:
        sub = rel[len(base) + 1 :] if base else rel
        if spec.match_file(sub):
            return True
    return False


def _is_within(rel_dir: str, base: str) -> bool:
    return base == "" or rel_dir == base or rel_dir.startswith(base + "/")


def _os_reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
