"""The storage's own errors: what the rest of codefathom catches, whatever database runs below.

A backend's errors are mapped to these at the seam (SQLite's in `sqlite/errors.py`), so that no
caller outside `store/` names a database driver's exception.
"""

from __future__ import annotations

from codefathom.errors import IndexUnusable, NotIndexed

__all__ = ["StoreError", "ProjectMissing"]


class StoreError(Exception):
    """The index's storage failed; `damaged` when the file is corrupt or not a codefathom index
    (rebuild it), not when the failure says nothing about its content (busy, locked, disk full)."""

    def __init__(self, message: str, *, damaged: bool) -> None:
        super().__init__(message)
        self.damaged = damaged


class ProjectMissing(NotIndexed, IndexUnusable):
    """The store holds no index of the project and was not to make one (a database without a project
    of the name asked for; a SQLite file still without its schema): to the service, a project not
    indexed yet."""
