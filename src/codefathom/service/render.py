"""Result dataclasses to JSON-ready dicts and to compact text, shared by the CLI and MCP server.

One rendering per result type, so `--json` and the MCP reply say the same thing.
"""

from __future__ import annotations

import functools
import json
import posixpath
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

from codefathom.errors import UsageError, shown
from codefathom.model import Hit
from codefathom.parse import graph_languages, language_name
from codefathom.service import EmbedReport, IndexInfo, IndexStatus, SearchResponse, SyncReport
from codefathom.service.changes import ChangedFile, ChangeImpactResponse
from codefathom.service.context import (
    FileBriefResponse,
    OutlineDef,
    OutlineFile,
    OutlineResponse,
    OutlineSelection,
    estimate_tokens,
    fit_outline,
)
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
from codefathom.service.related import CoChangeResponse, TestsResponse
from codefathom.service.snippets import (
    LINE_WIDTH,
    MAX_CONTEXT,
    Snippet,
    focus_lines,
    matching_lines,
    query_terms,
)
from codefathom.store import RefInfo, SymbolInfo

__all__ = [
    "SearchView", "search_json", "search_text", "search_found", "status_json", "status_text", "sync_json",
    "sync_text", "indexes_json", "indexes_text", "symbols_json", "symbols_text", "refs_json", "refs_text",
    "hierarchy_json", "hierarchy_text",
    "deps_json", "deps_text", "dead_json", "dead_text", "outline_json", "outline_text", "brief_json", "brief_text",
    "tests_json", "tests_text", "cochange_json", "cochange_text", "change_impact_json", "change_impact_text",
]

SNIPPET_LINES = 3


class _Noticed(Protocol):
    notices: list[str]


R = TypeVar("R", bound=_Noticed)


def _noticed_json(to_json: Callable[[R], dict[str, Any]]) -> Callable[[R], dict[str, Any]]:
    """A graph reply's JSON with its `notices` (what the index has not done yet), when it has any."""

    @functools.wraps(to_json)
    def with_notices(response: R) -> dict[str, Any]:
        data = to_json(response)
        if response.notices:
            data["notices"] = response.notices
        return data

    return with_notices


def _noticed_text(to_text: Callable[[R], str]) -> Callable[[R], str]:
    """A graph reply's text with its notices first, as `# ...` lines (as a search prints them)."""

    @functools.wraps(to_text)
    def with_notices(response: R) -> str:
        return "\n".join([*(f"# {notice}" for notice in response.notices), to_text(response)])

    return with_notices


@dataclass(frozen=True)
class SearchView:
    """How much of each result a search reply shows: `compact` (the default) its signature and the
    lines holding the query's words, each with `context_before` and `context_after` lines; `full`
    its stored body; `unit` the whole unit holding its matching lines (the search grew it:
    service/enclosing.py)."""

    detail: Literal["compact", "full", "unit"] = "compact"
    context_before: int = 0
    context_after: int = 0

    def __post_init__(self) -> None:
        if self.detail not in ("compact", "full", "unit"):
            raise UsageError(f"detail must be 'compact', 'full' or 'unit', got {shown(self.detail)}")
        for name in ("context_before", "context_after"):
            value = getattr(self, name)
            if not 0 <= value <= MAX_CONTEXT:
                raise UsageError(f"{name} must be between 0 and {MAX_CONTEXT}, got {value}")

    def snippet(self, hit: Hit, terms: list[str], focus: tuple[str, int, int] | None = None) -> Snippet:
        """The lines holding `terms`; for a result holding the lines a `path:line` query names (`focus`), those."""
        if focus is not None and hit.path == focus[0] and hit.start_line <= focus[1] <= hit.end_line:
            if hit.line_numbers is not None:  # a class shown by its members' headers: its signature says it
                return Snippet([], 0)
            return focus_lines(
                hit.content, hit.start_line, focus[1], focus[2], before=self.context_before, after=self.context_after
            )
        return matching_lines(
            hit.content, hit.start_line, terms, signature=hit.signature, before=self.context_before,
            after=self.context_after, numbers=hit.line_numbers,
        )


COMPACT = SearchView()


def hit_json(
    hit: Hit, view: SearchView = COMPACT, terms: list[str] | None = None, focus: tuple[str, int, int] | None = None
) -> dict[str, Any]:
    """A result; compact: its signature and matching lines (`lines`: [line, text] pairs, `more_lines`
    the matching lines left out) instead of its body (`content`, `truncated`: cut to a maximum)."""
    data: dict[str, Any] = {
        "path": hit.path, "start_line": hit.start_line, "end_line": hit.end_line, "name": hit.name,
        "qualified_name": hit.qualified_name, "kind": hit.kind, "language": hit.language, "parent": hit.parent,
        "score": hit.score, "signature": hit.signature,
    }
    if hit.summary:  # written by `codefathom summarize`; the key is left out when there is none
        data["summary"] = hit.summary
    if view.detail != "compact" or hit.kind == "directory":  # a directory's content is its summary, already short
        data["content"] = hit.content
        data["truncated"] = hit.truncated
        if view.detail == "unit" and hit.line_numbers is not None:  # an outline: the file line of each line
            data["line_numbers"] = list(hit.line_numbers)
    else:
        snippet = view.snippet(hit, terms or [], focus)
        data["lines"] = [[number, text] for number, text in snippet.lines]
        if snippet.more:
            data["more_lines"] = snippet.more
    if hit.kind == "directory":
        data["files"] = list(hit.files)  # its top files, best first; its summary is the content
    if hit.expanded is not None:  # added by graph expansion: the result it neighbours, and how
        data["expanded"] = {"from": hit.expanded.source, "via": hit.expanded.via}
    if hit.deps is not None:  # include_deps: per relation, the definitions one graph edge away
        data["deps"] = {via: list(names) for via, names in hit.deps}
    if hit.debug is not None:
        data["debug"] = hit.debug
    return data


