"""Directory nodes: for each directory of indexed files, a summary of what it holds and its FTS row.

Built from the index itself (files, their PageRank, definitions, module docs, a README), only for
the directories a sync changed, inside the sync's graph transaction.
"""

from __future__ import annotations

import json
import posixpath
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from codefathom.store.records import DirectoryRow, IsTest
from codefathom.tokens import searchable_text

__all__ = [
    "DirectoryRow", "refresh_directories", "directory_candidates", "directories_by_id", "directory_of",
    "IsTest", "directory_count", "directories_matching", "rows_matching",
]


TOP_FILES = 8  # files a node lists, best first
FILE_DEFINITIONS = 4  # definitions named per listed file
INDEX_DEFINITIONS = 60  # definition names in the node's searchable text
INDEX_DOCS = 25  # one-line definition docs in it
LINE_CHARS = 160  # a one-line doc or description line is clipped to this
DESCRIPTION_LINES = 3

_DEFINITION_KINDS = ("class", "function", "method")
_README = re.compile(r"^readme(\.[A-Za-z0-9]+)?$", re.IGNORECASE)
_COMMENT = re.compile(r"^\s*(//[!/]?|/\*+!?|\*/|\*(?!\*/)|#(?![!\[]|include|define|if|pragma)|--|;+)\s?")
# License headers, editor modelines and the like: a file's first comment, but not its description.
_BOILERPLATE = re.compile(r"copyright|licen[cs]e|spdx|all rights reserved|-\*-|vim?:|eslint|prettier", re.IGNORECASE)
_MARKUP = re.compile(r"^\s*(#|!\[|\[!\[|<|```|[=\-_*]{3,}\s*$|\.\. )")


def directory_of(path: str) -> str:
    """The directory holding a file ("" for the project root, which gets no node)."""
    return posixpath.dirname(path)


def refresh_directories(
    conn: sqlite3.Connection, file_ids: Iterable[int] | None, removed: Iterable[str], is_test: IsTest
) -> int:
    """Rebuild the nodes of the directories holding `file_ids` or that held the `removed` paths (of
    every directory when file_ids is None); call inside the write transaction. Returns the number of
    nodes written."""
    if file_ids is None:
        conn.execute("DELETE FROM directories_fts")
        conn.execute("DELETE FROM directories")
        files = _files(conn, None)
    else:
        ids = json.dumps(sorted(set(file_ids)))
        rows = conn.execute("SELECT path FROM files WHERE id IN (SELECT value FROM json_each(?))", (ids,))
        paths = [r[0] for r in rows]
        dirs = {directory_of(p) for p in [*paths, *removed]} - {""}
        if not dirs:
            return 0
        stale = conn.execute(
            "SELECT id FROM directories WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(sorted(dirs)),)
        ).fetchall()
        conn.executemany("DELETE FROM directories_fts WHERE rowid = ?", stale)
        conn.executemany("DELETE FROM directories WHERE id = ?", stale)
        files = _files(conn, dirs)
    by_dir: dict[str, list[_File]] = defaultdict(list)
    for file in files:
        by_dir[directory_of(file.path)].append(file)
    by_dir.pop("", None)
    if not by_dir:
        return 0
    _attach_facts(conn, [f for group in by_dir.values() for f in group])
    for path in sorted(by_dir):
        node = _build(path, by_dir[path], is_test)
        cursor = conn.execute(
            "INSERT INTO directories(path, file_count, languages, files, description, summary, rank)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (path, node.file_count, json.dumps(node.languages), json.dumps(list(node.files)), node.description,
             node.summary, node.rank),
        )
        conn.execute(
            "INSERT INTO directories_fts(rowid, name, path, files, definitions, doc) VALUES (?, ?, ?, ?, ?, ?)",
            (cursor.lastrowid, *node.fts),
        )
    return len(by_dir)


def directory_candidates(
    conn: sqlite3.Connection, match: str, weights: Sequence[float], limit: int
) -> list[tuple[int, float]]:
    """Directory ids and BM25F scores (higher is better) for an FTS5 match expression."""
    args = ", ".join(f"{float(w)}" for w in weights)
    sql = (
        f"SELECT rowid, -bm25(directories_fts, {args}) FROM directories_fts WHERE directories_fts MATCH ?"
        f" ORDER BY bm25(directories_fts, {args}) LIMIT ?"
    )
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, (match, limit))]


