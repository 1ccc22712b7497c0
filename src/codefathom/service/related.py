"""What else to look at when changing something: the tests that exercise it, and the files git
history says change with it.

`RelatedVerbs` is mixed into `Codefathom`:

- `find_tests` walks the code graph (test definitions whose references bind to the target,
  directly or through one non-test helper) and the naming conventions of `conventional_test_names`;
- `co_change` counts the files committed together with a file over the last commits of
  `git log`, from a cache next to the index (`cochange.json`) updated commit by commit.
"""

from __future__ import annotations

import json
import os
import posixpath
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from codefathom import gitcmd
from codefathom.config import Settings
from codefathom.errors import CodefathomError, UsageError
from codefathom.search.rank import path_role
from codefathom.service.context import conventional_test_names
from codefathom.service.graph import ServiceBase, _check_name, _keep, _relative, states_binding
from codefathom.store import RefInfo, Store, SymbolInfo

__all__ = [
    "RelatedVerbs", "TestsResponse", "FoundTest", "CoChangeResponse", "CoChanged", "DIRECT", "HELPER", "NAMED",
    "MAX_FILES_PER_COMMIT", "DEFAULT_COMMITS", "MAX_COMMITS", "CACHE_NAME", "TESTS_LIMIT",
]

# How a test reaches its target, strongest first (the order results are ranked in).
DIRECT = "direct"  # a reference in the test binds to the target (or the test imports the file)
HELPER = "helper"  # the test calls a non-test function that references the target
NAMED = "named"  # only its file name says so (test_x.py, x_test.go, x.spec.ts, ...)
_STRENGTH = {DIRECT: 0, HELPER: 1, NAMED: 2}

TESTS_LIMIT = 30  # test files find_tests lists, strongest first; the rest are counted
MAX_FILES_PER_COMMIT = 50  # larger commits (mass renames, reformatting, vendoring) say nothing about coupling
DEFAULT_COMMITS = 2000
MAX_COMMITS = 100_000
CACHE_NAME = "cochange.json"
CACHE_VERSION = 1
GIT_TIMEOUT = 120  # seconds
_COMMIT_MARK = "\x1ecommit "


@dataclass
class FoundTest:
    path: str
    strength: str  # direct | helper | named
    reasons: list[str]  # "references it", "imports it", "through helper `x.y`", "named like x.py"
    functions: list[str] = field(default_factory=list)  # test definitions that reach it (qualified names)


@dataclass
class TestsResponse:
    __test__ = False  # not a pytest test class, whatever its name

    project_root: str
    target: str
    target_kind: str  # file | symbol
    symbols: list[SymbolInfo]  # the definitions the target means (every one of a file's, for a file)
    tests: list[FoundTest]  # the strongest TESTS_LIMIT
    notices: list[str] = field(default_factory=list)  # what the index has not done yet
    more: int = 0  # tests left out


@dataclass
class CoChanged:
    path: str
    together: int  # commits that changed both
    support: float  # together / commits considered
    confidence: float  # together / commits that changed the file asked about
    exists: bool  # still in the work tree


@dataclass
class CoChangeResponse:
    project_root: str
    path: str
    head: str
    commits: int  # commits considered (at most the window asked for)
    file_commits: int  # of those, the ones that changed the file
    skipped_large: int  # commits ignored for touching more than MAX_FILES_PER_COMMIT files
    files: list[CoChanged]
    cache: str  # built | updated | cached: how the history was read
    read: int  # commits read from git for this answer


class _ServiceBase(ServiceBase, Protocol):
    @property
    def settings(self) -> Settings: ...