def search_json(response: SearchResponse, view: SearchView = COMPACT) -> dict[str, Any]:
    terms = query_terms(response.query)
    results = [hit_json(h, view, terms, response.focus) for h in response.results]
    if response.result_indexes is not None:  # several indexes searched: say which each result is from
        for result, index in zip(results, response.result_indexes, strict=True):
            result["index"] = index
    data: dict[str, Any] = {"project_root": response.project_root, "results": results}
    if response.within:
        data["within"] = response.within
    if response.partial:
        data["partial"] = True
        data["indexing"] = response.indexing
    if response.notices:
        data["notices"] = response.notices
    if response.debug is not None:
        data["debug"] = response.debug
    return data


def search_found(response: SearchResponse) -> tuple[bool, int, str | None, str]:
    """(found, how many, top file, what was counted) of a ranked search: what `detail: "exists"` answers."""
    first = response.results[0].path if response.results else None
    return bool(response.results), len(response.results), first, "results"


def search_text(response: SearchResponse, view: SearchView = COMPACT) -> str:
    """Per result `path:start-end  kind  qualified_name  score`, its signature, then its lines holding
    the query's words as `line: text` (compact), or its whole body (full, unit)."""
    lines = [f"# {n}" for n in response.notices]
    if response.partial:
        lines.append("# partial: the index is still being built, so results come from part of the project")
    if not response.results:
        where = f" under {response.within}/" if response.within else ""
        lines.append(f"No results{where}. Try other words, a name as the code writes it, or fewer filters.")
        return "\n".join(lines)
    terms = query_terms(response.query)
    indexes = response.result_indexes or [""] * len(response.results)
    for hit, index in zip(response.results, indexes, strict=True):
        where = f"{index.rstrip('/')}/" if index else ""
        if hit.kind == "directory":
            lines.extend(_directory_hit_text(hit, where, SNIPPET_LINES))
            continue
        lines.append(
            f"{where}{hit.path}:{hit.start_line}-{hit.end_line}  {hit.kind}  {hit.qualified_name}  {hit.score:.2f}"
        )
        if hit.expanded is not None:
            lines.append(f"    ^ {_NEIGHBOUR_OF[hit.expanded.via]} {hit.expanded.source}")
        if hit.summary:
            lines.append(_clip("    summary: " + hit.summary, LINE_WIDTH + 4))
        deps = [f"    {via}: {', '.join(names)}" for via, names in hit.deps or ()]
        if view.detail != "compact":
            body = hit.content.split("\n")
            numbers = hit.line_numbers or range(hit.start_line, hit.start_line + len(body))
            lines.extend(_numbered(list(zip(numbers, body, strict=False))))
            if hit.truncated:
                lines.append("    (cut here: read the file for the rest)")
            lines.extend(deps)
            continue
        if hit.signature:
            lines.append("    " + _clip(_one_line(hit.signature), LINE_WIDTH))
        snippet = view.snippet(hit, terms, response.focus)
        lines.extend(_numbered(snippet.lines))
        if snippet.more:
            lines.append(f"    (+{_count(snippet.more, 'more matching line')})")
        lines.extend(deps)
        if hit.debug is not None:  # --debug / include_debug: the ranking's evidence, as --json shows it
            lines.append(f"    debug: {json.dumps(hit.debug, separators=(',', ':'), default=str)}")
    if response.debug is not None:
        lines.append(f"# debug: {json.dumps(response.debug, separators=(',', ':'), default=str)}")
    return "\n".join(lines)


def _numbered(numbered: list[tuple[int, str]]) -> list[str]:
    """`line: text`, indented as in the file less what all the lines share (the numbers show the gaps)."""
    texts = [text for _, text in numbered if text.strip()]
    indent = min((len(text) - len(text.lstrip()) for text in texts), default=0)
    return [f"    {number}: {text[indent:]}".rstrip() for number, text in numbered]


# How an expanded result relates to its source, said of the result: `via` is said of the source.
_NEIGHBOUR_OF = {
    "calls": "called by", "called by": "calls", "inherits": "base class of", "inherited by": "subclass of",
    "imports": "imported by",
}


def _directory_hit_text(hit: Hit, where: str, snippet_lines: int) -> list[str]:
    """`dir/  directory  N files (languages)`, then its description and its top files on one line."""
    summary = hit.content.split("\n")
    counts = summary[0].partition(": ")[2] if summary else ""
    out = [f"{where}{hit.path}/  directory  {counts}".rstrip()]
    if not snippet_lines:
        return out
    described = [line for line in summary[1:] if line.strip()]
    described = described[: described.index("Top files:")] if "Top files:" in described else []
    out.extend("    " + line.strip()[:120] for line in described[: max(snippet_lines - 1, 0)])
    if hit.files:
        names = ", ".join(posixpath.relpath(path, hit.path) for path in hit.files)
        out.append(f"    top files: {names}"[:124])
    return out


