"""`python -m codefathom` runs the command-line interface."""

from codefathom.cli import main

main()
