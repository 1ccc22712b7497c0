"""The code graph: imports resolved to files, references bound to the definitions they mean.

`rebind(lookup, changed_file_ids, names, helper, configs, fork)` refreshes what a sync may have
changed, changed config files (`is_config`) included; given a helper process, it shares the binding
of many references with it (`prepare_shard`, `bind_shard`), else, allowed to, with a forked child.
`recompute_ranks(lookup)` recomputes PageRank.
"""

from __future__ import annotations

import bisect
import mmap
import os
import pickle
import select
import signal
import struct
import tempfile
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

from codefathom.graph.manifests import governed_imports, is_config
from codefathom.graph.modules import remembering, resolve_import, same_package
from codefathom.graph.rank import RankEdges, pagerank, rank_inputs_of
from codefathom.graph.resolve import Binder, label_for
from codefathom.graph.specs import spec_for
from codefathom.graphsource import BindingRow, BoundRef, GraphLookup, ImportResolution, ImportRow, RefRow, RefSpan
from codefathom.orphans import die_with_parent

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
# References bound at a time: each batch is read (or taken from those the lookup holds), bound and
# saved before the next, by this process and by a forked child alike, so that what binding holds
# at once does not grow with the project (a batch's rows, its bindings, the binder's caches).
BIND_BATCH = 20000
# PageRank's edges, summed from every reference as bound, of a lookup whose last rebind bound them all.
_BOUND: weakref.WeakKeyDictionary[GraphLookup, RankEdges] = weakref.WeakKeyDictionary()

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
    child process bind part of many references (see `_forked`; only for a caller with no other
    thread, which a forked child could find holding a lock). Which process binds a
    reference does not change its binding: a Binder's answer depends on the index, not on what
    it bound before (checked on the benchmark corpora: any order of the references binds alike)."""
    ids = None if file_ids is None else sorted(set(file_ids))
    wanted = sorted(set(names))
    # (Which ones does not depend on the imports.) Every reference is bound a batch at a time, in id
    # order: a lookup that followed every write knows each file's run of ids (and holds the
    # references themselves while there are few); otherwise the index says.
    refs = _Refs(lookup, None if ids is None else lookup.refs_to_rebind(ids, wanted))
    run = f"{os.getpid()}-{time.monotonic_ns()}"
    # (A helper reads the references from the index, where unwritten ones are not yet.)
    shared = helper is not None and refs.count >= SHARD_MIN_REFS and not lookup.refs_unwritten
    prepared = helper.submit(prepare_shard, (run, lookup.reader())) if helper and shared else None
    if ids is None:
        lookup.preload()
    imports = lookup.imports_needing_resolution(ids)
    if ids is not None and configs:
        seen = {row.id for row in imports}
        imports += [row for row in governed_imports(lookup, configs) if row.id not in seen]
    if ids is not None:  # (a few files: what their imports may name, in one read)
        lookup.prefetch_names(_imported_names(imports), qualified=True)
    targets: list[ImportResolution] = []
    with remembering(lookup):
        for row in imports:
            target = resolve_import(lookup, row, spec_for(lookup.language_of(row.file_id)).module_system)
            targets.append((row.id, target.file_id, target.symbol_id, target.external, target.module))
    # Only what changed is written: the imports of every file may need resolving again (a new file
    # may resolve an external one), and most lead where they did.
    lookup.save_import_targets([target for row, target in zip(imports, targets, strict=True) if _moves(row, target)])
    lookup.resolved(targets)  # the binder reads the resolutions just stored, for every file it visits
    if ids is not None:
        moved = _moved(lookup, imports, targets, ids)
        if moved:  # their references may now mean something else: bind them all again
            ids = sorted(set(ids) | moved)
            refs = _Refs(lookup, lookup.refs_to_rebind(ids, wanted))
    if refs.held is not None and not lookup.following:  # (some files: what they name, in a few reads)
        lookup.prefetch_files({ref.file_id for ref in refs.held})
        lookup.prefetch_names({ref.name for ref in refs.held})
        lookup.prefetch_names(_dotted_prefixes(ref.scope for ref in refs.held if ref.scope), qualified=True)
    binder = Binder(lookup)
    # PageRank's edges are summed as the references are bound when all of them are.
    edges = RankEdges(lookup) if ids is None else None
    if fork and helper is None and refs.count >= FORK_MIN_REFS and hasattr(os, "fork"):
        _forked(binder, refs, lookup.database(), edges)
    elif helper is not None and prepared is not None:
        _share(binder, refs, helper, prepared, (run, targets, [], ids, wanted), edges)
    else:
        _bind(binder, refs, _batches(refs.spans, BIND_BATCH), edges)
    # (Only a binding labels reads local: after one of some files, only theirs can be there.)
    lookup.drop_local_reads(None if ids is None or refs.held is None else sorted({r.file_id for r in refs.held}))
    _BOUND.pop(lookup, None)
    if edges is not None:
        _BOUND[lookup] = edges
    return refs.count


class _Refs:
    """The references a binding run binds, in id order, by file (`spans`), handed out a run of ids
    at a time: from a list given or held by the lookup, else read from the index as asked."""

    def __init__(self, lookup: GraphLookup, chosen: list[RefRow] | None) -> None:
        self.lookup = lookup
        # (A chosen few come in the order the index gave them; those a lookup held, in id order.)
        self.held = sorted(chosen, key=lambda ref: ref.id) if chosen is not None else (
            lookup.written_refs if lookup.following else None
        )
        if self.held is not None:
            self.ids = [ref.id for ref in self.held]
            self.spans = _spans(self.held)
        else:
            self.spans = lookup.written_spans if lookup.following else lookup.ref_spans()
        self.count = sum(span[3] for span in self.spans)

    def between(self, first: int, last: int) -> list[RefRow]:
        if self.held is None:  # through the lookup's connection: a forked child's is its own
            return self.lookup.refs_between(first, last)
        return self.held[bisect.bisect_left(self.ids, first) : bisect.bisect_right(self.ids, last)]


def _moves(row: ImportRow, target: ImportResolution) -> bool:
    """Whether resolving `row` gave another answer than the one it holds."""
    _, file_id, symbol_id, external, module = target
    return (row.target_file_id, row.target_symbol_id, bool(row.external), bool(row.binds_module)) != (
        file_id, symbol_id, bool(external), bool(module)
    )


def _imported_names(imports: Sequence[ImportRow]) -> set[str]:
    """The qualified names resolving these imports may look up: each module, each of its dotted
    prefixes, and the module's member an import names."""
    names = _dotted_prefixes(row.module for row in imports)
    names.update(f"{row.module}.{row.name}" for row in imports if row.name)
    return names


