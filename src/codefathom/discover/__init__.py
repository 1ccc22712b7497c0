"""Discovery: which files of a project are indexed, and why the others are not.

`discover(settings)` lists files; `read_source(file)` reads one and vets its content.
"""

from __future__ import annotations

from codefathom.discover.filters import content_problem, decode_text
from codefathom.discover.walk import Discovery, discover
from codefathom.model import SourceFile

__all__ = ["Discovery", "discover", "read_source", "SourceText"]


class SourceText:
    """A file's bytes as read, its decoded text, and why it should be skipped, if it should."""

    __slots__ = ("data", "text", "problem", "replaced_bytes")

    def __init__(self, data: bytes, text: str, problem: str | None, replaced_bytes: bool) -> None:
        self.data = data
        self.text = text
        self.problem = problem
        self.replaced_bytes = replaced_bytes


def read_source(file: SourceFile) -> SourceText:
    """Read and vet a discovered file; raises OSError when it cannot be read."""
    with open(file.abs_path, "rb") as handle:
        data = handle.read()
    problem = content_problem(data)
    if problem:
        return SourceText(data, "", problem, False)
    text, replaced = decode_text(data)
    return SourceText(data, text, None, replaced)
