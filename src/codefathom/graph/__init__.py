"""The code graph: imports resolved to files, references bound to the definitions they mean.

`rebind(store, changed_file_ids, names)` refreshes what a sync may have changed; given a way to run
a job in another process, it binds part of a large set of references there (`bind_shard`).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from codefathom.graph.modules import resolve_import
from codefathom.graph.rank import pagerank
from codefathom.graph.resolve import Binder, label_for
from codefathom.graph.specs import spec_for
from codefathom.store.graph import (
    BindingRow,
    GraphLookup,
    ImportResolution,
    RefRow,
    drop_local_reads,
    rank_inputs,
    rank_inputs_of,
    refs_to_rebind,
    save_bindings,
    save_import_targets,
    save_ranks,
)

__all__ = ["rebind", "rerank", "pagerank", "Binder", "label_for", "prepare_shard", "bind_shard", "Helper"]

# Fewer references than this are all bound here: a helper process reads the whole graph first
# (~0.15 s on 1,000 files), which only pays when it takes a large share of the binding.
SHARD_MIN_REFS = 8000
# The helper's share of the references. It reads the graph while this process resolves the
# imports, so it starts about even; this process then also writes its share's bindings.
HELPER_SHARE = 0.45

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
J = TypeVar("J")


class Pending(Protocol[T_co]):
    def result(self) -> T_co: ...


class Helper(Protocol):
    """Runs jobs in one other process, each after the ones submitted before it (a worker of
    `service.workers.WorkerPool`); a job it cannot run is run here when its result is asked for."""

    def submit(self, func: Callable[[J], T], job: J) -> Pending[T]: ...


# What a helper binds: its run, the index file, the import resolutions this run stored (not
# committed yet, so the helper cannot read them), the files whose references it binds, and the
# changed files and names that chose the references (None: every reference of those files).
ShardJob = tuple[str, str, list[ImportResolution], list[int], list[int] | None, list[str]]


def rebind(
    lookup: GraphLookup, file_ids: Iterable[int] | None, names: Iterable[str], helper: Helper | None = None
) -> int:
    """Resolve the imports and re-bind the references a change may affect (all when file_ids is
    None); call inside the write transaction. Returns how many references were bound again.

    With a helper, many references are shared: the helper binds those of the last files while
    this process binds the others. Either way each reference gets the binding that one Binder
    over the whole index gives it: binding reads the index and writes nothing it reads."""
    ids = None if file_ids is None else sorted(set(file_ids))
    wanted = sorted(set(names))
    run = (f"{os.getpid()}-{time.monotonic_ns()}", _database(lookup.conn))
    if helper is not None:
        helper.submit(prepare_shard, run)  # it reads the graph as committed meanwhile
    if ids is None:
        lookup.preload()
    imports = lookup.imports_needing_resolution(ids)
    targets: list[ImportResolution] = []
    for row in imports:
        target = resolve_import(lookup, row, spec_for(lookup.language_of(row.file_id)).module_system)
        targets.append((row.id, target.file_id, target.symbol_id, target.external, target.module))
    save_import_targets(lookup.conn, targets)
    lookup.resolved(targets)  # the binder reads the resolutions just stored, for every file it visits
    refs = refs_to_rebind(lookup.conn, ids, wanted)
    pending = None
    mine: Sequence[RefRow] = refs
    theirs = _split(refs, HELPER_SHARE) if helper is not None and len(refs) >= SHARD_MIN_REFS else set()
    if helper is not None:
        # Always sent, so that the helper lets go of what prepare_shard read.
        pending = helper.submit(bind_shard, (*run, targets, sorted(theirs), ids, wanted))
        mine = [ref for ref in refs if ref.file_id not in theirs] if theirs else refs
    binder = Binder(lookup)
    bindings = [_row(binder, ref) for ref in mine]
    save_bindings(lookup.conn, bindings)
    if pending is not None:
        helped = pending.result()
        save_bindings(lookup.conn, helped)
        bindings += helped
    drop_local_reads(lookup.conn)
    if ids is None:
        lookup.bound = _edges(refs, bindings)
    return len(refs)


def rerank(lookup: GraphLookup) -> None:
    """Recompute PageRank of every file and symbol; call inside the write transaction."""
    if lookup.bound is not None:  # every reference was bound just now: no need to read them back
        files, file_edges, symbols, symbol_edges = rank_inputs_of(lookup, lookup.bound)
    else:
        files, file_edges, symbols, symbol_edges = rank_inputs(lookup.conn)
    save_ranks(lookup.conn, pagerank(files, file_edges), pagerank(symbols, symbol_edges))


# A helper's graph, read by prepare_shard for bind_shard: (run, lookup), at most one.
_PREPARED: list[tuple[str, GraphLookup]] = []


def prepare_shard(run: tuple[str, str]) -> None:
    """Read the whole graph as committed, in the helper, while the caller resolves the imports."""
    token, path = run
    _forget_prepared()
    conn = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True)
    lookup = GraphLookup(conn)
    lookup.preload()
    _PREPARED.append((token, lookup))


def bind_shard(job: ShardJob) -> list[BindingRow]:
    """Bind the references of some files from the committed index plus this run's import
    resolutions; runs in a helper process (or, when that failed, in the caller)."""
    token, path, targets, files, ids, names = job
    found = [lookup for run, lookup in _PREPARED if run == token]
    _PREPARED.clear()  # a later run prepares afresh
    try:
        if not files:
            return []
        if found:
            lookup = found[0]
        else:
            lookup = GraphLookup(sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True))
            lookup.preload()
        lookup.resolved(targets)
        binder = Binder(lookup)
        if ids is None:
            refs = refs_to_rebind(lookup.conn, None, (), files)
        else:
            shard = set(files)
            refs = [ref for ref in refs_to_rebind(lookup.conn, ids, names) if ref.file_id in shard]
        return [_row(binder, ref) for ref in refs]
    finally:
        for lookup in found:
            lookup.conn.close()


def _forget_prepared() -> None:
    for _, lookup in _PREPARED:
        lookup.conn.close()
    _PREPARED.clear()


def _row(binder: Binder, ref: RefRow) -> BindingRow:
    found = binder.bind(ref)
    return (found.ref_id, found.target_id, found.confidence, found.label, found.candidates)


def _split(refs: Sequence[RefRow], share: float) -> set[int]:
    """The last files of `refs` (which come mostly in file order) holding about `share` of them: a
    run of files keeps much of what a Binder caches per file and package in one process."""
    counts: dict[int, int] = {}
    for ref in refs:
        counts[ref.file_id] = counts.get(ref.file_id, 0) + 1
    wanted = share * len(refs)
    theirs: set[int] = set()
    taken = 0
    for file_id, count in reversed(counts.items()):
        if taken + count / 2 > wanted:
            break
        theirs.add(file_id)
        taken += count
    return theirs


def _edges(refs: Sequence[RefRow], bindings: Sequence[BindingRow]) -> list[tuple[int, str | None, int, float]]:
    """(file, scope, target, confidence) of every bound reference, by reference id."""
    where = {ref.id: ref for ref in refs}
    found = []
    for ref_id, target, confidence, _, _ in sorted(bindings):
        if target is not None:
            ref = where[ref_id]
            found.append((ref.file_id, ref.scope, target, confidence))
    return found


def _database(conn: sqlite3.Connection) -> str:
    return str(conn.execute("PRAGMA database_list").fetchone()[2])