def _dotted_prefixes(names: Iterable[str]) -> set[str]:
    """Each name and each of its dotted prefixes (`a.b.c`: `a`, `a.b`, `a.b.c`)."""
    found: set[str] = set()
    for name in names:
        parts = name.split(".")
        found.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return found


def _spans(refs: Sequence[RefRow]) -> list[RefSpan]:
    """Each file's run of the references (in id order) as a span: first and last id, how many."""
    spans: list[RefSpan] = []
    for ref in refs:
        if spans and spans[-1][0] == ref.file_id:
            file_id, first, _, count = spans[-1]
            spans[-1] = (file_id, first, ref.id, count + 1)
        else:
            spans.append((ref.file_id, ref.id, ref.id, 1))
    return spans


def _batches(spans: Sequence[RefSpan], size: int) -> list[tuple[int, int]]:
    """(first id, last id) of runs of at most `size` references: whole files, a file with more than
    `size` cut into parts (ids of a file's references run without another file's in between)."""
    batches: list[tuple[int, int]] = []
    first, last, count = 0, 0, 0
    for _, start, end, number in spans:
        if count and count + number > size:
            batches.append((first, last))
            count = 0
        if number > size:  # parts of `size` ids hold at most `size` references
            batches += [(low, min(end, low + size - 1)) for low in range(start, end + 1, size)]
            continue
        first, last, count = (start if not count else first), end, count + number
    if count:
        batches.append((first, last))
    return batches


def _bind(binder: Binder, refs: _Refs, batches: Iterable[tuple[int, int]], edges: RankEdges | None) -> None:
    """Bind and save the references of `batches` (see _batches) here, one after the other."""
    for first, last in batches:
        batch = refs.between(first, last)
        rows = [_row(binder, ref) for ref in batch]
        binder.lookup.save_bindings(rows)
        if edges is not None:
            edges.add(_edges(batch, rows))
        binder.forget()


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


def recompute_ranks(lookup: GraphLookup, bound: RankEdges | None = None) -> None:
    """Recompute PageRank of every file and symbol; call inside the write transaction. `bound`:
    the edges summed as every reference was bound, when not by the lookup's last rebind."""
    if bound is None:
        bound = _BOUND.get(lookup)
    if bound is not None:  # every reference was bound just now: no need to read them back
        files, file_edges, symbols, symbol_edges = rank_inputs_of(lookup, bound)
    else:
        files, file_edges, symbols, symbol_edges = lookup.rank_inputs()
    lookup.save_ranks(pagerank(files, file_edges), pagerank(symbols, symbol_edges))


