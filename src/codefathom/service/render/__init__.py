"""Result dataclasses to JSON-ready dicts and to compact text, shared by the CLI and MCP server.

One rendering per result type, so `--json` and the MCP reply say the same thing; one module per
family of verbs (search, index, graph, context, related, changes), the shared helpers in `common`.
"""

from __future__ import annotations

from codefathom.service.render.changes import change_impact_json, change_impact_text
from codefathom.service.render.context import brief_json, brief_text, outline_json, outline_text
from codefathom.service.render.graph import (
    dead_json,
    dead_text,
    deps_json,
    deps_text,
    hierarchy_json,
    hierarchy_text,
    refs_json,
    refs_text,
    symbols_json,
    symbols_text,
)
from codefathom.service.render.index import (
    embed_json,
    embed_text,
    indexes_json,
    indexes_text,
    status_json,
    status_text,
    sync_json,
    sync_text,
)
from codefathom.service.render.related import cochange_json, cochange_text, tests_json, tests_text
from codefathom.service.render.search import (
    SearchView,
    explain_json,
    explain_text,
    hit_json,
    search_found,
    search_json,
    search_text,
)

__all__ = [
    "SearchView", "search_json", "search_text", "search_found", "hit_json", "explain_json", "explain_text",
    "status_json", "status_text", "sync_json", "sync_text", "embed_json", "embed_text", "indexes_json",
    "indexes_text", "symbols_json", "symbols_text", "refs_json", "refs_text", "hierarchy_json", "hierarchy_text",
    "deps_json", "deps_text", "dead_json", "dead_text", "outline_json", "outline_text", "brief_json", "brief_text",
    "tests_json", "tests_text", "cochange_json", "cochange_text", "change_impact_json", "change_impact_text",
]
