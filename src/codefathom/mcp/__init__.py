"""The MCP server: search_code, index_status, index_codebase, list_indexes and clear_index for a coding agent.

Served over stdio (`run_stdio`), or streamable HTTP or SSE (`codefathom.mcp.http.run_http`, which
imports uvicorn and so is not imported here). Each tool is one call on the `Codefathom` service;
replies are the dicts the CLI prints with --json.
"""

from __future__ import annotations

from codefathom.mcp.server import build_server, run_stdio

__all__ = ["build_server", "run_stdio"]
