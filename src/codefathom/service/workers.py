"""Worker processes for the CPU-bound half of indexing: an order-preserving map (read, hash, parse,
tokenize), then, from the same processes, a helper for jobs that build on each other (binding part
of the references, see graph.rebind).

The caller (the writer) stays in its own process and consumes results in job order while the
workers run ahead, at most `window` chunks. Workers are fresh interpreters running `_serve` below
with the caller's `sys.path`, not `multiprocessing` children: nothing is forked from a process
that may have threads (the MCP server), and the caller's `__main__` is never re-imported, so a
script without an `if __name__ == "__main__"` guard still works. A worker talks over its stdin
and stdout and exits when its stdin closes; when the parent dies it ends at once, without working
through the jobs still in its pipe (`orphans.die_with_parent`).

Anything that goes wrong on a worker's side is redone in the caller, where it fails (or not)
exactly as it would have without workers.
"""

from __future__ import annotations

import gc
import importlib
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Generator, Sequence
from multiprocessing.connection import Connection, wait
from types import EllipsisType
from typing import Any, Generic, TypeVar

__all__ = ["ordered_map", "worker_count", "usable_cpus", "WORKERS_ENV", "WorkerPool", "Helper", "Pending"]

J = TypeVar("J")
R = TypeVar("R")

# CODEFATHOM_WORKERS=0 parses in-process; a number sets how many worker processes parse.
WORKERS_ENV = "CODEFATHOM_WORKERS"
MAX_WORKERS = 4


def worker_count() -> int:
    """Worker processes to use: the environment's cap, else the usable CPUs (at most MAX_WORKERS)."""
    if os.name != "posix":
        return 0  # the pipes below are POSIX file descriptors
    raw = os.environ.get(WORKERS_ENV, "").strip()
    if raw:
        try:
            return max(0, int(raw))
        except ValueError:
            pass
    return max(1, min(MAX_WORKERS, usable_cpus()))


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def ordered_map(
    func: Callable[[J], R], jobs: Sequence[J], workers: int, chunk: int = 16, window: int = 24
) -> Generator[R, None, None]:
    """`func(job)` for every job, in job order; computed by `workers` processes (0: in this
    process). `func` must be a module-level function; jobs and results must pickle."""
    if workers < 1 or len(jobs) <= chunk:
        for job in jobs:
            yield func(job)
        return
    pool = WorkerPool(workers)
    try:
        yield from pool.map(func, jobs, chunk, window)
    finally:
        pool.close()


class Pending(Generic[R]):
    """A job handed to a worker (`Helper.submit`): `ready()` says without waiting whether it is
    over, `result()` waits for it."""

    def __init__(self, pool: WorkerPool, func: Callable[[J], R], job: J, number: int) -> None:
        self._pool = pool
        self._redo: Callable[[], R] = lambda: func(job)
        self._number = number
        self._over = False
        self._answer: list[Any] | None = None  # None: no worker did it

    def ready(self) -> bool:
        """Whether the job is over (done by the worker, or given up on: then `result()` does it)."""
        if not self._over and self._pool.poll(self._number):
            self._answer, self._over = self._pool.wait_for(self._number), True
        return self._over

    def answered(self) -> bool:
        """Whether a worker did the job (waits for it to be over)."""
        self._wait()
        return self._answer is not None

    def result(self) -> R:
        """The job's result; computed here when no worker could (or did) do it, so that it fails,
        or not, exactly as it would have without workers."""
        self._wait()
        return self._redo() if self._answer is None else self._answer[0]

    def _wait(self) -> None:
        if not self._over:
            self._answer, self._over = self._pool.wait_for(self._number), True


class Helper:
    """One worker of a pool, for jobs that build on each other: each runs after the ones submitted
    before it, in the same process, so a job may use what an earlier one left there."""

    def __init__(self, pool: WorkerPool, worker: _Worker | None) -> None:
        self._pool = pool
        self._worker = worker

    def submit(self, func: Callable[[J], R], job: J) -> Pending[R]:
        """Hand `func(job)` to the worker and return at once."""
        number = self._pool._start(_target(func), [job], self._worker)
        return Pending(self._pool, func, job, number)


