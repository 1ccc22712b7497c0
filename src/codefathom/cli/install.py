"""Setting codefathom up: `install` and `uninstall` add `codefathom serve` to an MCP client's own
configuration file or take it out (mcp/clients.py knows where and in what form); `init` writes a
commented .codefathom.toml; `doctor` checks it all.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from codefathom.cli.commands import emit_json, reports_errors
from codefathom.errors import UsageError
from codefathom.mcp.clients import (
    CLIENTS,
    SERVER_NAME,
    Change,
    Client,
    found_clients,
    has_server,
    install,
    remove_guide,
    server_command,
    write_commands,
    write_guide,
    write_hook,
)
from codefathom.mcp.clients import uninstall as remove

__all__ = ["install_command", "uninstall_command", "doctor_command", "init_command"]

_NAMES = ", ".join(CLIENTS)
_SCOPE = (
    click.option("--project", "scope", flag_value="project",
                 help="This project's file (.mcp.json, .cursor/mcp.json, ...): the default where the client has one."),
    click.option("--user", "scope", flag_value="user", help="Your own file, for every project."),
    click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
                 help="The project (for --project). Default: here."),
    click.option("--dry-run", is_flag=True, help="Print what would change, as a diff; write nothing."),
    click.option("--json", "as_json", is_flag=True, help="Print as JSON."),
)


F = TypeVar("F", bound=Callable[..., Any])


def _scoped(func: F) -> F:
    for option in reversed(_SCOPE):
        func = option(func)
    return func


@click.command(name="install")
@click.argument("client_name", metavar="[CLIENT]", required=False)
@_scoped
@click.option("--guide", is_flag=True,
              help="Also write a short block on when to use which tool into the project's instructions file"
                   " for this client's agent (CLAUDE.md, AGENTS.md or GEMINI.md).")
@click.option("--commands", "slash", is_flag=True,
              help="Claude Code: also add slash commands /codefathom-map, /codefathom-callers, /codefathom-impact.")
@click.option("--hooks", is_flag=True,
              help="Claude Code: also add a session-start hook that shows the agent a 600-token outline.")
@click.option("--command", "command_text", metavar="COMMAND",
              help="What the client runs (default: this installation's codefathom, by absolute path);"
                   " `serve` is added unless given.")
@reports_errors
def install_command(client_name: str | None, scope: str | None, path: Path, dry_run: bool, as_json: bool,
                    guide: bool, slash: bool, hooks: bool, command_text: str | None) -> None:
    """Add codefathom to an MCP client's configuration, so your agent can call it.

    CLIENT is one of: claude-code, cursor, vscode, windsurf, claude-desktop, codex, gemini, zed.
    The server is merged into the client's own file under the name `codefathom`; other servers and
    settings are kept, a backup of the file is left beside it (FILE.codefathom-backup), and a second
    run changes nothing. A file that is not plain JSON or TOML (comments, a typo) is left as it is,
    with the reason. Without CLIENT, lists the clients found on this machine and their files.

    \b
    Examples:
      codefathom install                        # which clients are here, and is codefathom in them
      codefathom install claude-code            # .mcp.json in this project
      codefathom install cursor --user          # ~/.cursor/mcp.json
      codefathom install codex --dry-run        # show the change to .codex/config.toml
      codefathom install claude-code --guide    # and when to use which tool, in CLAUDE.md
      codefathom install claude-code --commands --hooks   # slash commands, a session-start outline
    """
    root = path.resolve()
    if client_name is None:
        _list(root, as_json)
        return
    client = _client(client_name)
    _claude_code_only(client, slash, hooks)
    where, command = _scope(client, scope), server_command(command_text)
    changes = [install(client, where, root, command, dry_run)]
    if guide:
        changes.append(write_guide(client, root, dry_run))
    if slash:
        changes += write_commands(client, where, root, dry_run=dry_run)
    if hooks:
        changes.append(write_hook(client, where, root, command, dry_run=dry_run))
    _report(changes, dry_run, as_json)


@click.command(name="uninstall")
@click.argument("client_name", metavar="CLIENT")
@_scoped
@click.option("--guide", is_flag=True, help="Also take codefathom's block out of the project's instructions file.")
@click.option("--commands", "slash", is_flag=True, help="Claude Code: also remove codefathom's slash commands.")
@click.option("--hooks", is_flag=True, help="Claude Code: also remove codefathom's session-start hook.")
@reports_errors
def uninstall_command(client_name: str, scope: str | None, path: Path, dry_run: bool, as_json: bool,
                      guide: bool, slash: bool, hooks: bool) -> None:
    """Take codefathom out of an MCP client's configuration; everything else in the file stays.

    \b
    Examples:
      codefathom uninstall claude-code          # from this project's .mcp.json
      codefathom uninstall zed --user
    """
    client = _client(client_name)
    _claude_code_only(client, slash, hooks)
    root, where = path.resolve(), _scope(client, scope)
    changes = [remove(client, where, root, dry_run)]
    if guide:
        changes.append(remove_guide(client, root, dry_run))
    if slash:
        changes += write_commands(client, where, root, remove=True, dry_run=dry_run)
    if hooks:
        changes.append(write_hook(client, where, root, server_command(), remove=True, dry_run=dry_run))
    _report(changes, dry_run, as_json)


def _client(name: str) -> Client:
    client = CLIENTS.get(name.lower())
    if client is None:
        raise UsageError(f"unknown client {name!r}; clients are: {_NAMES}")
    return client


def _claude_code_only(client: Client, slash: bool, hooks: bool) -> None:
    """Checked before anything is written, so a refusal leaves every file as it was."""
    if (slash or hooks) and client.name != "claude-code":
        raise UsageError("--commands and --hooks are for Claude Code only (claude-code)")


def _scope(client: Client, scope: str | None) -> str:
    return scope or ("project" if client.project else "user")


def _report(changes: list[Change], dry_run: bool, as_json: bool) -> None:
    if as_json:
        replies = [{"client": c.client.name, "file": str(c.path), "action": c.action, "dry_run": dry_run,
                    "diff": c.diff, "backup": str(c.backup) if c.backup else None} for c in changes]
        emit_json(replies[0] if len(replies) == 1 else replies)
        return
    for change in changes:
        _report_one(change, dry_run)
    if not dry_run and any(c.action in ("added", "updated") for c in changes):
        click.echo("Restart the client (or reload its MCP servers) to use it.")


def _report_one(change: Change, dry_run: bool) -> None:
    would = {"added": "add it to", "updated": "update it in", "removed": "remove it from"}.get(change.action)
    if dry_run and would:
        click.echo(f"{change.client.title}: would {would} {change.path}:")
        click.echo(change.diff, nl=False)
        return
    what = {
        "added": f"added {SERVER_NAME} to {change.path}",
        "updated": f"updated {SERVER_NAME} in {change.path}",
        "removed": f"removed {SERVER_NAME} from {change.path}",
        "unchanged": f"{change.path} is already as it would be written",
        "absent": f"{SERVER_NAME} is not in {change.path}",
    }[change.action]
    backup = f" (the file before: {change.backup})" if change.backup else ""
    click.echo(f"{change.client.title}: {what}{backup}")


def _list(root: Path, as_json: bool) -> None:
    found = found_clients(root)
    if as_json:
        emit_json({"clients": [
            {"client": c.name, "title": c.title, "files": [str(f) for f in files],
             "configured": [str(f) for f in files if has_server(c, f)]} for c, files in found
        ], "supported": list(CLIENTS)})
        return
    if not found:
        click.echo(f"No MCP client found here. Supported: {_NAMES}.")
        return
    for client, files in found:
        marks = [f"{f}{' (codefathom in it)' if has_server(client, f) else ''}" for f in files]
        click.echo(f"{client.name:15} {client.title}: " + ("; ".join(marks) or "no configuration file yet"))
    click.echo(f"\n`codefathom install CLIENT` adds it. Supported: {_NAMES}.")


@click.command(name="doctor")
@click.option("--path", "-p", "path", default=".", type=click.Path(file_okay=False, path_type=Path),
              help="The project whose index is checked. Default: here.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@reports_errors
def doctor_command(path: Path, as_json: bool) -> None:
    """Check the installation and this project's index, and say what to fix.

    Checks: Python, the tree-sitter grammars, the embedder (loads it and embeds a query), the
    index (files, units, vectors, files parsed in part, work left), the MCP server (starts
    `codefathom serve` and times its initialize handshake), and the MCP clients that have it.
    Exits 3 when a check fails, 0 otherwise (warnings included).
    """
    from codefathom.service.doctor import run_checks

    checks = run_checks(path.resolve())
    if as_json:
        emit_json({"checks": [{"check": c.name, "state": c.state, "detail": c.detail} for c in checks]})
    else:
        for check in checks:
            click.echo(f"{check.state.upper():5} {check.name:9} {check.detail}")
    if any(c.state == "fail" for c in checks):
        sys.exit(3)


@click.command(name="init")
@click.option("--path", "-p", "path", default=".", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The project. Default: here.")
@click.option("--force", is_flag=True, help="Replace a .codefathom.toml that is there (a backup is kept).")
@click.option("--dry-run", is_flag=True, help="Print the file; write nothing.")
@reports_errors
def init_command(path: Path, force: bool, dry_run: bool) -> None:
    """Write a commented .codefathom.toml for this project: every setting explained, with its
    languages, the directories that may be worth leaving out (vendored code, fixtures, generated
    data; proposed, commented out) and the embedder.

    \b
    Examples:
      codefathom init --dry-run                 # see it first
      codefathom init
    """
    from codefathom.service.init import CONFIG_FILE, config_text, survey

    root = path.resolve()
    target = root / CONFIG_FILE
    text = config_text(survey(root))
    if dry_run:
        click.echo(text, nl=False)
        return
    if target.exists() and not force:
        raise UsageError(f"{target} is there already; --force replaces it (keeping a backup), --dry-run shows")
    if target.exists():
        backup = target.with_name(target.name + ".codefathom-backup")
        backup.write_bytes(target.read_bytes())
        click.echo(f"The file before: {backup}")
    target.write_text(text, "utf-8")
    click.echo(f"Wrote {target}. `codefathom index` reads it.")