def sync_json(report: SyncReport, root: str, embedded: EmbedReport | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "project_root": root, "files": report.discovered, "added": report.added, "updated": report.updated,
        "removed": report.removed, "unchanged": report.unchanged, "units_written": report.units_written,
        "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
        "parse_problems": [{"path": p, "status": s, "error": e} for p, s, e in report.parse_problems],
        "seconds": round(report.seconds, 3), "discovery": report.method,
    }
    if report.notices:
        data["notices"] = report.notices
    if embedded is not None:
        data["embedding"] = embed_json(embedded)
    return data


def embed_json(report: EmbedReport) -> dict[str, Any]:
    return {
        "embedder": report.embedder, "embedded": report.embedded, "reused": report.reused,
        "remaining": report.remaining, "units": report.total, "seconds": round(report.seconds, 3),
        "units_per_second": round(report.units_per_second, 1), "notices": report.notices,
    }


def embed_text(report: EmbedReport) -> str:
    if not report.embedder:
        return "\n".join(f"  vectors: {n}" for n in report.notices)
    have = report.total - report.remaining
    line = f"  vectors: {have:,} of {report.total:,} units ({report.embedder})"
    if report.embedded or report.reused:
        line += f"; embedded {report.embedded:,} in {report.seconds:.1f}s"
        line += f" ({report.units_per_second:.1f}/s)" if report.embedded else ""
        line += f", reused {report.reused:,} cached" if report.reused else ""
    if report.remaining:
        line += "\n  the rest is embedded by the next `codefathom index` or in the background by `codefathom serve`"
    return line


def sync_text(report: SyncReport, status: IndexStatus, embedded: EmbedReport | None = None) -> str:
    health = ", ".join(f"{n} {s}" for s, n in sorted(status.parse_health.items()))
    languages = ", ".join(f"{lang} {n}" for lang, n in list(status.languages.items())[:8])
    out = [f"# {notice}" for notice in report.notices]
    out += [
        f"Indexed {status.project_root} in {report.seconds:.2f}s"
        + (f" into {status.index_path} (set by {status.store_source})" if status.store_source else ""),
        f"  files: {status.files} ({report.added} added, {report.updated} updated, {report.removed} removed,"
        f" {report.unchanged} unchanged)",
        f"  units: {status.units}",
        f"  languages: {languages or 'none'}",
        f"  parse health: {health or 'nothing indexed'}",
    ]
    if report.skipped:
        example = report.skipped[0]
        out.append(f"  left out: {len(report.skipped)} files (e.g. {example.path}: {example.reason})")
    for path, state, error in report.parse_problems[:5]:
        out.append(f"  {state}: {path}: {error}")
    if len(report.parse_problems) > 5:
        out.append(f"  ... and {len(report.parse_problems) - 5} more; see `codefathom status`")
    if embedded is not None:
        out.append(embed_text(embedded))
    return "\n".join(out)


def status_json(status: IndexStatus) -> dict[str, Any]:
    data: dict[str, Any] = {
        "project_root": status.project_root, "index_path": status.index_path, "indexed": status.indexed,
        "files": status.files, "units": status.units, "languages": status.languages,
        "parse_health": status.parse_health, "problems": status.problems, "last_sync": status.last_sync,
        "index_bytes": status.index_bytes, "complete": status.complete, "store": status.store,
    }
    if status.store_source:
        data["store_source"] = status.store_source
    if status.indexing is not None:
        data["indexing"] = status.indexing
    if status.watch is not None:
        data["watch"] = status.watch
    if status.vectors is not None:
        data["vectors"] = status.vectors
    if status.summaries is not None:
        data["summaries"] = status.summaries
    if status.running:
        data["running"] = status.running
    if status.notices:
        data["notices"] = status.notices
    return data


def status_text(status: IndexStatus) -> str:
    indexing = ""
    if status.indexing is not None:
        eta = status.indexing.get("eta_s")
        indexing = (
            f"indexing now: {status.indexing.get('done')} of {status.indexing.get('total')} files"
            + (f", about {eta:.0f}s left" if isinstance(eta, (int, float)) else "")
        )
    running = [
        f"{entry['doing']} now: pid {entry['pid']} ({entry['by'] or 'codefathom'})"
        + ("; `codefathom stop` stops it" if str(entry["by"]).startswith("codefathom index") else "")
        for entry in status.running
    ]
    # A database store is named on every reply: a repository's config may have chosen it.
    store = [f"store:   {status.index_path} (PostgreSQL, set by {status.store_source})"] if status.store_source else []
    if not status.indexed:
        said = indexing or f"{status.project_root} is not indexed yet; run `codefathom index`."
        return "\n".join([said, *store, *running])
    health = ", ".join(f"{n} {s}" for s, n in sorted(status.parse_health.items()))
    size = f"{status.index_bytes / 1e6:.1f} MB"
    index = [f"index:   {status.index_path} ({size})"]
    if status.store_source:
        index = [f"store:   {status.index_path} ({size}; PostgreSQL, set by {status.store_source})"]
    out = [
        f"project: {status.project_root}",
        *index,
        f"files:   {status.files}    units: {status.units}",
        f"languages: {', '.join(f'{k} {v}' for k, v in status.languages.items()) or 'none'}",
        f"parse health: {health}",
        f"last sync: {_ago(status.last_sync)}",
    ]
    if status.vectors is not None:
        out.append(f"vectors: {_vectors_line(status.vectors)}")
    if status.summaries is not None:
        out.append(f"summaries: {_summaries_line(status.summaries)}")
    if indexing:
        out.append(indexing)
    elif status.last_sync is None:
        out.append("the first index did not finish; the next search or `codefathom index` completes it")
    out += running + status.notices
    for problem in status.problems:
        out.append(f"  {problem['status']}: {problem['path']}: {problem['error']}")
    return "\n".join(out)


