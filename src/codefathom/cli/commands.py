"""One click command per verb; each opens the service, calls one method and renders the result.

The docstring of each command is its `--help`, with an example.
"""

from __future__ import annotations

import functools
import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar

import click

from codefathom import __version__
from codefathom.config import redacted_uri
from codefathom.errors import EmbedderUnavailable, UsageError, exit_code, input_error
from codefathom.model import UNIT_KINDS
from codefathom.search import MAX_PER_FILE
from codefathom.service import (
    MAX_LIMIT,
    Codefathom,
    EmbedReport,
    SearchResponse,
    clear_database_project,
    clear_index,
    configured_database,
    list_indexes,
    render,
)
from codefathom.service.changes import DEFAULT_DEPTH, DEFAULT_MAX_RESULTS
from codefathom.service.changes import MAX_RESULTS as CHANGE_MAX_RESULTS
from codefathom.service.context import MAX_TOKENS, MIN_TOKENS
from codefathom.service.freshness import INDEX_ROLE
from codefathom.service.graph import (
    DEAD_LIMIT,
    DEP_TYPES,
    MAX_DEPTH,
    MAX_NODES,
    MAX_REFS_LIMIT,
    REF_KINDS,
    REFS_LIMIT,
    SYMBOL_KINDS,
    SYMBOLS_LIMIT,
    TREE_LIMIT,
)
from codefathom.service.indexer import Progress
from codefathom.service.locking import set_holder_role
from codefathom.service.lookups import (
    GREP_MAX_LIMIT,
    LOOKUP_MODES,
    RANKED_MODES,
    exists_json,
    exists_text,
    found_of,
    lookup,
)
from codefathom.service.multi import resolve_index_name, search_several
from codefathom.service.project import resolve_project
from codefathom.service.related import DEFAULT_COMMITS, MAX_COMMITS
from codefathom.service.snippets import MAX_CONTEXT

__all__ = ["cli"]

F = TypeVar("F", bound=Callable[..., Any])

NOT_FOUND = 1  # exit code of an answer that found nothing: 0 found, 1 not found, 2 usage error, 3 other errors
INDEX_DIR_HELP = "Keep the index in this directory instead of $CODEFATHOM_HOME (~/.cache/codefathom)."


def reports_errors(func: F) -> F:
    """Turn codefathom errors, and Python's own errors that bad input causes (errors.input_error),
    into one clear line and the right exit code (`errors.exit_code`): 1 for a file not in the index,
    2 for a usage error, 3 for any other."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            error = input_error(exc)
            if error is None:
                raise  # a bug: its traceback is the report
            click.echo(f"error: {error}", err=True)
            sys.exit(exit_code(error))
        except KeyboardInterrupt:
            # Every batch written is committed: the next command goes on from there.
            click.echo("stopped; what was indexed is kept, and the next command continues", err=True)
            sys.exit(130)

    return wrapper  # type: ignore[return-value]


def path_argument(name: str) -> Callable[[F], F]:
    """The directory a verb is about, as every verb takes it: `-p/--path DIR`, or (as before) an
    argument NAME; one of them, default here. The verb receives it as `name`."""
    directory = click.Path(file_okay=False, path_type=Path)

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def merged(*args: Any, path_option: Path | None, **kwargs: Any) -> Any:
            given = kwargs.pop(name)
            if given is not None and path_option is not None:
                raise click.UsageError(f"give {name.upper()} or --path, not both")
            return func(*args, **{name: path_option or given or Path(".")}, **kwargs)

        command = click.option(
            "--path", "-p", "path_option", type=directory, help="The project, or a directory inside it. Default: here."
        )(merged)
        command = click.argument(name, required=False, type=directory)(command)
        return command  # type: ignore[return-value]

    return decorate


def _a_number(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """click's FloatRange lets `nan` through (it compares false with either bound)."""
    if value is not None and math.isnan(value):
        raise click.BadParameter("nan is not a number of seconds")
    return value


BACKGROUND_HELP = (
    "For a project never indexed (or whose first index did not finish), index it in a background process"
    " and answer at once from what is indexed so far (marked partial), instead of indexing it first."
)


@contextmanager
def _answering(path: Path, index_dir: Path | None, background: bool = False) -> Iterator[Codefathom]:
    """The service for a command that answers: an index it needs first is built here, with a progress
    bar on stderr (Ctrl-C stops it and keeps what is done), unless `background`."""
    with Codefathom(path, index_dir) as service, _progress(enabled=True, lazy=True) as progress:
        _at_terminal(service, background, progress)
        yield service
    _announce(service)


def _at_terminal(service: Codefathom, background: bool, progress: Progress | None) -> None:
    service.background_index = background
    service.inline_progress = progress


def _announce(service: Codefathom) -> None:
    """One line on stderr when the command left a background index running."""
    if service.started_background is not None:
        click.echo(
            f"indexing {service.root} in the background (pid {service.started_background}), then embedding it:"
            " `codefathom status` shows it, `codefathom stop` stops it",
            err=True,
        )


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


