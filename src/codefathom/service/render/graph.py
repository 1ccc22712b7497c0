"""Replies of the code graph's verbs: symbol, refs, callers/callees, deps/impact and dead code.

Compact by default: a tree node leaves out what it does not have, a list says how many more there are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from codefathom.parse import graph_languages, language_name
from codefathom.service.graph import (
    MAX_NODES,
    DeadItem,
    DeadResponse,
    DepNode,
    DepsResponse,
    HierarchyNode,
    HierarchyResponse,
    RefsResponse,
    SymbolsResponse,
)
from codefathom.service.render.common import _count, _noticed_json, _noticed_text, _one_line
from codefathom.store import RefInfo, SymbolInfo

__all__ = [
    "MODULE_LEVEL", "symbol_json", "symbols_json", "symbols_text", "ref_json", "refs_json", "refs_text",
    "hierarchy_json", "hierarchy_text", "deps_json", "deps_text", "dead_json", "dead_text",
]


# -- code graph --------------------------------------------------------------------------------
# Replies are compact (agents pay per token): a tree node leaves out `children` when it has none
# and `seen_before` unless it is true.

MODULE_LEVEL = "<module>"  # the scope of a reference written outside every definition


def symbol_json(symbol: SymbolInfo) -> dict[str, Any]:
    return {
        "path": symbol.path, "start_line": symbol.start_line, "end_line": symbol.end_line, "kind": symbol.kind,
        "name": symbol.name, "qualified_name": symbol.qualified_name, "parent": symbol.parent,
        "signature": symbol.signature, "doc": symbol.doc,
    }


def symbols_json(response: SymbolsResponse) -> dict[str, Any]:
    data: dict[str, Any] = {
        "project_root": response.project_root, "query": response.query,
        "symbols": [symbol_json(s) for s in response.symbols], "total": response.total,
    }
    if not response.symbols:
        data["note"] = _no_symbol(response.query)
    elif response.total > len(response.symbols):
        data["note"] = _symbols_more(response)
    return data


def _symbols_more(response: SymbolsResponse) -> str:
    return (
        f"The first {len(response.symbols)} of {response.total:,} definitions are listed; a qualified name"
        " (`Class.method`), kinds, or a higher limit (0: all) finds the one you want."
    )


def symbols_text(response: SymbolsResponse) -> str:
    """`path:start-end  kind  qualified_name`, then the signature and the doc's first line."""
    if not response.symbols:
        return _no_symbol(response.query)
    lines = []
    for symbol in response.symbols:
        lines.append(f"{symbol.path}:{symbol.start_line}-{symbol.end_line}  {symbol.kind}  {symbol.qualified_name}")
        if symbol.signature:
            lines.append("    " + _one_line(symbol.signature))
        doc = symbol.doc.strip().split("\n", 1)[0] if symbol.doc else ""
        if doc:
            lines.append("    " + doc[:160])
    if response.total > len(response.symbols):
        lines.append(f"# {_symbols_more(response)}")
    return "\n".join(lines)


def ref_json(ref: RefInfo) -> dict[str, Any]:
    return {
        "path": ref.path, "line": ref.line, "column": ref.column, "kind": ref.kind, "label": ref.label,
        "confidence": ref.confidence, "scope": ref.scope, "receiver": ref.receiver,
    }


@_noticed_json
def refs_json(response: RefsResponse) -> dict[str, Any]:
    """Definitions and the references bound to them; with several definitions each reference names
    the one it binds to (`target`)."""
    several = len(response.symbols) > 1
    by_id = {s.id: s.qualified_name for s in response.symbols}
    references = []
    for ref in response.references:
        item = ref_json(ref)
        if several:
            item["target"] = by_id.get(ref.target_id or -1)
        references.append(item)
    data: dict[str, Any] = {
        "project_root": response.project_root, "query": response.query,
        "symbols": [{**symbol_json(s), "references": response.counts.get(s.id, 0)} for s in response.symbols],
        "references": references, "total_references": response.total, "limit": response.limit,
        "unbound_elsewhere": response.unbound_elsewhere,
    }
    note = _refs_note(response)
    if note:
        data["note"] = note
    return data


@_noticed_text
def refs_text(response: RefsResponse) -> str:
    """Each definition, then `path:line  label  scope` for every reference bound to it."""
    if not response.symbols:
        return _no_symbol(response.query)
    lines = []
    for symbol in response.symbols:
        bound = [r for r in response.references if r.target_id == symbol.id]
        lines.append(f"{symbol.qualified_name}  {symbol.kind}  {symbol.path}:{symbol.start_line}"
                     f"  ({_count(response.counts.get(symbol.id, 0), 'reference')})")
        for ref in bound:
            kind = "" if ref.kind == "call" else f"  ({ref.kind})"
            lines.append(f"  {ref.path}:{ref.line}  {ref.label}  {ref.scope or MODULE_LEVEL}{kind}")
    note = _refs_note(response)
    if note:
        lines.append(f"# {note}")
    return "\n".join(lines)