def _summaries_line(summaries: dict[str, Any]) -> str:
    if "reason" in summaries:
        return f"{summaries['state']}: {summaries['reason']}"
    if summaries.get("state") == "not indexed":
        return f"on ({summaries.get('model')}), none yet"
    model = summaries.get("model")
    line = (
        f"{summaries.get('with_summary', 0):,} of {summaries.get('units', 0):,} units"
        f" ({summaries.get('definitions', 0):,} classes, functions and methods)"
        + (f" by {model}" if model else "")
    )
    configured = summaries.get("configured")
    if summaries.get("state") == "off":
        line += "; off in the config (`[summaries]`), shown as they are"
    elif configured and configured != model:
        line += f"; {configured} configured: `codefathom summarize` writes its own"
    return line


def indexes_json(indexes: list[IndexInfo]) -> dict[str, Any]:
    return {
        "indexes": [
            {"project_root": i.project_root, "index_path": i.index_path, "files": i.files, "units": i.units,
             "last_sync": i.last_sync, "index_bytes": i.index_bytes, **({"missing": True} if i.missing else {}),
             **({"project": i.project} if i.project is not None else {})}
            for i in indexes
        ]
    }


def indexes_text(indexes: list[IndexInfo]) -> str:
    if not indexes:
        return "No indexes yet; run `codefathom index PATH`."
    return "\n".join(
        f"{i.project_root}  {i.files} files, {i.units} units, synced {_ago(i.last_sync)}  ({i.index_path})"
        + (f"  folder gone: `codefathom clear {i.project_root}` deletes its index" if i.missing else "")
        for i in indexes
    )


def _ago(when: float | None) -> str:
    if when is None:
        return "never"
    seconds = max(0.0, time.time() - when)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit} ago"
    return f"{seconds:.0f}s ago"


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


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]



# -- context: outline and file brief -----------------------------------------------------------
# An outline is cut to its token budget as the format it is printed in measures (estimate_tokens
# of the text, or of the JSON as `--json` and the MCP text block print it, indent 2).

_PLURAL = {"class": "classes"}


@_noticed_text
def outline_text(response: OutlineResponse) -> str:
    """A compact tree: `dir/`, `  file`, `    def name(sig)  :line`, with what was cut summarised."""
    layout = _OutlineLayout(response)
    if estimate_tokens(layout.text(OutlineSelection(), response.budget)) > response.budget:
        return f"# {_count(len(response.files), 'file')}: too few tokens for an outline"  # a long path or focus
    selection = fit_outline(response, lambda sel: estimate_tokens(layout.text(sel, response.budget)))
    text = layout.text(selection, response.budget)
    return layout.text(selection, estimate_tokens(text))  # a smaller count is never longer


@_noticed_json
def outline_json(response: OutlineResponse) -> dict[str, Any]:
    """Directories > files > definitions (`sig`, `line`, nested `defs`); `more` counts what was cut."""
    layout = _OutlineLayout(response)
    if _json_tokens(layout.json(OutlineSelection(), response.budget)) > response.budget:
        small: dict[str, Any] = {"budget": response.budget, "tokens": response.budget,
                                 "files_total": len(response.files), "note": "too few tokens for an outline"}
        small["tokens"] = _json_tokens(small)
        return small
    selection = fit_outline(response, lambda sel: _json_tokens(layout.json(sel, response.budget)))
    data = layout.json(selection, response.budget)
    return layout.json(selection, _json_tokens(data))


def _json_tokens(data: dict[str, Any]) -> int:
    return estimate_tokens(json.dumps(data, ensure_ascii=False, indent=2))


