"""An order-preserving process map for the CPU-bound half of indexing (read, hash, parse, tokenize).

The caller (the writer) stays in its own process and consumes results in job order while the
workers run ahead, at most `window` chunks. Workers are fresh interpreters running `_serve` below
with the caller's `sys.path`, not `multiprocessing` children: nothing is forked from a process
that may have threads (the MCP server), and the caller's `__main__` is never re-imported, so a
script without an `if __name__ == "__main__"` guard still works. A worker talks over its stdin
and stdout and exits when its stdin closes, which is also what happens when the parent dies.

Anything that goes wrong on a worker's side is redone in the caller, where it fails (or not)
exactly as it would have without workers.
"""

from __future__ import annotations

import importlib
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

__all__ = ["ordered_map", "worker_count", "WORKERS_ENV"]

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
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cpus))


def ordered_map(
    func: Callable[[J], R], jobs: Sequence[J], workers: int, chunk: int = 16, window: int = 24
) -> Generator[R, None, None]:
    """`func(job)` for every job, in job order; computed by `workers` processes (0: in this
    process). `func` must be a module-level function; jobs and results must pickle."""
    if workers < 1 or len(jobs) <= chunk:
        for job in jobs:
            yield func(job)
        return
    try:
        pool: _Pool[J, R] = _Pool(func, workers)
    except Exception:  # noqa: BLE001 - no way to start processes here: do the work in-process
        for job in jobs:
            yield func(job)
        return
    try:
        yield from pool.map(jobs, chunk, window)
    finally:
        pool.close()


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
        self.outstanding: list[int] = []  # chunk numbers sent and not yet answered, in order

    @property
    def alive(self) -> bool:
        return not self.outbox.closed


class _Pool(Generic[J, R]):
    def __init__(self, func: Callable[[J], R], count: int) -> None:
        self.func = func
        self.target = (func.__module__, func.__qualname__)
        # The worker imports what this process imports: this very codefathom and the same grammar
        # wheels, also when they were put on sys.path by hand.
        main = f"import sys; sys.path[:] = {sys.path!r}; from {__name__} import _serve; _serve()"
        self.workers: list[_Worker] = []
        try:
            for _ in range(count):
                process = subprocess.Popen([sys.executable, "-c", main], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                self.workers.append(_Worker(process))
        except BaseException:
            self.close()
            raise

    def map(self, jobs: Sequence[J], chunk: int, window: int) -> Iterator[R]:
        chunks = [jobs[start : start + chunk] for start in range(0, len(jobs), chunk)]
        done: dict[int, list[R] | None] = {}  # None: redo here
        sent = 0
        for index in range(len(chunks)):
            while sent < len(chunks) and sent < index + window:
                worker = self._least_busy()
                if worker is None:
                    break
                if self._send(worker, sent, chunks[sent]):
                    sent += 1
            while index not in done:
                if not self._receive(done):
                    # No live worker owes us anything: the rest is done here.
                    while sent < len(chunks):
                        done[sent] = None
                        sent += 1
            results = done.pop(index)
            if results is None:
                results = [self.func(job) for job in chunks[index]]
            yield from results

    def close(self) -> None:
        for worker in self.workers:
            # End of input, and nobody listening: the worker stops at once, also when it was
            # ahead of us (its next answer finds the pipe closed) or we are stopping early.
            worker.inbox.close()
            worker.outbox.close()
        for worker in self.workers:
            try:
                worker.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
        self.workers = []

    def _least_busy(self) -> _Worker | None:
        alive = [w for w in self.workers if w.alive]
        return min(alive, key=lambda w: len(w.outstanding)) if alive else None

    def _send(self, worker: _Worker, number: int, jobs: Sequence[J]) -> bool:
        try:
            worker.inbox.send_bytes(pickle.dumps((self.target, number, list(jobs)), pickle.HIGHEST_PROTOCOL))
        except (OSError, ValueError, pickle.PicklingError):
            self._lose(worker, {})
            return False
        worker.outstanding.append(number)
        return True

    def _receive(self, done: dict[int, list[R] | None]) -> bool:
        """Take at least one answer; False when no live worker has work outstanding."""
        busy = [w for w in self.workers if w.outstanding and w.alive]
        if not busy:
            return False
        for conn in wait([w.outbox for w in busy]):
            worker = next(w for w in busy if w.outbox is conn)
            try:
                number, ok, payload = pickle.loads(worker.outbox.recv_bytes())
            except (EOFError, OSError, pickle.UnpicklingError, ValueError, TypeError):
                self._lose(worker, done)
                continue
            if number not in worker.outstanding:
                self._lose(worker, done)
                continue
            worker.outstanding.remove(number)
            done[number] = payload if ok else None
        return True

    def _lose(self, worker: _Worker, done: dict[int, list[R] | None]) -> None:
        """A worker died or its pipe broke: what it owed is redone here."""
        for number in worker.outstanding:
            done[number] = None
        worker.outstanding.clear()
        worker.inbox.close()
        worker.outbox.close()
        if worker.process.poll() is None:
            worker.process.kill()


def _serve() -> None:
    """A worker's life: answer chunks from stdin on stdout until stdin closes.

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
    answers.put(None)
    sender.join()


def _resolve(module: str, qualname: str) -> Callable[[Any], Any]:
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found  # type: ignore[no-any-return]