class RelatedVerbs:
    """Tests of a symbol or file, and files changed together with a file."""

    @states_binding
    def find_tests(self: _ServiceBase, target: str, *, fresh: bool = True) -> TestsResponse:
        """Tests that exercise `target` (an indexed file's path, else a symbol name), strongest first."""
        text = _check_name(target)
        store = self._graph_store(fresh)
        relative = _as_indexed_file(store, self.root, text)
        if relative is not None:
            record = store.graph.file_record(relative)
            assert record is not None
            symbols = store.graph.symbols_of_file(record.id)
            importers = store.graph.file_importers(record.id)
            found = _find_tests(store, [relative], symbols, importers, skip_file=relative)
            return _tests_response(str(self.root), relative, "file", symbols, _keep(found, self.within))
        symbols = store.graph.find_symbols(text)
        paths = list(dict.fromkeys(s.path for s in symbols))
        found = _find_tests(store, paths, symbols, [], skip_file=None)
        return _tests_response(str(self.root), text, "symbol", symbols, _keep(found, self.within))

    def co_change(
        self: _ServiceBase, path: str, *, limit: int = 10, commits: int = DEFAULT_COMMITS
    ) -> CoChangeResponse:
        """Files most often committed together with `path` over the last `commits` commits."""
        if not path.strip():
            raise UsageError("give a file of the project")
        if not 1 <= limit <= 1000:
            raise UsageError(f"limit must be between 1 and 1000, got {limit}")
        if not 1 <= commits <= MAX_COMMITS:
            raise UsageError(f"commits must be between 1 and {MAX_COMMITS}, got {commits}")
        relative = _relative(self.root, path)
        history = _History(self.root, self.settings.index_dir / CACHE_NAME)
        entries, how, read = history.load(commits)
        considered = entries[:commits]
        counts: dict[str, int] = {}
        file_commits = 0
        skipped = 0
        for _sha, changed in considered:
            if changed is None:
                skipped += 1
                continue
            if relative not in changed:
                continue
            file_commits += 1
            for other in changed:
                if other != relative:
                    counts[other] = counts.get(other, 0) + 1
        kept = _keep([_Path(p) for p in counts], self.within)
        ranked = sorted((p.path for p in kept), key=lambda p: (-counts[p], p))[:limit]
        total = len(considered) - skipped
        files = [
            CoChanged(p, counts[p], round(counts[p] / total, 4) if total else 0.0,
                      round(counts[p] / file_commits, 4) if file_commits else 0.0, (self.root / p).exists())
            for p in ranked
        ]
        return CoChangeResponse(
            str(self.root), relative, history.head, total, file_commits, skipped, files, how, read
        )


# -- tests -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Path:
    path: str


def _tests_response(
    root: str, target: str, kind: str, symbols: list[SymbolInfo], found: list[FoundTest]
) -> TestsResponse:
    return TestsResponse(root, target, kind, symbols, found[:TESTS_LIMIT], more=max(len(found) - TESTS_LIMIT, 0))


def _as_indexed_file(store: Store, root: Path, text: str) -> str | None:
    """The target as an indexed file's path, or None when it names no such file (then: a symbol)."""
    try:
        relative = _relative(root, text)
    except CodefathomError:
        return None
    record = store.graph.file_record(relative)
    if record is None or record.status == "skipped":
        return None
    return relative


def _is_test(path: str) -> bool:
    return path_role(path) == "test"


def _find_tests(
    store: Store, target_paths: list[str], symbols: list[SymbolInfo], importers: list[str], skip_file: str | None
) -> list[FoundTest]:
    """Test files reaching the symbols: by a reference (or an import of the file), through one helper
    (a non-test definition referencing them, called by a test), or by name only."""
    found: dict[str, FoundTest] = {}

    def add(path: str, strength: str, reason: str, function: str | None) -> None:
        entry = found.setdefault(path, FoundTest(path, strength, []))
        if _STRENGTH[strength] < _STRENGTH[entry.strength]:
            entry.strength = strength
        if reason not in entry.reasons:
            entry.reasons.append(reason)
        if function and function not in entry.functions:
            entry.functions.append(function)

    ids = [s.id for s in symbols if s.kind != "module"]
    refs = store.graph.references_to(ids) if ids else []
    helpers: dict[int, SymbolInfo] = {}
    for ref in refs:
        if ref.path == skip_file:
            continue  # the file's own code using itself
        if _is_test(ref.path):
            add(ref.path, DIRECT, "references it", ref.scope)
        elif ref.scope:
            helper = _scope_symbol(store, ref)
            if helper is not None and helper.kind in ("function", "method"):
                helpers[helper.id] = helper
    for path in importers:
        if path != skip_file and _is_test(path):
            add(path, DIRECT, "imports it", None)
    target_ids = set(ids)
    helper_ids = [i for i in helpers if i not in target_ids]
    for ref in store.graph.references_to(helper_ids) if helper_ids else []:
        if _is_test(ref.path) and ref.target_id is not None:
            add(ref.path, HELPER, f"through helper `{helpers[ref.target_id].qualified_name}`", ref.scope)
    names: dict[str, str] = {}
    for path in target_paths:
        for name in conventional_test_names(path):
            names.setdefault(name, path)
    for other in store.graph.all_paths():
        target = names.get(posixpath.basename(other))
        if target is not None and other not in target_paths:
            add(other, NAMED, f"named like {target}", None)
    return sorted(found.values(), key=lambda t: (_STRENGTH[t.strength], t.path))