def directories_by_id(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, DirectoryRow]:
    rows = conn.execute(
        "SELECT id, path, file_count, languages, files, description, summary, rank FROM directories"
        " WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(ids))),),
    )
    return {
        int(r[0]): DirectoryRow(int(r[0]), r[1], int(r[2]), json.loads(r[3]), tuple(json.loads(r[4])), r[5], r[6],
                                float(r[7]))
        for r in rows
    }


def directory_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM directories").fetchone()[0])


def directories_matching(conn: sqlite3.Connection, match: str) -> set[int]:
    """Every directory an FTS5 match expression matches (there are few directories)."""
    rows = conn.execute("SELECT rowid FROM directories_fts WHERE directories_fts MATCH ?", (match,))
    return {int(r[0]) for r in rows}


def rows_matching(
    conn: sqlite3.Connection, table: Literal["units_fts", "directories_fts"], match: str, ids: Sequence[int]
) -> list[int]:
    """Those of `ids` whose row of `table` matches `match`."""
    # One lookup per row: FTS5 checks a MATCH against a single rowid without reading the term's
    # whole posting list, which a common word in a large index would cost.
    sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid = ?"
    return [i for i in ids if conn.execute(sql, (match, i)).fetchone() is not None]


# -- building ------------------------------------------------------------------------------


@dataclass(slots=True)
class _File:
    id: int
    path: str
    language: str
    rank: float
    doc: str = ""  # the file's own description: module docstring or leading comment
    readme: str = ""  # the first lines of a README's text
    definitions: list[tuple[str, str, float, str]] | None = None  # (kind, name, rank, one-line doc)


@dataclass(frozen=True, slots=True)
class _Node:
    file_count: int
    languages: dict[str, int]
    files: tuple[str, ...]
    description: str
    summary: str
    rank: float
    fts: tuple[str, str, str, str, str]


def _files(conn: sqlite3.Connection, dirs: set[str] | None) -> list[_File]:
    sql = "SELECT id, path, language, rank FROM files WHERE status != 'skipped'"
    if dirs is None:
        return [_File(int(r[0]), r[1], r[2], float(r[3])) for r in conn.execute(sql)]
    found: list[_File] = []
    for directory in sorted(dirs):
        # A range over the path index: everything under the directory, then only its own files
        # ('0' is the character after '/').
        rows = conn.execute(sql + " AND path > ? AND path < ?", (directory + "/", directory + "0"))
        found.extend(_File(int(r[0]), r[1], r[2], float(r[3])) for r in rows if directory_of(r[1]) == directory)
    return found


def _attach_facts(conn: sqlite3.Connection, files: list[_File]) -> None:
    """Each file's definitions (with rank and one-line doc), its own description, a README's text."""
    by_id = {f.id: f for f in files}
    ids = json.dumps(sorted(by_id))
    for f in files:
        f.definitions = []
    rows = conn.execute(
        "SELECT file_id, kind, name, rank, doc FROM symbols WHERE file_id IN (SELECT value FROM json_each(?))"
        " AND kind IN ('class', 'function', 'method')",
        (ids,),
    )
    for file_id, kind, name, rank, doc in rows:
        if name.startswith("__") and name.endswith("__"):
            continue  # __init__, __str__: every class has them, they say nothing of the directory
        definitions = by_id[int(file_id)].definitions
        assert definitions is not None
        definitions.append((kind, name, float(rank), doc.lstrip().partition("\n")[0]))  # a doc's first line
    # A file's description: its module docstring (Python) or the comment it opens with; the first
    # module unit holds either.
    # Only a comment the file opens with describes it, and only its first lines are read.
    rows = conn.execute(
        "SELECT file_id, doc, CASE WHEN doc = '' AND start_line = 1 THEN substr(content, 1, 4000) ELSE '' END"
        " FROM units WHERE file_id IN (SELECT value FROM json_each(?)) AND kind = 'module' AND part = 0"
        " ORDER BY file_id, start_line",
        (ids,),
    )
    seen: set[int] = set()
    for file_id, doc, head in rows:
        if file_id in seen:
            continue
        seen.add(file_id)
        by_id[int(file_id)].doc = _first_paragraph(doc) if doc else _leading_comment(head)
    readmes = [f for f in files if _README.match(posixpath.basename(f.path))]
    for f in readmes:
        text = conn.execute(
            "SELECT content FROM units WHERE file_id = ? ORDER BY start_line, part LIMIT 2", (f.id,)
        ).fetchall()
        f.readme = _prose_lines("\n".join(r[0] for r in text))


