"""Directory nodes as they are built, whatever database holds them: what a directory says of itself
(README, package docs), its top files and definitions, and the searchable text of its node.

Each backend reads the files' facts (store/sqlite/directories.py) and hands them here as `DirectoryFile`s.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from codefathom.store.records import IsTest
from codefathom.tokens import searchable_text

__all__ = [
    "DirectoryFile", "DirectoryNode", "build_node", "directory_of", "file_description", "readme_lines", "is_readme",
    "definition_entry",
]

TOP_FILES = 8  # files a node lists, best first
FILE_DEFINITIONS = 4  # definitions named per listed file
INDEX_DEFINITIONS = 60  # definition names in the node's searchable text
INDEX_DOCS = 25  # one-line definition docs in it
LINE_CHARS = 160  # a one-line doc or description line is clipped to this
DESCRIPTION_LINES = 3

_README = re.compile(r"^readme(\.[A-Za-z0-9]+)?$", re.IGNORECASE)
_COMMENT = re.compile(r"^\s*(//[!/]?|/\*+!?|\*/|\*(?!\*/)|#(?![!\[]|include|define|if|pragma)|--|;+)\s?")
# License headers, editor modelines and the like: a file's first comment, but not its description.
_BOILERPLATE = re.compile(r"copyright|licen[cs]e|spdx|all rights reserved|-\*-|vim?:|eslint|prettier", re.IGNORECASE)
_MARKUP = re.compile(r"^\s*(#|!\[|\[!\[|<|```|[=\-_*]{3,}\s*$|\.\. )")


def directory_of(path: str) -> str:
    """The directory holding a file ("" for the project root, which gets no node)."""
    return posixpath.dirname(path)


@dataclass(slots=True)
class DirectoryFile:
    id: int
    path: str
    language: str
    rank: float
    doc: str = ""  # the file's own description: module docstring or leading comment
    readme: str = ""  # the first lines of a README's text
    definitions: list[tuple[str, str, float, str]] | None = None  # (kind, name, rank, one-line doc)


@dataclass(frozen=True, slots=True)
class DirectoryNode:
    file_count: int
    languages: dict[str, int]
    files: tuple[str, ...]
    description: str
    summary: str
    rank: float
    fts: tuple[str, str, str, str, str]


def build_node(path: str, files: list[DirectoryFile], is_test: IsTest) -> DirectoryNode:
    tests = {f.path for f in files if is_test(f.path)}

    def file_order(f: DirectoryFile) -> tuple[bool, bool, float, int, str]:
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
    return DirectoryNode(len(files), languages, tuple(f.path for f in top), description, "\n".join(lines), rank, fts)


def _description(path: str, files: list[DirectoryFile]) -> str:
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


def file_description(doc: str, head: str) -> str:
    """A file's own description: its module docstring's first paragraph, else the comment its first
    module unit opens with (`head`: the start of that unit's text when it starts the file and has no doc)."""
    return _first_paragraph(doc) if doc else _leading_comment(head)


def readme_lines(text: str) -> str:
    """The first lines of prose of a README's text."""
    return _prose_lines(text)


def is_readme(path: str) -> bool:
    return _README.match(posixpath.basename(path)) is not None


def definition_entry(kind: str, name: str, rank: float, doc: str) -> tuple[str, str, float, str] | None:
    """A definition as a node lists it, with its doc's first line; None for a dunder (`__init__`,
    `__str__`: every class has them, they say nothing of the directory)."""
    if name.startswith("__") and name.endswith("__"):
        return None
    return (kind, name, float(rank), doc.lstrip().partition("\n")[0])


def attach_definitions(files: list[DirectoryFile], rows: Iterable[tuple[int, str, str, float, str]]) -> None:
    """Each file's definitions from (file id, kind, name, rank, doc) rows, as a node lists them."""
    by_id = {f.id: f for f in files}
    for f in files:
        f.definitions = []
    for file_id, kind, name, rank, doc in rows:
        entry = definition_entry(kind, name, rank, doc)
        definitions = by_id[int(file_id)].definitions
        if entry is not None and definitions is not None:
            definitions.append(entry)


def attach_descriptions(files: list[DirectoryFile], rows: Iterable[tuple[int, str, str]]) -> None:
    """Each file's description from its module units' (file id, doc, head) rows, in line order: the
    first module unit holds the docstring or the comment the file opens with."""
    by_id = {f.id: f for f in files}
    seen: set[int] = set()
    for file_id, doc, head in rows:
        if file_id in seen:
            continue
        seen.add(file_id)
        by_id[int(file_id)].doc = file_description(doc, head)