class _Commands(click.Group):
    """The verbs, with the errors bad input causes while click reads their options (a path holding
    NUL, which click's own Path type stats) reported like those of the verbs themselves."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:
            error = input_error(exc)
            if error is None:
                raise
            click.echo(f"error: {error}", err=True)
            ctx.exit(exit_code(error))


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="codefathom")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Search a codebase by meaning and by name, for you and for your coding agent.

    \b
    Quick start:
      codefathom index .                       # index the current repository, then embed it
      codefathom search "where is the config loaded"
      codefathom explain "retry failed uploads" # why results rank where they do
      codefathom search Store.replace_file --json
      codefathom search "retry failed upload" -A 3 --detail full
      codefathom refs Store.replace_file       # who uses it (also: symbol, callers, callees)
      codefathom impact src/store.py           # what depends on a file (also: deps, dead)
      codefathom impact --diff HEAD~1          # a diff: changed definitions, dependents, tests
      codefathom outline --focus "config"      # a map of the repository (also: brief FILE)
      codefathom tests Store.replace_file      # the tests that exercise it (also: cochange FILE)
      codefathom serve                         # MCP server over stdio for an agent
      codefathom install claude-code           # ... configured in a client (also: doctor, init)
      codefathom duplicates                    # copied functions and methods, largest first
      codefathom conventions                   # how this code names, raises, logs, tests, formats

    Indexes live in $CODEFATHOM_HOME (default ~/.cache/codefathom), one per project.
    Every search first re-indexes files that changed, so answers match the files on disk.
    Search by meaning uses the vectors the index has (`index` embeds, `serve` in the background);
    set the embedder with `embedder = "..."` in .codefathom.toml (default e5onnx, or "none").
    A project never indexed is indexed before the first answer, with a progress bar (Ctrl-C stops it;
    the next command goes on). `search --background` answers at once instead and leaves a background
    process indexing and embedding: `codefathom status` shows it, `codefathom stop` stops it.
    """
    set_holder_role(f"codefathom {ctx.invoked_subcommand or ''}")  # written into the locks it takes


@cli.command()
@path_argument("path")
@click.option("--full", is_flag=True, help="Re-parse every file, not only the changed ones.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--no-embed", is_flag=True, help="Skip the embedding pass: lexical and graph index only.")
@click.option("--re-embed", is_flag=True,
              help="Drop the index's vectors and embed again (after changing the embedder in the config).")
@click.option("--embed-budget", type=click.FloatRange(0, None), metavar="SECONDS", callback=_a_number,
              help="Stop embedding after this many seconds; the next run (or `serve`) continues.")
# The process a search leaves indexing in the background runs with this: `status` calls it so.
@click.option("--detached", is_flag=True, hidden=True)
@reports_errors
def index(
    path: Path, full: bool, index_dir: Path | None, as_json: bool, quiet: bool, no_embed: bool, re_embed: bool,
    embed_budget: float | None, detached: bool,
) -> None:
    """Index a project, or bring its index up to date, then embed what has no vector yet.

    Only files whose size, time or content changed are parsed again; deleted files are dropped.
    Files git ignores are left out, and so are dependencies, build outputs, lock files, binary,
    minified and generated files, and files over 1 MB (see .codefathom.toml to change that).

    The lexical and graph index is ready first; then units are embedded for search by meaning,
    definitions by importance first. Embedding takes minutes on a CPU (30 to 80 units a second on
    2 quiet cores, 10 on busy ones; searches use vectors once half the units have one): stop it any time (Ctrl-C
    keeps what is done), skip it with --no-embed, or let `codefathom serve` do it in the background.
    The embedder is set by `embedder = "..."` in .codefathom.toml (default e5onnx; "none" turns
    vectors off).

    \b
    Examples:
      codefathom index ~/src/myproject
      codefathom index . --no-embed            # seconds: everything but vectors
      codefathom index . --embed-budget 60     # embed for at most a minute
    """
    if detached:
        set_holder_role(f"{INDEX_ROLE} (background)")
    with Codefathom(path, index_dir) as service:
        with _progress(enabled=not quiet and not as_json) as progress:
            report = service.index(progress, full=full)
        if service.summaries_auto():  # `auto = true` in [summaries]: what is new gets its summary first
            from codefathom.cli.summaries import summarize_after_index

            summarize_after_index(service, quiet or as_json)
        embedded = None
        if not no_embed:
            embedded = _embed(service, quiet or as_json, embed_budget, re_embed)
        if as_json:
            emit_json(render.sync_json(report, str(service.root), embedded))
        else:
            click.echo(render.sync_text(report, service.status(), embedded))


def _embed(service: Codefathom, quiet: bool, budget: float | None, re_embed: bool) -> EmbedReport | None:
    """The embedding pass after an index; an embedder that cannot run is a warning, not a failure."""
    try:
        with _progress(enabled=not quiet, label="embedding") as progress:
            on_progress = (lambda done, total: progress(done, total, "")) if progress else None
            return service.embed(on_progress, budget_s=budget, re_embed=re_embed)
    except EmbedderUnavailable as exc:
        click.echo(f"warning: no vectors: {exc}", err=True)
    except KeyboardInterrupt:
        click.echo("embedding stopped; what was embedded is kept, and the next `index` continues", err=True)
    return None


@cli.command()
@click.argument("query", required=False)
@click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
              help="Project to search, or a directory inside it to keep the search to. Default: here.")
@click.option("--index", "-i", "indexes", multiple=True, metavar="PATH",
              help="Also search this project or index (repeatable): a project directory, or an index as"
                   " `codefathom list` shows it. Results are merged and say which index they come from.")
@click.option("--mode", "-m", type=click.Choice(RANKED_MODES + LOOKUP_MODES), default="hybrid", show_default=True,
              help="hybrid, lexical (words and names) or vector (meaning): ranked results. literal or regex: every"
                   " line of the indexed files holding QUERY, as path:line: text. path: files by name or fuzzy path."
                   " read: the lines QUERY names (a.py:10-40), the definition around a.py:120, a file, or a"
                   " definition by name.")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(1, GREP_MAX_LIMIT),
              help="How many results (matching lines, files); at most 200 ranked results.")
@click.option("--language", "-l", "languages", multiple=True,
              help="Only these languages (repeatable, or comma-separated): python, typescript, go, rust, ...")
@click.option("--kind", "-k", "kinds", multiple=True, type=click.Choice(UNIT_KINDS),
              help="Only units of this kind (repeatable).")
@click.option("--path-glob", "-g", "path_glob", multiple=True,
              help="Only files this gitignore-style glob names, e.g. 'src/**/*.py' or 'tests/' (repeatable).")
@click.option("--exclude-glob", "-x", "exclude_glob", multiple=True,
              help="Leave out files this glob names, e.g. 'tests/' (repeatable).")
@click.option("--symbol-name", "-s",
              help="Only units whose name matches this glob (in lower case: any case), e.g. 'parse_*' or 'store.*'.")
