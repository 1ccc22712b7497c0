"""Every error codefathom raises on purpose; the shells turn them into messages and exit codes.

    CodefathomError          base: catch this to handle anything codefathom reports
    ├── UsageError           the caller asked for something invalid (bad glob, bad path, bad option)
    │   └── PathOutsideRoot  a path escapes the project root
    ├── NotIndexed           the project has no index yet and the call does not create one
    ├── IndexUnusable        the index file is unusable (corrupt, foreign, unreadable)
    │   └── EmbedderMismatch the index holds vectors of another embedder than the one configured
    └── EmbedderUnavailable  the configured embedder cannot run (not installed, server down)
"""

from __future__ import annotations

__all__ = [
    "CodefathomError", "UsageError", "PathOutsideRoot", "NotIndexed", "IndexUnusable", "EmbedderMismatch",
    "EmbedderUnavailable",
]


class CodefathomError(Exception):
    """Base of every error codefathom reports to a user."""


class UsageError(CodefathomError):
    """The request itself is invalid; the message says what to change."""


class PathOutsideRoot(UsageError):
    """A path leads outside the project root, which codefathom never reads."""


class NotIndexed(CodefathomError):
    """The project has no index and the operation does not build one."""


class IndexUnusable(CodefathomError):
    """The index file cannot be used as it is (corrupt, foreign or unreadable)."""


class EmbedderMismatch(IndexUnusable):
    """The index's vectors come from another embedder; they are never mixed with new ones."""


class EmbedderUnavailable(CodefathomError):
    """The configured embedder cannot run here; search falls back to its lexical channels."""
