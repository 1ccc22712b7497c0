"""The MCP server: search_code, index_status, index_codebase, list_indexes and clear_index for a coding agent.

Served over stdio (`run_stdio`), or streamable HTTP or SSE (`codefathom.mcp.http.run_http`, which
imports uvicorn and so is not imported here). Each tool is one call on the `Codefathom` service;
replies are the dicts the CLI prints with --json.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codefathom.mcp.server import build_server, run_stdio

__all__ = ["build_server", "run_stdio"]


def __getattr__(name: str) -> Any:
    # The server (and the MCP SDK under it) is loaded when first asked for: the command line reads
    # `codefathom.mcp.clients` for `install` and must not pay for the SDK on every command.
    if name in __all__:
        from codefathom.mcp import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
