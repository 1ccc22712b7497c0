"""What a sync must look at: a full listing of the project, or a sweep that vouches for the last one.

Listing a project (git ls-files, or a walk honouring .gitignore) costs a process and a walk of
the whole tree. A sweep avoids both when it can: the last complete listing is kept beside the
index (`index.sweep`) with what it depended on, and if none of that changed, the list of files is
the same, and only the stat of each indexed file needs comparing.

What a listing depends on:
- the directories a file could appear in (an entry added, removed or renamed changes the mtime
  of its directory);
- git's index, exclude file and config, and the user's global ignore file and config;
- the files left out for their size or an unreadable stat;
- the settings (include, exclude, size limit) and every .gitignore (a changed one is a changed
  file, which sends the sweep to a full listing).
A changed file that is a symlink also sends it to a listing, which checks where the link leads now
(its target may have been swapped for a link out of the project).

The sweep is trusted only with the index it was made for: a token in the index's meta table is
cleared before a sync that adds or removes files writes anything, and set again, with a new
snapshot, once it completes. A sync killed half way therefore leaves no snapshot that vouches for
the index, and the next one lists again.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codefathom.config import Settings
from codefathom.discover.walk import Listing, list_files, signature
from codefathom.model import FileState, SkippedFile, SourceFile
from codefathom.store import Store

__all__ = ["Plan", "plan_sync", "before_writes", "after_sync", "SNAPSHOT_NAME"]

SNAPSHOT_NAME = "index.sweep"
TOKEN_KEY = "sweep_token"
FORMAT = 1


@dataclass
class Plan:
    """What one sync has to do, and how that was found out."""

    method: str  # "git" or "walk" (a full listing), or "sweep" (the last listing still holds)
    discovered: int
    unchanged: int
    known: dict[str, FileState]  # the index's state of the files below (all of them after a listing)
    todo: list[SourceFile]
    gone: list[str]
    skipped: list[SkippedFile] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None  # to keep once the sync completes
    why_listed: str = ""  # why the sweep could not vouch for the last listing


def plan_sync(store: Store, settings: Settings, *, full: bool = False) -> Plan:
    """The files to read and the files gone, by sweep when it can vouch for the last listing."""
    why = "a full re-index was asked for"
    if not full:
        swept = _sweep(store, settings)
        if isinstance(swept, Plan):
            return swept
        why = swept
    found = list_files(settings, track=True)
    known = store.file_states()
    present = {path for path, _, _ in found.entries}
    gone = [path for path in known if path not in present]
    todo = [found.source_file(e) for e in found.entries if full or _stat_changed(known.get(e[0]), e)]
    return Plan(
        method=found.method, discovered=len(found.entries), unchanged=len(found.entries) - len(todo), known=known,
        todo=todo, gone=gone, skipped=list(found.skipped), snapshot=_snapshot(settings, found), why_listed=why,
    )


def before_writes(store: Store, plan: Plan) -> None:
    """Call before a sync writes: a listing that adds or removes files first voids the snapshot."""
    if plan.method != "sweep" and (plan.todo or plan.gone):
        store.set_meta(TOKEN_KEY, "")


def after_sync(store: Store, settings: Settings, plan: Plan) -> None:
    """Call once a sync completed: keep the listing it made for the next sweep."""
    if plan.method == "sweep":
        return  # the snapshot on disk still holds: only files it vouches for were written
    path = settings.index_dir / SNAPSHOT_NAME
    if plan.snapshot is None:
        store.set_meta(TOKEN_KEY, "")
        path.unlink(missing_ok=True)
        return
    token = secrets.token_hex(8)
    data = dict(plan.snapshot, token=token)
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        partial.write_bytes(marshal.dumps(data))
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)
        return  # no snapshot: the next sync lists again
    store.set_meta(TOKEN_KEY, token)


def _stat_changed(state: FileState | None, entry: tuple[str, int, int]) -> bool:
    return state is None or state.mtime_ns != entry[2] or state.size != entry[1]


def _settings_key(settings: Settings) -> str:
    parts = [str(FORMAT), str(settings.root), *settings.include, "\0", *settings.exclude, str(settings.max_file_size)]
    return hashlib.blake2b("\n".join(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def _snapshot(settings: Settings, found: Listing) -> dict[str, Any] | None:
    if found.dirs is None:
        return None
    return {
        "format": FORMAT, "key": _settings_key(settings), "method": found.method, "count": len(found.entries),
        "control": found.control, "dirs": found.dirs, "recheck": found.recheck,
        "skipped": [(s.path, s.reason) for s in found.skipped],
    }


def _sweep(store: Store, settings: Settings) -> Plan | str:
    """A plan from the stat of each indexed file when the last listing still holds, else why not."""
    try:
        data = marshal.loads((settings.index_dir / SNAPSHOT_NAME).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return "no listing kept from the last sync"
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != _settings_key(settings):
        return "the settings changed"
    if not data.get("token") or data["token"] != store.get_meta(TOKEN_KEY):
        return "the index changed since the listing was kept"
    try:
        for path, sig in data["control"]:
            if signature(path) != sig:
                return f"{Path(path).name} changed"
        prefix = os.path.join(str(settings.root), "")
        stat = os.stat
        for folder, mtime in data["dirs"]:
            try:
                if stat(prefix + folder).st_mtime_ns != mtime:
                    return f"directory {folder or '.'} changed"
            except OSError:
                return f"directory {folder} is gone"
        for path, sig in data["recheck"]:
            if signature(prefix + path) != sig:
                return f"{path} changed"
        rows = store.file_stats()
        if len(rows) != data["count"]:
            return "the index holds other files"
        changed: list[SourceFile] = []
        root = settings.root
        for path, size, mtime in rows:
            try:
                info = stat(prefix + path)
            except OSError:
                return f"{path} is gone"
            if info.st_mtime_ns != mtime or info.st_size != size:
                if info.st_size > settings.max_file_size or path.rpartition("/")[2] == ".gitignore":
                    return f"{path} changed"
                if os.path.islink(prefix + path):  # where it leads now is for a listing to check
                    return f"{path} is a link whose target changed"
                changed.append(SourceFile(path, root / path, info.st_size, info.st_mtime_ns))
        skipped = [SkippedFile(path, reason) for path, reason in data["skipped"]]
    except (KeyError, TypeError, ValueError):
        return "the kept listing is unreadable"
    known = store.file_states(f.path for f in changed) if changed else {}
    return Plan(
        method="sweep", discovered=len(rows), unchanged=len(rows) - len(changed), known=known, todo=changed,
        gone=[], skipped=skipped,
    )
