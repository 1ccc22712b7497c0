"""Brings an index in line with the files on disk: discover, diff by stat and hash, parse, write.

Only changed files are read; each batch of files commits together, so a killed run loses at
most the batch in flight and the next run picks up where it stopped. Large change sets are read
and parsed by worker processes (see `workers`) while this process writes, in file order.
"""

from __future__ import annotations

import gc
import hashlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from codefathom.config import Settings
from codefathom.discover import read_source, real_root
from codefathom.graph import is_config, rebind, recompute_ranks
from codefathom.model import FileState, SkippedFile, SourceFile
from codefathom.parse import language_name, parse
from codefathom.search.rank import path_role
from codefathom.service.sweep import after_sync, before_writes, plan_sync
from codefathom.service.workers import WorkerPool, usable_cpus, worker_count
from codefathom.store import FileRecord, PreparedFacts, PreparedUnits, Store, prepare_facts, prepare_units
from codefathom.store.base import REFS_HELD

__all__ = ["SyncReport", "sync", "Progress"]

RERANK_MIN_FILES = 50  # changed files that make PageRank worth recomputing (or 5% of the project, or all of it)
BATCH_FILES = 200  # files per transaction: a killed run loses at most this many files' work
# Fewer changed files than this are parsed here: starting worker processes costs ~0.2 s. (Also for
# a store that keeps its own postings: since they are cut in Python, PostgreSQL indexes urllib3's
# 124 files and requests' 121 in 1.7 and 0.7 s here, against 2.1 and 1.0 s with workers.)
PARALLEL_MIN_FILES = 256
# A first index of this many files or more writes and binds its references without their secondary
# indexes and builds them at the end (see store/sqlite/graph.py: REF_INDEXES): on the 28k-file monorepo,
# keeping them up row by row cost the writer and the binder more than building them.
DEFER_INDEXES_MIN_FILES = 256
# Files written that make the graph tables' statistics worth refreshing before binding (Store.analyze).
ANALYZE_MIN_FILES = 200
# A parse worker helps bind (graph.rebind) only with this many CPUs. It needs a core of its own:
# on 2 vCPUs shared with other work it made Django's binding 0.45 s slower, not faster.
HELPER_MIN_CPUS = 4
# Set while written files wait for their references to be bound (the sync's last transaction):
# a sync killed before that leaves it, and the next one binds every reference again.
BINDING_DUE = "binding_due"
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
    written_files: list[int] = field(default_factory=list)  # ids of the files whose units were replaced
    refs_bound: int = 0
    skipped: list[SkippedFile] = field(default_factory=list)
    parse_problems: list[tuple[str, str, str]] = field(default_factory=list)  # (path, status, error)
    seconds: float = 0.0
    method: str = ""
    notices: list[str] = field(default_factory=list)  # for the user: an index rebuilt, a wait

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.removed


