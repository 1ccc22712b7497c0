"""Vectors for the index: an embedding pass over units without one, most important first, its
progress and coverage, and the query vector a search adds to its lexical channels.

Embedding is slow next to indexing (about 10 units a second on 2 busy cores), so it never blocks an
answer: searches use whatever vectors exist and say how much of the index has them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from codefathom.embed import Embedder, EmbedderUnavailable, load_embedder, parse_spec, text_key, unit_text
from codefathom.embed.base import EmbedderSpec
from codefathom.errors import CodefathomError, EmbedderMismatch, NotIndexed, UsageError
from codefathom.search.rank import path_role
from codefathom.service.locking import EMBED_LOCK_NAME, WorkLock

if TYPE_CHECKING:
    from codefathom.config import Settings
    from codefathom.service.indexer import SyncReport
    from codefathom.store import Store

__all__ = ["Embedding", "EmbedReport", "EmbedProgress", "embedder_spec"]

BATCH_UNITS = 32  # units per embedder call and per commit: a killed pass loses at most this many
KEEP_UNLINKED = 20_000  # cached vectors no unit uses now, kept for a branch switch back
DEFINITIONS = ("class", "function", "method")
RELINK_BATCH = 500  # units per cache lookup when a sync's units get their cached vectors back
# Below this share of units with vectors, search leaves the vector channel out: the units that have
# one would outrank better answers that do not yet. On the lab (bench/vector_coverage.py), vectors at 5 and
# 20 % coverage lose to none on most query sets; at 50 % they gain overall (docs/benchmarks.md).
MIN_VECTOR_SHARE = 0.5
# progress(done, total): units with a vector so far out of those the pass set out to embed.
EmbedProgress = Callable[[int, int], None]

BACKGROUND_RETRY_S = 30.0  # a background pass that could not run (lock busy, embedder down) tries again
log = logging.getLogger("codefathom.embed")

_loaded: dict[str, Embedder | EmbedderUnavailable] = {}
_loading = threading.Lock()


@dataclass
class EmbedReport:
    embedder: str = ""
    embedded: int = 0  # units that needed the model
    reused: int = 0  # units whose text had a vector already (unchanged, or seen on another branch)
    remaining: int = 0  # units still without a vector (the pass was stopped or ran out of time)
    total: int = 0  # units in the index
    seconds: float = 0.0
    notices: list[str] = field(default_factory=list)

    @property
    def units_per_second(self) -> float:
        return self.embedded / self.seconds if self.seconds > 0 else 0.0


def embedder_spec(settings: Settings) -> EmbedderSpec | None:
    """The configured embedder: $CODEFATHOM_EMBEDDER, else `embedder` in the config, else e5onnx."""
    configured = settings.extra.get("embedder")
    return parse_spec(os.environ.get("CODEFATHOM_EMBEDDER") or (str(configured) if configured is not None else None))


def embedder_chosen(settings: Settings) -> bool:
    """Whether the embedder was chosen ($CODEFATHOM_EMBEDDER or the config), not left to the default."""
    return bool(os.environ.get("CODEFATHOM_EMBEDDER")) or settings.extra.get("embedder") is not None


def shared_embedder(spec: EmbedderSpec) -> Embedder:
    """One loaded model per process and spec (a model is tens of MB; loading it twice is waste)."""
    key = str(spec)
    with _loading:
        found = _loaded.get(key)
        if found is None or (isinstance(found, EmbedderUnavailable) and spec.backend in ("ollama", "openai")):
            try:
                found = load_embedder(spec)
            except EmbedderUnavailable as exc:
                found = exc
            _loaded[key] = found
    if isinstance(found, EmbedderUnavailable):
        raise found
    return found


class Embedding:
    """Mixin of `Codefathom`: embedding passes, vector coverage, query vectors."""

    if TYPE_CHECKING:
        settings: Settings
        _lock: threading.RLock

        @property
        def indexed(self) -> bool: ...

        def _open(self, *, create: bool) -> Store: ...

    _background: _Background | None = None
    _background_stopped = False  # the service is closed: no thread is started again
    # A read service of `serve` embeds nothing itself: its syncs wake the thread of the project's own.
    embeds_elsewhere: Callable[[], None] | None = None

    def embed(
        self, progress: EmbedProgress | None = None, *, budget_s: float | None = None, re_embed: bool = False,
        stop: threading.Event | None = None, cached_only: bool = False,
    ) -> EmbedReport:
        """Give every unit without a vector one, most important first (non-test definitions by PageRank).

        Stops after `budget_s` seconds or when `stop` is set; what is done is kept either way. When
        another process is embedding this index (a server, say), leaves the work to it.
        `cached_only` links units to vectors the cache has and leaves the rest (no model call)."""
        started = time.perf_counter()
        report = EmbedReport()
        spec = embedder_spec(self.settings)
        if spec is None:
            report.notices.append("embeddings are turned off (embedder = \"none\")")
            return report
        embedder = shared_embedder(spec)
        report.embedder = embedder.id
        with self._lock:  # not while a sync (or a search's sync) is creating or rebuilding the file
            store = self._open(create=False)
        lock = WorkLock(self.settings.index_dir, EMBED_LOCK_NAME, store, "embed")
        if not lock.acquire():
            report.notices.append(f"another process is embedding this index now ({lock.elsewhere}); it goes on there")
            with_vectors, report.total = store.vector_coverage()
            report.remaining = report.total - with_vectors
            return report
        def must_stop() -> bool:
            out_of_time = budget_s is not None and time.perf_counter() - started > budget_s
            return out_of_time or (stop is not None and stop.is_set())

        try:
            self._check_stamp(store, embedder, re_embed, report.notices)
            done = 0
            # A sync meanwhile replaces units (new ids): what it wrote is looked up again, until a
            # round finds nothing left, or nothing it listed still exists.
            while order := _by_importance(store.pending_units()):
                total = done + len(order)
                if progress is not None:
                    progress(done, total)
                handled = 0
                for start in range(0, len(order), BATCH_UNITS):
                    if must_stop():
                        break
                    embedded, reused = self._embed_batch(
                        store, embedder, order[start : start + BATCH_UNITS], cached_only
                    )
                    report.embedded += embedded
                    report.reused += reused
                    handled += embedded + reused
                    done += min(BATCH_UNITS, len(order) - start)
                    if progress is not None:
                        progress(done, total)
                if must_stop() or not handled:
                    break
        finally:
            lock.release()
        with_vectors, report.total = store.vector_coverage()
        report.remaining = report.total - with_vectors
        if report.embedded and not report.remaining:
            store.prune_vectors(KEEP_UNLINKED)
        report.seconds = time.perf_counter() - started
        return report

    def embed_in_background(self) -> None:
        """Start, or wake, this service's embedding thread (`serve` calls it after each sync)."""
        with self._lock:
            if self._background_stopped or embedder_spec_or_none(self.settings) is None:
                return
            if self._background is None:
                self._background = _Background(self)
            self._background.wake()

    def _synced(self, report: SyncReport) -> None:
        """After a sync: new units need vectors, so a background embedder (`serve`) looks again;
        without one, the units a sync rewrote get back the vectors the cache has for their text."""
        wake = self._background.wake if self._background is not None else self.embeds_elsewhere
        if wake is not None:
            if report.changed or report.units_written:
                wake()
        elif report.written_files:
            self._relink(report.written_files)

    def _relink(self, file_ids: list[int]) -> None:
        """Cached vectors for the units of these files, by text: no model call, so an edit costs a
        file's unchanged units nothing (they would otherwise wait for the next `codefathom index`)."""
        if embedder_spec_or_none(self.settings) is None:
            return
        store = self._open(create=False)
        # The index's vectors are all of the embedder it is stamped with: its id keys the cache, and
        # no model needs loading to look texts up.
        stamp = store.get_meta("embedder")
        if stamp is None:
            return
        lock = WorkLock(self.settings.index_dir, EMBED_LOCK_NAME, store, "embed")
        if not lock.acquire():
            return  # an embedding pass is running: it links them
        try:
            ids = store.pending_in_files(file_ids)
            for start in range(0, len(ids), RELINK_BATCH):
                _, keys, cached = _cache_lookup(store, stamp, ids[start : start + RELINK_BATCH])
                store.store_vectors({}, [(uid, key) for uid, key in keys.items() if key in cached])
        finally:
            lock.release()

    def stop_background_embedding(self) -> None:
        """Stop the embedding thread for good (the service is closing)."""
        with self._lock:
            self._background_stopped = True
            background, self._background = self._background, None
        if background is not None:
            background.stop()

    def vector_status(self) -> dict[str, Any]:
        """Which embedder, and how much of the index has vectors."""
        try:
            spec = embedder_spec(self.settings)
        except UsageError as exc:  # a bad config is reported here, raised by the verbs
            return {"state": "misconfigured", "reason": str(exc)}
        if spec is None:
            return {"state": "off", "embedder": "none"}
        status: dict[str, Any] = {"embedder": str(spec)}
        if not self.indexed:
            return {**status, "state": "not indexed"}
        with self._lock:
            store = self._open(create=False)
            with_vectors, total = store.vector_coverage()
            stamp = store.get_meta("embedder")
        percent = round(100.0 * with_vectors / total, 1) if total else 100.0
        status.update(with_vectors=with_vectors, units=total, percent=percent)
        if stamp:
            status["index_embedder"] = stamp
        status["state"] = "complete" if with_vectors == total else "partial"
        if self._background is not None:
            status.update(self._background.progress())
        return status

    def _query_vector(
        self, store: Store, query: str, notices: list[str], timings: dict[str, float]
    ) -> npt.NDArray[np.float32] | None:
        """The query's vector when vectors can answer it; otherwise None and, where useful, a notice."""
        try:
            spec = embedder_spec(self.settings)
        except UsageError as exc:  # a bad embedder setting must not stop lexical search
            notices.append(f"semantic search is off: {exc}")
            return None
        if spec is None:
            return None
        stamp = store.get_meta("embedder")
        if stamp is None:
            with_vectors, total = store.vector_coverage()
            if total:
                notices.append("no vectors yet: results come from the lexical and name channels"
                               " (`codefathom index` embeds, or `codefathom serve` in the background)")
            return None
        try:
            embedder = shared_embedder(spec)
        except EmbedderUnavailable as exc:
            notices.append(f"semantic search is off: {exc}")
            return None
        if embedder.id != stamp:
            if embedder_chosen(self.settings):
                notices.append(_mismatch_message(stamp, embedder.id) + " Semantic search is off until then.")
            else:
                notices.append(f"the default embedder is now {embedder.id!r}: the index's vectors are from {stamp!r}"
                               " and are made again by the next `codefathom index` (or `codefathom serve`);"
                               " semantic search is off until then")
            return None
        with_vectors, total = store.vector_coverage()
        share = with_vectors / total if total else 1.0
        if share < MIN_VECTOR_SHARE:
            # A few vectors mislead more than none: the units that have one would outrank the rest.
            notices.append(
                f"vectors cover {with_vectors:,} of {total:,} units ({100 * share:.0f}%): results are ranked by"
                f" words and names until {100 * MIN_VECTOR_SHARE:.0f}% have vectors; `codefathom index` embeds"
                " the rest, `codefathom serve` does it in the background"
            )
            return None
        t0 = time.perf_counter()
        try:
            vector = embedder.embed_query(query)
        except EmbedderUnavailable as exc:
            notices.append(f"semantic search is off for this query: {exc}")
            return None
        timings["query_embedding_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        if with_vectors < total:
            notices.append(
                f"vectors cover {with_vectors:,} of {total:,} units ({100 * share:.0f}%); `codefathom index` embeds"
                " the rest, `codefathom serve` does it in the background"
            )
        return vector

    def _check_stamp(self, store: Store, embedder: Embedder, re_embed: bool, notices: list[str]) -> None:
        stamp = store.get_meta("embedder")
        if stamp is not None and stamp != embedder.id:
            # A default that changed between versions is no choice of the user's to confirm: the
            # vectors are made again by the new default; a configured embedder asks for --re-embed.
            if not re_embed and embedder_chosen(self.settings):
                raise EmbedderMismatch(_mismatch_message(stamp, embedder.id))
            if not re_embed:
                notices.append(f"the default embedder is now {embedder.id!r}: the index's vectors from {stamp!r}"
                               " are made again")
            store.forget_vectors()
            stamp = None
        if stamp is None:
            with store.transaction():
                store.set_meta("embedder", embedder.id)
                store.set_meta("embedder_dims", str(embedder.dims))

    def _embed_batch(self, store: Store, embedder: Embedder, ids: list[int], cached_only: bool) -> tuple[int, int]:
        texts, keys, cached = _cache_lookup(store, embedder.id, ids)
        todo: dict[str, str] = {}
        for uid, key in keys.items():
            if key not in cached:
                todo.setdefault(key, texts[uid])
        new: dict[str, npt.NDArray[np.float32]] = {}
        if cached_only:
            store.store_vectors(new, [(uid, key) for uid, key in keys.items() if key in cached])
            return 0, sum(1 for key in keys.values() if key in cached)
        if todo:
            vectors = embedder.embed_documents(list(todo.values()))  # the slow part: outside every lock
            new = dict(zip(todo, vectors, strict=True))
        store.store_vectors(new, list(keys.items()))
        return len(todo), len(keys) - len(todo)


def _cache_lookup(
    store: Store, embedder_id: str, ids: list[int]
) -> tuple[dict[int, str], dict[int, str], set[str]]:
    """(text, cache key) of each of `ids` still without a vector, and the keys the cache holds."""
    units = store.units_to_embed(ids)
    texts = {u.id: unit_text(u.path, u.kind, u.qualified_name, u.signature, u.doc, u.content, u.summary) for u in units}
    keys = {uid: text_key(embedder_id, text) for uid, text in texts.items()}
    return texts, keys, set(store.cached_vectors(keys.values()))


def embedder_spec_or_none(settings: Settings) -> EmbedderSpec | None:
    try:
        return embedder_spec(settings)
    except UsageError:
        return None


class _Background:
    """A thread that embeds what a service's index lacks, woken after syncs; one pass at a time."""

    def __init__(self, service: Embedding) -> None:
        self._service = service
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._state: dict[str, Any] = {}
        self._thread = threading.Thread(target=self._run, name="codefathom-embed", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=10)  # a batch in the model finishes first (a second or two)

    def progress(self) -> dict[str, Any]:
        return dict(self._state)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                report = self._service.embed(self._on_progress, stop=self._stop)
            except NotIndexed:
                continue  # the first sync wakes this thread again
            except CodefathomError as exc:  # embedder down, another embedder's vectors, index gone
                self._state = {"background": "waiting", "reason": str(exc)}
                log.info("background embedding: %s", exc)
                self._retry_later()
                continue
            except Exception as exc:  # noqa: BLE001 - the service was closed under it, or a bug: log, retry
                self._state = {"background": "failed", "reason": repr(exc)}
                log.warning("background embedding failed: %r", exc)
                self._retry_later()
                continue
            if report.remaining and not self._stop.is_set():
                self._state = {"background": "waiting", "reason": "; ".join(report.notices)}
                self._retry_later()  # another process had the pass: look again later
            else:
                self._state = {"background": "idle", "last_pass_s": round(report.seconds, 1)}

    def _retry_later(self) -> None:
        self._stop.wait(BACKGROUND_RETRY_S)
        self._wake.set()

    def _on_progress(self, done: int, total: int) -> None:
        started = self._state.get("started_at") if self._state.get("background") == "embedding" else None
        started = started or time.time()
        rate = done / (time.time() - started) if done and time.time() > started else 0.0
        self._state = {
            "background": "embedding", "done": done, "total": total, "started_at": started,
            "units_per_second": round(rate, 1), "eta_s": round((total - done) / rate) if rate else None,
        }


def _by_importance(pending: list[tuple[int, str, str, float]]) -> list[int]:
    """Definitions in source files by PageRank first, then the rest; tests, examples and text last."""
    def key(item: tuple[int, str, str, float]) -> tuple[int, int, float, int]:
        uid, path, kind, rank = item
        tier = 0 if kind in DEFINITIONS else 1 if kind in ("module", "section") else 2
        return (path_role(path) != "source", tier, -rank, uid)

    return [item[0] for item in sorted(pending, key=key)]


def _mismatch_message(stamp: str, configured: str) -> str:
    return (
        f"this index holds vectors from the embedder {stamp!r}, but {configured!r} is configured;"
        " vectors of two embedders are never mixed. Run `codefathom index --re-embed` to replace them,"
        " or configure the embedder the index was made with."
    )
