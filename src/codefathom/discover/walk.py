"""Lists a project's files the way git sees them: tracked plus untracked-but-not-ignored.

Outside a git work tree the `.gitignore` files are read directly. Symlinks never lead out.
"""

from __future__ import annotations

import os
import stat
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from codefathom import gitcmd
from codefathom.config import Settings
from codefathom.discover.filters import excluded_dir, excluded_name
from codefathom.globs import compile_globs
from codefathom.model import SkippedFile, SourceFile

__all__ = ["Discovery", "discover", "Listing", "list_files", "Entry", "Signature", "signature", "control_files"]

GIT_TIMEOUT_S = 60
# A directory changed this close to (or after) the start of a listing may have changed while it
# was listed: its time is recorded as unknown, so the next sweep lists again. File system clocks
# are coarse (a jiffy or so behind the wall clock), hence the margin.
RECENT_MARGIN_NS = 20_000_000


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
    # With `track=True`: what the list depends on, so a later sweep can tell it is still right
    # without listing again. Every directory an indexable file could appear in, with its mtime
    # (-1: changed during the listing); the files that decide what git lists (its index, exclude
    # files) with their signatures; the files left out for their size or an unreadable stat, which
    # a change of stat could bring back. None when the list cannot be vouched for this way.
    dirs: list[tuple[str, int]] | None = None
    control: list[tuple[str, Signature | None]] = field(default_factory=list)
    recheck: list[tuple[str, Signature | None]] = field(default_factory=list)

    def source_file(self, entry: Entry) -> SourceFile:
        path, size, mtime_ns = entry
        return SourceFile(path=path, abs_path=self.root / path, size=size, mtime_ns=mtime_ns)


# What a sweep compares to tell whether a file or directory changed: (mtime_ns, size, inode).
Signature = tuple[int, int, int]


def signature(path: str) -> Signature | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def list_files(settings: Settings, *, track: bool = False) -> Listing:
    """`discover` without the SourceFiles: every indexable file's path, size and mtime.

    With `track`, also what the list depends on (`Listing.dirs`, `control`, `recheck`).
    """
    root = settings.root
    include = compile_globs(settings.include, "include glob in the config")
    exclude = compile_globs(settings.exclude, "exclude glob in the config")
    result = Listing(root)
    started_ns = time.time_ns()
    if track:
        # Before the listing: a change made while it runs then shows as a changed signature.
        result.control = [(path, signature(path)) for path in control_files(root)]
    listed = _git_paths(root)
    walked: list[str] | None = [] if track and listed is None else None
    if listed is not None:
        result.method = "git"
    candidates = listed if listed is not None else _walk_paths(root, result.skipped, walked)
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
        skipped_before = len(result.skipped)
        info = _stat_file(root_prefix, real_root, rel, settings.max_file_size, result.skipped)
        if info is not None:
            entries.append((rel, info.st_size, info.st_mtime_ns))
        elif track and len(result.skipped) > skipped_before:
            result.recheck.append((rel, signature(root_prefix + rel)))
    if track:
        if walked is not None:
            folders: Iterable[str] = walked
        else:
            folders = (folder for folder, excluded in dir_excluded.items() if not excluded)
        result.dirs = _directory_state(root, folders, result.method == "git", started_ns)
        if result.method == "git" and not result.control:
            result.dirs = None  # git's own state cannot be watched: list every time
    return result


def control_files(root: Path) -> list[str]:
    """The files outside the tree whose change can change what git lists: its index, the
    repository's exclude file and config, the user's global ignore file and config."""
    repository = gitcmd.find_repository(root)
    if repository is None:
        return []
    gitdir, common = repository.git_dir, repository.common_dir
    home = Path(os.environ.get("HOME") or "~").expanduser()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    paths = [gitdir / "index", common / "info" / "exclude", common / "config", xdg / "git" / "ignore",
             xdg / "git" / "config", home / ".gitconfig"]
    return [str(path) for path in paths]