class WorkerPool:
    """Worker processes that outlive one map: the indexer parses with them, then binds with them.

    Starting the processes can fail (no way to start them here): the pool then has none, and
    every job is done in the caller."""

    def __init__(self, count: int) -> None:
        self.workers: list[_Worker] = []
        self._done: dict[int, list[Any] | None] = {}  # None: redo here
        self._next = 0  # message numbers, unique over the pool's life
        if count < 1:
            return
        # The worker imports what this process imports: this very codefathom and the same grammar
        # wheels, also when they were put on sys.path by hand.
        # It ends with this process, from its first moment on: else a worker started just before
        # this process is killed would import everything and parse the chunks in its pipe for nobody.
        main = (
            f"import sys; sys.path[:] = {sys.path!r}; from codefathom.orphans import die_with_parent;"
            f" die_with_parent({os.getpid()}); from {__name__} import _serve; _serve()"
        )
        try:
            for _ in range(count):
                process = subprocess.Popen([sys.executable, "-c", main], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                self.workers.append(_Worker(process))
        except BaseException as exc:
            self.close()
            if not isinstance(exc, Exception):
                raise  # (Ctrl-C); any other failure means no way to start processes here: work in-process

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        return any(w.alive for w in self.workers)

    def map(
        self, func: Callable[[J], R], jobs: Sequence[J], chunk: int = 16, window: int = 24
    ) -> Generator[R, None, None]:
        """`func(job)` for every job, in job order, at most `window` chunks ahead of the caller."""
        target = _target(func)
        chunks = [jobs[start : start + chunk] for start in range(0, len(jobs), chunk)]
        numbers: list[int] = []
        for index in range(len(chunks)):
            while len(numbers) < len(chunks) and len(numbers) < index + window:
                numbers.append(self._start(target, chunks[len(numbers)]))
            results: list[R] | None = self.wait_for(numbers[index])
            if results is None:
                results = [func(job) for job in chunks[index]]
            yield from results

    def helper(self) -> Helper:
        """The least busy worker, for a sequence of jobs (none alive: they are done here)."""
        return Helper(self, self._least_busy())

    def poll(self, number: int) -> bool:
        """Take the answers that came in, without waiting; whether message `number` is over."""
        if number not in self._done:
            self._receive(timeout=0)
        return number in self._done

    def wait_for(self, number: int) -> list[Any] | None:
        """The answers to message `number` (None: redo it here)."""
        while number not in self._done:
            if not self._receive():
                # No live worker owes us anything: what is still unanswered is done here.
                return None
        return self._done.pop(number)

    def close(self) -> None:
        for worker in self.workers:
            # End of input, and nobody listening: the worker stops at once, also when it was
            # ahead of us (its next answer finds the pipe closed) or we are stopping early.
            worker.inbox.close()
            worker.outbox.close()
            if worker.outstanding and worker.process.poll() is None:
                worker.process.kill()  # busy with work nobody wants any more (it only reads)
        for worker in self.workers:
            try:
                worker.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
        self.workers = []

    def _start(self, target: tuple[str, str], jobs: Sequence[Any], to: _Worker | None | EllipsisType = ...) -> int:
        """Send jobs to a worker (`to`; by default the least busy live one); their message number,
        answered None at once when no worker took them."""
        number = self._next
        self._next += 1
        if to is ...:
            while (worker := self._least_busy()) is not None:
                if self._send(worker, number, target, jobs):
                    return number
        elif to is not None and to.alive and self._send(to, number, target, jobs):
            return number
        self._done[number] = None
        return number

    def _least_busy(self) -> _Worker | None:
        alive = [w for w in self.workers if w.alive]
        return min(alive, key=lambda w: len(w.outstanding)) if alive else None

    def _send(self, worker: _Worker, number: int, target: tuple[str, str], jobs: Sequence[Any]) -> bool:
        try:
            worker.inbox.send_bytes(pickle.dumps((target, number, list(jobs)), pickle.HIGHEST_PROTOCOL))
        except (OSError, ValueError, pickle.PicklingError):
            self._lose(worker)
            return False
        worker.outstanding.append(number)
        return True

    def _receive(self, timeout: float | None = None) -> bool:
        """Take at least one answer (any there are, with a timeout); False when no live worker has
        work outstanding."""
        busy = [w for w in self.workers if w.outstanding and w.alive]
        if not busy:
            return False
        for conn in wait([w.outbox for w in busy], timeout):
            worker = next(w for w in busy if w.outbox is conn)
            try:
                number, ok, payload = pickle.loads(worker.outbox.recv_bytes())
            except (EOFError, OSError, pickle.UnpicklingError, ValueError, TypeError):
                self._lose(worker)
                continue
            if number not in worker.outstanding:
                self._lose(worker)
                continue
            worker.outstanding.remove(number)
            self._done[number] = payload if ok else None
        return True

    def _lose(self, worker: _Worker) -> None:
        """A worker died or its pipe broke: what it owed is redone here."""
        for number in worker.outstanding:
            self._done[number] = None
        worker.outstanding.clear()
        worker.inbox.close()
        worker.outbox.close()
        if worker.process.poll() is None:
            worker.process.kill()


class _Worker:
    __slots__ = ("process", "inbox", "outbox", "outstanding")

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        # Connections frame each message (length + pickle); they own duplicates of the pipe ends.
        self.inbox = Connection(os.dup(process.stdin.fileno()), readable=False)
        self.outbox = Connection(os.dup(process.stdout.fileno()), writable=False)
        process.stdin.close()
        process.stdout.close()
        self.outstanding: list[int] = []  # message numbers sent and not yet answered, in order

    @property
    def alive(self) -> bool:
        return not self.outbox.closed


def _target(func: Callable[..., Any]) -> tuple[str, str]:
    return func.__module__, func.__qualname__


def _serve() -> None:
    """A worker's life: answer chunks from stdin on stdout until stdin closes (or the parent dies).

    Answers are pickled here and written by a separate thread, so a parent busy writing to its
    database does not stop this process from working through the chunks it was given.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it stops us
    inbox = Connection(os.dup(0), writable=False)
    outbox = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)  # a stray print must not corrupt the answers
    answers: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def send_all() -> None:
        while (data := answers.get()) is not None:
            try:
                outbox.send_bytes(data)
            except OSError:
                os._exit(0)  # the parent is gone

    sender = threading.Thread(target=send_all, daemon=True)
    sender.start()
    # The cyclic collector, run by allocations, walked the parse trees' objects and every module's
    # again and again (a fifth of a parse worker's time). It runs once after each chunk instead,
    # over what the chunk left alive: what outlives a collection (modules, compiled queries, caches,
    # a helper's graph) is frozen out of the next ones, so the youngest generation holds all there
    # is to look at. A full collection would find no more and also empties the interpreter's free
    # lists, which the next chunk then fills again: over Go's source tree (8,176 files) a worker
    # took 24.7-30.8 s of CPU collecting the youngest generation, 31.4-34.8 s collecting all of
    # them (bench/parse_cpu.py).
    gc.disable()
    gc.collect()
    gc.freeze()
    functions: dict[tuple[str, str], Callable[[Any], Any]] = {}
    while True:
        try:
            target, number, jobs = pickle.loads(inbox.recv_bytes())
        except (EOFError, OSError):
            break
        try:
            func = functions.get(target)
            if func is None:
                func = functions[target] = _resolve(*target)
            data = pickle.dumps((number, True, [func(job) for job in jobs]), pickle.HIGHEST_PROTOCOL)
        except BaseException:  # noqa: BLE001 - the parent redoes the chunk and sees the real error
            data = pickle.dumps((number, False, None), pickle.HIGHEST_PROTOCOL)
        answers.put(data)
        del data
        gc.collect(0)
        gc.freeze()
    answers.put(None)
    sender.join()


def _resolve(module: str, qualname: str) -> Callable[[Any], Any]:
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found  # type: ignore[no-any-return]
