"""The code graph: imports resolved to files, references bound to the definitions they mean.

`rebind(lookup, changed_file_ids, names, helper, configs, fork)` refreshes what a sync may have
changed, changed config files (`is_config`) included; given a helper process, it shares the binding
of many references with it (`prepare_shard`, `bind_shard`), else, allowed to, with a forked child.
`recompute_ranks(lookup)` recomputes PageRank.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from codefathom.graph.manifests import governed_imports, is_config
from codefathom.graph.modules import resolve_import, same_package
from codefathom.graph.rank import pagerank
from codefathom.graph.resolve import Binder, label_for
from codefathom.graph.specs import spec_for
from codefathom.orphans import die_with_parent
from codefathom.store.graph import (
    BindingRow,
    GraphLookup,
    ImportResolution,
    ImportRow,
    RefRow,
    drop_local_reads,
    rank_inputs,
    rank_inputs_of,
    refs_to_rebind,
    save_bindings,
    save_import_targets,
    save_ranks,
)

__all__ = [
    "rebind", "recompute_ranks", "is_config", "pagerank", "Binder", "label_for", "prepare_shard", "bind_shard",
    "Helper", "Pending",
]

# Fewer references than this are all bound here: a helper process reads the whole graph first
# (~0.15 s on 1,000 files), which only pays when there is much binding to share.
SHARD_MIN_REFS = 8000
# References per job a helper takes (whole files): this process binds from the first files on,
# the helper from the last ones back, a job at a time, until they meet; at the end this process
# waits for at most the two jobs the helper holds, however slow the helper turned out to be (a
# busy machine may give it little of a core).
CHUNK_REFS = 1500
HELPER_AHEAD = 2
# Fewer references than this are bound in one process even when forking is allowed: a child costs
# a few milliseconds to start and more to send its bindings back.
FORK_MIN_REFS = 20000
FORK_PATIENCE = 30.0  # seconds a forked child may take beyond four times what this process took
# The share of the references the forked child binds: a little more than half, as this process
# also saves its own bindings meanwhile (on Django core the child was done first at half).
CHILD_SHARE = 0.55

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
J = TypeVar("J")


class Pending(Protocol[T_co]):
    def ready(self) -> bool: ...

    def answered(self) -> bool: ...

    def result(self) -> T_co: ...


class Helper(Protocol):
    """Runs jobs in one other process, each after the ones submitted before it (a worker of
    `service.workers.WorkerPool`); a job it could not run is run here when its result is asked for."""

    def submit(self, func: Callable[[J], T], job: J) -> Pending[T]: ...


# A job of a helper: its run, the import resolutions this run stored (not committed, so the
# helper cannot read them; sent with the first job only), the files whose references it binds,
# and the changed files and names that chose the references (None: every reference of a file).
ShardJob = tuple[str, list[ImportResolution] | None, list[int], list[int] | None, list[str]]


def rebind(
    lookup: GraphLookup, file_ids: Iterable[int] | None, names: Iterable[str], helper: Helper | None = None,
    configs: Iterable[str] = (), fork: bool = False,
) -> int:
    """Resolve the imports and re-bind the references a change may affect (all when file_ids is
    None); call inside the write transaction. Returns how many references were bound again.
    `configs` are the paths of changed or removed files that may decide how imports resolve
    (`manifests.is_config`): the imports they govern are resolved again too.

    With a helper, many references are shared with it (see CHUNK_REFS); without one, `fork` lets a
    child process bind half of many references (see `_forked`; only for a caller with no other
    thread, which a forked child could find holding a lock). Which process binds a
    reference does not change its binding: a Binder's answer depends on the index, not on what
    it bound before (checked on the benchmark corpora: any order of the references binds alike)."""
    ids = None if file_ids is None else sorted(set(file_ids))
    wanted = sorted(set(names))
    # (Which ones does not depend on the imports.) A lookup that followed every write has them all.
    refs = lookup.written_refs if ids is None and lookup.written_refs is not None else refs_to_rebind(
        lookup.conn, ids, wanted
    )
    run = f"{os.getpid()}-{time.monotonic_ns()}"
    shared = helper is not None and len(refs) >= SHARD_MIN_REFS
    prepared = helper.submit(prepare_shard, (run, _database(lookup.conn))) if helper and shared else None
    if ids is None:
        lookup.preload()
    imports = lookup.imports_needing_resolution(ids)
    if ids is not None and configs:
        seen = {row.id for row in imports}
        imports += [row for row in governed_imports(lookup, configs) if row.id not in seen]
    targets: list[ImportResolution] = []
    for row in imports:
        target = resolve_import(lookup, row, spec_for(lookup.language_of(row.file_id)).module_system)
        targets.append((row.id, target.file_id, target.symbol_id, target.external, target.module))
    save_import_targets(lookup.conn, targets)
    lookup.resolved(targets)  # the binder reads the resolutions just stored, for every file it visits
    if ids is not None:
        moved = _moved(lookup, imports, targets, ids)
        if moved:  # their references may now mean something else: bind them all again
            ids = sorted(set(ids) | moved)
            refs = refs_to_rebind(lookup.conn, ids, wanted)
    binder = Binder(lookup)
    if fork and helper is None and len(refs) >= FORK_MIN_REFS and hasattr(os, "fork"):
        bindings = _forked(binder, refs, _database(lookup.conn), lambda rows: save_bindings(lookup.conn, rows))
    else:
        if helper is not None and prepared is not None:
            bindings = _share(binder, refs, helper, prepared, (run, targets, [], ids, wanted))
        else:
            bindings = [_row(binder, ref) for ref in refs]
        save_bindings(lookup.conn, bindings)
    drop_local_reads(lookup.conn)
    if ids is None:
        lookup.bound = _edges(refs, bindings)
    return len(refs)


def _moved(
    lookup: GraphLookup, imports: Sequence[ImportRow], targets: Sequence[ImportResolution], changed: Sequence[int]
) -> set[int]:
    """Files, other than the changed ones, with an import that now leads elsewhere: another file,
    into or out of the project (a config changed, a file appeared). Another file of the same Go or
    Java package is no move (a package is bound as a whole), nor a new symbol id in a changed file
    (the references to its names are bound again anyway)."""
    changed_set = set(changed)
    moved: set[int] = set()
    for row, (_, file_id, symbol_id, external, module) in zip(imports, targets, strict=True):
        if row.file_id in changed_set or row.file_id in moved:
            continue
        old = row.target_file_id
        kin = old is not None and file_id is not None and same_package(lookup, old, file_id)
        if (old != file_id and not kin) or (row.external, row.binds_module) != (external, module) or (
            row.target_symbol_id != symbol_id and file_id not in changed_set
        ):
            moved.add(row.file_id)
    return moved


def recompute_ranks(lookup: GraphLookup) -> None:
    """Recompute PageRank of every file and symbol; call inside the write transaction."""
    if lookup.bound is not None:  # every reference was bound just now: no need to read them back
        files, file_edges, symbols, symbol_edges = rank_inputs_of(lookup, lookup.bound)
    else:
        files, file_edges, symbols, symbol_edges = rank_inputs(lookup.conn)
    save_ranks(lookup.conn, pagerank(files, file_edges), pagerank(symbols, symbol_edges))


def _share(
    binder: Binder, refs: Sequence[RefRow], helper: Helper, prepared: Pending[None], job: ShardJob
) -> list[BindingRow]:
    """Bind `refs` here from the first files on while the helper, once it has read the graph,
    binds from the last files back, HELPER_AHEAD jobs at a time."""
    run, targets, _, ids, names = job
    chunks = _chunks(refs)
    front, back = 0, len(chunks)  # this process binds chunks[front:back]; the helper took the rest
    sent: list[tuple[int, Pending[list[BindingRow]]]] = []
    bindings: list[BindingRow] = []
    usable = True
    while front < back:
        if usable and prepared.ready() and not prepared.answered():
            usable = False  # a helper that could not read the graph gets nothing
        if usable and prepared.ready():
            for index, pending in [item for item in sent if item[1].ready()]:
                sent.remove((index, pending))
                bindings += _helped(binder, chunks[index], pending)
            while len(sent) < HELPER_AHEAD and back - 1 > front:
                back -= 1
                files = sorted({ref.file_id for ref in chunks[back]})
                sent.append((back, helper.submit(bind_shard, (run, targets, files, ids, names))))
                targets = None  # the helper keeps them
        bindings += [_row(binder, ref) for ref in chunks[front]]
        front += 1
    for index, pending in sent:
        bindings += _helped(binder, chunks[index], pending)
    return bindings


def _forked(
    binder: Binder, refs: Sequence[RefRow], database: str, save: Callable[[list[BindingRow]], None]
) -> list[BindingRow]:
    """Bind the references of the last files in a forked child while this process binds the
    first ones: the child has the graph this process read without reading it again (its pages
    are shared until written). It reads the index, where it must, through a connection of its
    own, and sends its bindings back through a pipe; if it fails, its part is bound here. Each
    part is saved as soon as it is bound: this process's while the child is still at work."""
    half = _file_boundary(refs, int(len(refs) * (1 - CHILD_SHARE)))
    reader, writer = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: bind, send, exit without running any of the parent's cleanup
        status = 1
        try:
            # Its work is only for this process: it ends with it (the index lock's descriptor, which
            # it inherited, was closed at the fork: see service/locking.py).
            die_with_parent(parent)
            os.close(reader)
            binder.lookup.conn = sqlite3.connect(f"{Path(database).as_uri()}?mode=ro", uri=True)
            data = pickle.dumps([_row(binder, ref) for ref in refs[half:]], pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writer, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(writer)
    started = time.monotonic()
    mine = [_row(binder, ref) for ref in refs[:half]]
    save(mine)
    # A child stuck (a lock some native thread held when it was forked) must not hang the sync:
    # given as long again as this process took, and then some, it is killed and its part done here.
    data = _receive(reader, pid, deadline=time.monotonic() + FORK_PATIENCE + 4 * (time.monotonic() - started))
    _, status = os.waitpid(pid, 0)
    theirs: list[BindingRow] | None = None
    if status == 0 and data:
        try:
            theirs = pickle.loads(data)
        except (pickle.UnpicklingError, EOFError, ValueError):
            theirs = None
    if theirs is None:
        theirs = [_row(binder, ref) for ref in refs[half:]]
    save(theirs)
    return mine + theirs


def _receive(reader: int, pid: int, deadline: float) -> bytes:
    """What the child writes until it closes its end; b"" (and the child killed) past the deadline."""
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([reader], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                return b""
            chunk = os.read(reader, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(reader)


def _file_boundary(refs: Sequence[RefRow], index: int) -> int:
    """The first position at or after `index` where a new file's references start (a file's are
    bound in one process, which keeps its per-file caches warm)."""
    while 0 < index < len(refs) and refs[index].file_id == refs[index - 1].file_id:
        index += 1
    return index


def _helped(binder: Binder, chunk: list[RefRow], pending: Pending[list[BindingRow]]) -> list[BindingRow]:
    """A helper's bindings of a chunk, or this process's when the helper died on it."""
    return pending.result() if pending.answered() else [_row(binder, ref) for ref in chunk]


def _chunks(refs: Sequence[RefRow]) -> list[list[RefRow]]:
    """`refs` in runs of whole files of about CHUNK_REFS references, in the order the files come
    (a run of files keeps much of what a Binder caches per file and package in one process)."""
    by_file: dict[int, list[RefRow]] = {}
    for ref in refs:
        by_file.setdefault(ref.file_id, []).append(ref)
    chunks: list[list[RefRow]] = [[]]
    for file_refs in by_file.values():
        if len(chunks[-1]) >= CHUNK_REFS:
            chunks.append([])
        chunks[-1].extend(file_refs)
    return chunks


# What prepare_shard read in a helper for the bind_shard jobs that follow: run, graph, binder.
_PREPARED: dict[str, tuple[GraphLookup, Binder | None]] = {}
# The references a helper binds, by file, read once a run (when not simply all of a file's).
_CHOSEN: dict[str, dict[int, list[RefRow]]] = {}


def prepare_shard(run: tuple[str, str]) -> None:
    """Read the whole graph as committed, in the helper, while the caller resolves the imports."""
    token, path = run
    for lookup, _ in _PREPARED.values():
        lookup.conn.close()
    _PREPARED.clear()
    _CHOSEN.clear()
    lookup = GraphLookup(sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True))
    lookup.preload()
    _PREPARED[token] = (lookup, None)


def bind_shard(job: ShardJob) -> list[BindingRow]:
    """Bind the references of some files, in the helper prepare_shard prepared, from the
    committed index plus this run's import resolutions."""
    token, targets, files, ids, names = job
    if token not in _PREPARED:
        raise LookupError(f"no graph read for run {token}")  # the caller binds these itself
    lookup, binder = _PREPARED[token]
    if binder is None:
        if targets is None:
            raise LookupError(f"no import resolutions for run {token}")
        lookup.resolved(targets)
        binder = Binder(lookup)
        _PREPARED[token] = (lookup, binder)
    if ids is None:
        refs = refs_to_rebind(lookup.conn, None, (), files)
    else:
        if token not in _CHOSEN:
            chosen: dict[int, list[RefRow]] = {}
            for ref in refs_to_rebind(lookup.conn, ids, names):
                chosen.setdefault(ref.file_id, []).append(ref)
            _CHOSEN[token] = chosen
        refs = [ref for file_id in files for ref in _CHOSEN[token].get(file_id, [])]
    return [_row(binder, ref) for ref in refs]


def _row(binder: Binder, ref: RefRow) -> BindingRow:
    found = binder.bind(ref)
    return (found.ref_id, found.target_id, found.confidence, found.label, found.candidates)


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