def _share(
    binder: Binder, refs: _Refs, helper: Helper, prepared: Pending[None], job: ShardJob, edges: RankEdges | None
) -> None:
    """Bind `refs` here from the first files on while the helper, once it has read the graph,
    binds from the last files back, HELPER_AHEAD jobs at a time; every part is saved as it is bound."""
    run, targets, _, ids, names = job
    lookup = binder.lookup
    chunks = _chunks(refs.spans)
    front, back = 0, len(chunks)  # this process binds chunks[front:back]; the helper took the rest
    sent: list[tuple[int, Pending[list[BindingRow]]]] = []
    usable = True
    while front < back:
        if usable and prepared.ready() and not prepared.answered():
            usable = False  # a helper that could not read the graph gets nothing
        if usable and prepared.ready():
            for index, pending in [item for item in sent if item[1].ready()]:
                sent.remove((index, pending))
                lookup.save_bindings(_helped(binder, refs, chunks[index], pending))
            while len(sent) < HELPER_AHEAD and back - 1 > front:
                back -= 1
                files = [span[0] for span in chunks[back]]
                sent.append((back, helper.submit(bind_shard, (run, targets, files, ids, names))))
                targets = None  # the helper keeps them
        _bind(binder, refs, _batches(chunks[front], BIND_BATCH), edges)
        front += 1
    for index, pending in sent:
        lookup.save_bindings(_helped(binder, refs, chunks[index], pending))
    if edges is not None:  # the helper's part comes after this process's: its edges, as saved, in id order
        for chunk in chunks[back:]:
            edges.add(lookup.bound_edges(chunk[0][1], chunk[-1][2]))


def _forked(binder: Binder, refs: _Refs, database: str, edges: RankEdges | None) -> None:
    """Bind the references in this process and a forked child at once, batch by batch: this process
    from the first batches on, the child from the last ones back, until they meet. Neither waits
    long for the other however fast each turns out (the child writes to pages it shares with this
    process, which copies them; another job on the machine may take a core from either): on the
    28k-file monorepo, with 55 % of the references the child's, this process waited 18 s of 46.

    The child has the graph this process read without reading it again. It reads the index, where it
    must, through a connection of its own, and appends its bindings a batch at a time to a file
    (`_Spool`), which this process saves from between its own batches, so that little is left to
    save once they meet. PageRank's edges are summed in batch order, as a single process sums them:
    the child's after this process's. A batch the child did not bind, or not wholly (it failed, or
    was stopped for taking too long), is bound here."""
    batches = _batches(refs.spans, BIND_BATCH)
    spool = _Spool()
    claims = mmap.mmap(-1, 16)  # shared: [0] one past the batch this process takes, [1] the child's last
    _claim(claims, _OURS, 0)
    _claim(claims, _THEIRS, len(batches))
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
            binder.lookup.reconnect_read_only(database)
            _bind_from_the_back(binder, refs, batches, claims, spool)
            with os.fdopen(writer, "wb") as out:
                out.write(b"done")
            status = 0
        finally:
            os._exit(status)
    os.close(writer)
    lookup = binder.lookup
    started = time.monotonic()
    taken = 0
    with spool, claims:
        while True:
            _claim(claims, _OURS, taken + 1)  # say so first, then look whether the child took it already
            if taken >= _claimed(claims, _THEIRS):
                break
            _bind(binder, refs, batches[taken : taken + 1], edges)
            taken += 1
            spool.save_new(lookup)
        # A child stuck (a lock some native thread held when it was forked) must not hang the sync:
        # given as long again as this process took, and then some, it is killed and its part done here.
        _receive(reader, pid, deadline=time.monotonic() + FORK_PATIENCE + 4 * (time.monotonic() - started))
        os.waitpid(pid, 0)
        spool.save_new(lookup)  # (whole batches only: what a child killed midway wrote of one is not)
        for index in range(taken, len(batches)):  # (a batch both took is this process's)
            if index in spool.saved:
                if edges is not None:
                    edges.add(spool.edges(index))
            else:
                _bind(binder, refs, batches[index : index + 1], edges)


_OURS, _THEIRS = 0, 1  # slots of the claims shared with a forked child


def _claim(claims: mmap.mmap, slot: int, value: int) -> None:
    struct.pack_into("<q", claims, slot * 8, value)


def _claimed(claims: mmap.mmap, slot: int) -> int:
    return int(struct.unpack_from("<q", claims, slot * 8)[0])


def _bind_from_the_back(
    binder: Binder, refs: _Refs, batches: Sequence[tuple[int, int]], claims: mmap.mmap, spool: _Spool
) -> None:
    """The child's part: the last batch not yet taken, and the one before, ... until this process has
    claimed the next (each process writes its own claim before reading the other's, so at worst
    both bind one batch, which this process keeps, or neither does, which it binds after)."""
    index = len(batches)
    while True:
        index -= 1
        _claim(claims, _THEIRS, index)
        if index < _claimed(claims, _OURS):
            return
        batch = refs.between(*batches[index])
        rows = [_row(binder, ref) for ref in batch]
        spool.append(index, rows, _edges(batch, rows))
        binder.forget()


