"""Brings an index in line with the files on disk: discover, diff by stat and hash, parse, write.

Only changed files are read; each batch of files commits together, so a killed run loses at
most the batch in flight and the next run picks up where it stopped.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from codefathom.config import Settings
from codefathom.discover import discover, read_source
from codefathom.model import FileState, SkippedFile, SourceFile
from codefathom.parse import language_name, parse
from codefathom.store import FileRecord, Store

__all__ = ["SyncReport", "sync", "Progress"]

BATCH_FILES = 200
# progress(done, total, path): called as files are parsed; total is the number of changed files.
Progress = Callable[[int, int, str], None]


@dataclass
class SyncReport:
    """What one sync did."""

    discovered: int = 0
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    touched: int = 0  # stat changed, bytes did not
    units_written: int = 0
    skipped: list[SkippedFile] = field(default_factory=list)
    parse_problems: list[tuple[str, str, str]] = field(default_factory=list)  # (path, status, error)
    seconds: float = 0.0
    method: str = ""

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.removed


def sync(store: Store, settings: Settings, progress: Progress | None = None, *, full: bool = False) -> SyncReport:
    started = time.perf_counter()
    report = SyncReport()
    found = discover(settings)
    report.method = found.method
    report.discovered = len(found.files)
    report.skipped.extend(found.skipped)
    known = store.file_states()
    present = {f.path for f in found.files}
    gone = [path for path in known if path not in present]
    todo = [f for f in found.files if full or _stat_changed(known.get(f.path), f)]
    report.unchanged = len(found.files) - len(todo)
    if gone:
        with store.transaction():
            report.removed = store.remove_files(gone)
    for start in range(0, len(todo), BATCH_FILES):
        batch = todo[start : start + BATCH_FILES]
        work = [_prepare(f, known.get(f.path), full, report) for f in batch]
        with store.transaction():
            for file, outcome in zip(batch, work, strict=True):
                _write(store, file, outcome, known.get(file.path), report)
        if progress is not None:
            progress(min(start + BATCH_FILES, len(todo)), len(todo), batch[-1].path)
    if report.changed or report.touched:
        store.set_meta("last_change", str(time.time()))
    store.set_meta("last_sync", str(time.time()))
    report.seconds = time.perf_counter() - started
    return report


def _stat_changed(state: FileState | None, file: SourceFile) -> bool:
    return state is None or state.mtime_ns != file.mtime_ns or state.size != file.size


@dataclass
class _Outcome:
    record: FileRecord | None = None
    units: tuple = ()
    same_bytes: bool = False


def _prepare(file: SourceFile, state: FileState | None, full: bool, report: SyncReport) -> _Outcome:
    language = language_name(file.path)
    try:
        source = read_source(file)
    except OSError as exc:
        reason = f"cannot read: {exc.strerror or exc}"
        return _Outcome(FileRecord(file.path, "", file.mtime_ns, file.size, language, "skipped", reason))
    digest = hashlib.blake2b(source.data, digest_size=16).hexdigest()
    if state is not None and state.content_hash == digest and not full:
        return _Outcome(same_bytes=True)
    if source.problem:
        return _Outcome(FileRecord(file.path, digest, file.mtime_ns, file.size, language, "skipped", source.problem))
    parsed = parse(file.path, source.text)
    error = parsed.error
    if source.replaced_bytes:
        error = "; ".join(filter(None, [error, "not valid UTF-8: undecodable bytes were replaced"]))
    record = FileRecord(file.path, digest, file.mtime_ns, file.size, parsed.language, parsed.status, error)
    return _Outcome(record, parsed.units)


def _write(store: Store, file: SourceFile, outcome: _Outcome, state: FileState | None, report: SyncReport) -> None:
    if outcome.same_bytes:
        store.touch_file(file.path, file.mtime_ns, file.size)
        report.touched += 1
        return
    record = outcome.record
    if record is None:
        return
    store.replace_file(record, outcome.units)
    report.units_written += len(outcome.units)
    if state is None:
        report.added += 1
    else:
        report.updated += 1
    if record.status in ("partial", "failed", "skipped") or record.error:
        report.parse_problems.append((record.path, record.status, record.error or ""))