@click.option("--max-per-file", default=MAX_PER_FILE, show_default=True, type=click.IntRange(1, None),
              help="At most this many results from one file (at the default, a question in words may get one"
                   " more whose name says a word of it the others do not).")
@click.option("--all-per-file", is_flag=True, help="No limit of results per file.")
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON (the MCP tool's reply).")
@click.option("--jsonl", type=click.File("rb"), metavar="FILE",
              help="Read one query per line from FILE ('-' for stdin): plain text or a JSON object with"
                   " the options as keys. Writes one JSON object per line.")
@click.option("--expand", is_flag=True,
              help="Also show the code graph's neighbours of the top 3 definitions found: up to 2 each of what"
                   " a function calls and what calls it, a class's bases and subclasses, what a module imports."
                   " Each is listed right after its source with how it is connected ('^ called by X'), on top"
                   " of --limit (at most 6 more), and keeps to the filters.")
@click.option("--include-deps", is_flag=True,
              help="Name each result's callers, callees, bases and imports, a line each (bound exact or high).")
@click.option("--debug", "include_debug", is_flag=True, help="Explain the ranking: channel ranks, priors, timings.")
@click.option("--detail", type=click.Choice(["compact", "full", "unit", "exists"]), default="compact",
              show_default=True,
              help="compact: each result's signature and the lines holding the query's words; full: whole bodies;"
                   " unit: the whole unit holding the matching lines (a long function's window grows to the"
                   " function, a text window to its paragraph); exists: only whether anything was found, how"
                   " much, and the top file.")
@click.option("--context-before", "-B", type=click.IntRange(0, MAX_CONTEXT), default=0, show_default=True,
              help="Lines shown before each matching line.")
@click.option("--context-after", "-A", type=click.IntRange(0, MAX_CONTEXT), default=0, show_default=True,
              help="Lines shown after each matching line.")
@click.option("--no-sync", is_flag=True, help="Answer from the index as it is, without re-indexing changes.")
@click.option("--background", is_flag=True, help=BACKGROUND_HELP)
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@reports_errors
def search(
    query: str | None, path: Path, mode: str, indexes: tuple[str, ...], limit: int, languages: tuple[str, ...],
    kinds: tuple[str, ...], path_glob: tuple[str, ...], exclude_glob: tuple[str, ...], symbol_name: str | None,
    max_per_file: int, all_per_file: bool, as_json: bool, jsonl: Any, expand: bool, include_deps: bool,
    include_debug: bool, detail: Literal["compact", "full", "unit", "exists"], context_before: int,
    context_after: int,
    no_sync: bool,
    background: bool, index_dir: Path | None,
) -> None:
    """Search the project for QUERY: words the code would use, or a name.

    A name (`parse_config`, `UserService.find`) brings its definition first; plain words
    ("retry failed uploads") rank functions, classes and doc sections by the words they use.
    The project is indexed first if it never was (a progress bar on stderr; Ctrl-C stops it and keeps
    what is done; --background answers at once instead), and changed files are re-indexed. Projects its
    config links to inside the repository (`linked = ["vendor/lib"]`) and those named with --index
    (any directory, e.g. a sibling project) are searched too.

    \b
    Examples:
      codefathom search "where are index files written"
      codefathom search Store.replace_file --json
      codefathom search "retry failed upload" -A 3 --detail full
      codefathom search "retry failed upload" --detail unit  # each hit's whole function or section
      codefathom search "token refresh" -l python -g 'src/' -x 'tests/'
      codefathom search "retry policy" --index ../shared-lib
      codefathom search "apply a discount" --expand
      codefathom search "retry policy" --background   # a large new project: answer now, index meanwhile
      echo 'parse_args' | codefathom search --jsonl -
      codefathom search src/app/models.py:120        # a stack trace's line: the definition around it first
      codefathom search -m literal 'retry_upload(' -n 50   # every line holding it, as path:line: text
      codefathom search -m regex 'def \\w+\\(self' -B 1
      codefathom search -m path cfgload              # files by name or fuzzy path
      codefathom search -m read src/app/models.py:100-140  # lines, with the definitions around them
      codefathom search -m literal MAX_RETRIES --detail exists  # found, how many, the top file
    """
    if mode in LOOKUP_MODES:
        if jsonl is not None or not query:
            raise UsageError(f"--mode {mode} answers one QUERY (--jsonl is for ranked searches)")
        with _answering(path, index_dir, background) as service:
            found = lookup(
                service, mode, query, limit=limit, languages=languages, path_glob=path_glob,
                exclude_glob=exclude_glob, context_before=context_before, context_after=context_after,
                fresh=not no_sync, kinds=kinds, symbol_name=symbol_name, index=indexes, expand=expand,
                include_deps=include_deps, debug=include_debug,
            )
        said = found_of(found)
        if detail == "exists":
            emit_json(exists_json(*said)) if as_json else click.echo(exists_text(*said))
        else:
            emit_json(found.to_json()) if as_json else click.echo(found.to_text())
        if not said[0]:
            sys.exit(NOT_FOUND)
        return
    if limit > MAX_LIMIT:
        raise UsageError(f"--limit of a ranked search must be between 1 and {MAX_LIMIT}, got {limit}")
    options: dict[str, Any] = {
        "limit": limit, "languages": languages, "kinds": kinds, "path_glob": path_glob,
        "exclude_glob": exclude_glob, "symbol_name": symbol_name,
        "max_per_file": None if all_per_file else max_per_file, "include_debug": include_debug, "expand": expand,
        "include_deps": include_deps, "channel": mode, "grow": detail == "unit",
    }
    view = render.SearchView("compact" if detail == "exists" else detail, context_before, context_after)
    others = [resolve_index_name(name) for name in indexes]
    with _Services(path, index_dir, background) as services:
        if jsonl is not None:
            _search_lines(services, others, jsonl, options, view, fresh=not no_sync)
            return
        if not query:
            raise UsageError("give a QUERY, or --jsonl - to read queries from stdin")
        response = services.search(others, query, fresh=not no_sync, **options)
        if detail == "exists":
            said = render.search_found(response)
            emit_json(exists_json(*said)) if as_json else click.echo(exists_text(*said))
        elif as_json:
            emit_json(render.search_json(response, view))
        else:
            click.echo(render.search_text(response, view))
    if not response.results and not response.partial:  # (a partial answer may find it once indexed)
        sys.exit(NOT_FOUND)


@cli.command()
@click.argument("query")
@click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
              help="Project to search, or a directory inside it. Default: here.")
