"""The lookups agents make all day, each a verb with its response, which renders itself as JSON (what
`--json` prints and MCP sends as structured content) and as text (what the CLI prints and the model reads):

- `grep`: every line a literal string or a regular expression matches, in the indexed files only
  (gitignore-aware), as `path:line: text`. The index names the files that may match (`files_holding`:
  whole words through FTS5, exact text in the units), and only those are read, through `read_inside`.
- `find_files`: files by name or fuzzy path.
- `read`: a line range, the definition around a line, a whole file or a named definition, with the
  definitions around it named.
- `located`: a `path:line` or `path` search query answered from the file's own units, the one around
  the line first (search_code's ranked modes use it before ranking).

search_code's `mode` picks one (`literal`, `regex`, `path`, `read`); `detail: "exists"` asks only whether
anything was found, how much, and the top file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from codefathom.discover import read_inside, real_root
from codefathom.errors import NotFound, UsageError, shown
from codefathom.globs import compile_globs
from codefathom.model import Hit
from codefathom.search.lookups import (
    Location,
    compile_pattern,
    fuzzy_paths,
    matching_line_numbers,
    parse_location,
    prefilter,
    resolve_path,
)
from codefathom.service import arguments
from codefathom.service.graph import ServiceBase
from codefathom.service.languages import resolve_languages
from codefathom.service.snippets import LINE_WIDTH, MAX_CONTEXT
from codefathom.store import Store

__all__ = [
    "LOOKUP_MODES", "RANKED_MODES", "lookup", "Lookup", "LookupVerbs", "GrepResponse", "GrepMatch", "FilesResponse",
    "ReadResponse", "located", "READ_MAX_LINES", "GREP_MAX_LIMIT", "exists_json", "exists_text", "found_of",
]

READ_MAX_LINES = 400  # lines one read shows; the rest are counted, with the range to ask for next
GREP_MAX_LIMIT = 1000  # matching lines one reply may show
AROUND = 3  # lines shown on each side of a line when `read` is asked for a line outside every definition


class _Service(ServiceBase, Protocol):
    def symbol(self, name: str, *, kinds: Sequence[str] = (), limit: int = ..., fresh: bool = True) -> Any: ...


# -- grep ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GrepMatch:
    path: str
    line: int
    text: str
    before: list[tuple[int, str]] = field(default_factory=list)
    after: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class GrepResponse:
    project_root: str
    pattern: str
    regex: bool
    matches: list[GrepMatch]  # the first `limit` matching lines, by path and line
    total: int  # matching lines in all
    files: dict[str, int]  # matching lines per file, all of them
    files_read: int  # files the index could not rule out, read to confirm
    files_indexed: int  # files searched (indexed, within the filters)
    notices: list[str] = field(default_factory=list)

    @property
    def more(self) -> int:
        return self.total - len(self.matches)

    @property
    def top_file(self) -> str | None:
        """The file with the most matching lines (the first by path among equals)."""
        ranked = sorted(self.files.items(), key=lambda item: (-item[1], item[0]))
        return ranked[0][0] if ranked else None

    def to_json(self) -> dict[str, Any]:
        return {
            "project_root": self.project_root, "pattern": self.pattern, "mode": "regex" if self.regex else "literal",
            "matches": [
                {"path": m.path, "line": m.line, "text": m.text,
                 **({"before": [list(x) for x in m.before]} if m.before else {}),
                 **({"after": [list(x) for x in m.after]} if m.after else {})}
                for m in self.matches
            ],
            "total": self.total, "more": self.more, "files": len(self.files), "top_file": self.top_file,
            "files_read": self.files_read, "files_indexed": self.files_indexed,
            **({"notices": self.notices} if self.notices else {}),
        }

    def to_text(self) -> str:
        lines = [f"# {n}" for n in self.notices]
        if not self.matches:
            what = "regular expression" if self.regex else "string"
            searched = f"the {self.files_indexed} files searched"
            lines.append(f"No line holds the {what} {shown(self.pattern, 80)} in {searched}.")
            return "\n".join(lines)
        shown_lines: set[tuple[str, int]] = set()
        for match in self.matches:
            for number, text in match.before:
                if (match.path, number) not in shown_lines:
                    lines.append(f"{match.path}-{number}- {_clip(text)}".rstrip())
                    shown_lines.add((match.path, number))
            if (match.path, match.line) in shown_lines:  # shown as another match's context
                lines = [x for x in lines if x != f"{match.path}-{match.line}- {_clip(match.text)}".rstrip()]
            lines.append(f"{match.path}:{match.line}: {_clip(match.text)}")
            shown_lines.add((match.path, match.line))
            for number, text in match.after:
                if (match.path, number) not in shown_lines:
                    lines.append(f"{match.path}-{number}- {_clip(text)}".rstrip())
                    shown_lines.add((match.path, number))
        if self.more:
            lines.append(f"(+{self.more} more matching lines: {self.total} in {len(self.files)} files)")
        return "\n".join(lines)


# -- files by name -------------------------------------------------------------------------------


@dataclass
class FilesResponse:
    project_root: str
    query: str
    files: list[tuple[str, str, float]]  # (path, language, score), best first
    total: int
    notices: list[str] = field(default_factory=list)

    @property
    def more(self) -> int:
        return self.total - len(self.files)

    def to_json(self) -> dict[str, Any]:
        return {
            "project_root": self.project_root, "query": self.query, "mode": "path",
            "files": [{"path": p, "language": lang, "score": s} for p, lang, s in self.files],
            "total": self.total, "more": self.more, **({"notices": self.notices} if self.notices else {}),
        }

    def to_text(self) -> str:
        lines = [f"# {n}" for n in self.notices]
        if not self.files:
            lines.append(f"No indexed file's path matches {shown(self.query, 80)}.")
        lines.extend(f"{path}  {language}" for path, language, _ in self.files)
        if self.more:
            lines.append(f"(+{self.more} more files)")
        return "\n".join(lines)


# -- read ----------------------------------------------------------------------------------------


@dataclass
class ReadResponse:
    project_root: str
    target: str
    path: str
    start: int
    end: int  # the last line shown
    lines: list[str]
    file_lines: int  # lines in the file
    around: list[tuple[str, str, int, int]]  # (kind, qualified name, start, end) holding the range, innermost first
    more: int = 0  # lines of the range asked for left out (READ_MAX_LINES)
    asked_end: int = 0  # the range's last line as asked (more > 0)
    others: list[tuple[str, int, str]] = field(default_factory=list)  # other definitions of a name read
    notices: list[str] = field(default_factory=list)
    summary: str = ""  # the innermost definition's summary (`codefathom summarize`), when it has one

    def to_json(self) -> dict[str, Any]:
        return {
            "project_root": self.project_root, "target": self.target, "mode": "read", "path": self.path,
            "start_line": self.start, "end_line": self.end, "file_lines": self.file_lines,
            "around": [{"kind": k, "qualified_name": n, "start_line": s, "end_line": e} for k, n, s, e in self.around],
            "lines": [[self.start + i, text] for i, text in enumerate(self.lines)], "more": self.more,
            **({"others": [{"path": p, "line": n, "qualified_name": name} for p, n, name in self.others]}
               if self.others else {}),
            **({"notices": self.notices} if self.notices else {}),
            **({"summary": self.summary} if self.summary else {}),
        }

    def to_text(self) -> str:
        head = f"{self.path}:{self.start}-{self.end} (of {self.file_lines})"
        if self.around:
            head += "  in " + " < ".join(f"{k} {n} {s}-{e}" for k, n, s, e in self.around)
        lines = [f"# {n}" for n in self.notices]
        lines.append(head)
        if self.summary:
            lines.append(f"summary: {self.summary}")
        lines.extend(f"{self.start + i}: {text}".rstrip() for i, text in enumerate(self.lines))
        if self.more:
            lines.append(f"(+{self.more} more lines: read {self.path}:{self.end + 1}-{self.asked_end})")
        if self.others:
            lines.append("also: " + ", ".join(f"{p}:{n} {name}" for p, n, name in self.others))
        return "\n".join(lines)


# -- exists: any reply, told as found / count / top file ----------------------------------------


def exists_json(found: bool, count: int, top_file: str | None, what: str) -> dict[str, Any]:
    return {"found": found, "count": count, "counted": what, "top_file": top_file}


def exists_text(found: bool, count: int, top_file: str | None, what: str) -> str:
    if not found:
        return "found: no"
    return f"found: yes, {count} {what}" + (f", top file {top_file}" if top_file else "")


# -- search_code's modes ----------------------------------------------------------------------------

RANKED_MODES = ("hybrid", "lexical", "vector")  # a ranked search, reading these channels (service.CHANNELS)
LOOKUP_MODES = ("literal", "regex", "path", "read")
Lookup = GrepResponse | FilesResponse | ReadResponse


def lookup(
    service: Any, mode: str, query: str, *, limit: int = 10, languages: Sequence[str] = (),
    path_glob: Sequence[str] | str = (), exclude_glob: Sequence[str] | str = (), context_before: int = 0,
    context_after: int = 0, fresh: bool = True, **ranked_only: object,
) -> Lookup:
    """search_code and `search` in a lookup mode: `literal`/`regex` (grep), `path` (find_files) or
    `read`. The options of a ranked search alone (`ranked_only`, given a value) are refused by name."""
    given = sorted(name for name, value in ranked_only.items() if value not in (None, False, (), [], ""))
    if given:
        raise UsageError(f"mode {mode!r} does not take {', '.join(given)}: ranked modes do")
    if mode in ("literal", "regex"):
        return service.grep(  # type: ignore[no-any-return]
            query, regex=mode == "regex", limit=limit, languages=languages, path_glob=path_glob,
            exclude_glob=exclude_glob, context_before=context_before, context_after=context_after, fresh=fresh,
        )
    if mode == "path":
        return service.find_files(  # type: ignore[no-any-return]
            query, limit=limit, languages=languages, path_glob=path_glob, exclude_glob=exclude_glob, fresh=fresh
        )
    if mode == "read":
        return service.read(query, fresh=fresh)  # type: ignore[no-any-return]
    raise UsageError(f"mode must be one of {', '.join(RANKED_MODES + LOOKUP_MODES)}, got {shown(mode, 40)}")


def found_of(response: Lookup) -> tuple[bool, int, str | None, str]:
    """(found, how many, top file, what was counted): what `detail: "exists"` answers."""
    if isinstance(response, GrepResponse):
        return bool(response.total), response.total, response.top_file, "matching lines"
    if isinstance(response, FilesResponse):
        return bool(response.total), response.total, response.files[0][0] if response.files else None, "files"
    return True, len(response.lines), response.path, "lines"


# -- the verbs -----------------------------------------------------------------------------------


class LookupVerbs:
    """grep, find_files and read (the mixin of `Codefathom` that answers them)."""

    def grep(
        self: ServiceBase, pattern: str, *, regex: bool = False, limit: int = 10, languages: Sequence[str] = (),
        path_glob: Sequence[str] | str = (), exclude_glob: Sequence[str] | str = (), context_before: int = 0,
        context_after: int = 0, fresh: bool = True,
    ) -> GrepResponse:
        """Every line of the indexed files holding `pattern` (a regular expression with `regex`):
        the first `limit` by path and line, and how many there are in all, per file."""
        compiled = compile_pattern(arguments.text("pattern", pattern), arguments.flag("regex", regex))
        limit = arguments.integer("limit", limit, 1, GREP_MAX_LIMIT)
        before = arguments.integer("context_before", context_before, 0, MAX_CONTEXT)
        after = arguments.integer("context_after", context_after, 0, MAX_CONTEXT)
        store = self._graph_store(fresh)
        files = _files(store, self.within, languages, path_glob, exclude_glob)
        needed = prefilter(pattern, regex)
        possible = store.files_holding(needed.words, needed.texts)
        root = real_root(self.root)
        matches: list[GrepMatch] = []
        per_file: dict[str, int] = {}
        read = 0
        for file_id, path, _language in files:
            if file_id not in possible:
                continue
            read += 1
            try:
                text = read_inside(self.root / path, root).decode("utf-8", errors="replace")
            except OSError:
                continue  # gone since the index was synced, or no longer a regular file
            found = matching_line_numbers(text, compiled)
            if not found:
                continue
            per_file[path] = len(found)
            if len(matches) >= limit:
                continue
            every = text.split("\n") if before or after else []
            for number, line in found[: limit - len(matches)]:
                matches.append(
                    GrepMatch(
                        path, number, line,
                        [(n, every[n - 1]) for n in range(max(1, number - before), number)],
                        [(n, every[n - 1]) for n in range(number + 1, min(len(every), number + after) + 1)],
                    )
                )
        return GrepResponse(
            str(self.root), pattern, regex, matches, sum(per_file.values()), per_file, read, len(files),
            self._state_notices(),
        )

    def find_files(
        self: ServiceBase, query: str, *, limit: int = 10, languages: Sequence[str] = (),
        path_glob: Sequence[str] | str = (), exclude_glob: Sequence[str] | str = (), fresh: bool = True,
    ) -> FilesResponse:
        """The indexed files whose path matches `query` best: the file name, part of it, part of the
        path, or its letters in order."""
        limit = arguments.integer("limit", limit, 1, GREP_MAX_LIMIT)
        store = self._graph_store(fresh)
        files = _files(store, self.within, languages, path_glob, exclude_glob)
        language = {path: lang for _, path, lang in files}
        ranked = fuzzy_paths(list(language), arguments.text("query", query))
        return FilesResponse(
            str(self.root), query, [(p, language[p], s) for p, s in ranked[:limit]], len(ranked),
        )

    def read(self: _Service, target: str, *, fresh: bool = True) -> ReadResponse:
        """`path:10-40` (those lines), `path:120` (the definition around line 120), `path` (the file),
        or a definition's name (`Store.replace_file`): its lines, with the definitions around them."""
        target = arguments.text("target", target).strip()
        if not target:
            raise UsageError("give what to read: path:10-40, path:120, a path, or a definition's name")
        store = self._graph_store(fresh)
        location = parse_location(target)
        name = location.path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] if location else ""
        files = store.files_named(name) if name else []
        path = resolve_path([p for _, p, _ in files], location.path) if location else None
        others: list[tuple[str, int, str]] = []
        by_name = location is None or path is None
        if location is None or path is None:
            found = self.symbol(target, limit=6, fresh=False).symbols
            if not found:
                said = "no indexed file or definition is called" if location is None else "no indexed file is called"
                raise NotFound(f"{said} {shown(target, 80)}")
            first = found[0]
            others = [(s.path, s.start_line, s.qualified_name) for s in found[1:]]
            location, path = Location(first.path, first.start_line, first.end_line), first.path
        if by_name:
            files = store.files_named(path.rsplit("/", 1)[-1])
        file_id = next(i for i, p, _ in files if p == path)
        text = read_inside(self.root / path, real_root(self.root)).decode("utf-8", errors="replace")
        every = text.split("\n")
        if every and every[-1] == "":
            every.pop()
        total = len(every)
        start, end = location.start, location.end
        if start is None:
            start, end = 1, max(total, 1)
        elif start > total:
            raise NotFound(f"{path} has {total} lines: there is no line {start}")
        elif end == start and not by_name:  # a line: the definition around it
            around = store.definitions_around(file_id, start, start)
            start, end = (around[0][2], around[0][3]) if around else (max(1, start - AROUND), start + AROUND)
        assert end is not None
        end = min(end, total)
        asked_end, more = end, max(0, end - start + 1 - READ_MAX_LINES)
        end -= more
        around = store.definitions_around(file_id, start, end)
        summary = store.definition_summary(file_id, around[0][1], around[0][2]) if around else ""
        return ReadResponse(
            str(self.root), target, path, start, end, every[start - 1 : end], total, around, more, asked_end,
            others, self._state_notices(), summary,
        )


