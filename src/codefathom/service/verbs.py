"""The verbs both shells offer: each MCP tool, the CLI commands that answer the same question, and
the few tool parameters the command line spells another way.

Every other parameter of a tool is the command's option of the same name (`context_before` is
`--context-before`) or its argument, in every command of the tool unless ONLY_IN names the few.
The MCP server registers exactly these tools, and tests/test_mcp_stdio.py checks every parameter
against the commands, so the shells cannot drift.
"""

from __future__ import annotations

__all__ = ["VERBS", "SPELLED_OTHERWISE", "ONLY_IN"]

# MCP tool -> the CLI commands answering it (a tool that differs by a flag can be two commands).
VERBS: dict[str, tuple[str, ...]] = {
    "search_code": ("search",),
    "index_status": ("status",),
    "index_codebase": ("index",),
    "list_indexes": ("list",),
    "clear_index": ("clear",),
    "find_symbol": ("symbol",),
    "find_references": ("refs",),
    "call_hierarchy": ("callers", "callees"),
    "file_dependencies": ("deps", "impact"),
    "change_impact": ("impact",),
    "code_health": ("dead", "duplicates", "conventions"),
    "outline": ("outline",),
    "file_brief": ("brief",),
    "find_tests": ("tests",),
    "co_change": ("cochange",),
}

# (tool, parameter) -> how the command line says it, where that is not an option of the same name.
SPELLED_OTHERWISE: dict[tuple[str, str], str] = {
    **{(tool, "project_path"): "--path" for tool in VERBS if tool != "list_indexes"},
    ("search_code", "index_names"): "--index",
    ("search_code", "explain"): "the `explain` command (with the query, --limit and the filters)",
    ("call_hierarchy", "direction"): "the command: `callers` or `callees`",
    ("file_dependencies", "direction"): "the command: `impact` (dependents) or `deps` (dependencies)",
    ("change_impact", "diff_text"): "--diff - (the diff on stdin)",
    ("file_dependencies", "path"): "the argument FILES",
    ("file_brief", "path"): "the argument FILE",
    ("co_change", "path"): "the argument FILE",
    ("outline", "path"): "the argument DIRECTORY",
    ("find_tests", "name"): "the argument NAME_OR_FILE",
    ("find_tests", "path"): "the argument NAME_OR_FILE",
    ("code_health", "report"): "the command: `dead`, `duplicates` or `conventions`",
}

# (tool, parameter) -> the only commands of the tool that take it (the option of the same name).
ONLY_IN: dict[tuple[str, str], tuple[str, ...]] = {
    ("code_health", "similarity"): ("duplicates",),
    ("code_health", "min_lines"): ("duplicates",),
    ("code_health", "detail"): ("conventions",),
}
