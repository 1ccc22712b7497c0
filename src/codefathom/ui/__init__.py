"""The local web page (`codefathom ui`): search, a symbol's call graph, a file's dependencies, the map.

A shell over the service layer like cli/ and mcp/: app.py serves static/ and a JSON API under /api/.
"""

from __future__ import annotations

from codefathom.ui.app import UiBackend, build_app, run_ui

__all__ = ["UiBackend", "build_app", "run_ui"]