class _OutlineLayout:
    """Lays a selection of an outline out; precomputes what every measurement needs."""

    def __init__(self, response: OutlineResponse) -> None:
        self.response = response
        self.position: dict[int, int] = {}
        for index, (file_id, _) in enumerate(response.order):
            self.position.setdefault(file_id, index)
        self.dir_files: dict[str, int] = {}
        for file in response.files.values():
            self.dir_files[file.dir] = self.dir_files.get(file.dir, 0) + 1
        self.defs = {f.id: {d.id: d for d in f.defs} for f in response.files.values()}

    def groups(self, selection: OutlineSelection) -> list[tuple[str, list[OutlineFile]]]:
        """Directories of the shown files, each in the order of its best file; files best first."""
        files = sorted((self.response.files[i] for i in selection.files),
                       key=lambda f: (self.position.get(f.id, len(self.position)), f.path))
        grouped: dict[str, list[OutlineFile]] = {}
        for file in files:
            grouped.setdefault(file.dir, []).append(file)
        return list(grouped.items())

    def shown_defs(self, file: OutlineFile, selection: OutlineSelection) -> list[tuple[int, OutlineDef]]:
        """(depth, definition) of the file's shown definitions, in line order."""
        by_id = self.defs[file.id]
        out = []
        for d in sorted((by_id[i] for i in selection.files[file.id]), key=lambda d: (d.line, d.id)):
            depth, parent = 0, d.parent
            while parent is not None:
                depth, parent = depth + 1, by_id[parent].parent
            out.append((depth, d))
        return out

    def _left(self, selection: OutlineSelection) -> tuple[int, int]:
        """Files and directories with nothing shown."""
        shown_dirs = {self.response.files[i].dir for i in selection.files}
        dirs = [d for d in self.dir_files if d not in shown_dirs]
        return sum(self.dir_files[d] for d in dirs), len(dirs)

    def _header(self, selection: OutlineSelection, tokens: int) -> str:
        r = self.response
        where = f"{r.path}/" if r.path else "the project"
        focus = f' (focus: "{_clip(r.focus, 60)}")' if r.focus else ""
        return (f"# outline of {where}{focus}: {len(selection.files)} of {len(r.files)} files,"
                f" ~{tokens} of {r.budget} tokens (estimated: characters / 3)")

    def text(self, selection: OutlineSelection, tokens: int) -> str:
        lines = [self._header(selection, tokens)]
        if not self.response.files:
            lines.append("(no indexed files here)")
        for directory, files in self.groups(selection):
            lines.append(f"{directory}/" if directory else "./")
            for file in files:
                lines.append(f"  {posixpath.basename(file.path)}")
                for depth, d in self.shown_defs(file, selection):
                    lines.append(f"{'  ' * (depth + 2)}{_def_label(d)}  :{d.line}")
                more = _more(file, selection.files[file.id])
                if more:
                    lines.append(f"    +{_more_text(more)}")
            left = self.dir_files[directory] - len(files)
            if left:
                lines.append(f"  +{_count(left, 'more file')}")
        files_left, dirs_left = self._left(selection)
        if files_left:
            lines.append(f"+{_count(files_left, 'more file')} in {_count(dirs_left, 'more directory')}"
                         .replace("directorys", "directories"))
        return "\n".join(lines)

    def json(self, selection: OutlineSelection, tokens: int) -> dict[str, Any]:
        r = self.response
        dirs = []
        for directory, files in self.groups(selection):
            file_items = []
            for file in files:
                item: dict[str, Any] = {"file": posixpath.basename(file.path)}
                defs = _nest_defs(self.shown_defs(file, selection))
                if defs:
                    item["defs"] = defs
                more = _more(file, selection.files[file.id])
                if more:
                    item["more"] = more
                file_items.append(item)
            entry: dict[str, Any] = {"dir": directory, "files": file_items}
            left = self.dir_files[directory] - len(files)
            if left:
                entry["more_files"] = left
            dirs.append(entry)
        data: dict[str, Any] = {
            "project_root": r.project_root, "path": r.path, "focus": r.focus, "budget": r.budget, "tokens": tokens,
            "files_shown": len(selection.files), "files_total": len(r.files), "dirs": dirs,
        }
        files_left, dirs_left = self._left(selection)
        if files_left:
            data["more"] = {"files": files_left, "dirs": dirs_left}
        return data


def _nest_defs(shown: list[tuple[int, OutlineDef]]) -> list[dict[str, Any]]:
    top: list[dict[str, Any]] = []
    stack: list[tuple[int, dict[str, Any]]] = []
    for depth, d in shown:
        item: dict[str, Any] = {"sig": _def_label(d), "line": d.line}
        while stack and stack[-1][0] >= depth:
            stack.pop()
        (stack[-1][1].setdefault("defs", []) if stack else top).append(item)
        stack.append((depth, item))
    return top


def _def_label(d: OutlineDef) -> str:
    return _clip(_one_line(d.signature), 120) if d.signature.strip() else f"{d.kind} {d.name}"


