"""Replies of the index's own verbs: `index` (sync and embedding), `status` and `list`.

Each as a JSON-ready dict and as the text the CLI prints.
"""

from __future__ import annotations

import time
from typing import Any

from codefathom.service import EmbedReport, IndexInfo, IndexStatus, SyncReport
from codefathom.service.render.common import _vectors_line

__all__ = [
    "sync_json", "embed_json", "embed_text", "sync_text", "status_json", "status_text", "indexes_json",
    "indexes_text",
]


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
    if status.store_read:
        data["store_read"] = status.store_read
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
        f"{entry['doing']} now: " + (f"pid {entry['pid']} ({entry['by'] or 'codefathom'})" if entry["pid"] else
                                     f"elsewhere, {entry['by']}")
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
    if status.store_read:  # (a replica may trail the primary: what it answers was written up to its lag ago)
        out.insert(2, f"reads:   {status.store_read} (a replica; answers may trail the last sync)")
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