class _Spool:
    """A forked child's bindings, a batch at a time, in a file both processes have open: the child
    appends whole records (index, lengths, the rows' pickle, the edges' pickle), this process reads
    them at offsets (os.pread: the file's shared position is the child's alone)."""

    _HEADER = struct.Struct("<qqq")

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # on disk, not held in either process
        self._fd = self._file.fileno()
        self._read = 0  # the offset up to which this process has read
        self.saved: dict[int, tuple[int, int]] = {}  # batch -> (offset, length) of its edges

    def __enter__(self) -> _Spool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def append(self, index: int, rows: list[BindingRow], bound: list[BoundRef]) -> None:
        """(The child.)"""
        rows_data = pickle.dumps(rows, pickle.HIGHEST_PROTOCOL)
        edges_data = pickle.dumps(bound, pickle.HIGHEST_PROTOCOL)
        data = memoryview(self._HEADER.pack(index, len(rows_data), len(edges_data)) + rows_data + edges_data)
        while data:
            data = data[os.write(self._fd, data) :]

    def save_new(self, lookup: GraphLookup) -> None:
        """Save the bindings of every whole batch the child appended since the last call."""
        size = os.fstat(self._fd).st_size
        header = self._HEADER.size
        while self._read + header <= size:
            index, rows_length, edges_length = self._HEADER.unpack(os.pread(self._fd, header, self._read))
            start = self._read + header
            if start + rows_length + edges_length > size:
                return  # being written
            lookup.save_bindings(pickle.loads(os.pread(self._fd, rows_length, start)))
            self.saved[index] = (start + rows_length, edges_length)
            self._read = start + rows_length + edges_length

    def edges(self, index: int) -> list[BoundRef]:
        offset, length = self.saved[index]
        return pickle.loads(os.pread(self._fd, length, offset))  # type: ignore[no-any-return]


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


def _helped(binder: Binder, refs: _Refs, chunk: list[RefSpan], pending: Pending[list[BindingRow]]) -> list[BindingRow]:
    """A helper's bindings of a chunk, or this process's when the helper died on it."""
    if pending.answered():
        return pending.result()
    return [_row(binder, ref) for first, last in _batches(chunk, BIND_BATCH) for ref in refs.between(first, last)]


def _chunks(spans: Sequence[RefSpan]) -> list[list[RefSpan]]:
    """`spans` in runs of whole files of about CHUNK_REFS references, in the order the files come
    (a run of files keeps much of what a Binder caches per file and package in one process)."""
    chunks: list[list[RefSpan]] = [[]]
    count = 0
    for span in spans:
        if count >= CHUNK_REFS:
            chunks.append([])
            count = 0
        chunks[-1].append(span)
        count += span[3]
    return chunks


# What prepare_shard read in a helper for the bind_shard jobs that follow: run, graph, binder.
_PREPARED: dict[str, tuple[GraphLookup, Binder | None]] = {}
# The references a helper binds, by file, read once a run (when not simply all of a file's).
_CHOSEN: dict[str, dict[int, list[RefRow]]] = {}


def prepare_shard(run: tuple[str, Callable[[], GraphLookup]]) -> None:
    """Read the whole graph as committed, in the helper, while the caller resolves the imports."""
    token, open_reader = run
    for lookup, _ in _PREPARED.values():
        lookup.close()
    _PREPARED.clear()
    _CHOSEN.clear()
    lookup = open_reader()
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
        refs = lookup.refs_to_rebind(None, (), files)
    else:
        if token not in _CHOSEN:
            chosen: dict[int, list[RefRow]] = {}
            for ref in lookup.refs_to_rebind(ids, names):
                chosen.setdefault(ref.file_id, []).append(ref)
            _CHOSEN[token] = chosen
        refs = [ref for file_id in files for ref in _CHOSEN[token].get(file_id, [])]
    return [_row(binder, ref) for ref in refs]


def _row(binder: Binder, ref: RefRow) -> BindingRow:
    found = binder.bind(ref)
    return (found.ref_id, found.target_id, found.confidence, found.label, found.candidates)


def _edges(refs: Sequence[RefRow], bindings: Sequence[BindingRow]) -> list[BoundRef]:
    """(file, scope, target, confidence) of every bound reference of a batch (both in id order)."""
    return [
        (ref.file_id, ref.scope, target, confidence)
        for ref, (_, target, confidence, _, _) in zip(refs, bindings, strict=True)
        if target is not None
    ]