def _scope_symbol(store: Store, ref: RefInfo) -> SymbolInfo | None:
    assert ref.scope is not None
    return store.graph.symbol_in_scope(ref.path, ref.scope)


# -- co-change ---------------------------------------------------------------------------------------

Entry = tuple[str, list[str] | None]  # (commit, files changed; None when it changed too many to count)


class _History:
    """The last commits of HEAD with the files each changed, newest first, cached in `cache`.

    The cache holds the commit it was read up to; a later call reads only the commits after it,
    unless history was rewritten (that commit is no longer an ancestor of HEAD): then all again.
    """

    def __init__(self, root: Path, cache: Path) -> None:
        self.root = root
        self.cache = cache
        self.head = ""

    def load(self, commits: int) -> tuple[list[Entry], str, int]:
        """(entries, how: built | updated | cached, commits read from git)."""
        self.head = self._head()
        cached = self._read_cache()
        if cached is not None and (cached["complete"] or cached["window"] >= commits):
            old = str(cached["head"])
            entries: list[Entry] = [(sha, files) for sha, files in cached["entries"]]
            if old == self.head:
                return entries, "cached", 0
            if self._is_ancestor(old, self.head):
                window = max(int(cached["window"]), commits)
                new = self._log(window, since=old)
                merged = (new + entries)[:window]
                complete = bool(cached["complete"]) and len(new + entries) <= window
                self._write_cache(window, complete, merged)
                return merged, "updated", len(new)
        entries = self._log(commits, since=None)
        self._write_cache(commits, len(entries) < commits, entries)
        return entries, "built", len(entries)

    def _git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        try:
            done = gitcmd.run(self.root, *args, timeout=GIT_TIMEOUT)
        except (OSError, subprocess.SubprocessError) as exc:
            raise CodefathomError(f"git {args[0]} failed: {exc}") from exc
        stdout, stderr = (data.decode("utf-8", errors="replace") for data in (done.stdout, done.stderr))
        if check and done.returncode != 0:
            raise CodefathomError(f"git {args[0]} failed: {stderr.strip()}")
        return subprocess.CompletedProcess(done.args, done.returncode, stdout, stderr)

    def _head(self) -> str:
        if not gitcmd.installed():
            raise UsageError("git is not installed: co-change needs history")
        inside = self._git("rev-parse", "--is-inside-work-tree", check=False)
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            raise UsageError(f"not a git repository: co-change needs history ({self.root})")
        head = self._git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
        if head.returncode != 0:
            raise UsageError(f"{self.root} has no commits yet: co-change needs history")
        return head.stdout.strip()

    def _is_ancestor(self, old: str, new: str) -> bool:
        return self._git("merge-base", "--is-ancestor", old, new, check=False).returncode == 0

    def _log(self, commits: int, since: str | None) -> list[Entry]:
        """Newest first: each commit and the paths it changed (as git log reports them, renames at
        their new path); None for a commit touching more than MAX_FILES_PER_COMMIT files."""
        span = f"{since}..{self.head}" if since else self.head
        done = self._git(
            "log", "--no-color", "--name-only", f"--format={_COMMIT_MARK}%H", "-n", str(commits), span, "--"
        )
        entries: list[Entry] = []
        for block in done.stdout.split(_COMMIT_MARK)[1:]:
            sha, _, rest = block.partition("\n")
            files = sorted({line for line in rest.splitlines() if line.strip()})
            entries.append((sha.strip(), None if len(files) > MAX_FILES_PER_COMMIT else files))
        return entries

    def _read_cache(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.cache.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            return None
        if not isinstance(data.get("entries"), list) or not isinstance(data.get("head"), str):
            return None
        return data

    def _write_cache(self, window: int, complete: bool, entries: list[Entry]) -> None:
        data = {"version": CACHE_VERSION, "head": self.head, "window": window, "complete": complete,
                "entries": [[sha, files] for sha, files in entries]}
        try:
            self.cache.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.cache.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
            os.replace(temporary, self.cache)
        except OSError:
            pass  # a cache that cannot be written costs time, not the answer
