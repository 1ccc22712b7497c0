"""Result dataclasses to JSON-ready dicts and to compact text, shared by the CLI and MCP server.

One rendering per result type, so `--json` and the MCP reply say the same thing.
"""

from __future__ import annotations

import time
from typing import Any

from codefathom.model import Hit
from codefathom.service import IndexInfo, IndexStatus, SearchResponse, SyncReport

__all__ = [
    "search_json", "search_text", "status_json", "status_text", "sync_json", "sync_text", "indexes_json",
    "indexes_text",
]

SNIPPET_LINES = 3


def hit_json(hit: Hit) -> dict[str, Any]:
    data: dict[str, Any] = {
        "path": hit.path, "start_line": hit.start_line, "end_line": hit.end_line, "name": hit.name,
        "qualified_name": hit.qualified_name, "kind": hit.kind, "language": hit.language, "parent": hit.parent,
        "score": hit.score, "content": hit.content, "truncated": hit.truncated,
    }
    if hit.debug is not None:
        data["debug"] = hit.debug
    return data


def search_json(response: SearchResponse) -> dict[str, Any]:
    data: dict[str, Any] = {"project_root": response.project_root, "results": [hit_json(h) for h in response.results]}
    if response.within:
        data["within"] = response.within
    if response.notices:
        data["notices"] = response.notices
    if response.debug is not None:
        data["debug"] = response.debug
    return data


def search_text(response: SearchResponse, snippet_lines: int = SNIPPET_LINES) -> str:
    """`path:start-end  kind  qualified_name` per hit, then the first lines of its content."""
    lines = [f"# {n}" for n in response.notices]
    if not response.results:
        where = f" under {response.within}/" if response.within else ""
        lines.append(f"No results{where}. Try other words, a name as the code writes it, or fewer filters.")
        return "\n".join(lines)
    for hit in response.results:
        lines.append(f"{hit.path}:{hit.start_line}-{hit.end_line}  {hit.kind}  {hit.qualified_name}")
        if snippet_lines:
            body = [line for line in hit.content.split("\n") if line.strip()][:snippet_lines]
            lines.extend("    " + line.strip()[:120] for line in body)
    return "\n".join(lines)


def sync_json(report: SyncReport, root: str) -> dict[str, Any]:
    return {
        "project_root": root, "files": report.discovered, "added": report.added, "updated": report.updated,
        "removed": report.removed, "unchanged": report.unchanged, "units_written": report.units_written,
        "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
        "parse_problems": [{"path": p, "status": s, "error": e} for p, s, e in report.parse_problems],
        "seconds": round(report.seconds, 3), "discovery": report.method,
    }


def sync_text(report: SyncReport, status: IndexStatus) -> str:
    health = ", ".join(f"{n} {s}" for s, n in sorted(status.parse_health.items()))
    languages = ", ".join(f"{lang} {n}" for lang, n in list(status.languages.items())[:8])
    out = [
        f"Indexed {status.project_root} in {report.seconds:.2f}s",
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
    return "\n".join(out)


def status_json(status: IndexStatus) -> dict[str, Any]:
    return {
        "project_root": status.project_root, "index_path": status.index_path, "indexed": status.indexed,
        "files": status.files, "units": status.units, "languages": status.languages,
        "parse_health": status.parse_health, "problems": status.problems, "last_sync": status.last_sync,
        "index_bytes": status.index_bytes,
    }


def status_text(status: IndexStatus) -> str:
    if not status.indexed:
        return f"{status.project_root} is not indexed yet; run `codefathom index`."
    health = ", ".join(f"{n} {s}" for s, n in sorted(status.parse_health.items()))
    out = [
        f"project: {status.project_root}",
        f"index:   {status.index_path} ({status.index_bytes / 1e6:.1f} MB)",
        f"files:   {status.files}    units: {status.units}",
        f"languages: {', '.join(f'{k} {v}' for k, v in status.languages.items()) or 'none'}",
        f"parse health: {health}",
        f"last sync: {_ago(status.last_sync)}",
    ]
    for problem in status.problems:
        out.append(f"  {problem['status']}: {problem['path']}: {problem['error']}")
    return "\n".join(out)


def indexes_json(indexes: list[IndexInfo]) -> dict[str, Any]:
    return {
        "indexes": [
            {"project_root": i.project_root, "index_path": i.index_path, "files": i.files, "units": i.units,
             "last_sync": i.last_sync, "index_bytes": i.index_bytes}
            for i in indexes
        ]
    }


def indexes_text(indexes: list[IndexInfo]) -> str:
    if not indexes:
        return "No indexes yet; run `codefathom index PATH`."
    return "\n".join(
        f"{i.project_root}  {i.files} files, {i.units} units, synced {_ago(i.last_sync)}  ({i.index_path})"
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
