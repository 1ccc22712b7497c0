"""Replies of the context verbs: an outline cut to its token budget, and a file's brief.

The outline's budget is measured on the format it is printed in (see `_OutlineLayout`).
"""

from __future__ import annotations

import json
import posixpath
from typing import Any

from codefathom.service.context import (
    FileBriefResponse,
    OutlineDef,
    OutlineFile,
    OutlineResponse,
    OutlineSelection,
    estimate_tokens,
    fit_outline,
)
from codefathom.service.render.common import _clip, _count, _noticed_json, _noticed_text, _one_line
from codefathom.service.render.graph import _without_references

__all__ = ["outline_text", "outline_json", "brief_json", "brief_text"]


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
