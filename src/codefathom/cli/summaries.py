"""`codefathom summarize`: one-sentence summaries of definitions by a configured model (service/summaries.py)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from codefathom.cli.commands import INDEX_DIR_HELP, _embed, _progress, emit_json, reports_errors
from codefathom.errors import SummarizerUnavailable
from codefathom.service import Codefathom
from codefathom.service.summaries import SummarizeReport, SummaryProgress

__all__ = ["summarize_command", "summarize_after_index"]

PLAIN_EVERY_S = 5.0  # without a terminal, a progress line this often


@click.command(name="summarize")
@click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
              help="The project, or a directory inside it. Default: here.")
@click.option("--limit", "-n", type=click.IntRange(1), default=None,
              help="Summarise at most this many units in this run (default: max_units of [summaries]).")
@click.option("--dry-run", is_flag=True, help="Count the units and estimate the tokens; send nothing.")
@click.option("--include-tests", is_flag=True, help="Summarise definitions in test files too.")
@click.option("--no-embed", is_flag=True, help="Do not embed the summarised units again afterwards.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress.")
@click.option("--no-sync", is_flag=True, help="Summarise the index as it is, without re-indexing changes first.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@reports_errors
def summarize_command(path: Path, limit: int | None, dry_run: bool, include_tests: bool, no_embed: bool,
                      as_json: bool, quiet: bool, no_sync: bool, index_dir: Path | None) -> None:
    """Write a one-sentence summary of each class, function and method that has none yet, with the
    model [summaries] in .codefathom.toml names (Ollama, an OpenAI-compatible server, Anthropic).

    Summaries are cached by the unit's text and the model: a unit unchanged, or moved, keeps its
    summary, and a second run asks only about what is new. They show in results, are searched as a
    field of their own, and are part of the text a unit is embedded as (the summarised units are
    embedded again afterwards when the index has vectors). Most important definitions first; units
    under 3 lines, vendored code and tests (unless asked) are left out. Ctrl-C keeps what is written.

    \b
    Examples:
      codefathom summarize --dry-run           # how many units, about how many tokens
      codefathom summarize --limit 200
    """
    with Codefathom(path.resolve(), index_dir) as service:
        started = time.perf_counter()
        with _progress(enabled=not quiet and not as_json and not dry_run and sys.stderr.isatty(),
                       label="summarising") as bar:
            progress = _reporter(bar, quiet or as_json or dry_run, started)
            try:
                report = service.summarize(progress, limit=limit, dry_run=dry_run,
                                           include_tests=include_tests or None, fresh=not no_sync)
            except KeyboardInterrupt:
                click.echo("stopped; the summaries written are kept, and the next `codefathom summarize` goes on",
                           err=True)
                sys.exit(130)
        if report.embed_after and not no_embed:
            _embed(service, quiet or as_json, None, False)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.to_text())


def _reporter(bar: object, quiet: bool, started: float) -> SummaryProgress | None:
    """The progress callback: the bar at a terminal, else a plain line on stderr now and then."""
    if quiet:
        return None
    last = [0.0]

    def report(done: int, total: int, tokens_in: int, tokens_out: int) -> None:
        elapsed = time.perf_counter() - started
        rate = done / elapsed if elapsed > 0 else 0.0
        text = f"{rate:.1f} units/s, {tokens_in:,} tokens sent"
        if callable(bar):
            bar(done, total, text)
        elif done and (done == total or time.perf_counter() - last[0] >= PLAIN_EVERY_S):
            last[0] = time.perf_counter()
            click.echo(f"summarising: {done}/{total}, {text}", err=True)

    return report


def summarize_after_index(service: Codefathom, quiet: bool) -> SummarizeReport | None:
    """`auto = true` in [summaries]: summarise what is new after `codefathom index`. An endpoint that
    fails is a warning there: the index itself is done."""
    try:
        return service.summarize(None if quiet else _reporter(None, False, time.perf_counter()), fresh=False)
    except SummarizerUnavailable as exc:
        click.echo(f"warning: no new summaries: {exc}", err=True)
    except KeyboardInterrupt:
        click.echo("summarising stopped; what was written is kept", err=True)
    return None
