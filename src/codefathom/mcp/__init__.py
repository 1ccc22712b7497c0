"""The MCP server: search_code, index_status and index_codebase for a coding agent, over stdio.

Each tool is one call on the `Codefathom` service; replies are the dicts the CLI prints with --json.
"""

from __future__ import annotations

from codefathom.mcp.server import build_server, run_stdio

__all__ = ["build_server", "run_stdio"]