@click.option("--limit", "-n", default=5, show_default=True, type=click.IntRange(1, MAX_LIMIT),
              help="How many results to take apart.")
@click.option("--language", "-l", "languages", multiple=True, help="Only these languages (repeatable).")
@click.option("--kind", "-k", "kinds", multiple=True, type=click.Choice(UNIT_KINDS), help="Only these kinds.")
@click.option("--path-glob", "-g", "path_glob", multiple=True, help="Only files this glob names (repeatable).")
@click.option("--exclude-glob", "-x", "exclude_glob", multiple=True, help="Leave out files this glob names.")
@click.option("--symbol-name", "-s", help="Only units whose name matches this glob, e.g. 'parse_*' or 'Store.*'.")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON (the MCP tool's reply).")
@click.option("--no-sync", is_flag=True, help="Answer from the index as it is, without re-indexing changes.")
@click.option("--background", is_flag=True, help=BACKGROUND_HELP)
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@reports_errors
def explain(
    query: str, path: Path, limit: int, languages: tuple[str, ...], kinds: tuple[str, ...],
    path_glob: tuple[str, ...], exclude_glob: tuple[str, ...], symbol_name: str | None, as_json: bool,
    no_sync: bool, background: bool, index_dir: Path | None,
) -> None:
    """Show how QUERY is searched, stage by stage, to see why a result ranks where it does.

    Query analysis (identifier or prose, its words, the full-text expression), the mode (names
    lead for identifiers; prose searched with vectors is reranked), each channel's own top
    candidates (BM25F, names, vectors) with ranks and scores, and for each result its score taken
    apart: for fusion what each channel added, the name bonus, and the kind, role and PageRank
    priors; for the reranker each feature's value times its weight. Then the filters, the vector
    coverage and the time each stage took.

    \b
    Examples:
      codefathom explain "retry failed uploads"
      codefathom explain Store.replace_file --json
    """
    with _answering(path, index_dir, background) as service:
        response = service.search(
            query, limit=limit, languages=languages, kinds=kinds, path_glob=path_glob, exclude_glob=exclude_glob,
            symbol_name=symbol_name, fresh=not no_sync, explain=True,
        )
    if as_json:
        emit_json(render.explain_json(response))
    else:
        click.echo(render.explain_text(response))


class _Services:
    """The services of the projects one command searches, opened once each (the first with --index-dir)."""

    def __init__(self, primary: Path, index_dir: Path | None, background: bool = False) -> None:
        self.primary = primary
        self._index_dir = index_dir
        self._background = background
        self._open: dict[Path, Codefathom] = {}
        self._bar = _progress(enabled=True, lazy=True)
        self._progress = self._bar.__enter__()

    def call(self, path: Path, action: Callable[[Codefathom], Any]) -> Any:
        service = self._open.get(resolve_project(path).root)
        if service is None:
            service = Codefathom(path, self._index_dir if not self._open else None)
            _at_terminal(service, self._background, self._progress)
            self._open[service.root] = service
        service.project = resolve_project(path)
        return action(service)

    def search(self, others: list[Path], query: str, fresh: bool, **options: Any) -> SearchResponse:
        try:
            return search_several(
                self.call, self.primary, others, lambda service: service.search(query, fresh=fresh, **options),
                options["limit"],
            )
        finally:
            self._bar.__exit__()  # the index is done: the answer prints without a bar below it

    def __enter__(self) -> _Services:
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__()
        for service in self._open.values():
            service.close()
            _announce(service)


def _search_lines(
    services: _Services, others: list[Path], source: Any, defaults: dict[str, Any], view: render.SearchView,
    fresh: bool,
) -> None:
    """One reply per line of `source` (bytes): a line that cannot be answered gets an error object
    naming why, and the batch goes on."""
    first = True
    for number, raw in enumerate(source, start=1):
        out: dict[str, Any]
        try:
            line = raw.decode("utf-8").strip()  # line by line, so bad bytes cost only their line
            if not line:
                continue
            options = dict(defaults)
            if line.startswith("{"):
                request = json.loads(line)
                query = request.pop("query", "")
                unknown = set(request) - set(options)
                if unknown:
                    raise UsageError(f"unknown option(s) {sorted(unknown)}")
                options.update(request)
            else:
                query = line
            response = services.search(others, query, fresh=fresh and first, **options)
            out = render.search_json(response, view)
        except json.JSONDecodeError as exc:
            out = {"line": number, "error": f"not valid JSON: {exc}"}
        except Exception as exc:
            error = input_error(exc)
            if error is None:
                raise
            out = {"line": number, "error": str(error)}
        first = False
        click.echo(json.dumps(out, ensure_ascii=False))


@cli.command()
@path_argument("path")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option(
    "--digest", is_flag=True,
    help="Also print a digest of each part of the index (rows and a hash, independent of row ids): two indexes"
    " of the same files have equal digests however they were built.",
)
@reports_errors
def status(path: Path, index_dir: Path | None, as_json: bool, digest: bool) -> None:
    """Show what the project's index holds: files, units, languages, parse health, vectors, and the
    processes indexing or embedding it now (`codefathom stop` stops a `codefathom index` among them).

    \b
    Example:
      codefathom status --json
      codefathom status --digest              # compare two indexes of one tree
    """
    with Codefathom(path, index_dir) as service:
        result = service.status()
        parts = service.digest() if digest and result.indexed else None
    if as_json:
        emit_json({**render.status_json(result), **({"digest": parts} if parts is not None else {})})
    else:
        click.echo(render.status_text(result))
        if parts is not None:
            click.echo("digest:\n" + "\n".join(f"  {part:<12} {value}" for part, value in parts.items()))


@cli.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@reports_errors
def list_(as_json: bool) -> None:
    """List every indexed project under $CODEFATHOM_HOME, then those of the PostgreSQL store
    $CODEFATHOM_STORE (or the working directory's project config) names; an index whose folder is
    gone says so."""
    indexes = list_indexes(store=configured_database())
    if as_json:
        emit_json(render.indexes_json(indexes))
    else:
        click.echo(render.indexes_text(indexes))


@cli.command()
@path_argument("path")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--name", help="A project of the PostgreSQL store by its name (as `codefathom list` shows it after"
                             " #), wherever its checkout is; PATH is then not read.")
@reports_errors
def clear(path: Path, index_dir: Path | None, as_json: bool, name: str | None) -> None:
    """Delete the project's index (the source files are not touched).

    PATH may be a folder that is gone (`codefathom list` marks its index); with --index-dir, the
    index in that directory is deleted, whatever PATH is. With --name, the project of that name in
    the PostgreSQL store $CODEFATHOM_STORE (or the working directory's config) names is deleted,
    once no sync of it runs on any machine.

    \b
    Examples:
      codefathom clear                         # this project's index
      codefathom clear ~/src/old-project       # the index of a folder deleted since
      codefathom clear --name payments-api     # a project of the shared database
    """
    if name is not None:
        database = configured_database()
        if database is None:
            raise UsageError("--name is a project of a PostgreSQL store: set $CODEFATHOM_STORE (or `store` in config)")
        cleared = clear_database_project(database, name)
        where = f"{redacted_uri(database)}#{name}"
        if as_json:
            emit_json({"project": name, "index_path": where, "cleared": cleared})
        else:
            click.echo(f"Deleted the project {where}." if cleared else f"There is no project {where}.")
        return
    root, existed = clear_index(path, index_dir)
    if as_json:
        emit_json({"project_root": root, "cleared": existed})
    else:
        click.echo(f"Deleted the index of {root}." if existed else f"{root} had no index.")


@cli.command()
@path_argument("path")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@reports_errors
def stop(path: Path, index_dir: Path | None, as_json: bool) -> None:
    """Stop the `codefathom index` process at work on the project: the one a `search --background`
    left indexing and embedding, or one running elsewhere. What it did is kept; the next `index`
    (or a search) goes on from there. `codefathom status` shows what is running; a server's work is
    left to the server.

    \b
    Example:
      codefathom stop
    """
    with Codefathom(path, index_dir) as service:
        stopped = service.stop_indexers()
        root = str(service.root)
    if as_json:
        emit_json({"project_root": root, "stopped": stopped})
    elif not stopped:
        click.echo(f"No `codefathom index` is at work on {root}.")
    for entry in [] if as_json else stopped:
        click.echo(f"Stopped pid {entry['pid']} ({entry['by']}, {entry['doing']} {root}); what it did is kept.")


@cli.command()
@click.option("--http", "http_address", metavar="[HOST:]PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST defaults to 127.0.0.1).")
@click.option("--sse", "sse_address", metavar="[HOST:]PORT",
              help="Serve SSE at http://HOST:PORT/sse instead of stdio (HOST defaults to 127.0.0.1).")
@click.option("--token", envvar="CODEFATHOM_TOKEN", show_envvar=True,
              help="Bearer token every HTTP request must carry (--http/--sse only), with full access; a token"
                   " or --token-file is required to bind to any address but loopback."
                   " Prefer the environment variable: command lines are visible to other users.")
@click.option("--token-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Tokens with their roles, one a line: `read TOKEN` (agents: search and every read tool) or"
                   " `write TOKEN` (an indexer: also index_codebase and clear_index); `#` starts a comment line."
                   " Read once at start.")
@click.option("--root", "roots", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Serve projects inside this directory (repeatable) instead of the client's roots and the"
                   " working directory; other paths are refused.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Index directory for the working directory's project (default: $CODEFATHOM_HOME).")
@reports_errors
def serve(
    http_address: str | None, sse_address: str | None, token: str | None, token_file: Path | None,
    roots: tuple[Path, ...], index_dir: Path | None,
) -> None:
    """Run the MCP server for an agent to call: over stdio, or over HTTP with --http or --sse.

    Tools: search_code, index_status, index_codebase, list_indexes, clear_index, and the code
    graph: find_symbol, find_references, call_hierarchy, file_dependencies, change_impact; code
    health: code_health (dead code, duplicates, conventions); context: outline, file_brief,
    find_tests, co_change.

    Only some directories are served: those given with --root; without them, the roots the client
    declares and the working directory, unless that is / or your home directory (too wide to be
    meant). A tool call about any other path, or any call when nothing is served, is refused.

    Logs go to stderr. HTTP binds to 127.0.0.1 unless told otherwise; any other address needs
    a token, and with a token set every request must send `Authorization: Bearer TOKEN`. Without
    one, a request must name the address listened on (Host) and come from no web page elsewhere (Origin).

    A team's server: --token-file gives each token a role. `read` tokens (agents) may search and
    call every read tool, and are refused index_codebase and clear_index; a `write` token (the
    indexer) may call those too. With $CODEFATHOM_STORE naming a PostgreSQL database, list_indexes
    lists its projects and clear_index takes one by name; $CODEFATHOM_STORE_READ sends the reads to
    a replica. A project's read calls run side by side, up to 4 at once ($CODEFATHOM_SERVE_READERS).

    \b
    Examples:
      claude mcp add codefathom -- codefathom serve          # stdio (Claude Code)
      codefathom serve --http 8765 --root ~/src               # http://127.0.0.1:8765/mcp
      CODEFATHOM_TOKEN=secret codefathom serve --http 0.0.0.0:8765
      CODEFATHOM_STORE=postgresql://db/code codefathom serve --http 0.0.0.0:8765 \\
          --token-file /etc/codefathom/tokens --root /srv/repos
    """
    if http_address and sse_address:
        raise UsageError("give --http or --sse, not both")
    if http_address or sse_address:
        from codefathom.mcp.access import read_token_file
        from codefathom.mcp.http import parse_address, run_http

        transport: Literal["streamable-http", "sse"] = "streamable-http" if http_address else "sse"
        address = parse_address(http_address or sse_address or "")
        secret = (token or "").strip() or None
        if secret and token_file:
            raise UsageError("give --token (or CODEFATHOM_TOKEN) or --token-file, not both")
        tokens = read_token_file(token_file) if token_file else secret
        run_http(transport, address, token=tokens, index_dir=index_dir, roots=roots)
        return
    if token_file:
        raise UsageError("--token-file is for --http or --sse: over stdio the client is the user who started it")
    from codefathom.mcp import run_stdio

    run_stdio(index_dir=index_dir, roots=roots)


# -- code graph: symbol, refs, callers, callees, deps, impact, dead --------------------------------

GraphReply = TypeVar("GraphReply")

_GRAPH_OPTIONS = (
    click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
                 help="The project, or a directory inside it. Default: here."),
    click.option("--json", "as_json", is_flag=True, help="Print as JSON (the MCP tool's reply)."),
    click.option("--no-sync", is_flag=True, help="Answer from the index as it is, without re-indexing changes."),
    click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP),
)