def _build(path: str, files: list[_File], is_test: IsTest) -> _Node:
    tests = {f.path for f in files if is_test(f.path)}

    def file_order(f: _File) -> tuple[bool, bool, float, int, str]:
        # Tests and plain text (a LICENSE, a changelog) last: they say least of what the code does.
        return (f.path in tests, f.language == "text", -f.rank, -len(f.definitions or ()), f.path)

    ordered = sorted(files, key=file_order)
    languages = dict(Counter(f.language for f in files).most_common())
    # Source before tests, classes and functions before methods, then by PageRank.
    definitions = sorted(
        ((f.path in tests, kind == "method", -rank, name, doc, f.path)
         for f in files for kind, name, rank, doc in f.definitions or ()),
    )
    names = list(dict.fromkeys(d[3] for d in definitions))[:INDEX_DEFINITIONS]
    docs = [_clip(doc.strip()) for doc in list(dict.fromkeys(d[4] for d in definitions if d[4]))[:INDEX_DOCS]]
    per_file: dict[str, list[str]] = defaultdict(list)
    for *_, name, _doc, file_path in definitions:
        if len(per_file[file_path]) < FILE_DEFINITIONS and name not in per_file[file_path]:
            per_file[file_path].append(name)

    description = _description(path, files)
    top = ordered[:TOP_FILES]
    counted = ", ".join(f"{lang} {n}" for lang, n in languages.items())
    lines = [f"{path}/: {len(files)} file{'s' if len(files) != 1 else ''} ({counted})"]
    lines.extend(description.split("\n") if description else [])
    lines.append("Top files:")
    for f in top:
        own = per_file.get(f.path, [])
        parts = [f"- {f.path}"]
        doc = _clip(f.doc.split("\n")[0]) if f.doc else ""
        if doc:
            parts.append(f": {doc}")
        if own:
            joint = "" if doc.endswith((".", "!", "?", "…")) else "." if doc else ":"
            parts.append(f"{joint} Defines {', '.join(own)}")
        lines.append("".join(parts))
    if len(files) > len(top):
        lines.append(f"- and {len(files) - len(top)} more")
    stems = " ".join(posixpath.splitext(posixpath.basename(f.path))[0] for f in files)
    module_docs = [f.doc for f in ordered if f.doc]
    fts = (
        searchable_text(posixpath.basename(path)),
        searchable_text(path.replace("/", " ").replace(".", " ")),
        searchable_text(stems),
        searchable_text(" ".join(names)),
        searchable_text("\n".join(dict.fromkeys([description, *module_docs, *docs]))),
    )
    rank = max((f.rank for f in files), default=0.0)
    return _Node(len(files), languages, tuple(f.path for f in top), description, "\n".join(lines), rank, fts)


def _description(path: str, files: list[_File]) -> str:
    """What the directory says of itself: a README's first lines, else its package's docstring."""
    for f in sorted(files, key=lambda f: f.path):
        if f.readme:
            return f.readme
    for f in sorted(files, key=lambda f: f.path):
        # A package's own doc: Python's __init__, Rust's mod.rs or lib.rs, Go's "Package x ..." comment.
        package_file = posixpath.basename(f.path) in ("__init__.py", "mod.rs", "lib.rs", "package-info.java")
        if f.doc and (package_file or (f.language == "go" and f.doc.startswith("Package "))):
            return "\n".join(_clip(line) for line in f.doc.split("\n")[:DESCRIPTION_LINES])
    return ""


def _first_paragraph(text: str) -> str:
    out: list[str] = []
    for line in text.split("\n"):
        if line.strip():
            out.append(line.strip())
        elif out:
            break
    return "\n".join(out[:DESCRIPTION_LINES])


def _leading_comment(content: str) -> str:
    """The first paragraph of the comments a file opens with, leaving out license headers."""
    paragraphs: list[list[str]] = [[]]
    for line in content.split("\n"):
        if not line.strip():
            paragraphs.append([])
            continue
        marker = _COMMENT.match(line)
        if marker is None:
            break
        text = line[marker.end():].strip().rstrip("*/").strip()
        if text:
            paragraphs[-1].append(text)
        else:
            paragraphs.append([])
    for paragraph in paragraphs:
        if paragraph and not any(_BOILERPLATE.search(line) for line in paragraph):
            return "\n".join(paragraph[:DESCRIPTION_LINES])
    return ""


def _prose_lines(text: str) -> str:
    """The first lines of prose in a README: headings, badges, markup and fences left out."""
    out: list[str] = []
    for line in text.split("\n"):
        if not line.strip() or _MARKUP.match(line):
            if out:
                break
            continue
        out.append(_clip(line.strip()))
        if len(out) >= DESCRIPTION_LINES:
            break
    return "\n".join(out)


def _clip(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1].rstrip() + "…"