@_noticed_json
def hierarchy_json(response: HierarchyResponse) -> dict[str, Any]:
    data: dict[str, Any] = {
        "project_root": response.project_root, "query": response.query, "direction": response.direction,
        "depth": response.depth, "roots": [_hierarchy_node_json(n) for n in response.roots],
        "truncated": response.truncated, "limit": response.limit,
    }
    if response.truncated:
        data["more"] = response.more
    note = _hierarchy_note(response)
    if note:
        data["note"] = note
    return data


@_noticed_text
def hierarchy_text(response: HierarchyResponse) -> str:
    """Each definition, then its callers (or callees) as an indented tree of `path:line  label  name`."""
    if not response.roots:
        return _hierarchy_note(response)
    lines: list[str] = []
    for root in response.roots:
        name = root.symbol.qualified_name if root.symbol else response.query
        lines.append(f"{response.direction} of {name}  ({root.path}:{root.line})")
        if not root.children:
            lines.append(f"  (no {response.direction} found)")
        _hierarchy_lines(root.children, 1, lines)
    note = _hierarchy_note(response)
    if note:
        lines.append(f"# {note}")
    return "\n".join(lines)


@_noticed_json
def deps_json(response: DepsResponse) -> dict[str, Any]:
    """Trees of files; each node says how it is connected to its parent (`via`: dep type -> count)."""
    data: dict[str, Any] = {
        "project_root": response.project_root, "paths": response.paths, "direction": response.direction,
        "depth": response.depth, "dep_types": response.dep_types,
        "roots": [_dep_node_json(n) for n in response.roots], "files": response.files,
        "truncated": response.truncated, "limit": response.limit,
    }
    if response.truncated:
        data["more"] = response.more
    external = {path: modules for path, modules in response.external.items() if modules}
    if external:
        data["external"] = external
    note = _deps_note(response)
    if note:
        data["note"] = note
    return data


@_noticed_text
def deps_text(response: DepsResponse) -> str:
    """Each file, then what it depends on (or what depends on it) as an indented tree."""
    lines: list[str] = []
    for root in response.roots:
        lines.append(root.path)
        if not root.children:
            lines.append("  (none in the project)")
        _dep_lines(root.children, 1, lines)
        modules = response.external.get(root.path)
        if modules:
            lines.append(f"  external: {', '.join(modules)}")
    lines.append(f"# {_count(response.files, 'other file')} reached, depth {response.depth}")
    note = _deps_note(response)
    if note:
        lines.append(f"# {note}")
    return "\n".join(lines)


@_noticed_json
def dead_json(response: DeadResponse) -> dict[str, Any]:
    """Both lists cut to `limit`; `total_unused` and `total_public_api` count them all."""
    return {
        "project_root": response.project_root,
        "unused": [_dead_item_json(d) for d in response.unused],
        "public_api": [_dead_item_json(d) for d in response.public_api],
        "total_unused": response.total_unused, "total_public_api": response.total_public_api,
        "orphan_files": response.orphan_files, "total_orphan_files": response.total_orphan_files,
        "coupling": [{"path": c.path, "fan_in": c.fan_in, "fan_out": c.fan_out} for c in response.coupling],
        "limit": response.limit, "languages_checked": sorted(graph_languages()),
    }


@_noticed_text
def dead_text(response: DeadResponse) -> str:
    """Unused definitions, then unused public API: per confidence and reason, `path:line  kind  qualified_name`."""
    languages = ", ".join(sorted(graph_languages()))
    if not response.unused and not response.public_api and not response.orphan_files:
        return f"No unused definitions found (only {languages} files are checked).\n" + _coupling_text(response)
    lines = []
    lists = (
        ("unused", response.unused, response.total_unused),
        ("public, unused inside the project", response.public_api, response.total_public_api),
    )
    for title, items, total in lists:
        if not items:
            continue
        lines.append(f"{title} ({total}):")
        grouped: dict[tuple[float, str], list[DeadItem]] = {}  # a reason is said once for the items it covers
        for item in items:
            grouped.setdefault((item.confidence, item.reason), []).append(item)
        for (confidence, reason), group in grouped.items():
            lines.append(f"  {confidence:.2f}  {reason}:")
            lines.extend(f"    {d.symbol.path}:{d.symbol.start_line}  {d.symbol.kind}  {d.symbol.qualified_name}"
                         for d in group)
        if total > len(items):
            lines.append(f"  (+{total - len(items):,} more: a higher limit, or 0, lists them)")
    if response.orphan_files:
        lines.append(f"files nothing else imports or uses, no entry point ({response.total_orphan_files}):")
        lines.extend(f"  {path}" for path in response.orphan_files)
        if response.total_orphan_files > len(response.orphan_files):
            lines.append(f"  (+{response.total_orphan_files - len(response.orphan_files):,} more)")
    coupling = _coupling_text(response)
    if coupling:
        lines.append(coupling)
    lines.append(f"# only {languages} files are checked; confidence is how sure it is unused")
    return "\n".join(lines)