def graph_options(func: F) -> F:
    """--path/-p, --json, --no-sync and --index-dir, shared by the graph verbs."""
    for option in reversed(_GRAPH_OPTIONS):
        func = option(func)
    return func


def _depth_option(what: str) -> Callable[[F], F]:
    return click.option("--depth", "-d", default=1, show_default=True, type=click.IntRange(1, MAX_DEPTH),
                        help=f"How many levels of {what} to follow.")


_TREE_LIMIT_OPTION = click.option(
    "--limit", "-n", default=TREE_LIMIT, show_default=True, type=click.IntRange(1, MAX_NODES),
    help="At most this many nodes in the tree; the reply counts what it left out.",
)


_DEP_TYPE_OPTION = click.option(
    "--dep-type", "dep_types", multiple=True, type=click.Choice(DEP_TYPES),
    help="Only links of this type (repeatable); default: all of them.",
)


def _reply(
    response: GraphReply, as_json: bool, to_json: Callable[[GraphReply], dict[str, Any]],
    to_text: Callable[[GraphReply], str], found: bool = True,
) -> None:
    """Print the answer; exit 1 when it found nothing (no definition of the name asked about)."""
    if as_json:
        emit_json(to_json(response))
    else:
        click.echo(to_text(response))
    if not found:
        sys.exit(NOT_FOUND)