# -- path:line in a ranked search ----------------------------------------------------------------


def located(store: Store, query: str, limit: int, within: str = "") -> tuple[list[Hit], Location] | None:
    """A query that is a path of the index, with or without a line (`src/app/models.py:120` from a
    stack trace): that file's units, those holding the line first, innermost first, then the others
    by distance (a path alone: its module-level code, top-level definitions, then the rest)."""
    location = parse_location(query)
    if location is None or (location.start is None and not _file_like(location.path)):
        return None
    files = store.files_named(location.path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1])
    path = resolve_path([p for _, p, _ in files], location.path)
    if path is None or (within and not path.startswith(within.strip("/") + "/")):
        return None
    file_id = next(i for i, p, _ in files if p == path)
    units = store.units_by_id(store.unit_ids_of_file(file_id))
    line = location.start

    def order(item: tuple[int, Any]) -> tuple[int, int, int]:
        unit = item[1].unit
        if line is None:
            group = 0 if unit.kind == "module" else 1 if unit.parent is None else 2
            return group, unit.start_line, 0
        if unit.start_line <= line <= unit.end_line:
            return 0, unit.end_line - unit.start_line, -unit.start_line
        return 1, min(abs(unit.start_line - line), abs(unit.end_line - line)), unit.start_line

    ranked = sorted(units.items(), key=order)[:limit]
    summaries = store.unit_summaries([uid for uid, _ in ranked])
    hits = []
    for rank, (uid, stored) in enumerate(ranked):
        unit = stored.unit
        hits.append(
            Hit(
                path=stored.path, start_line=unit.start_line, end_line=unit.end_line, name=unit.name,
                qualified_name=unit.qualified_name, kind=unit.kind, language=unit.language, parent=unit.parent,
                score=round(1.0 - rank / 100, 2), content=unit.content, truncated=False, signature=unit.signature,
                summary=summaries.get(uid, ""),
            )
        )
    return hits, Location(path, location.start, location.end)


