"""A search's reply: each result's header, signature and matching lines (or body), and `explain`.

The compact text is what a model reads; the JSON is what `--json` prints and MCP sends as structured content.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from typing import Any, Literal

from codefathom.errors import UsageError, shown
from codefathom.model import Hit
from codefathom.service import SearchResponse
from codefathom.service.render.common import _clip, _count, _one_line, _vectors_line
from codefathom.service.snippets import (
    LINE_WIDTH,
    MAX_CONTEXT,
    Snippet,
    focus_lines,
    matching_lines,
    query_terms,
)

__all__ = [
    "SNIPPET_LINES", "SearchView", "COMPACT", "hit_json", "search_json", "search_found", "search_text",
    "explain_json", "explain_text",
]


SNIPPET_LINES = 3
# Overloads a compact result shows with their signatures; the rest by their lines, on one line (a C#
# class's twenty constructors are one result).
SIGNED_OVERLOADS = 3


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
    if hit.overloads:  # the name's other definitions in the file, shown with it
        data["overloads"] = [
            {"start_line": o.start_line, "end_line": o.end_line, "signature": o.signature} for o in hit.overloads
        ]
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
    """Per result `path:start-end  kind  qualified_name  score`, its overloads in the file (`also
    start-end: signature`), its signature, then its lines holding the query's words as `line: text`
    (compact), or its whole body (full, unit)."""
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
        also = _also(hit, signed=len(hit.overloads) if view.detail != "compact" else SIGNED_OVERLOADS)
        if view.detail != "compact":
            lines.extend(also)
            body = hit.content.split("\n")
            numbers = hit.line_numbers or range(hit.start_line, hit.start_line + len(body))
            lines.extend(_numbered(list(zip(numbers, body, strict=False))))
            if hit.truncated:
                lines.append("    (cut here: read the file for the rest)")
            lines.extend(deps)
            continue
        if hit.signature:
            lines.append("    " + _clip(_one_line(hit.signature), LINE_WIDTH))
        lines.extend(also)
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


def _also(hit: Hit, signed: int) -> list[str]:
    """`also start-end: signature` for the first `signed` overloads, `also at start-end, ...` for the rest."""
    lines = [_clip(f"    also {o.start_line}-{o.end_line}: {_one_line(o.signature)}", LINE_WIDTH + 4)
             for o in hit.overloads[:signed]]
    if rest := hit.overloads[signed:]:
        lines.append(_clip("    also at " + ", ".join(f"{o.start_line}-{o.end_line}" for o in rest), LINE_WIDTH + 4))
    return lines


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