@cli.command()
@click.argument("name")
@click.option("--kind", "-k", "kinds", multiple=True, type=click.Choice(SYMBOL_KINDS),
              help="Only definitions of this kind (repeatable).")
@click.option("--limit", "-n", type=click.IntRange(0, MAX_REFS_LIMIT), default=SYMBOLS_LIMIT, show_default=True,
              help="List at most this many definitions (0: all); the count covers all.")
@graph_options
@reports_errors
def symbol(
    name: str, kinds: tuple[str, ...], limit: int, path: Path, as_json: bool, no_sync: bool, index_dir: Path | None
) -> None:
    """Show where NAME is defined: location, signature and doc.

    NAME is a name (`find`), a qualified tail (`UserService.find`) or a whole qualified name
    (`shop.users.UserService.find`); every definition it matches is listed.

    \b
    Example:
      codefathom symbol UserService.find
    """
    with _answering(path, index_dir) as service:
        response = service.symbol(name, kinds=kinds, limit=limit, fresh=not no_sync)
    _reply(response, as_json, render.symbols_json, render.symbols_text, found=bool(response.symbols))


@cli.command()
@click.argument("name")
@click.option("--ref-kind", "ref_kinds", multiple=True, type=click.Choice(REF_KINDS),
              help="Only references of this kind (repeatable).")
@click.option("--limit", "-n", type=click.IntRange(0, MAX_REFS_LIMIT), default=REFS_LIMIT, show_default=True,
              help="List at most this many references, by path and line (0: all); the counts cover all.")
@graph_options
@reports_errors
def refs(
    name: str, ref_kinds: tuple[str, ...], limit: int, path: Path, as_json: bool, no_sync: bool, index_dir: Path | None
) -> None:
    """List the references to NAME: calls, base classes, decorators, types, reads.

    Each prints as `path:line  label  scope`; the label says how sure the binding is: exact, high,
    likely or possible. References of the same name that could mean several definitions are left
    unbound and counted at the end. Run it before renaming NAME or changing its signature.

    \b
    Example:
      codefathom refs UserService.find
    """
    with _answering(path, index_dir) as service:
        response = service.refs(name, kinds=ref_kinds, limit=limit, fresh=not no_sync)
    _reply(response, as_json, render.refs_json, render.refs_text, found=bool(response.symbols))


@cli.command()
@click.argument("name")
@_depth_option("callers")
@_TREE_LIMIT_OPTION
@graph_options
@reports_errors
def callers(
    name: str, depth: int, limit: int, path: Path, as_json: bool, no_sync: bool, index_dir: Path | None
) -> None:
    """Show what calls NAME, and what calls those, --depth levels up, as a tree.

    \b
    Example:
      codefathom callers parse_config --depth 2
    """
    _call_hierarchy(name, "callers", depth, limit, path, as_json, no_sync, index_dir)


@cli.command()
@click.argument("name")
@_depth_option("callees")
@_TREE_LIMIT_OPTION
@graph_options
@reports_errors
def callees(
    name: str, depth: int, limit: int, path: Path, as_json: bool, no_sync: bool, index_dir: Path | None
) -> None:
    """Show what NAME calls, and what those call, --depth levels down, as a tree.

    \b
    Example:
      codefathom callees parse_config --depth 2
    """
    _call_hierarchy(name, "callees", depth, limit, path, as_json, no_sync, index_dir)