def sync(store: Store, settings: Settings, progress: Progress | None = None, *, full: bool = False) -> SyncReport:
    started = time.perf_counter()
    report = SyncReport()
    # A first index stopped while it held its references back (see REFS_HELD) left files without them.
    held = store.get_meta(REFS_HELD) == "1"
    full = full or held
    # A sweep by stat when the last listing still holds, else a listing (see `sweep`).
    plan = plan_sync(store, settings, full=full)
    report.method, report.discovered, report.unchanged = plan.method, plan.discovered, plan.unchanged
    report.skipped.extend(plan.skipped)
    known, todo, gone = plan.known, plan.todo, plan.gone
    # Filling an empty index: its rows can only point at rows this sync writes (see transaction).
    check_keys = store.has_files()
    # ... and the binding reads none of them back: a lookup takes them as they are written.
    lookup = store.graph_lookup()
    if not check_keys:
        lookup.follow()
    stopped = store.get_meta(BINDING_DUE) == "1"  # the last sync was stopped before binding what it wrote
    _restore_ref_indexes(store)
    before_writes(store, plan)
    if progress is not None and todo:
        progress(0, len(todo), "")
    changed_ids: set[int] = set()
    changed_names: set[str] = set()  # names defined before or after the change: their refs may rebind
    configs = [path for path in gone if is_config(path)]  # changed files that decide how imports resolve
    if gone:
        with store.transaction():
            store.set_meta(BINDING_DUE, "1")
            changed_names |= store.symbol_names_of(store.file_ids(gone).values())
            report.removed = store.remove_files(gone)
    root = real_root(settings.root)
    jobs = [_job(f, known.get(f.path), full, root, store.keeps_postings) for f in todo]
    deferred = not check_keys and len(jobs) >= DEFER_INDEXES_MIN_FILES
    if deferred:
        with store.transaction(check_keys=False):
            store.drop_ref_indexes()
    parallel = len(jobs) >= PARALLEL_MIN_FILES
    workers = worker_count() if parallel else 0
    # A large sync reads much of the index (binding, directory nodes): through SQLite's page cache,
    # not the memory map, whose pages would stay in its memory (see Store.unmapped).
    unmapped = store.unmapped() if len(jobs) >= PARALLEL_MIN_FILES else nullcontext()
    # The processes that parse the files then bind part of the references (see graph.rebind).
    with unmapped, WorkerPool(workers) as pool, _collector_paused():
        outcomes = pool.map(_prepare, jobs) if pool.alive else (_prepare(job) for job in jobs)
        try:
            for start in range(0, len(todo), BATCH_FILES):
                batch = todo[start : start + BATCH_FILES]
                # Parse first, then write: the write lock is held only while writing.
                work = [next(outcomes) for _ in batch]
                with store.transaction(check_keys=check_keys):
                    ids = store.file_ids(f.path for f, o in zip(batch, work, strict=True) if o.record is not None)
                    changed_names |= store.symbol_names_of(ids.values())
                    for file, outcome in zip(batch, work, strict=True):
                        file_id = _write(store, file, outcome, known.get(file.path), ids.get(file.path), report)
                        if file_id is not None:
                            facts = outcome.facts or PreparedFacts()  # a file now skipped defines nothing
                            store.replace_facts(file_id, facts, lookup)
                            changed_ids.add(file_id)
                            changed_names.update(facts.symbol_names)
                            if is_config(file.path):
                                configs.append(file.path)
                    if changed_ids:
                        store.set_meta(BINDING_DUE, "1")
                if progress is not None:
                    progress(min(start + BATCH_FILES, len(todo)), len(todo), batch[-1].path)
        finally:
            outcomes.close()  # stops asking for parses, also when a write or the progress callback failed
        if usable_cpus() < HELPER_MIN_CPUS:
            pool.close()  # no help wanted: the workers' memory goes back now
        if changed_ids or report.removed or stopped:
            with store.transaction(check_keys=check_keys):
                # A first index binds everything at once, as does a sync after one that was stopped
                # before binding (which files it wrote is not known); others only what changed.
                everything = (report.unchanged == 0 and not known) or stopped
                if len(changed_ids) >= ANALYZE_MIN_FILES:
                    store.analyze()  # (the statistics the binding's reads are planned with)
                helper = pool.helper() if pool.alive else None
                # A second process binds part of a large binding from 2 CPUs on: forked, so it
                # shares what this one read, where there is no other thread to fork in the middle of.
                fork = helper is None and usable_cpus() >= 2 and threading.active_count() == 1
                report.refs_bound = rebind(
                    lookup, None if everything else changed_ids, changed_names, helper, configs, fork=fork
                )
                # Ranks move little with a few edits: recompute them when much of the project changed.
                reranked = everything or len(changed_ids) + report.removed >= min(
                    max(RERANK_MIN_FILES, report.discovered // 20), report.discovered
                )
                if reranked:
                    recompute_ranks(lookup)
                if deferred:
                    store.create_ref_indexes()
                # Directory nodes list files and definitions by rank: all are rebuilt when ranks moved.
                store.refresh_directories(None if reranked else changed_ids, gone, _is_test)
                store.set_meta(BINDING_DUE, "0")
                if held:
                    store.set_meta(REFS_HELD, "0")
    if deferred:
        _restore_ref_indexes(store)  # (built above, unless nothing was written)
    if report.changed or report.touched:
        store.set_meta("last_change", str(time.time()))
    after_sync(store, settings, plan)
    store.set_meta("last_sync", str(time.time()))
    report.seconds = time.perf_counter() - started
    return report


def _restore_ref_indexes(store: Store) -> None:
    """Build the references' indexes a first index left unbuilt (it was stopped before the end):
    before anything reads or deletes references by them."""
    if store.missing_ref_indexes():
        with store.transaction():
            store.create_ref_indexes()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while indexing: the rows in flight and the binder's caches are
    hundreds of thousands of objects without cycles, which every full collection would walk again
    (a third of the binding time on Django). What cycles there are get collected afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _is_test(path: str) -> bool:
    return path_role(path) == "test"


@dataclass(slots=True)
class _Outcome:
    record: FileRecord | None = None
    units: PreparedUnits | None = None
    same_bytes: bool = False
    facts: PreparedFacts | None = None


# What a parse worker needs to know of a file: path, absolute path, mtime_ns, size, the content
# hash the index has for it ("" when none), whether every file is re-parsed, the project's real
# root, outside which nothing is read, and whether the store wants postings. Plain data.
_Job = tuple[str, str, int, int, str, bool, str, bool]


def _job(file: SourceFile, state: FileState | None, full: bool, root: str, postings: bool) -> _Job:
    known = state.content_hash if state else ""
    return (file.path, str(file.abs_path), file.mtime_ns, file.size, known, full, root, postings)


def _prepare(job: _Job) -> _Outcome:
    """Read, hash and parse one file into rows ready to write; runs in a worker process or here."""
    path, abs_path, mtime_ns, size, known_hash, full, root, postings = job
    file = SourceFile(path, Path(abs_path), size, mtime_ns)
    language = language_name(path)
    try:
        source = read_source(file, root)
    except OSError as exc:
        reason = f"cannot read: {exc.strerror or exc}"
        return _Outcome(FileRecord(path, "", mtime_ns, size, language, "skipped", reason))
    digest = hashlib.blake2b(source.data, digest_size=16).hexdigest()
    if known_hash and known_hash == digest and not full:
        return _Outcome(same_bytes=True)
    if source.problem:
        return _Outcome(FileRecord(path, digest, mtime_ns, size, language, "skipped", source.problem))
    parsed = parse(path, source.text)
    error = parsed.error
    if source.replaced_bytes:
        error = "; ".join(filter(None, [error, "not valid UTF-8: undecodable bytes were replaced"]))
    record = FileRecord(path, digest, mtime_ns, size, parsed.language, parsed.status, error)
    return _Outcome(record, prepare_units(path, parsed.units, postings=postings), facts=prepare_facts(parsed.facts))


def _write(
    store: Store, file: SourceFile, outcome: _Outcome, state: FileState | None, file_id: int | None,
    report: SyncReport,
) -> int | None:
    """Write one file's outcome; returns its row id when its facts were replaced."""
    if outcome.same_bytes:
        store.touch_file(file.path, file.mtime_ns, file.size)
        report.touched += 1
        return None
    record = outcome.record
    if record is None:
        return None
    units = outcome.units or PreparedUnits((), ())
    file_id = store.replace_file(record, units, file_id)
    report.units_written += len(units)
    if units.units:
        report.written_files.append(file_id)
    if state is None:
        report.added += 1
    else:
        report.updated += 1
    if record.status in ("partial", "failed", "skipped") or record.error:
        report.parse_problems.append((record.path, record.status, record.error or ""))
    return file_id
