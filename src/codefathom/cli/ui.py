"""The `ui` command: indexes the project if it must, then serves the local web page (codefathom/ui/).

The page's server is this process; Ctrl-C stops it. Token and address rules are those of `serve --http`.
"""

from __future__ import annotations

import sys
import threading
import webbrowser
from pathlib import Path

import click

from codefathom.cli.commands import _progress, reports_errors
from codefathom.errors import UsageError
from codefathom.service import Codefathom

__all__ = ["ui_command", "DEFAULT_ADDRESS"]

DEFAULT_ADDRESS = "127.0.0.1:8780"


@click.command("ui")
@click.option("--http", "http_address", default=DEFAULT_ADDRESS, show_default=True, metavar="[HOST:]PORT",
              help="Where to listen (HOST defaults to 127.0.0.1). Any address but loopback needs a token.")
@click.option("--token", envvar="CODEFATHOM_TOKEN", show_envvar=True,
              help="Token every request must carry; a browser gives it once as ?token=, then holds a cookie."
                   " Prefer the environment variable or --token-file: command lines are visible to other users.")
@click.option("--token-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read the token from this file's first line.")
@click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
              help="The project, or a directory inside it (answers keep to it). Default: here.")
@click.option("--open/--no-open", "open_browser", default=None,
              help="Open the page in a browser. Default: when run at a terminal.")
@reports_errors
def ui_command(
    http_address: str, token: str | None, token_file: Path | None, path: Path, open_browser: bool | None
) -> None:
    """Serve a local web page to look at the code: search, call graphs, file dependencies, the map.

    \b
    Pages:
      search     ranked search with the matching lines highlighted; filters for
                 language, path glob, kind and mode (hybrid, lexical, vector, literal,
                 regex, path); results link to symbol and file pages
      symbol     a definition with its code, its references, and its callers and
                 callees (1 or 2 levels) drawn as a graph
      file       what a file depends on and what depends on it, as a graph, and its outline
      map        directories sized by PageRank, and the index's health (languages, parse
                 health, vectors and embedding progress), refreshed every few seconds

    A project never indexed is indexed first, with a progress bar (Ctrl-C keeps what is
    done); the server then keeps the index in step with the files and embeds in the
    background, as `codefathom serve` does. Paths the page asks about must lie inside the
    project. Nothing is loaded from the network: the page works offline.

    The page listens on 127.0.0.1 unless told otherwise. Without a token, a request must name
    that address (Host) and come from no page elsewhere (Origin). With a token (required for
    any other address), open the URL printed once: it carries ?token=, which the server trades
    for an HttpOnly cookie and takes out of the address bar. Scripts send
    `Authorization: Bearer TOKEN` instead.

    \b
    Examples:
      codefathom ui                                 # http://127.0.0.1:8780/
      codefathom ui -p ~/src/django --http 9000 --no-open
      codefathom ui --http 0.0.0.0:8780 --token-file ~/.codefathom-token
    """
    from codefathom.mcp.http import parse_address
    from codefathom.ui.app import UiBackend, bind, build_app, require_token, run_ui

    secret = _token(token, token_file)
    address = parse_address(http_address)
    require_token(address, secret)
    _index_first(path)
    backend = UiBackend(path)
    app = build_app(backend, address, secret)
    sock = bind(address)
    url = address.url("/") + (f"?token={secret}" if secret else "")
    guard = "token required" if secret else "no token: anyone on this machine can open it"
    if open_browser is None:
        open_browser = sys.stdout.isatty() and sys.stderr.isatty()

    def ready() -> None:
        click.echo(f"codefathom ui for {backend.root} at {url} ({guard}); Ctrl-C stops it", err=True)
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    try:
        run_ui(app, sock, ready)
    except KeyboardInterrupt:  # uvicorn shut down cleanly, then passes Ctrl-C on: the server's normal end
        pass
    click.echo("codefathom ui stopped", err=True)


def _token(token: str | None, token_file: Path | None) -> str | None:
    if token and token_file:
        raise UsageError("give --token or --token-file, not both")
    if token_file is not None:
        lines = token_file.read_text(encoding="utf-8").splitlines()
        token = lines[0] if lines else ""
        if not token.strip():
            raise UsageError(f"{token_file} holds no token on its first line")
    return (token or "").strip() or None


def _index_first(path: Path) -> None:
    """Index a project never indexed (or whose last sync stopped early) before serving, with a progress
    bar: the page's first answers would wait for it anyway, with nothing on screen to say why."""
    with Codefathom(path) as service:
        if service.status().complete:
            return
        click.echo(f"indexing {service.root} first (Ctrl-C stops; what is done is kept)", err=True)
        with _progress(enabled=True) as progress:
            report = service.index(progress)
        click.echo(f"indexed {report.discovered} files in {report.seconds:.1f}s", err=True)