def _call_hierarchy(
    name: str, direction: str, depth: int, limit: int, path: Path, as_json: bool, no_sync: bool,
    index_dir: Path | None,
) -> None:
    with _answering(path, index_dir) as service:
        response = service.call_hierarchy(name, direction=direction, depth=depth, limit=limit, fresh=not no_sync)
    _reply(response, as_json, render.hierarchy_json, render.hierarchy_text, found=bool(response.roots))


@cli.command()
@click.argument("files", nargs=-1, required=True)
@_depth_option("dependencies")
@_DEP_TYPE_OPTION
@_TREE_LIMIT_OPTION
@graph_options
@reports_errors
def deps(
    files: tuple[str, ...], depth: int, dep_types: tuple[str, ...], limit: int, path: Path, as_json: bool,
    no_sync: bool, index_dir: Path | None,
) -> None:
    """Show what FILES depend on (imports, calls, references, base classes), as a tree.

    FILES are relative to the project root (as results print them) or to the working directory.
    With several files, each file appears once, under the first one that reaches it.

    \b
    Examples:
      codefathom deps src/auth/jwt.py --depth 2
      codefathom deps src/auth/jwt.py src/auth/session.py --dep-type import
    """
    _file_deps(files, depth, dep_types, False, limit, path, as_json, no_sync, index_dir)


@cli.command()
@click.argument("files", nargs=-1)
@click.option("--diff", "diff_ref", metavar="REV",
              help="Instead of FILES, the changes of the working tree against REV (HEAD: uncommitted changes;"
                   " HEAD~1: also the last commit), or '-' to read a unified diff from stdin.")
@click.option("--staged", is_flag=True, help="The staged changes against --diff REV (default HEAD), before a commit.")
@click.option("--depth", "-d", type=click.IntRange(1, MAX_DEPTH), default=None,
              help="How many levels of dependents to follow. Default: 1 for FILES, 2 for a diff.")
@_DEP_TYPE_OPTION
@click.option("--limit", "-n", "max_results", type=click.IntRange(1, CHANGE_MAX_RESULTS),
              help=f"For FILES: at most this many nodes in the tree (default {TREE_LIMIT}, at most {MAX_NODES}). For"
                   f" a diff: at most this many references per changed definition, impacted files and tests"
                   f" (default {DEFAULT_MAX_RESULTS}).")
@graph_options
@reports_errors
def impact(
    files: tuple[str, ...], diff_ref: str | None, staged: bool, depth: int | None, dep_types: tuple[str, ...],
    max_results: int | None, path: Path, as_json: bool, no_sync: bool, index_dir: Path | None,
) -> None:
    """Show what depends on FILES, transitively: the files a change to them can break. Or, with
    --diff/--staged, what a git diff changes and what that can break.

    FILES are relative to the project root (as results print them) or to the working directory.

    From a diff: the definitions it adds, modifies or removes (lines mapped onto the index; removed
    ones from the old version git keeps), the references to each (with confidence labels; for a
    removed one, the references still using its name), the files depending on the changed files
    --depth levels out, and the tests to run, ranked: changed, direct (a test references a changed
    definition), via helper, depends (on a changed file), by name. New untracked files count as added.

    \b
    Examples:
      codefathom impact src/models/user.py --depth 3
      codefathom impact --diff HEAD                 # uncommitted changes: what to re-test
      codefathom impact --diff HEAD~1 --json        # the last commit and uncommitted changes
      codefathom impact --staged                    # what is about to be committed
      codefathom impact --diff main                 # the whole branch, against main
      git diff main...feature | codefathom impact --diff -
    """
    if diff_ref is None and not staged:
        if not files:
            raise UsageError("give FILES, or --diff REV / --staged for the changes of a git diff")
        _file_deps(files, depth or 1, dep_types, True, max_results or TREE_LIMIT, path, as_json, no_sync, index_dir)
        return
    if files:
        raise UsageError("give FILES or --diff/--staged, not both")
    diff_text = None
    if diff_ref == "-":
        if staged:
            raise UsageError("--staged reads the diff from git; with --diff - the diff comes from stdin")
        diff_text = sys.stdin.read()
    with _answering(path, index_dir) as service:
        response = service.change_impact(
            diff_ref or "HEAD", staged=staged, diff_text=diff_text, depth=depth or DEFAULT_DEPTH,
            max_results=max_results or DEFAULT_MAX_RESULTS, dep_types=dep_types, fresh=not no_sync,
        )
    _reply(response, as_json, render.change_impact_json, render.change_impact_text)


def _file_deps(
    files: tuple[str, ...], depth: int, dep_types: tuple[str, ...], reverse: bool, limit: int, path: Path,
    as_json: bool, no_sync: bool, index_dir: Path | None,
) -> None:
    with _answering(path, index_dir) as service:
        response = service.deps(
            list(files), depth=depth, dep_types=dep_types, reverse=reverse, limit=limit, fresh=not no_sync
        )
    _reply(response, as_json, render.deps_json, render.deps_text)


@cli.command()
@click.option("--include-tests", is_flag=True, help="Also list unused definitions in test files.")
@click.option("--limit", "-n", type=click.IntRange(0, MAX_REFS_LIMIT), default=DEAD_LIMIT, show_default=True,
              help="List at most this many of each kind (0: all); the counts cover all.")
@click.option("--language", "-l", "languages", multiple=True,
              help="Only these languages (repeatable, or comma-separated): python, ts, go, ...")
