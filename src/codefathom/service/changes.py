"""Change impact: from a git diff to the definitions it changes, their dependents, the tests to run.

`ChangeVerbs` is mixed into `Codefathom`; a diff's new side is read from the index, its old side from git.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from codefathom import gitcmd
from codefathom.discover import read_inside, real_root
from codefathom.errors import CodefathomError, UsageError
from codefathom.model import Symbol
from codefathom.parse import parse
from codefathom.service.context import conventional_test_names
from codefathom.service.graph import ServiceBase, _check_dep_types, _check_depth, states_binding
from codefathom.service.related import _find_tests, _is_test
from codefathom.store import RefInfo, Store, SymbolInfo

__all__ = [
    "ChangeVerbs", "ChangeImpactResponse", "ChangedFile", "ChangedSymbol", "SymbolDependents", "ImpactedFile",
    "ImpactTest", "FileDiff", "parse_unified_diff", "DEFAULT_DEPTH", "DEFAULT_MAX_RESULTS", "MAX_RESULTS",
    "MAX_SYMBOLS", "TEST_RANKS", "CHANGES", "OLD_VERSIONS",
]

DEFAULT_DEPTH = 2
DEFAULT_MAX_RESULTS = 50
MAX_RESULTS = 1000
MAX_SYMBOLS = 100  # changed definitions whose dependents and tests are looked up
MAX_LISTED = 500  # changed definitions listed at all (a new 5,000-line file must not flood the reply)
MAX_FILES = 2000  # changed files mapped onto definitions
MAX_OLD_FILES = 300  # old versions read from git and parsed, to know what a diff removed
MAX_OLD_BYTES = 1_000_000  # the indexer's own size limit: larger old versions are not parsed
MAX_VISITED = 5000  # files the dependents walk may reach
GIT_TIMEOUT = 60  # seconds for one git command
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree: the base when there are no commits
CHANGES = ("added", "modified", "removed")
# How a test is tied to the change, strongest first (the order tests are ranked in).
TEST_RANKS = ("changed", "direct", "helper", "depends", "named")
_RANK = {rank: i for i, rank in enumerate(TEST_RANKS)}
_CALLABLE = ("function", "method")
_HUNK = re.compile(r"^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_HELPER_REASON = re.compile(r"through helper `(.+)`")  # a reason find_tests gives (service/related.py)


# -- results ---------------------------------------------------------------------------------------


@dataclass
class ChangedFile:
    path: str  # the new path (the old one for a deleted file)
    status: str  # added | modified | deleted | renamed
    old_path: str | None = None  # renamed from
    added: int = 0  # lines added
    removed: int = 0  # lines removed
    indexed: bool = True  # the index has it (new side; a deleted file: whether its old version was read)
    binary: bool = False
    untracked: bool = False  # a new file git does not track yet


@dataclass
class ChangedSymbol:
    path: str
    kind: str
    name: str
    qualified_name: str
    start_line: int  # lines of the new side; of the old version for a removed definition
    end_line: int
    change: str  # added | modified | removed
    lines: int  # changed lines of the diff inside it (either side)
    signature: str = ""
    symbol: SymbolInfo | None = None  # the index's definition (None when removed)
    analysed: bool = False  # its dependents and tests were looked up (see MAX_SYMBOLS)


@dataclass
class SymbolDependents:
    changed: ChangedSymbol
    references: list[RefInfo]  # at most max_results
    total: int  # references found before the cut
    unbound_elsewhere: int  # references of the same name left unbound: they could mean several definitions
    by_name: bool = False  # removed: references that still use its name and bind to no definition of it


@dataclass
class ImpactedFile:
    path: str
    distance: int  # 1: depends on a changed file directly
    via: str  # the file one step nearer the change it depends on
    dep_types: dict[str, int]  # how it depends on `via`: import/call/reference/inherit counts


@dataclass
class ImpactTest:
    path: str
    rank: str  # changed | direct | helper | depends | named
    reasons: list[str]
    functions: list[str] = field(default_factory=list)  # test definitions that reach the change
    symbols: list[str] = field(default_factory=list)  # changed definitions it reaches
    distance: int = 0  # for `depends`: steps from a changed file


@dataclass
class ChangeImpactResponse:
    project_root: str
    source: str  # what was compared: "working tree vs HEAD~1 (3f2a…)", "staged vs HEAD", "diff text"
    depth: int
    changed_files: list[ChangedFile]
    changed_symbols: list[ChangedSymbol]
    dependents: list[SymbolDependents]  # per analysed definition with references (others have none)
    impacted_files: list[ImpactedFile]
    tests: list[ImpactTest]
    analysed: int  # changed definitions whose dependents and tests were looked up
    impacted_total: int  # files reached before the cut
    tests_total: int
    notes: list[str] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)  # what was cut, and how much
    notices: list[str] = field(default_factory=list)  # what the index has not done yet


class ChangeVerbs:
    """The change-impact half of `Codefathom`."""

    @states_binding
    def change_impact(
        self: ServiceBase, rev: str = "HEAD", *, staged: bool = False, diff_text: str | None = None,
        depth: int = DEFAULT_DEPTH, max_results: int = DEFAULT_MAX_RESULTS, max_symbols: int = MAX_SYMBOLS,
        dep_types: Iterable[str] = (), fresh: bool = True,
    ) -> ChangeImpactResponse:
        """What a diff changes and what that can break: the working tree (or, `staged`, git's index)
        against `rev`, or `diff_text`; changed definitions, their references, the files depending on
        the changed files `depth` levels out, and the tests to run, ranked."""
        depth = _check_depth(depth)
        kinds = set(_check_dep_types(dep_types))
        if not 1 <= max_results <= MAX_RESULTS:
            raise UsageError(f"max_results must be between 1 and {MAX_RESULTS}, got {max_results}")
        if not 1 <= max_symbols <= MAX_LISTED:
            raise UsageError(f"max_symbols must be between 1 and {MAX_LISTED}, got {max_symbols}")
        notes: list[str] = []
        # The diff is read first: a bad revision must not cost an index.
        git = _Git.find(self.root)
        if diff_text is not None:
            if not diff_text.strip():
                raise UsageError("the diff text is empty")
            diffs = parse_unified_diff(diff_text)
            if not diffs:
                raise UsageError("no file changes found in the diff text: give a unified diff (`git diff` output)")
            source = "diff text"
            # The project root is the work tree's top level (service/project.py), where git diff paths start.
            notes.append("the diff's new side is read against the files as they are now")
        else:
            if git is None:
                raise UsageError(
                    "git is not installed: give the diff as text instead (`--diff -` on stdin, MCP: diff_text)"
                )
            diffs, source = _read_git_diff(git, rev, staged, notes)
        kept = _keep_within(diffs, self.within)
        if not diffs:
            notes.append(f"no changes: {source} is empty")
        elif len(kept) < len(diffs):
            elsewhere = _plural(len(diffs) - len(kept), "file")
            notes.append(f"only the changes under {self.within}/ are analysed: {elsewhere} changed elsewhere")
        diffs = kept
        store = self._graph_store(fresh)
        return _Impact(store, self.root, git, notes).run(source, diffs, depth, kinds, max_results, max_symbols)


# -- reading the diff --------------------------------------------------------------------------------


@dataclass
class FileDiff:
    """One file of a unified diff: paths, changed line numbers on each side, the old blob."""

    old_path: str | None  # None: the file was added
    new_path: str | None  # None: the file was deleted
    old_lines: set[int] = field(default_factory=set)  # removed lines, numbered in the old version
    new_lines: set[int] = field(default_factory=set)  # added lines, numbered in the new version
    anchors: set[int] = field(default_factory=set)  # new-side lines after which old lines were removed
    blank_old: set[int] = field(default_factory=set)  # removed lines holding only whitespace
    blank_new: set[int] = field(default_factory=set)  # added lines holding only whitespace
    old_blob: str | None = None  # from the `index` line, when git wrote one
    binary: bool = False
    untracked: bool = False  # not in the diff: a new file git does not track; every line is new
    _minus_seen: bool = field(default=False, repr=False)  # its `---` was read: a later one starts another file
    _copy: bool = field(default=False, repr=False)

    @property
    def status(self) -> str:
        if self.old_path is None:
            return "added"
        if self.new_path is None:
            return "deleted"
        return "renamed" if self.old_path != self.new_path else "modified"

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def parse_unified_diff(text: str) -> list[FileDiff]:
    """The files of a unified diff (`git diff`, with any context size, or plain `diff -u`)."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    old_no = new_no = old_left = new_left = 0
    for line in text.splitlines():
        if current is not None and (old_left > 0 or new_left > 0):
            tag = line[:1]
            if tag == "\\":
                continue  # "\ No newline at end of file"
            if tag == "-":
                current.old_lines.add(old_no)
                if not line[1:].strip():
                    current.blank_old.add(old_no)
                current.anchors.add(new_no - 1)
                old_no, old_left = old_no + 1, old_left - 1
            elif tag == "+":
                current.new_lines.add(new_no)
                if not line[1:].strip():
                    current.blank_new.add(new_no)
                new_no, new_left = new_no + 1, new_left - 1
            else:  # context; an empty line is one whose leading space an editor stripped
                old_no, new_no, old_left, new_left = old_no + 1, new_no + 1, old_left - 1, new_left - 1
            continue
        if line.startswith("diff --git "):
            old, new = _git_header_paths(line[len("diff --git "):])
            current = FileDiff(old, new)
            files.append(current)
        elif line.startswith("--- ") and (current is None or current._minus_seen or current.binary):
            current = FileDiff(_side_path(line[4:], "a/"), None)  # plain diff: a file starts here
            current._minus_seen = True
            files.append(current)
        elif current is None:
            continue  # text before the first file (a commit message, `git show` headers)
        elif line.startswith("--- "):
            current._minus_seen = True
            if not current._copy:
                current.old_path = _side_path(line[4:], "a/")
        elif line.startswith("+++ "):
            current.new_path = _side_path(line[4:], "b/")
        elif line.startswith("new file mode"):
            current.old_path = None
        elif line.startswith("copy to "):  # a copy is a new file: its source did not change
            current.old_path, current.new_path = None, _unquote(line[len("copy to "):])
            current._copy = True
        elif line.startswith("deleted file mode"):
            current.new_path = None
        elif line.startswith("rename from "):
            current.old_path = _unquote(line[len("rename from "):])
        elif line.startswith("rename to "):
            current.new_path = _unquote(line[len("rename to "):])
        elif line.startswith("index "):
            old_blob = line.split()[1].split("..")[0] if len(line.split()) > 1 else ""
            current.old_blob = old_blob if old_blob.strip("0") else None
        elif line.startswith(("Binary files ", "GIT binary patch")):
            current.binary = True
        else:
            match = _HUNK.match(line)
            if match:
                current._minus_seen = True  # a plain diff's next file starts with `---` after the hunks
                old_start, old_count, new_start, new_count = match.groups()
                old_left = 1 if old_count is None else int(old_count)
                new_left = 1 if new_count is None else int(new_count)
                # A side with no lines names the line before the empty range.
                old_no = int(old_start) + (1 if old_left == 0 else 0)
                new_no = int(new_start) + (1 if new_left == 0 else 0)
    return [f for f in files if f.old_path or f.new_path]


def _git_header_paths(rest: str) -> tuple[str | None, str | None]:
    """The two paths of `diff --git a/X b/Y`; later lines (---/+++, rename) correct them."""
    if rest.startswith('"'):
        end = _quoted_end(rest)
        old, new = rest[: end + 1], rest[end + 1:].strip()
    else:
        half = (len(rest) - 1) // 2  # "a/P b/P": the usual case, spaces in P included
        if half > 0 and rest[half] == " " and rest[:half][2:] == rest[half + 1:][2:]:
            old, new = rest[:half], rest[half + 1:]
        else:
            old, _, new = rest.rpartition(" b/")
            new = "b/" + new
    return _side_path(old, "a/"), _side_path(new, "b/")


def _quoted_end(text: str) -> int:
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return len(text) - 1


def _side_path(text: str, prefix: str) -> str | None:
    """A ---/+++ path without its a/ or b/ prefix, or None for /dev/null; a tab ends it (a plain
    diff puts the file's time there, git a tab after names with spaces)."""
    path = text.split("\t", 1)[0]
    path = _unquote(path.rstrip("\r"))
    if path == "/dev/null":
        return None
    return path[len(prefix):] if path.startswith(prefix) else path


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _unquote(text: str) -> str:
    """A path as git quotes it (C-style, octal bytes for UTF-8), or the text itself."""
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        return text
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.fullmatch(r"[0-7]{3}", body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out.append(_ESCAPES.get(nxt, ord(nxt)))
            i += 2
            continue
        out.extend(char.encode("utf-8"))
        i += 1
    return out.decode("utf-8", errors="replace")


def _keep_within(diffs: list[FileDiff], within: str) -> list[FileDiff]:
    if not within:
        return diffs
    prefix = within.rstrip("/") + "/"
    return [d for d in diffs if any(p is not None and p.startswith(prefix) for p in (d.old_path, d.new_path))]


class _Git:
    """git, run in the project root with a timeout, its errors made into messages a user can act on."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._repo: bool | None = None

    @classmethod
    def find(cls, root: Path) -> _Git | None:
        return cls(root) if gitcmd.installed() else None

    def run(self, *args: str, data: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        try:
            done = gitcmd.run(self.root, *args, input=data, timeout=GIT_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise CodefathomError(f"git {args[0]} took more than {GIT_TIMEOUT}s in {self.root}") from exc
        except OSError as exc:
            raise CodefathomError(f"git {args[0]} failed: {exc}") from exc
        if check and done.returncode != 0:
            raise CodefathomError(f"git {args[0]} failed: {_text(done.stderr).strip()}")
        return done

    def is_repo(self) -> bool:
        if self._repo is None:
            done = self.run("rev-parse", "--is-inside-work-tree", check=False)
            self._repo = done.returncode == 0 and _text(done.stdout).strip() == "true"
        return self._repo

    def commit(self, rev: str) -> str | None:
        """The commit `rev` names, or None; whether this is a work tree is learnt by the same git call."""
        done = self.run(
            "rev-parse", "--is-inside-work-tree", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}",
            check=False,
        )
        out = _text(done.stdout).split()
        self._repo = bool(out) and out[0] == "true"
        return out[1] if done.returncode == 0 and self._repo and len(out) > 1 else None

    def blobs(self, ids: list[str]) -> dict[str, bytes]:
        """The contents of blobs by id (full or abbreviated), in one `git cat-file --batch`; missing
        ones are left out."""
        if not ids or not self.is_repo():
            return {}
        done = self.run("cat-file", "--batch", data="".join(f"{i}\n" for i in ids).encode(), check=False)
        found: dict[str, bytes] = {}
        out, at = done.stdout, 0
        for wanted in ids:
            end = out.find(b"\n", at)
            if end < 0:
                break
            header = out[at:end].split()
            at = end + 1
            if len(header) != 3 or header[1] != b"blob":
                continue  # "<id> missing", "<id> ambiguous": no content follows
            size = int(header[2])
            found[wanted] = out[at:at + size]
            at += size + 1
        return found


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _read_git_diff(git: _Git, rev: str, staged: bool, notes: list[str]) -> tuple[list[FileDiff], str]:
    """The working tree (or git's index) against `rev`, plus new files git does not track yet."""
    rev = rev.strip()
    if not rev:
        raise UsageError("give a revision to compare with, e.g. HEAD, HEAD~1 or main")
    if rev.startswith("-"):
        raise UsageError(f"`{rev}` is not a revision (it starts with '-')")
    if ".." in rev:
        raise UsageError(
            f"`{rev}` is a range; give one revision: the working tree (or --staged, the staged changes) is"
            " compared with it. To read another diff, pipe it in: `git diff A..B | codefathom impact --diff -`"
            " (MCP: diff_text); its lines are then read against the files as they are now."
        )
    commit = git.commit(rev)
    if not git.is_repo():
        raise UsageError(
            f"not a git repository: {git.root}; give the diff as text instead (`--diff -`, MCP: diff_text)"
        )
    if commit is None:
        if rev == "HEAD" and git.run("rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode != 0:
            commit = EMPTY_TREE  # no commits yet: everything is new
            notes.append("the repository has no commits yet: every file is compared with nothing")
        else:
            raise UsageError(
                f"unknown revision `{rev}`: git knows no commit by that name in {git.root}"
                " (try HEAD, HEAD~1, a branch or a commit hash)"
            )
    args = [
        "diff", "--no-color", "--full-index", "-M", "--unified=0",
        "--src-prefix=a/", "--dst-prefix=b/", "--no-relative",
    ]
    if staged:
        args.append("--cached")
    done = git.run(*args, commit, "--")
    diffs = parse_unified_diff(_text(done.stdout))
    shown = commit[:12] if commit != rev and commit != EMPTY_TREE else ""
    side = "staged changes" if staged else "working tree"
    source = f"{side} vs {rev}" + (f" ({shown})" if shown else "")
    if staged:
        unstaged = set(_text(git.run("diff", "--name-only", "-z", "--no-relative").stdout).split("\0")) - {""}
        mixed = sorted({d.path for d in diffs} & unstaged)
        if mixed:
            notes.append(
                f"{_plural(len(mixed), 'file')} also have unstaged changes ({', '.join(mixed[:5])}"
                f"{', …' if len(mixed) > 5 else ''}): their lines are read against the files as they are now"
            )
    else:
        listed = git.run("ls-files", "--others", "--exclude-standard", "-z").stdout
        known = {d.path for d in diffs}
        for path in _text(listed).split("\0"):
            if path and path not in known:
                diffs.append(FileDiff(None, path, untracked=True))
    return diffs, source


# -- mapping the diff onto definitions -----------------------------------------------------------------


class _Def(Protocol):
    """What the index's symbols (SymbolInfo) and freshly parsed ones (model.Symbol) share."""

    @property
    def kind(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def qualified_name(self) -> str: ...

    @property
    def parent(self) -> str | None: ...

    @property
    def start_line(self) -> int: ...

    @property
    def end_line(self) -> int: ...

    @property
    def signature(self) -> str: ...


class _Owners:
    """Which definitions a line belongs to: the innermost one holding it, and the functions it is
    nested in (a nested function is part of its parent's behaviour); the module for code outside
    every definition. A class owns only the lines none of its members hold."""

    def __init__(self, symbols: Sequence[_Def]) -> None:
        self.defs = sorted(
            (s for s in symbols if s.kind != "module"), key=lambda s: (s.end_line - s.start_line, -s.start_line)
        )  # innermost first
        self.module = next((s for s in symbols if s.kind == "module"), None)
        self.by_name = {s.qualified_name: s for s in self.defs}

    def of(self, line: int, *, gap: bool = False) -> list[_Def]:
        """Owners of `line`; with `gap`, of the gap after it (a definition holding both it and the next)."""
        last = line + 1 if gap else line
        inner = next((s for s in self.defs if s.start_line <= line and last <= s.end_line), None)
        if inner is None:
            return [] if gap or self.module is None else [self.module]
        owners = [inner]
        parent = self.by_name.get(inner.parent or "")
        while parent is not None and parent.kind in _CALLABLE and inner.kind in _CALLABLE:
            owners.append(parent)
            inner, parent = parent, self.by_name.get(parent.parent or "")
        return owners


def _touched(owners: _Owners, lines: Iterable[int], gaps: Iterable[int] = ()) -> dict[str, tuple[_Def, int]]:
    """Qualified name -> (definition, changed lines in it)."""
    found: dict[str, tuple[_Def, int]] = {}
    for line in sorted(lines):
        for owner in owners.of(line):
            count = found.get(owner.qualified_name, (owner, 0))[1]
            found[owner.qualified_name] = (owner, count + 1)
    for line in sorted(gaps):
        for owner in owners.of(line, gap=True):
            found.setdefault(owner.qualified_name, (owner, 0))
    return found


def _key(symbol: _Def, module: str) -> str:
    """A definition's name inside its module, so a renamed file's definitions match their old selves."""
    name = symbol.qualified_name
    if module and name.startswith(module + "."):
        return name[len(module) + 1:]
    return "" if name == module else name


def _changed(symbol: _Def, path: str, change: str, lines: int, info: SymbolInfo | None) -> ChangedSymbol:
    return ChangedSymbol(
        path, symbol.kind, symbol.name, symbol.qualified_name, symbol.start_line, symbol.end_line, change, lines,
        symbol.signature, info,
    )


def _classify(diff: FileDiff, new: list[SymbolInfo], old: list[Symbol] | None) -> list[ChangedSymbol]:
    """The definitions a file's diff adds, modifies or removes. With the old version parsed, a
    definition is added when its name is new and removed when its name is gone; without it, added
    when every line of it is new. Lines holding only whitespace are not changes of a definition."""
    new_owners = _Owners(new)
    lines = diff.new_lines - diff.blank_new
    # Without the old version, lines removed inside a definition are placed by the gap they left.
    touched = _touched(new_owners, lines, diff.anchors if old is None else ())
    infos = {s.qualified_name: s for s in new}
    out: dict[str, ChangedSymbol] = {}
    if old is None:
        every = diff.status == "added" or diff.untracked
        for name, (symbol, count) in touched.items():
            whole = every or all(n in diff.new_lines for n in range(symbol.start_line, symbol.end_line + 1))
            out[name] = _changed(symbol, diff.path, "added" if whole else "modified", count, infos.get(name))
        return list(out.values())
    new_module = new_owners.module.qualified_name if new_owners.module else ""
    old_owners = _Owners(old)
    old_module = old_owners.module.qualified_name if old_owners.module else ""
    new_by_key = {_key(s, new_module): s for s in new}
    old_keys = {_key(s, old_module) for s in old}
    for name, (symbol, count) in touched.items():
        change = "modified" if _key(symbol, new_module) in old_keys else "added"
        out[name] = _changed(symbol, diff.path, change, count, infos.get(name))
    old_path = diff.old_path or diff.path
    for symbol, count in _touched(old_owners, diff.old_lines - diff.blank_old).values():
        match = new_by_key.get(_key(symbol, old_module))
        if match is None:
            out["\0" + symbol.qualified_name] = _changed(symbol, old_path, "removed", count, None)
        elif match.qualified_name in out:
            out[match.qualified_name].lines += count
        else:
            out[match.qualified_name] = _changed(match, diff.path, "modified", count, match)
    # A definition whose name is gone although none of its lines changed (its class was renamed)
    # is not listed: the diff says nothing about its code.
    return list(out.values())


class _OldVersions:
    """Definitions of old file versions by (blob id, path), most recently used kept: a full blob id
    names its content, so an entry never goes stale, and a server asked about the same diff again
    (or a growing one) parses each old version once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, str], tuple[Symbol, ...]] = OrderedDict()

    def get(self, blob: str, path: str) -> tuple[Symbol, ...] | None:
        with self._lock:
            found = self._items.get((blob, path))
            if found is not None:
                self._items.move_to_end((blob, path))
            return found

    def put(self, blob: str, path: str, symbols: tuple[Symbol, ...]) -> None:
        if not _FULL_ID.fullmatch(blob):
            return  # an abbreviated id may name another blob once the repository grows
        with self._lock:
            self._items[(blob, path)] = symbols
            self._items.move_to_end((blob, path))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
OLD_VERSIONS = _OldVersions(256)


# -- the answer --------------------------------------------------------------------------------------


class _Impact:
    """One change-impact answer: maps the diff, then walks the graph from what it changed."""

    def __init__(self, store: Store, root: Path, git: _Git | None, notes: list[str]) -> None:
        self.store = store
        self.root = root
        self.git = git
        self.notes = notes
        self.truncated: list[str] = []
        self.refs: dict[int, list[RefInfo]] = {}  # id() of an analysed ChangedSymbol -> every reference found

    def run(
        self, source: str, diffs: list[FileDiff], depth: int, kinds: set[str], max_results: int, max_symbols: int,
    ) -> ChangeImpactResponse:
        if len(diffs) > MAX_FILES:
            self.truncated.append(f"changed files: {len(diffs)}, the first {MAX_FILES} analysed")
            diffs = diffs[:MAX_FILES]
        files, symbols = self._map(diffs)
        symbols.sort(key=lambda s: (s.path, s.start_line, s.change))
        if len(symbols) > MAX_LISTED:
            self.truncated.append(f"changed definitions: {len(symbols)}, the first {MAX_LISTED} listed")
            symbols = symbols[:MAX_LISTED]
        # Modified and removed definitions are what can break their users: they are analysed first.
        order = {"modified": 0, "removed": 1, "added": 2}
        analysed = sorted(symbols, key=lambda s: order[s.change])[:max_symbols]
        for changed in analysed:
            changed.analysed = True
        if len(symbols) > len(analysed):
            self.truncated.append(
                f"changed definitions: {len(symbols)}, the dependents and tests of {len(analysed)} looked up"
            )
        dependents = self._dependents(analysed, max_results)
        sources = [f.path for f in files if f.status != "deleted" and f.indexed and not f.binary]
        impacted = sorted(self._impacted(sources, depth, kinds), key=lambda f: (f.distance, f.path))
        tests = self._tests(files, analysed, impacted)
        if len(impacted) > max_results:
            self.truncated.append(f"impacted files: {len(impacted)}, {max_results} shown")
        if len(tests) > max_results:
            self.truncated.append(f"tests: {len(tests)}, {max_results} shown")
        if any(f.status == "deleted" for f in files):
            self.notes.append(
                "deleted files are gone from the graph: what still uses their definitions is listed under the"
                " removed definitions, found by name"
            )
        return ChangeImpactResponse(
            str(self.root), source, depth, files, symbols, dependents, impacted[:max_results], tests[:max_results],
            len(analysed), len(impacted), len(tests), self.notes, self.truncated,
        )

    def _map(self, diffs: list[FileDiff]) -> tuple[list[ChangedFile], list[ChangedSymbol]]:
        """The changed files as the index knows them, and the definitions their diffs change."""
        kept: list[tuple[FileDiff, ChangedFile]] = []
        new_symbols: dict[int, list[SymbolInfo]] = {}
        left_out = 0
        root = real_root(self.root)  # resolved once: untracked files are read only inside it
        for diff in diffs:
            entry = ChangedFile(
                diff.path, "added" if diff.untracked else diff.status,
                diff.old_path if diff.status == "renamed" else None, len(diff.new_lines), len(diff.old_lines),
                indexed=diff.new_path is not None, binary=diff.binary, untracked=diff.untracked,
            )
            if diff.new_path is not None and not diff.binary:
                record = self.store.graph.file_record(diff.new_path)
                if record is None or record.status == "skipped":
                    if diff.untracked:
                        left_out += 1  # an untracked file the index leaves out (generated, too large, ...)
                        continue
                    entry.indexed = False
                else:
                    new_symbols[id(diff)] = self.store.graph.symbols_of_file(record.id)
                    if diff.untracked:
                        _read_new_file(diff, self.root / diff.path, root)
                        entry.added = len(diff.new_lines)
            kept.append((diff, entry))
        old = self._old_versions([diff for diff, _ in kept])
        symbols: list[ChangedSymbol] = []
        for diff, _ in kept:
            if diff.binary:
                continue
            versions = old.get(id(diff))
            if diff.new_path is None:
                if versions is not None:  # deleted: what its old version defined
                    symbols.extend(_classify(diff, [], versions))
            elif id(diff) in new_symbols:
                symbols.extend(_classify(diff, new_symbols[id(diff)], versions))
        self._file_notes(kept, old, left_out)
        return [entry for _, entry in kept], symbols

    def _old_versions(self, diffs: list[FileDiff]) -> dict[int, list[Symbol]]:
        """The definitions of the old version of each file that lost lines, parsed from git's blob."""
        wanted = [
            d for d in diffs
            if not d.binary and d.old_path is not None and d.old_blob
            and (d.old_lines - d.blank_old or d.new_path is None)
        ]
        if len(wanted) > MAX_OLD_FILES:
            self.truncated.append(
                f"old versions: {len(wanted)} files lost lines, the first {MAX_OLD_FILES} read to know what was"
                " removed"
            )
            wanted = wanted[:MAX_OLD_FILES]
        if not wanted or self.git is None:
            return {}
        parsed: dict[int, list[Symbol]] = {}
        missing: list[FileDiff] = []
        for diff in wanted:
            cached = OLD_VERSIONS.get(diff.old_blob or "", diff.old_path or "")
            if cached is None:
                missing.append(diff)
            else:
                parsed[id(diff)] = list(cached)
        blobs = self.git.blobs(list(dict.fromkeys(d.old_blob for d in missing if d.old_blob))) if missing else {}
        for diff in missing:
            data = blobs.get(diff.old_blob or "")
            if data is None or len(data) > MAX_OLD_BYTES or b"\0" in data[:8000]:
                continue
            assert diff.old_path is not None and diff.old_blob is not None
            symbols = parse(diff.old_path, _text(data)).facts.symbols
            OLD_VERSIONS.put(diff.old_blob, diff.old_path, symbols)
            parsed[id(diff)] = list(symbols)
        return parsed

    def _file_notes(
        self, kept: list[tuple[FileDiff, ChangedFile]], old: dict[int, list[Symbol]], left_out: int
    ) -> None:
        binary = [f.path for _, f in kept if f.binary]
        if binary:
            self.notes.append(f"{_plural(len(binary), 'binary file')} ignored: {_listing(binary)}")
        missing = [f.path for d, f in kept if not f.indexed and d.new_path is not None and not f.binary]
        if missing:
            self.notes.append(
                f"{_plural(len(missing), 'changed file')} not in the index (ignored, excluded or not text):"
                f" {_listing(missing)}"
            )
        unknown = [d.path for d, f in kept if d.new_path is None and not d.binary and id(d) not in old]
        if unknown:
            self.notes.append(
                f"the old content of {_plural(len(unknown), 'deleted file')} is not available, so what"
                f" {'it' if len(unknown) == 1 else 'they'} defined is unknown: {_listing(unknown)}"
            )
        lost = [
            d.path for d, f in kept
            if d.old_lines - d.blank_old and d.new_path is not None and f.indexed and not d.binary and id(d) not in old
        ]
        if lost:
            self.notes.append(
                f"the old version of {_plural(len(lost), 'file')} is not available: definitions removed from"
                f" {'it' if len(lost) == 1 else 'them'} are not listed ({_listing(lost)})"
            )
        if any(f.untracked for _, f in kept):
            self.notes.append("new files git does not track yet are included as added")
        if left_out:
            self.notes.append(f"{_plural(left_out, 'untracked file')} the index leaves out were not considered")

    def _dependents(self, analysed: list[ChangedSymbol], max_results: int) -> list[SymbolDependents]:
        groups: list[SymbolDependents] = []
        named = self._by_name([s for s in analysed if s.symbol is None and s.kind != "module"])
        for changed in analysed:
            symbol = changed.symbol
            if symbol is None:
                refs = named.get(changed.name, []) if changed.kind != "module" else []
                self.refs[id(changed)] = refs
                if refs:
                    groups.append(SymbolDependents(changed, refs[:max_results], len(refs), 0, by_name=True))
                continue
            refs = [
                r for r in self.store.graph.references_to([symbol.id])
                # A definition's uses of itself (recursion) do not depend on it from outside.
                if not (r.path == symbol.path and symbol.start_line <= r.line <= symbol.end_line)
            ]
            self.refs[id(changed)] = refs
            unbound = self.store.graph.unbound_count(symbol.name) if changed.kind != "module" else 0
            if refs or unbound:
                groups.append(SymbolDependents(changed, refs[:max_results], len(refs), unbound))
        cut = [group for group in groups if group.total > len(group.references)]
        if cut:
            self.truncated.append(
                f"references: {_plural(len(cut), 'definition')} with more than {max_results}, {max_results} shown"
                " of each"
            )
        return groups

    def _by_name(self, removed: list[ChangedSymbol]) -> dict[str, list[RefInfo]]:
        """References that still use a removed definition's name and bind to no definition of that
        name: what the removal may have broken (some may mean something else of the same name)."""
        names = sorted({s.name for s in removed})
        if not names:
            return {}
        wanted = set(names)
        rows = [r for r in self.store.graph.refs_to_rebind([], names) if r.name in wanted]
        survivors = [s.id for name in names for s in self.store.graph.find_symbols(name) if s.name == name]
        bound = {
            (ref.path, ref.line, ref.name)
            for ref in (self.store.graph.references_to(survivors) if survivors else [])
        }
        paths = self.store.graph.paths_of({r.file_id for r in rows})
        found: dict[str, list[RefInfo]] = {}
        for row in rows:
            path = paths.get(row.file_id)
            if path is None or (path, row.line, row.name) in bound:
                continue
            found.setdefault(row.name, []).append(
                RefInfo(path, row.line, 0, row.kind, row.name, row.receiver, row.scope, "unbound", 0.0, None)
            )
        for refs in found.values():
            refs.sort(key=lambda r: (r.path, r.line))
        return found

    def _impacted(self, sources: list[str], depth: int, kinds: set[str]) -> list[ImpactedFile]:
        """Files depending on the changed files, breadth first to `depth`, each at its shortest distance."""
        ids = self.store.file_ids(sources)
        seen: set[int] = set(ids.values())
        reached: list[ImpactedFile] = []
        frontier = [(file_id, path) for path, file_id in sorted(ids.items())]
        for distance in range(1, depth + 1):
            level: list[tuple[str, dict[int, dict[str, int]]]] = []
            for file_id, path in frontier:
                edges: dict[int, dict[str, int]] = {}
                for other, kind, count in self.store.graph.file_edges(file_id, reverse=True):
                    if kind in kinds and other not in seen:
                        edges.setdefault(other, {})[kind] = count
                level.append((path, edges))
            names = self.store.graph.paths_of({other for _, edges in level for other in edges})
            following: list[tuple[int, str]] = []
            for path, edges in level:
                for other in sorted(edges, key=lambda i: names.get(i, "")):
                    if other in seen:
                        continue  # reached from a file earlier in this level
                    if len(seen) >= MAX_VISITED:
                        self.truncated.append(f"impacted files: the walk stopped at {MAX_VISITED} files")
                        return reached
                    seen.add(other)
                    reached.append(ImpactedFile(names.get(other, "?"), distance, path, edges[other]))
                    following.append((other, names.get(other, "?")))
            frontier = following
        return reached

    def _tests(
        self, files: list[ChangedFile], analysed: list[ChangedSymbol], impacted: list[ImpactedFile]
    ) -> list[ImpactTest]:
        """Test files to run, strongest tie first: changed themselves, referencing a changed definition,
        reaching one through a helper, depending on a changed file, named like one."""
        found: dict[str, ImpactTest] = {}

        def add(path: str, rank: str, reason: str, functions: Iterable[str] = (), symbol: str = "",
                distance: int = 0) -> None:
            entry = found.setdefault(path, ImpactTest(path, rank, [], distance=distance))
            if _RANK[rank] < _RANK[entry.rank]:
                entry.rank, entry.distance = rank, distance
            if reason not in entry.reasons:
                entry.reasons.append(reason)
            entry.functions.extend(f for f in functions if f not in entry.functions)
            if symbol and symbol not in entry.symbols:
                entry.symbols.append(symbol)

        for file in files:
            if file.indexed and _is_test(file.path):
                add(file.path, "changed", "changed in the diff")
        # Direct: from each definition's own references, so every test says which definition it uses.
        users: dict[str, list[str]] = {}  # a non-test definition using changed ones -> their names
        targets: list[SymbolInfo] = []
        for changed in analysed:
            if changed.kind == "module":
                continue
            name = changed.qualified_name
            for ref in self.refs.get(id(changed), []):
                if _is_test(ref.path):
                    reason = f"references `{name}`" if changed.symbol else f"still uses the removed `{name}`"
                    add(ref.path, "direct", reason, [ref.scope] if ref.scope else [], name)
                elif ref.scope and changed.symbol is not None:
                    users.setdefault(ref.scope, []).append(name)
            if changed.symbol is not None:
                targets.append(changed.symbol)
        # Through a helper: find_tests' walk, run once for all of them (it reads every path once per call).
        for test in _find_tests(self.store, [], targets, [], skip_file=None) if targets else []:
            for reason in test.reasons:
                helper = _HELPER_REASON.fullmatch(reason)
                if helper is None:
                    continue  # its direct references are counted above
                for name in dict.fromkeys(users.get(helper.group(1), [])) or [""]:
                    add(test.path, "helper", f"reaches `{name}` {reason}" if name else reason, test.functions, name)
        for item in impacted:
            if _is_test(item.path):
                via = ", ".join(f"{k} {n}" for k, n in item.dep_types.items())
                reason = (f"depends on {item.via} ({via})" if item.distance == 1
                          else f"depends on {item.via}, {item.distance} steps from the change")
                add(item.path, "depends", reason, distance=item.distance)
        names: dict[str, str] = {}
        for path in sorted({p for f in files if not f.binary for p in (f.path, f.old_path) if p}):
            for test_name in conventional_test_names(path):
                names.setdefault(test_name, path)
        changed_paths = {f.path for f in files}
        for other in self.store.graph.all_paths() if names else []:
            target = names.get(posixpath.basename(other))
            if target is not None and other not in changed_paths:
                add(other, "named", f"named like {target}")
        return sorted(found.values(), key=lambda t: (_RANK[t.rank], -len(t.symbols), t.distance, t.path))


def _read_new_file(diff: FileDiff, path: Path, root: str) -> None:
    """Every line of a file git does not track is new."""
    try:
        text = read_inside(path, root).decode("utf-8", errors="replace")
    except OSError:
        return
    for number, line in enumerate(text.splitlines(), start=1):
        diff.new_lines.add(number)
        if not line.strip():
            diff.blank_new.add(number)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _listing(paths: list[str], shown: int = 5) -> str:
    return ", ".join(paths[:shown]) + (f" and {len(paths) - shown} more" if len(paths) > shown else "")
