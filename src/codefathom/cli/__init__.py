"""The `codefathom` command: a thin shell that parses options, calls the service, renders.

Errors become one line on stderr: exit code 2 for usage, 1 for failures.
"""

from __future__ import annotations

from codefathom.cli.commands import cli
from codefathom.cli.health import conventions_command, duplicates_command
from codefathom.cli.install import doctor_command, init_command, install_command, uninstall_command
from codefathom.cli.summaries import summarize_command
from codefathom.cli.ui import ui_command

cli.add_command(install_command)
cli.add_command(uninstall_command)
cli.add_command(doctor_command)
cli.add_command(init_command)
cli.add_command(duplicates_command)
cli.add_command(conventions_command)
cli.add_command(ui_command)
cli.add_command(summarize_command)

__all__ = ["cli", "main"]


def main() -> None:
    cli(prog_name="codefathom")
