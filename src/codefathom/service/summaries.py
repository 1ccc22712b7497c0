"""Unit summaries (`codefathom summarize`): one sentence per definition by a configured model,
cached by the unit's text and the model, then a search field and part of the text a unit is embedded as.

Off unless `[summaries]` names a provider: nothing here touches the network otherwise. A run asks
about the definitions without a summary, most important first (source before tests, classes,
functions and methods by PageRank), each distinct text once; every batch of answers is committed,
so a run stopped (Ctrl-C, the endpoint gone) keeps what it wrote and the next one goes on from there.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codefathom.errors import CodefathomError, SummarizerUnavailable, UsageError
from codefathom.search.roles import path_role
from codefathom.service.locking import WorkLock
from codefathom.store import SUMMARY_MODEL, NewSummary, SummaryCandidate, SummaryCoverage
from codefathom.summarize import (
    MAX_OUTPUT_TOKENS_ESTIMATE,
    SYSTEM,
    Summarizer,
    SummaryConfig,
    clean_reply,
    estimate_tokens,
    load_summarizer,
    summary_config,
    unit_prompt,
)
from codefathom.tokens import searchable_text

if TYPE_CHECKING:
    from codefathom.config import Settings
    from codefathom.store import Store

__all__ = ["SummaryVerbs", "SummarizeReport", "SummaryProgress", "SUMMARISED_KINDS", "summaries_config"]

SUMMARISED_KINDS = ("class", "function", "method")
SUMMARY_LOCK_NAME = "summarize.lock"  # one run per index: two would ask the endpoint twice
COMMIT_EVERY = 16  # answers per transaction: a stopped run loses at most the requests in flight
# progress(done, total, tokens in, tokens out)
SummaryProgress = Callable[[int, int, int, int], None]

NOT_CONFIGURED = (
    "summaries are off: add a [summaries] table naming an endpoint to .codefathom.toml, e.g."
    ' provider = "ollama" and model = "qwen2.5-coder:7b" (providers: ollama, openai, anthropic; see the README)'
)


@dataclass
class SummarizeReport:
    model: str = ""
    url: str = ""
    dry_run: bool = False
    planned: int = 0  # distinct texts this run set out to summarise
    written: int = 0  # summaries the endpoint wrote
    units_taken: int = 0  # units that took them (one text can be several units')
    empty: int = 0  # answers with no sentence in them, not kept
    left: int = 0  # texts still without a summary after this run (past the limit, or stopped)
    skipped: dict[str, int] = field(default_factory=dict)  # candidates left out, by reason
    tokens_in: int = 0  # sent (as the endpoint counted them); estimated beforehand on a dry run
    tokens_out: int = 0
    seconds: float = 0.0
    cost: float | None = None  # dollars, when [summaries] gives prices
    stopped: str = ""  # why the run ended early ('' when it ran to its end)
    coverage: SummaryCoverage | None = None
    embed_after: int = 0  # units whose vector is made again with their summary
    notices: list[str] = field(default_factory=list)

    @property
    def units_per_second(self) -> float:
        return self.written / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "model": self.model, "url": self.url, "dry_run": self.dry_run, "planned": self.planned,
            "written": self.written, "units_taken": self.units_taken, "empty": self.empty, "left": self.left,
            "skipped": self.skipped, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
            "seconds": round(self.seconds, 2), "units_per_second": round(self.units_per_second, 2),
        }
        if self.cost is not None:
            data["cost_usd"] = round(self.cost, 4)
        if self.stopped:
            data["stopped"] = self.stopped
        if self.coverage is not None:
            data["coverage"] = coverage_json(self.coverage)
        if self.embed_after:
            data["to_embed_again"] = self.embed_after
        if self.notices:
            data["notices"] = self.notices
        return data

    def to_text(self) -> str:
        lines = [f"# {n}" for n in self.notices]
        skipped = ", ".join(f"{n:,} {why}" for why, n in self.skipped.items() if n)
        cost = f" (about ${self.cost:.2f})" if self.cost is not None else ""
        if self.dry_run:
            lines.append(
                f"would summarise {self.planned:,} units with {self.model} at {self.url}: about"
                f" {self.tokens_in:,} tokens sent and {self.tokens_out:,} written{cost}"
                + (f"; {self.left:,} more past the limit" if self.left else "")
            )
        else:
            rate = f", {self.units_per_second:.1f} units/s" if self.written else ""
            lines.append(
                f"summarised {self.written:,} of {self.planned:,} units with {self.model}"
                f" in {self.seconds:.1f} s{rate}: {self.tokens_in:,} tokens sent, {self.tokens_out:,} written{cost}"
            )
            if self.empty:
                lines.append(f"{self.empty:,} answers held no sentence and were not kept")
            if self.left:
                lines.append(f"{self.left:,} units still without a summary: `codefathom summarize` goes on")
        if skipped:
            lines.append(f"left out: {skipped}")
        if self.coverage is not None:
            lines.append(coverage_text(self.coverage))
        return "\n".join(lines)


def coverage_json(coverage: SummaryCoverage) -> dict[str, Any]:
    return {
        "model": coverage.model, "with_summary": coverage.with_summary, "definitions": coverage.definitions,
        "units": coverage.units, "tokens_in": coverage.tokens_in, "tokens_out": coverage.tokens_out,
    }


def coverage_text(coverage: SummaryCoverage) -> str:
    return (
        f"summaries: {coverage.with_summary:,} of {coverage.units:,} units"
        f" ({coverage.definitions:,} classes, functions and methods)"
        + (f" by {coverage.model}" if coverage.model else "")
    )


def summaries_config(settings: Settings) -> SummaryConfig | None:
    """The configured endpoint, or None when summaries are off."""
    return summary_config(settings.extra, settings.config_file)


class SummaryVerbs:
    """Mixin of `Codefathom`: the summarize verb and summary coverage."""

    if TYPE_CHECKING:
        settings: Settings
        _lock: threading.RLock

        @property
        def indexed(self) -> bool: ...

        def _graph_store(self, fresh: bool) -> Store: ...

        def _open(self, *, create: bool) -> Store: ...

    def summarize(
        self, progress: SummaryProgress | None = None, *, limit: int | None = None, dry_run: bool = False,
        include_tests: bool | None = None, stop: threading.Event | None = None, fresh: bool = True,
    ) -> SummarizeReport:
        """Summarise the definitions without a summary, most important first, up to `limit` (else
        `max_units`). `dry_run` counts them and estimates the tokens, without a request. Raises
        SummarizerUnavailable with the reason when the endpoint fails; what was written is kept."""
        config = summaries_config(self.settings)
        if config is None:
            raise UsageError(NOT_CONFIGURED)
        if limit is not None and limit < 1:
            raise UsageError(f"limit must be at least 1, got {limit}")
        started = time.perf_counter()
        report = SummarizeReport(model=config.id, url=config.url, dry_run=dry_run)
        store = self._graph_store(fresh)
        tests = config.include_tests if include_tests is None else include_tests
        chosen, report.skipped = _plan(store.summary_candidates(SUMMARISED_KINDS, config.id), config, tests)
        cap = limit if limit is not None else config.max_units
        todo, report.left = chosen[:cap], max(0, len(chosen) - cap)
        report.planned = len(todo)
        prompts = [_prompt(c, config) for c in todo]
        if dry_run:
            report.tokens_in = sum(estimate_tokens(SYSTEM + p) for p in prompts)
            report.tokens_out = MAX_OUTPUT_TOKENS_ESTIMATE * len(prompts)
            report.cost = _cost(config, report.tokens_in, report.tokens_out)
            report.coverage = store.summary_coverage(SUMMARISED_KINDS)
            report.seconds = time.perf_counter() - started
            return report
        lock = WorkLock(self.settings.index_dir, SUMMARY_LOCK_NAME, store, "summarize")
        if not lock.acquire():
            raise CodefathomError(f"another process is summarising this index now ({lock.elsewhere}); it goes on there")
        try:
            if todo:
                _run(store, load_summarizer(config), todo, prompts, config, report, progress, stop)
        finally:
            lock.release()
            report.seconds = time.perf_counter() - started
            report.cost = _cost(config, report.tokens_in, report.tokens_out)
            report.left += report.planned - report.written - report.empty
        report.coverage = store.summary_coverage(SUMMARISED_KINDS)
        report.embed_after = report.units_taken if store.get_meta("embedder") is not None else 0
        return report

    def summaries_auto(self) -> bool:
        """Whether `codefathom index` summarises what is new (`auto = true`); a bad [summaries] is
        reported by `summarize` and `status`, never by indexing."""
        try:
            config = summaries_config(self.settings)
        except UsageError:
            return False
        return config is not None and config.auto

    def summary_status(self) -> dict[str, Any] | None:
        """Summary coverage for `status`: None when summaries are off and the index has none."""
        try:
            config = summaries_config(self.settings)
        except UsageError as exc:
            return {"state": "misconfigured", "reason": str(exc)}
        if not self.indexed:
            return None if config is None else {"state": "not indexed", "model": config.id}
        with self._lock:
            store = self._open(create=False)
            # (Counting definitions reads every unit's row: not for an index that never had summaries.)
            if config is None and store.get_meta(SUMMARY_MODEL) is None:
                return None
            coverage = store.summary_coverage(SUMMARISED_KINDS)
        data = coverage_json(coverage) | {"state": "on" if config is not None else "off"}
        if config is not None:
            data["configured"] = config.id
        return data


def _plan(
    candidates: list[SummaryCandidate], config: SummaryConfig, include_tests: bool
) -> tuple[list[SummaryCandidate], dict[str, int]]:
    """Each text to summarise once, most important first; what is left out, counted by reason."""
    skipped = {"too short": 0, "tests": 0, "vendored": 0}
    seen: set[str] = set()
    kept = []
    for c in candidates:
        role = path_role(c.path)
        if c.end_line - c.start_line + 1 < config.min_lines:
            skipped["too short"] += 1
        elif role == "vendored":
            skipped["vendored"] += 1
        elif role == "test" and not include_tests:
            skipped["tests"] += 1
        elif c.key not in seen:
            seen.add(c.key)
            kept.append(c)
    tier = {"class": 0, "function": 1, "method": 1}
    kept.sort(key=lambda c: (path_role(c.path) != "source", -c.rank, tier.get(c.kind, 2), c.path, c.start_line))
    return kept, skipped


def _prompt(c: SummaryCandidate, config: SummaryConfig) -> str:
    return unit_prompt(c.kind, c.qualified_name, c.path, c.signature, c.language, c.content, config.max_code_chars)


def _cost(config: SummaryConfig, tokens_in: int, tokens_out: int) -> float | None:
    if not (config.price_in or config.price_out):
        return None
    return (tokens_in * config.price_in + tokens_out * config.price_out) / 1_000_000


def _run(
    store: Store, summarizer: Summarizer, todo: list[SummaryCandidate], prompts: list[str], config: SummaryConfig,
    report: SummarizeReport, progress: SummaryProgress | None, stop: threading.Event | None,
) -> None:
    """Ask the endpoint about each text, `concurrency` at a time, committing answers as they come.
    Workers are daemon threads: Ctrl-C ends the run at once, with what was committed kept."""
    work: queue.Queue[int | None] = queue.Queue()
    answers: queue.Queue[tuple[int, Any]] = queue.Queue()
    halt = threading.Event()
    for i in range(len(todo)):
        work.put(i)

    def worker() -> None:
        while not halt.is_set():
            try:
                i = work.get_nowait()
            except queue.Empty:
                return
            if i is None:
                return
            try:
                answers.put((i, summarizer.summarize(prompts[i])))
            except SummarizerUnavailable as exc:
                answers.put((i, exc))
            except Exception as exc:  # noqa: BLE001 - reported by the main thread, which owns the error
                answers.put((i, SummarizerUnavailable(f"the summary request failed: {exc!r}")))

    workers = [threading.Thread(target=worker, name="codefathom-summarize", daemon=True)
               for _ in range(min(config.concurrency, len(todo)))]
    for thread in workers:
        thread.start()
    pending: list[NewSummary] = []
    received = 0

    def commit() -> None:
        if pending:
            report.units_taken += store.store_summaries(summarizer.id, pending)
            pending.clear()

    try:
        if progress is not None:
            progress(0, len(todo), 0, 0)
        while received < len(todo):
            if stop is not None and stop.is_set():
                report.stopped = "stopped"
                break
            try:
                i, answer = answers.get(timeout=0.2)
            except queue.Empty:
                continue
            received += 1
            if isinstance(answer, SummarizerUnavailable):
                report.stopped = str(answer)
                break
            report.tokens_in += answer.tokens_in
            report.tokens_out += answer.tokens_out
            text = clean_reply(answer.text)
            if text:
                pending.append(
                    NewSummary(todo[i].key, text, searchable_text(text), answer.tokens_in, answer.tokens_out)
                )
                report.written += 1
            else:
                report.empty += 1
            if len(pending) >= COMMIT_EVERY:
                commit()
            if progress is not None:
                progress(received, len(todo), report.tokens_in, report.tokens_out)
    finally:
        halt.set()
        commit()
    if report.stopped and report.stopped != "stopped":
        # The endpoint refused or failed: let the requests already sent end (they take no new work),
        # so none is still going out once this returns.
        for thread in workers:
            thread.join(timeout=config.timeout + 1)
        kept = f" ({report.written:,} summaries written before it are kept)" if report.written else ""
        raise SummarizerUnavailable(report.stopped + kept)
