"""Code health from the CLI: `duplicates` and `conventions` (service/health.py); `dead` is with the
graph verbs (cli/commands.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from codefathom.cli.commands import INDEX_DIR_HELP, _answering, emit_json, reports_errors
from codefathom.service.health import CONVENTIONS_DETAIL, CONVENTIONS_LIMIT, DUPLICATES_LIMIT

__all__ = ["duplicates_command", "conventions_command"]


@click.command(name="duplicates")
@click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
              help="The project, or a directory inside it (only its definitions are compared). Default: here.")
@click.option("--min-lines", default=6, show_default=True, type=click.IntRange(2),
              help="Definitions shorter than this are left out.")
@click.option("--similarity", default=0.9, show_default=True, type=click.FloatRange(0.5, 1.0),
              help="How alike two definitions must be, after renaming, to be copies (1: only exact).")
@click.option("--include-tests", is_flag=True, help="Compare test files too (left out by default).")
@click.option("--language", "-l", "languages", multiple=True,
              help="Only these languages (repeatable, or comma-separated): python, ts, go, ...")
@click.option("--limit", "-n", default=DUPLICATES_LIMIT, show_default=True, type=click.IntRange(0),
              help="Groups shown, the largest first; 0: all.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--no-sync", is_flag=True, help="Answer from the index as it is, without re-indexing changes.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@reports_errors
def duplicates_command(path: Path, min_lines: int, similarity: float, include_tests: bool,
                       languages: tuple[str, ...], limit: int, as_json: bool, no_sync: bool,
                       index_dir: Path | None) -> None:
    """Functions and methods that are copies of each other: exact, renamed (names and literals
    changed) or edited a little; grouped, the most lines repeated first, with the lines each copy
    changed. Comments and layout are ignored; vendored code is left out, tests unless asked.

    \b
    Examples:
      codefathom duplicates
      codefathom duplicates -p src/payments --similarity 0.95 --include-tests
    """
    with _answering(path.resolve(), index_dir) as service:
        response = service.duplicates(min_lines=min_lines, min_similarity=similarity, include_tests=include_tests,
                                      limit=limit, languages=languages, fresh=not no_sync)
    if as_json:
        emit_json(response.to_json())
    else:
        click.echo(response.to_text())
    if not response.groups:
        sys.exit(1)  # found nothing


@click.command(name="conventions")
@click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
              help="The project, or a directory inside it (only its files are read). Default: here.")
@click.option("--language", "-l", "languages", multiple=True,
              help="Only these languages (repeatable, or comma-separated): python, ts, go, ...")
@click.option("--include-tests", is_flag=True,
              help="Count test files in naming, errors, logging, imports and formatting too (tests are always"
                   " read for the test framework and layout).")
@click.option("--limit", "-n", default=CONVENTIONS_LIMIT, show_default=True, type=click.IntRange(0),
              help="Places listed that break each convention; 0: all.")
@click.option("--detail", type=click.Choice(CONVENTIONS_DETAIL), default="compact", show_default=True,
              help="compact: a line per convention, one example, outliers counted and the first named; full: every"
                   " choice with two examples, and conventions of few cases too.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON (the MCP tool's reply).")
@click.option("--no-sync", is_flag=True, help="Answer from the index as it is, without re-indexing changes.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@reports_errors
def conventions_command(path: Path, languages: tuple[str, ...], include_tests: bool, limit: int, detail: str,
                        as_json: bool, no_sync: bool, index_dir: Path | None) -> None:
    """How this codebase does things, learned from its own code, so new code fits: naming per kind,
    error handling, logging, test framework and layout, import style, formatting, and the libraries
    used for HTTP, databases, configuration and command lines. Each with its share and an example
    (path:line); places that break a dominant convention are counted after `!`, the first named
    (--detail full: two examples per choice, and the places on a line of their own).

    \b
    Examples:
      codefathom conventions
      codefathom conventions -l go --json
      codefathom conventions -p src/api -n 10
      codefathom conventions --detail full --json -n 0   # every choice, every outlier
    """
    with _answering(path.resolve(), index_dir) as service:
        response = service.conventions(languages=languages, include_tests=include_tests, limit=limit,
                                       fresh=not no_sync, detail=detail)
    if as_json:
        emit_json(response.to_json())
    else:
        click.echo(response.to_text())
    if not response.conventions:
        sys.exit(1)  # found nothing