def _directory_state(
    root: Path, folders: Iterable[str], git: bool, started_ns: int
) -> list[tuple[str, int]] | None:
    """Every directory a new indexable file could appear in, with its mtime.

    Adding, removing or renaming an entry changes the mtime of the directory holding it, so
    these mtimes unchanged mean the list of files is unchanged. The directories are those of the
    listed files and their ancestors, plus, with git, the others found beside them (empty, or
    holding only ignored files) that git does not ignore, with everything under them. A directory's link
    count (2 + its subdirectories, on the usual Linux and BSD file systems) tells which
    directories hold more subdirectories than the listing shows, so only those are read.
    """
    prefix = os.path.join(str(root), "")
    tracked: set[str] = {""}
    for folder in folders:
        while folder not in tracked:
            tracked.add(folder)
            folder = folder.rpartition("/")[0]
    subdirs: dict[str, int] = {}
    for folder in tracked:
        if folder:
            parent = folder.rpartition("/")[0]
            subdirs[parent] = subdirs.get(parent, 0) + 1
    state: dict[str, int] = {}
    extra: list[str] = []
    for folder in tracked:
        try:
            info = os.stat(prefix + folder)
        except OSError:
            return None  # vanished while listing: list again next time
        state[folder] = info.st_mtime_ns
        # Without git the walk saw every directory that is not ignored; with git, look for more.
        if git and (info.st_nlink == 1 or info.st_nlink - 2 > subdirs.get(folder, 0)):
            extra.extend(_unlisted_subdirs(prefix, folder, tracked))
    if extra:
        extra = _not_ignored(root, extra)
    for top in extra:
        for dirpath, dirnames, _ in os.walk(prefix + top, followlinks=False):
            rel = dirpath[len(prefix) :].replace(os.sep, "/")
            try:
                state[rel] = os.stat(dirpath).st_mtime_ns
            except OSError:
                return None
            dirnames[:] = [d for d in dirnames if not excluded_dir(d) and not _other_tree(os.path.join(dirpath, d))]
    recent = started_ns - RECENT_MARGIN_NS
    return sorted((folder, -1 if mtime >= recent else mtime) for folder, mtime in state.items())


def _unlisted_subdirs(prefix: str, folder: str, tracked: set[str]) -> list[str]:
    found = []
    try:
        with os.scandir(prefix + folder) as entries:
            for entry in entries:
                if not entry.is_dir(follow_symlinks=False) or excluded_dir(entry.name):
                    continue
                rel = f"{folder}/{entry.name}" if folder else entry.name
                if rel not in tracked and not _other_tree(entry.path):
                    found.append(rel)
    except OSError:
        pass
    return found


def _other_tree(path: str) -> bool:
    """A nested repository or a virtualenv: nothing in it is listed."""
    return os.path.lexists(os.path.join(path, ".git")) or os.path.exists(os.path.join(path, "pyvenv.cfg"))


def _not_ignored(root: Path, folders: list[str]) -> list[str]:
    try:
        done = gitcmd.run(
            root, "check-ignore", "-z", "--stdin", input="\0".join(folders).encode(), timeout=GIT_TIMEOUT_S
        )
    except (OSError, subprocess.SubprocessError):
        return folders
    if done.returncode not in (0, 1):
        return folders
    ignored = set(done.stdout.decode("utf-8", errors="surrogateescape").split("\0"))
    return [folder for folder in folders if folder not in ignored]


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
    try:
        # One process, not two: outside a work tree (or inside .git, or in a bare repository)
        # ls-files fails, which says what `rev-parse --is-inside-work-tree` would.
        listed = gitcmd.run(
            root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", timeout=GIT_TIMEOUT_S
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if listed.returncode != 0:
        return None
    raw = listed.stdout.decode("utf-8", errors="surrogateescape")
    return [p for p in raw.split("\0") if p]


def _walk_paths(root: Path, skipped: list[SkippedFile], visited: list[str] | None = None) -> Iterator[str]:
    """Walk without git, honouring every `.gitignore` on the way down; never follows dir links.

    The directories walked are added to `visited` when given."""
    ignores: list[tuple[str, pathspec.GitIgnoreSpec]] = []

    def on_error(exc: OSError) -> None:
        where = Path(exc.filename).relative_to(root).as_posix() if exc.filename else "?"
        skipped.append(SkippedFile(where, f"cannot read directory: {_os_reason(exc)}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        ignores = [(base, spec) for base, spec in ignores if _is_within(rel_dir, base)]
        if visited is not None:
            visited.append(rel_dir)
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
