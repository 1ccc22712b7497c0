"""The `codefathom` command: a thin shell that parses options, calls the service, renders.

Errors become one line on stderr: exit code 2 for usage, 1 for failures.
"""

from __future__ import annotations

from codefathom.cli.commands import cli

__all__ = ["cli", "main"]


def main() -> None:
    cli(prog_name="codefathom")