def _file_like(text: str) -> bool:
    """Whether a query without a line may name a file: a path (`a/b`), or a name with an extension
    (`models.py`, `Makefile.am`), not a qualified name (`Store.replace_file`)."""
    if "/" in text or "\\" in text:
        return True
    stem, dot, extension = text.rpartition(".")
    return bool(stem and dot and 1 <= len(extension) <= 5 and extension.isalnum() and extension.islower())


# -- shared --------------------------------------------------------------------------------------


def _files(
    store: Store, within: str, languages: Sequence[str], path_glob: Sequence[str] | str,
    exclude_glob: Sequence[str] | str,
) -> list[tuple[int, str, str]]:
    """The indexed files a lookup searches: inside `within`, of `languages`, named by the globs
    (read from `within`, as a search's are)."""
    wanted = set(resolve_languages(arguments.names("languages", languages)))
    include_globs = arguments.texts("path_glob", path_glob)
    exclude_globs = arguments.texts("exclude_glob", exclude_glob)
    include = compile_globs(include_globs, "path_glob") if include_globs else None
    exclude = compile_globs(exclude_globs, "exclude_glob") if exclude_globs else None
    prefix = within.strip("/") + "/" if within.strip("/") else ""
    kept = []
    for file_id, path, language in store.indexed_files():
        if prefix and not path.startswith(prefix):
            continue
        relative = path[len(prefix) :]
        if wanted and language not in wanted:
            continue
        if (include and not include.matches(relative)) or (exclude and exclude.matches(relative)):
            continue
        kept.append((file_id, path, language))
    return kept


def _clip(line: str) -> str:
    line = line.strip().expandtabs(4)
    return line if len(line) <= LINE_WIDTH else line[: LINE_WIDTH - 1] + "…"