@graph_options
@reports_errors
def dead(
    include_tests: bool, limit: int, languages: tuple[str, ...], path: Path, as_json: bool, no_sync: bool,
    index_dir: Path | None,
) -> None:
    """List definitions nothing in the project uses, each with a confidence and the reason.

    Public functions and classes unused inside the project are listed apart: other projects may
    use them. Entry points (dunder methods, main, constructors, test methods by their annotations or
    attributes, trait implementations and overrides, decorated functions such as routes or CLI
    commands) are left out, and so are tests unless --include-tests.

    \b
    Example:
      codefathom dead --json
    """
    with _answering(path, index_dir) as service:
        response = service.dead(include_tests=include_tests, limit=limit, languages=languages, fresh=not no_sync)
    _reply(response, as_json, render.dead_json, render.dead_text)


# -- context for agents: outline, brief, tests, cochange -------------------------------------------


@cli.command()
@path_argument("directory")
@click.option("--tokens", "-t", default=1500, show_default=True, type=click.IntRange(MIN_TOKENS, MAX_TOKENS),
              help="Budget of the reply, in estimated tokens (characters / 3); it is never exceeded.")
@click.option("--focus", "-f", help="Words, names or paths to put first: what you are about to work on.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON (the MCP tool's reply).")
@click.option("--no-sync", is_flag=True, help="Answer from the index as it is, without re-indexing changes.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@reports_errors
def outline(
    directory: Path, tokens: int, focus: str | None, as_json: bool, no_sync: bool, index_dir: Path | None
) -> None:
    """Map DIRECTORY (default: the whole project): directories, files and their most important
    definitions with signatures, ranked by how much of the project depends on them, cut to --tokens.

    --focus puts first the files and definitions whose names, paths or docs it mentions. What is
    cut is summarised (`+14 more functions`, `+3 more files`). Start here in an unfamiliar repository.

    \b
    Examples:
      codefathom outline --tokens 800
      codefathom outline src/ --focus "token refresh"
    """
    with _answering(directory, index_dir) as service:
        response = service.outline(tokens=tokens, focus=focus, fresh=not no_sync)
    _reply(response, as_json, render.outline_json, render.outline_text)


@cli.command()
@click.argument("file")
@graph_options
@reports_errors
def brief(file: str, path: Path, as_json: bool, no_sync: bool, index_dir: Path | None) -> None:
    """Brief FILE: its definitions with signatures and docs, its imports, the files that depend on
    it, its tests, its language and whether it parsed. Read it before editing a file.

    FILE is relative to the project root (as results print it) or to the working directory.

    \b
    Example:
      codefathom brief src/auth/jwt.py
    """
    with _answering(path, index_dir) as service:
        response = service.brief(file, fresh=not no_sync)
    _reply(response, as_json, render.brief_json, render.brief_text)


@cli.command()
@click.argument("target", metavar="NAME_OR_FILE")
@graph_options
@reports_errors
def tests(target: str, path: Path, as_json: bool, no_sync: bool, index_dir: Path | None) -> None:
    """List the tests that exercise NAME_OR_FILE, strongest evidence first, each with the reason.

    NAME_OR_FILE is a file of the project (relative to its root or to the working directory) or a
    symbol name as `symbol` takes it. Tests are found through the code graph (a test references it,
    or imports the file: direct; a test calls a non-test function that references it: via helper)
    and by naming convention (test_x.py, x_test.go, x.test.ts, x.spec.ts, XTest.java: by name).
    Run it before changing code to know which tests to run after.

    \b
    Examples:
      codefathom tests UserService.find
      codefathom tests src/auth/jwt.py --json
    """
    with _answering(path, index_dir) as service:
        response = service.find_tests(target, fresh=not no_sync)
    found = response.target_kind == "file" or bool(response.symbols)
    _reply(response, as_json, render.tests_json, render.tests_text, found=found)


@cli.command()
@click.argument("file")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(1, 1000),
              help="How many files to list.")
@click.option("--commits", "-c", default=DEFAULT_COMMITS, show_default=True, type=click.IntRange(1, MAX_COMMITS),
              help="How many of the latest commits of HEAD to read.")
@click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
              help="The project, or a directory inside it. Default: here.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON (the MCP tool's reply).")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), help=INDEX_DIR_HELP)
@reports_errors
def cochange(
    file: str, limit: int, commits: int, path: Path, as_json: bool, index_dir: Path | None
) -> None:
    """List the files most often committed together with FILE in git history.

    Reads `git log` (local only) over the last --commits commits of HEAD, ignoring commits that
    touch more than 50 files. For each file: how many commits changed both, and the confidence
    (that count / the commits that changed FILE). A renamed file is followed as far as git log
    reports its paths. History is cached next to the index and read again only from new commits.
    Files that change together without importing each other are a change easy to leave half done.

    \b
    Example:
      codefathom cochange src/auth/jwt.py --limit 5
    """
    with _answering(path, index_dir) as service:
        response = service.co_change(file, limit=limit, commits=commits)
    _reply(response, as_json, render.cochange_json, render.cochange_text)


class _progress:
    """A rich progress bar on stderr while files are parsed (or units embedded), when stderr is a
    terminal; `lazy`, it shows only once there are files enough to wait for (an index before an answer)."""

    LAZY_MIN_FILES = 200

    def __init__(self, enabled: bool, label: str = "indexing", lazy: bool = False) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.label = label
        self.lazy = lazy
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress | None:
        if not self.enabled:
            return None
        if not self.lazy:
            return self._start()

        def first(done: int, total: int, path: str) -> None:
            if self._bar is None and total >= self.LAZY_MIN_FILES:
                self._start()
            if self._bar is not None:
                self._bar.update(self._task, completed=done, total=total, path=path[-60:])

        return first

    def _start(self) -> Progress:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        from rich.progress import Progress as Bar

        self._bar = Bar(
            TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
            TextColumn("{task.fields[path]}", style="dim"), console=Console(stderr=True), transient=True,
        )
        self._bar.start()
        self._task = self._bar.add_task("index", total=None, path="")

        def update(done: int, total: int, path: str) -> None:
            self._bar.update(self._task, completed=done, total=total, path=path[-60:])

        return update

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None  # a lazy bar starts again at the next index that needs one