def _more(file: OutlineFile, shown: set[int]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for d in file.defs:
        if d.id not in shown:
            counts[d.kind] = counts.get(d.kind, 0) + 1
    return counts


def _more_text(more: dict[str, int]) -> str:
    total = sum(more.values())
    parts = [f"{n} {_PLURAL.get(kind, kind + 's') if n != 1 else kind}" for kind, n in sorted(more.items())]
    if len(parts) == 1:
        return f"{total} more {parts[0].split(' ', 1)[1]}"
    return f"{total} more: {', '.join(parts)}"


def _clip(text: str, size: int) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"


@_noticed_json
def brief_json(response: FileBriefResponse) -> dict[str, Any]:
    data: dict[str, Any] = {
        "project_root": response.project_root, "path": response.path, "language": response.language,
        "status": response.status, "rank": response.rank,
    }
    if response.error:
        data["error"] = response.error
    if response.doc:
        data["doc"] = response.doc
    data["definitions"] = [
        {"line": s.start_line, "end_line": s.end_line, "kind": s.kind, "qualified_name": s.qualified_name,
         "signature": _one_line(s.signature), "doc": _first_line(s.doc)}
        for s in response.definitions
    ]
    data["imports"] = [{"path": i.path, "names": i.names} for i in response.imports]
    data["external"] = response.external
    if response.unresolved:
        data["unresolved"] = response.unresolved
    data["dependents"] = [{"path": d.path, "via": d.dep_types} for d in response.dependents]
    data["tests"] = [{"path": t.path, "why": t.reasons} for t in response.tests]
    if response.left_out:
        data["left_out"] = response.left_out  # per list cut to its limit, how many it did not show
    return data


@_noticed_text
def brief_text(response: FileBriefResponse) -> str:
    """The file, its health and doc; then definitions, imports, dependents and tests."""
    health = response.status + (f": {response.error}" if response.error else "")
    lines = [f"{response.path}  {response.language}, parse {health}, rank {response.rank}"]
    if response.doc:
        lines.append(f"  {_first_line(response.doc)}")
    more = response.left_out
    lines.append(f"definitions ({len(response.definitions) + more.get('definitions', 0)}):")
    parents = {s.qualified_name for s in response.definitions}
    depth: dict[str, int] = {}
    for s in response.definitions:
        level = depth.get(s.parent, -1) + 1 if s.parent in parents else 0
        depth[s.qualified_name] = level
        doc = _first_line(s.doc)
        label = _one_line(s.signature) or f"{s.kind} {s.name}"
        lines.append(f"{'  ' * (level + 1)}{s.start_line}  {label}" + (f"  # {doc}" if doc else ""))
    if not response.definitions:
        lines.append("  (none)")
    lines.extend(_left_out(more, "definitions"))
    lines.append("imports:")
    for item in response.imports:
        names = f": {', '.join(item.names)}" if item.names else ""
        lines.append(f"  {item.path}{names}")
    if response.external:
        lines.append(f"  external: {', '.join(response.external)}")
    if response.unresolved:
        lines.append(f"  unresolved: {', '.join(response.unresolved)}")
    if not (response.imports or response.external or response.unresolved):
        lines.append("  (none)")
    lines.extend(_left_out(more, "imports"))
    lines.append(f"dependents ({len(response.dependents) + more.get('dependents', 0)}):")
    for node in response.dependents:
        lines.append(f"  {node.path}  {', '.join(f'{k} {n}' for k, n in node.dep_types.items())}")
    lines.extend(_left_out(more, "dependents"))
    lines.append(f"tests ({len(response.tests) + more.get('tests', 0)}):")
    for test in response.tests:
        lines.append(f"  {test.path}  ({', '.join(test.reasons)})")
    lines.extend(_left_out(more, "tests"))
    without = _without_references([response.path])
    if without and not response.dependents:
        lines.append(f"# {without}")
    return "\n".join(lines)


def _left_out(left_out: dict[str, int], name: str) -> list[str]:
    count = left_out.get(name, 0)
    return [f"  (+{count:,} more)"] if count else []


def _first_line(text: str) -> str:
    return _clip(text.strip().split("\n", 1)[0], 160) if text else ""


# -- related: tests of a symbol or file, files changed together -------------------------------------

_STRENGTH_TEXT = {"direct": "direct", "helper": "via helper", "named": "by name"}


@_noticed_json
def tests_json(response: TestsResponse) -> dict[str, Any]:
    """The target, then its tests strongest first: `rank` direct > helper > named, with `why`."""
    data: dict[str, Any] = {
        "project_root": response.project_root, "target": response.target, "target_kind": response.target_kind,
    }
    if response.target_kind == "symbol":
        data["symbols"] = [f"{s.path}:{s.start_line} {s.qualified_name}" for s in response.symbols]
    tests = []
    for test in response.tests:
        item: dict[str, Any] = {"path": test.path, "rank": test.strength, "why": test.reasons}
        if test.functions:
            item["functions"] = test.functions
        tests.append(item)
    data["tests"] = tests
    if response.more:
        data["more"] = response.more
    note = _tests_note(response)
    if note:
        data["note"] = note
    return data


@_noticed_text
def tests_text(response: TestsResponse) -> str:
    """`path  (rank: why)` per test file, then the test functions that reach the target."""
    what = "file" if response.target_kind == "file" else "symbol"
    lines = [f"tests of {what} {response.target} ({len(response.tests) + response.more}):"]
    for test in response.tests:
        lines.append(f"  {test.path}  ({_STRENGTH_TEXT[test.strength]}: {'; '.join(test.reasons)})")
        for function in test.functions:
            lines.append(f"    {function}")
    if response.more:
        lines.append(f"  (+{response.more:,} more test files, weaker evidence)")
    note = _tests_note(response)
    if note:
        lines.append(f"# {note}")
    return "\n".join(lines)


def _tests_note(response: TestsResponse) -> str:
    if response.target_kind == "symbol" and not response.symbols:
        return _no_symbol(response.target)
    if response.tests:
        return ""
    paths = [response.target] if response.target_kind == "file" else [s.path for s in response.symbols]
    return _without_references(paths) or "No test references it, through a helper or by name."


def cochange_json(response: CoChangeResponse) -> dict[str, Any]:
    """The file, the history read, and the files changed with it, most often first."""
    files = []
    for item in response.files:
        entry: dict[str, Any] = {"path": item.path, "together": item.together, "confidence": item.confidence,
                                 "support": item.support}
        if not item.exists:
            entry["exists"] = False
        files.append(entry)
    data: dict[str, Any] = {
        "project_root": response.project_root, "path": response.path, "head": response.head,
        "commits": response.commits, "file_commits": response.file_commits,
        "skipped_large_commits": response.skipped_large, "files": files,
    }
    note = _cochange_note(response)
    if note:
        data["note"] = note
    return data


def cochange_text(response: CoChangeResponse) -> str:
    """`together  confidence  path` per file, after a line on the history read."""
    ignored = f"; {_count(response.skipped_large, 'commit')} of over 50 files ignored" if response.skipped_large else ""
    lines = [
        f"{response.path}: changed in {_count(response.file_commits, 'commit')} of the last {response.commits}"
        f" (head {response.head[:12]}{ignored})"
    ]
    for item in response.files:
        gone = "  (deleted)" if not item.exists else ""
        lines.append(f"  {item.together:>4}  {item.confidence:>4.0%}  {item.path}{gone}")
    note = _cochange_note(response)
    if note:
        lines.append(f"# {note}")
    return "\n".join(lines)


def _cochange_note(response: CoChangeResponse) -> str:
    if not response.file_commits:
        return f"No commit among the last {response.commits} changed {response.path} (check the path)."
    if not response.files:
        return f"{response.path} was always committed alone."
    return ""


# -- change impact of a diff ------------------------------------------------------------------------

_STATUS_LETTER = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R"}
_TEST_RANK_TEXT = {"changed": "changed", "direct": "direct", "helper": "via helper", "depends": "depends",
                   "named": "by name"}


@_noticed_json
def change_impact_json(response: ChangeImpactResponse) -> dict[str, Any]:
    """Counts, then changed files, changed definitions, their dependents (only definitions that have
    some), impacted files by distance and the tests to run, strongest tie first."""
    data: dict[str, Any] = {
        "project_root": response.project_root, "source": response.source, "depth": response.depth,
        "counts": _change_counts(response),
        "changed_files": [_changed_file_json(f) for f in response.changed_files],
        "changed_symbols": [
            {"path": s.path, "start_line": s.start_line, "end_line": s.end_line, "kind": s.kind,
             "qualified_name": s.qualified_name, "change": s.change, "lines": s.lines}
            for s in response.changed_symbols
        ],
    }
    dependents = []
    for group in response.dependents:
        item: dict[str, Any] = {
            "symbol": group.changed.qualified_name, "path": group.changed.path, "change": group.changed.change,
            "references": [ref_json(r) for r in group.references], "total": group.total,
        }
        if group.unbound_elsewhere:
            item["unbound_elsewhere"] = group.unbound_elsewhere
        if group.by_name:
            item["by_name"] = True
        dependents.append(item)
    data["dependents"] = dependents
    data["impacted_files"] = [
        {"path": f.path, "distance": f.distance, "via": f.via, "via_types": f.dep_types}
        for f in response.impacted_files
    ]
    tests = []
    for test in response.tests:
        entry: dict[str, Any] = {"path": test.path, "rank": test.rank, "why": test.reasons}
        if test.functions:
            entry["functions"] = test.functions
        tests.append(entry)
    data["tests"] = tests
    notes = _change_notes(response)
    if notes:
        data["notes"] = notes
    if response.truncated:
        data["truncated"] = response.truncated
    return data


@_noticed_text
def change_impact_text(response: ChangeImpactResponse) -> str:
    """Files (git-style letters), each changed definition with the references to it, impacted files
    by distance, then the tests to run with the reason."""
    counts = _change_counts(response)
    by_change = ", ".join(f"{counts[c]} {c}" for c in ("added", "modified", "removed") if counts[c])
    lines = [
        f"change impact of {response.source}: {_count(counts['files'], 'file')},"
        f" {_count(counts['symbols'], 'definition')}" + (f" ({by_change})" if by_change else "")
    ]
    if response.changed_files:
        lines.append("files:")
    for file in response.changed_files:
        name = f"{file.old_path} -> {file.path}" if file.old_path else file.path
        if file.binary:
            lines.append(f"  {_STATUS_LETTER[file.status]} {name}  (binary, ignored)")
            continue
        size = " ".join(part for part in (f"+{file.added}" if file.added else "",
                                          f"-{file.removed}" if file.removed else "") if part)
        extra = "  (untracked)" if file.untracked else ""
        if not file.indexed and file.status != "deleted":
            extra += "  (not indexed)"
        lines.append(f"  {_STATUS_LETTER[file.status]} {name}  {size}".rstrip() + extra)
    groups = {id(g.changed): g for g in response.dependents}
    if response.changed_symbols:
        lines.append("definitions:")
    for changed in response.changed_symbols:
        where = f"{changed.path}:{changed.start_line}-{changed.end_line}"
        where += " (old lines)" if changed.change == "removed" else ""
        group = groups.get(id(changed))
        tail = ""
        if group is not None:
            tail = f"  ({_count(group.total, 'reference')}{' still using its name' if group.by_name else ''})"
        elif changed.analysed:
            tail = "  (no references)"
        lines.append(f"  {changed.change:<8}  {changed.kind}  {changed.qualified_name}  {where}{tail}")
        if group is None:
            continue
        for ref in group.references:
            kind = "" if ref.kind == "call" else f"  ({ref.kind})"
            lines.append(f"      {ref.path}:{ref.line}  {ref.label}  {ref.scope or MODULE_LEVEL}{kind}")
        if group.total > len(group.references):
            lines.append(f"      … {group.total - len(group.references)} more")
        if group.unbound_elsewhere:
            lines.append(f"      # {_count(group.unbound_elsewhere, 'other reference')} to `{changed.name}` could"
                         " not be bound to one definition")
    if response.impacted_files:
        lines.append(f"impacted files ({response.impacted_total}, depth {response.depth}):")
    for impacted in response.impacted_files:
        via = ", ".join(f"{kind} {n}" for kind, n in impacted.dep_types.items())
        lines.append(f"  {impacted.distance}  {impacted.path}  <- {impacted.via} ({via})")
    lines.append(f"tests to run ({response.tests_total}):")
    for test in response.tests:
        lines.append(f"  {test.path}  ({_TEST_RANK_TEXT[test.rank]}: {'; '.join(test.reasons)})")
        lines.extend(f"    {function}" for function in test.functions)
    if not response.tests:
        lines.append("  (none found)")
    for note in _change_notes(response) + [f"cut: {t}" for t in response.truncated]:
        lines.append(f"# {note}")
    return "\n".join(lines)


def _changed_file_json(file: ChangedFile) -> dict[str, Any]:
    data: dict[str, Any] = {"path": file.path, "status": file.status, "added": file.added, "removed": file.removed}
    if file.old_path:
        data["old_path"] = file.old_path
    if not file.indexed and file.status != "deleted" and not file.binary:
        data["indexed"] = False
    if file.binary:
        data["binary"] = True
    if file.untracked:
        data["untracked"] = True
    return data


def _change_counts(response: ChangeImpactResponse) -> dict[str, int]:
    counts = {"files": len(response.changed_files), "symbols": len(response.changed_symbols)}
    for change in ("added", "modified", "removed"):
        counts[change] = sum(1 for s in response.changed_symbols if s.change == change)
    counts["analysed"] = response.analysed
    counts["references"] = sum(g.total for g in response.dependents if not g.by_name)
    counts["references_to_removed"] = sum(g.total for g in response.dependents if g.by_name)
    counts["unbound_elsewhere"] = sum(g.unbound_elsewhere for g in response.dependents)
    counts["impacted_files"] = response.impacted_total
    counts["tests"] = response.tests_total
    return counts


def _change_notes(response: ChangeImpactResponse) -> list[str]:
    notes = list(response.notes)
    if any(g.by_name for g in response.dependents):
        notes.append(
            "references listed under a removed definition still use its name and bind to no definition of it:"
            " likely broken, though some may mean something else of the same name"
        )
    if not response.dependents and response.changed_symbols:
        without = _without_references(s.path for s in response.changed_symbols)
        if without:
            notes.append(without)
    return notes



def _vectors_line(vectors: dict[str, Any]) -> str:
    state = vectors.get("state")
    if state in ("off", "misconfigured", "not indexed"):
        return f"{state}" + (f" ({vectors['reason']})" if vectors.get("reason") else "")
    line = f"{vectors.get('with_vectors', 0):,} of {vectors.get('units', 0):,} units ({vectors.get('percent')}%)"
    return line + f", embedder {vectors.get('index_embedder') or vectors.get('embedder')}"


def _reranked_lines(number: int, result: dict[str, Any]) -> list[str]:
    model = result["reranker"]
    parts = " + ".join(f"{name} {f['value']:g} x {f['weight']:g}" for name, f in model["features"].items())
    return [
        f"  {number}. {result['name']}  {result['path']}:{result['line']}  score {result['score']:.4f}",
        f"     model {model['model_score']:.3f} = {parts or '-'}",
    ]


def explain_json(response: SearchResponse) -> dict[str, Any]:
    data = search_json(response)
    data["analysis"] = data.pop("debug", {})
    return data


def explain_text(response: SearchResponse) -> str:
    debug: dict[str, Any] = response.debug or {}
    analysis = debug.get("analysis", {})
    out = [f"# {n}" for n in response.notices]
    out += [
        f"query: {analysis.get('kind')} ({analysis.get('mode')})",
        f"  words: {' '.join(analysis.get('words', [])) or '-'}    full text: {analysis.get('fts') or '-'}",
    ]
    filters = {k: v for k, v in debug.get("filters", {}).items() if v is not None}
    if filters:
        out.append("  filters: " + ", ".join(f"{k}={v}" for k, v in filters.items()))
    vectors = debug.get("vectors") or {}
    out.append(f"  vectors: {_vectors_line(vectors)}" if vectors else "  vectors: -")
    for name, channel in debug.get("channels", {}).items():
        out.append(f"\nchannel {name} (weight {channel['weight']}, {channel['candidates']} candidates)")
        for c in channel["top"]:
            where = f"{c.get('path')}:{c.get('line')}" if c.get("path") else "?"
            out.append(f"  {c['rank']:>2}. {c.get('name', '?')}  {where}  {c['evidence']}")
    fusion = debug.get("fusion", {})
    if fusion.get("reranker"):
        out.append("\nreranked by a linear model over features (score: its softmax share); results:")
    else:
        out.append(f"\nfused by {fusion.get('rule')} (k={fusion.get('rrf_k')}); results:")
    for number, result in enumerate(debug.get("results", []), 1):
        if "reranker" in result:
            out += _reranked_lines(number, result)
            continue
        parts = " + ".join(f"{ch} {v:.4f} (#{result['ranks'][ch]})" for ch, v in result["contributions"].items())
        if result["name_bonus"]:
            parts += f" + name bonus {result['name_bonus']:.3f}"
        priors = result["priors"]
        out.append(f"  {number}. {result['name']}  {result['path']}:{result['line']}  score {result['score']:.4f}")
        out.append(f"     = ({parts or '-'}) x kind {priors['kind']} x role {priors['role']} ({priors['role_is']})"
                   f" x pagerank {priors['pagerank']} x file {priors['file']}")
    timings = debug.get("timings", {})
    out.append("\ntimings: " + ", ".join(f"{k.removesuffix('_ms')} {v:.1f} ms" for k, v in timings.items()))
    return "\n".join(out)
