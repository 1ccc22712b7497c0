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

__all__ = ["Discovery", "discover", "Listing", "list_files", "Entry"]

GIT_TIMEOUT_S = 60


@dataclass
class Discovery:
    """The files to index, the ones left out with a reason, and how the list was made."""

    files: list[SourceFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    method: str = "walk"  # "git" or "walk"


def discover(settings: Settings) -> Discovery:
    """Every indexable file under `settings.root`, in path order."""
    listing = list_files(settings)
    files = [listing.source_file(entry) for entry in listing.entries]
    return Discovery(files, listing.skipped, listing.method)


# A discovered file as `list_files` gives it: path relative to the root, size, mtime_ns.
Entry = tuple[str, int, int]


@dataclass
class Listing:
    """What `discover` finds, before a `SourceFile` (and its Path) is made for each file.

    Diffing a large project against its index by stat needs only these numbers, and building
    thousands of Paths that are never opened is a good part of a no-change sync.
    """

    root: Path
    entries: list[Entry] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    method: str = "walk"  # "git" or "walk"

    def source_file(self, entry: Entry) -> SourceFile:
        path, size, mtime_ns = entry
        return SourceFile(path=path, abs_path=self.root / path, size=size, mtime_ns=mtime_ns)


def list_files(settings: Settings) -> Listing:
    """`discover` without the SourceFiles: every indexable file's path, size and mtime."""
    root = settings.root
    include = compile_globs(settings.include, "include glob in the config")
    exclude = compile_globs(settings.exclude, "exclude glob in the config")
    result = Listing(root)
    listed = _git_paths(root)
    if listed is not None:
        result.method = "git"
    candidates = listed if listed is not None else _walk_paths(root, result.skipped)
    real_root = root.resolve()
    root_prefix = os.path.join(str(root), "")
    dir_excluded: dict[str, bool] = {"": False}  # per directory, so each is judged once
    entries = result.entries
    for rel in sorted(set(candidates)):
        folder, _, name = rel.rpartition("/")
        excluded = dir_excluded.get(folder)
        if excluded is None:
            excluded = dir_excluded[folder] = any(excluded_dir(p) for p in folder.split("/"))
        if excluded:
            continue
        if include and not include.matches(rel):
            continue
        if exclude and exclude.matches(rel):
            continue
        reason = excluded_name(name)
        if reason:
            result.skipped.append(SkippedFile(rel, reason))
            continue
        info = _stat_file(root_prefix, real_root, rel, settings.max_file_size, result.skipped)
        if info is not None:
            entries.append((rel, info.st_size, info.st_mtime_ns))
    return result


def _stat_file(
    root_prefix: str, real_root: Path, rel: str, max_size: int, skipped: list[SkippedFile]
) -> os.stat_result | None:
    """The stat of a regular file worth indexing (of its target, for a symlink), else None."""
    where = root_prefix + rel
    try:
        info = os.lstat(where)
        if stat.S_ISLNK(info.st_mode):
            target = Path(where).resolve(strict=True)
            if not target.is_relative_to(real_root):
                skipped.append(SkippedFile(rel, "symlink leads outside the project"))
                return None
            info = os.stat(target)
    except (OSError, RuntimeError) as exc:  # RuntimeError: symlink loop on older Pythons
        if not os.path.lexists(where):
            return None  # deleted since git listed it
        skipped.append(SkippedFile(rel, f"cannot stat: {_os_reason(exc)}"))
        return None
    if not stat.S_ISREG(info.st_mode):
        return None  # directories (submodules, symlinked dirs), sockets, devices
    if info.st_size > max_size:
        skipped.append(SkippedFile(rel, f"larger than the {max_size:,}-byte limit ({info.st_size:,} bytes)"))
        return None
    return info


def _git_paths(root: Path) -> list[str] | None:
    """Paths git tracks or would track under `root`, or None when git cannot say."""
    git = shutil.which("git")
    if git is None:
        return None
    try:
        # One process, not two: outside a work tree (or inside .git, or in a bare repository)
        # ls-files fails, which says what `rev-parse --is-inside-work-tree` would.
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
