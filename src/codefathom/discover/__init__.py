"""Discovery: which files of a project are indexed, and why the others are not.

`discover(settings)` lists files; `read_source(file, root)` reads one (never outside the root) and
vets its content.
"""

from __future__ import annotations

from codefathom.discover.filters import content_problem, decode_text
from codefathom.discover.inside import read_inside, real_root
from codefathom.discover.walk import Discovery, discover
from codefathom.model import SourceFile

__all__ = ["Discovery", "discover", "read_source", "read_inside", "real_root", "SourceText"]


class SourceText:
    """A file's bytes as read, its decoded text, and why it should be skipped, if it should."""

    __slots__ = ("data", "text", "problem", "replaced_bytes")

    def __init__(self, data: bytes, text: str, problem: str | None, replaced_bytes: bool) -> None:
        self.data = data
        self.text = text
        self.problem = problem
        self.replaced_bytes = replaced_bytes


def read_source(file: SourceFile, root: str) -> SourceText:
    """Read and vet a discovered file of the project whose `real_root` is `root`; raises OSError
    when it cannot be read, or leads outside the project."""
    data = read_inside(file.abs_path, root)
    problem = content_problem(data)
    if problem:
        return SourceText(data, "", problem, False)
    text, replaced = decode_text(data)
    return SourceText(data, text, None, replaced)