def _coupling_text(response: DeadResponse) -> str:
    """The files tied to the most other directories: `path  used from N dirs, uses M`."""
    if not response.coupling:
        return ""
    lines = ["coupling: files tied to the most other directories (used from / uses):"]
    lines.extend(f"  {c.path}  {c.fan_in} / {c.fan_out}" for c in response.coupling)
    return "\n".join(lines)


def _dead_item_json(item: DeadItem) -> dict[str, Any]:
    s = item.symbol
    return {
        "path": s.path, "start_line": s.start_line, "end_line": s.end_line, "kind": s.kind,
        "qualified_name": s.qualified_name, "confidence": item.confidence, "reason": item.reason,
    }


def _hierarchy_node_json(node: HierarchyNode) -> dict[str, Any]:
    symbol = node.symbol
    data: dict[str, Any] = {
        "qualified_name": symbol.qualified_name if symbol else None, "kind": symbol.kind if symbol else "module",
        "path": node.path, "line": node.line, "label": node.label,
    }
    if node.children:
        data["children"] = [_hierarchy_node_json(c) for c in node.children]
    if node.seen_before:
        data["seen_before"] = True
    return data


def _hierarchy_lines(nodes: list[HierarchyNode], level: int, lines: list[str]) -> None:
    for node in nodes:
        name = node.symbol.qualified_name if node.symbol else MODULE_LEVEL
        seen = "  (seen above)" if node.seen_before else ""
        lines.append(f"{'  ' * level}{node.path}:{node.line}  {node.label}  {name}{seen}")
        _hierarchy_lines(node.children, level + 1, lines)


def _dep_node_json(node: DepNode) -> dict[str, Any]:
    data: dict[str, Any] = {"path": node.path}
    if node.dep_types:
        data["via"] = node.dep_types
    if node.children:
        data["children"] = [_dep_node_json(c) for c in node.children]
    if node.seen_before:
        data["seen_before"] = True
    return data


def _dep_lines(nodes: list[DepNode], level: int, lines: list[str]) -> None:
    for node in nodes:
        via = ", ".join(f"{kind} {count}" for kind, count in node.dep_types.items())
        seen = "  (seen above)" if node.seen_before else ""
        lines.append(f"{'  ' * level}{node.path}  {via}{seen}")
        _dep_lines(node.children, level + 1, lines)


def _no_symbol(query: str) -> str:
    return (
        f"No definition named `{query}` in the index. Try `codefathom search {query}` (MCP: search_code),"
        " which also matches parts of names and the words code uses."
    )


def _refs_note(response: RefsResponse) -> str:
    notes = []
    if len(response.references) < response.total:
        notes.append(
            f"The first {len(response.references):,} of {response.total:,} references are listed, by path and line;"
            " a limit of 0 lists them all."
        )
    if not response.symbols:
        notes.append(_no_symbol(response.query))
    elif not response.references:
        without = _without_references(s.path for s in response.symbols)
        if without:
            notes.append(without)
        else:
            notes.append(f"No reference in the project binds to `{response.query}`.")
    if response.unbound_elsewhere:
        name = response.query.replace("::", ".").rsplit(".", 1)[-1]
        notes.append(
            f"{_count(response.unbound_elsewhere, 'other reference')} to `{name}` could not be bound to one"
            " definition (several share the name); `codefathom search` or grep finds them."
        )
    return " ".join(notes)


def _hierarchy_note(response: HierarchyResponse) -> str:
    if not response.roots:
        return (
            f"No function, method or class named `{response.query}` in the index. Try `codefathom search"
            f" {response.query}` (MCP: search_code)."
        )
    notes = []
    if all(not root.children for root in response.roots):
        without = _without_references(root.path for root in response.roots)
        if without:
            notes.append(without)
    if response.truncated:
        notes.append(
            f"The tree stops at {response.limit} nodes: {response.more:,} more at its last level (and perhaps"
            f" deeper); a higher limit (up to {MAX_NODES}), less depth or a more specific name shows them."
        )
    return " ".join(notes)


def _deps_note(response: DepsResponse) -> str:
    notes = []
    if all(not root.children for root in response.roots):
        without = _without_references(response.paths)
        if without:
            notes.append(without)
    if response.truncated:
        notes.append(
            f"The trees stop at {response.limit} files: {response.more:,} more at their last level (and perhaps"
            f" deeper); a higher limit (up to {MAX_NODES}) or less depth shows them."
        )
    return " ".join(notes)


def _without_references(paths: Iterable[str]) -> str:
    """Why a graph answer is empty when the files are in languages without reference extraction."""
    languages = sorted({language_name(p) for p in paths} - graph_languages())
    if not languages:
        return ""
    known = ", ".join(sorted(graph_languages())) or "no language"
    return (
        f"References are extracted only for {known} so far, not for {', '.join(languages)}:"
        " this answer is empty for that reason; `codefathom search` (MCP: search_code) finds uses by name."
    )






