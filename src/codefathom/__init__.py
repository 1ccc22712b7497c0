"""codefathom: local-first code search and code knowledge graph for coding agents and their users.

The library's entry point is `Codefathom(path)`; the CLI and the MCP server are shells over it.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
