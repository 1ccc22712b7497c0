"""Runs git for every stage, so that nothing a repository's own config names is ever run: its
config (.git/config, config.worktree, the files they include) is as untrusted as its files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

__all__ = ["Repository", "find_repository", "installed", "run"]

# Each setting keeps git from running a program the repository's config names. The user's own
# config (system, global, the environment's) is trusted where it still matters.
_SAFE_CONFIG = (
    # A hook run by every command that reads the index: ls-files, check-ignore, diff.
    "core.fsmonitor=false",
    # post-index-change runs when a read (status, diff) refreshes the index and writes it. No
    # hook can exist below a device file, .git/hooks included.
    f"core.hooksPath={os.devnull}",
    "core.quotepath=off",
    # Else log and show run gpg.program (or gpg.ssh.program) on each signed commit.
    "log.showSignature=false",
    # A partial clone fetches a missing object from the remote its config names, through that
    # remote's uploadpack, core.sshCommand or an ext:: command. GIT_NO_LAZY_FETCH stops that in
    # the releases since May 2024 (2.45.1, 2.39.4...), this in any (with every protocol.<name>.allow
    # the config sets made never below).
    "protocol.allow=never",
)

# diff, log and show run the diff drivers .gitattributes choose (diff.<name>.command,
# diff.external, diff.<name>.textconv, which also passes the blob through the filter's smudge),
# and for a checked-out submodule a git inside it, under the submodule's config, not read here.
_DIFF_COMMANDS = frozenset({"diff", "log", "show"})
_DIFF_OPTIONS = ("--no-ext-diff", "--no-textconv", "--submodule=short", "--ignore-submodules=dirty")

# What a key the repository's config sets for a driver name becomes (unless the user's own config
# sets it too: then the user's value). An empty filter command is no filter (git's convert.c) and
# required=false lets git take the file as it is. An empty diff command or textconv does not
# switch the driver off, git fails to run "": the options above switch them off for diff, log and
# show, and any other command that would use one (blame) fails rather than run the program.
_RESET = {
    "filter": {"clean": "", "smudge": "", "process": "", "required": "false"},
    "diff": {"textconv": "", "command": ""},
}
_TRUSTED_SCOPES = frozenset({"system", "global", "command"})

# A config file written this recently may have changed while git read it, or within the file
# system's timestamp resolution: what was read from it is not kept.
_SETTLED_NS = 2_000_000_000

Signature = tuple[int, int, int]
Setting = tuple[str, str | None]  # (key, value); None: the key alone, which a boolean reads as true
_Watched = tuple[tuple[str, Signature | None], ...]
_resets: dict[Path, tuple[_Watched, list[Setting]]] = {}  # by git dir


class Repository(NamedTuple):
    top: Path  # where git runs, relative paths in its answers start from here
    git_dir: Path  # this work tree's own (HEAD, index, config.worktree)
    common_dir: Path  # the shared one (config, objects, refs)


def installed() -> bool:
    return shutil.which("git") is not None


def run(where: Path, *args: str, input: bytes | None = None, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """`git -C where args...`, output captured, the repository's config running nothing.

    Raises what subprocess.run raises: OSError (FileNotFoundError when git is not installed; also
    when git cannot read the config) and subprocess.TimeoutExpired.
    """
    git = shutil.which("git")
    if git is None:
        raise FileNotFoundError("git is not installed")
    env = {name: value for name, value in os.environ.items() if name != "GIT_EXTERNAL_DIFF"}
    # GIT_OPTIONAL_LOCKS=0: a read never writes the index, so neither a hook nor the user's own git
    # meets it.
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_NO_LAZY_FETCH="1", LC_ALL="C")
    # No pager runs while the output is not a terminal, as captured output never is; --no-pager
    # says so whatever the output.
    options = ["--no-pager", "-C", str(where)]
    for setting in _SAFE_CONFIG:
        options += ["-c", setting]
    for number, (key, value) in enumerate(_driver_resets(git, where, options, env, timeout)):
        if "=" in key:
            # A driver's name may hold "=", at which -c would split; --config-env splits at the last.
            variable = f"CODEFATHOM_GIT_CONFIG_{number}"
            env[variable] = "true" if value is None else value
            options += [f"--config-env={key}={variable}"]
        else:
            options += ["-c", key if value is None else f"{key}={value}"]
    if args and args[0] in _DIFF_COMMANDS:
        args = (args[0], *_DIFF_OPTIONS, *args[1:])
    return subprocess.run([git, *options, *args], input=input, capture_output=True, timeout=timeout, env=env)


def find_repository(where: Path) -> Repository | None:
    """The repository git finds from `where`, found as git finds it; None outside one, or when
    GIT_DIR chooses it."""
    if os.environ.get("GIT_DIR"):
        return None
    for folder in (where, *where.parents):
        dotgit = folder / ".git"
        gitdir: Path | None = None
        if dotgit.is_dir():
            gitdir = dotgit
        elif dotgit.is_file():  # a linked work tree or a submodule: "gitdir: <path>"
            try:
                line = dotgit.read_text("utf-8", errors="replace").strip()
            except OSError:
                line = ""
            if line.startswith("gitdir:"):
                gitdir = (folder / line[len("gitdir:") :].strip()).resolve()
        elif (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir():
            gitdir = folder  # a bare repository, or `where` is inside .git
        if gitdir is None:
            continue
        if not gitdir.is_dir():
            return None
        common = gitdir
        try:
            common = (gitdir / (gitdir / "commondir").read_text("utf-8").strip()).resolve()
        except OSError:
            pass
        return Repository(folder, gitdir, common)
    return None


def _driver_resets(git: str, where: Path, options: list[str], env: dict[str, str], timeout: float) -> list[Setting]:
    """Settings resetting the drivers the repository's config defines by name (filter.<name>.*,
    diff.<name>.*, protocol.<name>.allow), which no fixed setting can name.

    Outside a repository there are none, and no process is run to learn it. Inside one they are
    kept per git dir while the config files read (and the ones they include) keep their
    signatures, so a sync pays no extra process but the first.
    """
    repository = find_repository(where)
    if repository is None and not os.environ.get("GIT_DIR"):
        return []
    cached = _resets.get(repository.git_dir) if repository else None
    if cached is not None and all(_signature(path) == known for path, known in cached[0]):
        return cached[1]
    listed = subprocess.run(
        [git, *options, "config", "--list", "--show-scope", "--show-origin", "-z"],
        capture_output=True, timeout=timeout, env=env,
    )
    if listed.returncode != 0:
        # Nothing is known about the drivers then: refuse rather than run git without the resets.
        message = listed.stderr.decode("utf-8", errors="replace").strip()
        raise OSError(f"cannot read git's config in {where}: {message}")
    if repository is None:
        return _read_config(listed.stdout, where)[0]
    resets, read, named = _read_config(listed.stdout, repository.top)
    files = read | named | {str(repository.common_dir / "config"), str(repository.git_dir / "config.worktree"),
                            str(repository.git_dir / "HEAD")}  # HEAD: an includeIf.onbranch follows it
    watched = tuple((path, _signature(path)) for path in sorted(files))
    settled = time.time_ns() - _SETTLED_NS
    # A file git read but not found here is a file misplaced here, whose changes would go unseen.
    if all(os.path.exists(path) for path in read) and all(known is None or known[0] < settled for _, known in watched):
        _resets[repository.git_dir] = (watched, resets)
    return resets


def _read_config(listing: bytes, top: Path) -> tuple[list[Setting], set[str], set[str]]:
    """From `git config --list --show-scope --show-origin -z`: the settings resetting each driver
    the repository's config sets, the config files read and the ones an include names."""
    untrusted: set[tuple[str, str]] = set()  # (section, driver name)
    trusted: dict[str, str | None] = {}
    protocols: set[str] = set()
    read: set[str] = set()
    named: set[str] = set()
    fields = listing.decode("utf-8", errors="surrogateescape").split("\0")
    for scope, origin, entry in zip(fields[0::3], fields[1::3], fields[2::3], strict=False):
        key, newline, text = entry.partition("\n")
        value = text if newline else None
        source = str(top / origin[len("file:") :]) if origin.startswith("file:") else None
        if source:
            read.add(source)
        section, _, rest = key.partition(".")
        name, _, variable = rest.rpartition(".")
        if source and value and variable == "path" and (section == "include" or (section == "includeif" and name)):
            target = Path(value).expanduser()
            named.add(str(target if target.is_absolute() else Path(source).parent / target))
        if section == "protocol" and name and variable == "allow":
            protocols.add(name)
            continue
        if key == "diff.external" or (name and variable in _RESET.get(section, {})):
            if scope in _TRUSTED_SCOPES:
                trusted[key] = value
            else:
                untrusted.add((section, name))
    settings: dict[str, str | None] = {f"protocol.{name}.allow": "never" for name in protocols}
    for section, name in untrusted:
        if not name:
            settings["diff.external"] = trusted.get("diff.external", "")
            continue
        for variable, default in _RESET[section].items():
            key = f"{section}.{name}.{variable}"
            settings[key] = trusted.get(key, default)
    return sorted(settings.items()), read, named


def _signature(path: str) -> Signature | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)
