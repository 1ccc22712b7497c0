"""Every error codefathom raises on purpose; the shells turn them into messages and exit codes.

    CodefathomError          base: catch this to handle anything codefathom reports
    ├── UsageError           the caller asked for something invalid (bad glob, bad path, bad option)
    │   ├── PathOutsideRoot  a path escapes the project root
    │   └── NotFound         a file the caller names is not in the index
    ├── NotIndexed           the project has no index yet and the call does not create one
    ├── IndexUnusable        the index file is unusable (corrupt, foreign, unreadable)
    │   ├── EmbedderMismatch the index holds vectors of another embedder than the one configured
    │   └── StoreUnavailable the configured database cannot be used here (no driver, unreachable)
    ├── EmbedderUnavailable  the configured embedder cannot run (not installed, server down)
    └── SummarizerUnavailable the configured summary endpoint cannot answer (down, refused, 401)

`input_error` names what went wrong when Python's own errors come from what a user gave (a path in a
symlink loop, a number too large for SQLite, text nested too deeply to read): the shells report
those as these errors too, never as a traceback.
"""

from __future__ import annotations

import errno

__all__ = [
    "CodefathomError", "UsageError", "PathOutsideRoot", "NotFound", "NotIndexed", "IndexUnusable", "EmbedderMismatch",
    "StoreUnavailable", "EmbedderUnavailable", "SummarizerUnavailable", "input_error", "path_error", "shown",
    "exit_code",
]


class CodefathomError(Exception):
    """Base of every error codefathom reports to a user."""


class UsageError(CodefathomError):
    """The request itself is invalid; the message says what to change."""


class PathOutsideRoot(UsageError):
    """A path leads outside the project root, which codefathom never reads."""


class NotFound(UsageError):
    """What the request names (a file) is not in the index: the CLI's "not found" (exit 1)."""


class NotIndexed(CodefathomError):
    """The project has no index and the operation does not build one."""


class IndexUnusable(CodefathomError):
    """The index file cannot be used as it is (corrupt, foreign or unreadable)."""


class EmbedderMismatch(IndexUnusable):
    """The index's vectors come from another embedder; they are never mixed with new ones."""


class StoreUnavailable(IndexUnusable):
    """The configured store (`store = "postgresql://..."`) cannot be used from here: its driver is
    not installed, or the server cannot be reached. What to change is the setup, not the index, so
    the CLI treats it as a usage error (exit 2)."""


class EmbedderUnavailable(CodefathomError):
    """The configured embedder cannot run here; search falls back to its lexical channels."""


class SummarizerUnavailable(CodefathomError):
    """The configured summary endpoint cannot answer (down, refused the key, timed out)."""


def exit_code(error: CodefathomError) -> int:
    """The CLI's exit code for an error: 1 for what is not found, 2 for a usage error, 3 for the rest
    (the index, the disk, git). An answer exits 0, or 1 when it found nothing."""
    if isinstance(error, NotFound):
        return 1
    return 2 if isinstance(error, (UsageError, StoreUnavailable)) else 3


# errno of a path that is itself wrong (a usage error); any other OSError is the machine's (exit 1).
_PATH_ERRNOS = {
    errno.ENAMETOOLONG: "name too long (over 255 bytes for one name, or 4,096 for the whole path)",
    errno.ELOOP: "too many levels of symbolic links (a link that leads back to itself)",
    errno.ENOENT: "no such file or directory",
    errno.ENOTDIR: "not a directory",
    errno.EISDIR: "is a directory",
    errno.EINVAL: "invalid argument",
}


def input_error(exc: BaseException) -> CodefathomError | None:
    """The error to report for `exc` when a user's input caused it, with the cause in its message:
    a UsageError for what the input itself gets wrong, a CodefathomError for an OSError the input
    only ran into (permission denied, disk full). None for anything else, which is a bug."""
    if isinstance(exc, CodefathomError):
        return exc
    if isinstance(exc, OSError):
        return path_error(exc.filename, exc)
    if isinstance(exc, RecursionError):  # before RuntimeError, its base
        return UsageError("the input is nested too deeply to read")
    if isinstance(exc, RuntimeError) and str(exc).startswith(_LOOP):
        return path_error(str(exc)[len(_LOOP) :].strip("'\""), exc)
    if isinstance(exc, RuntimeError) and "home directory" in str(exc):  # expanduser() of `~nobody`
        return UsageError(str(exc))
    if isinstance(exc, OverflowError):
        return UsageError(f"a number is too large ({exc})")
    if isinstance(exc, UnicodeDecodeError):
        return UsageError(f"the input is not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})")
    if isinstance(exc, UnicodeEncodeError):
        return UsageError(f"the input holds text that is not valid Unicode ({exc.reason})")
    if isinstance(exc, UnicodeError):
        return UsageError(f"the input holds text that is not valid Unicode ({exc})")
    if isinstance(exc, ValueError) and "null" in str(exc) and ("embedded" in str(exc) or "character" in str(exc)):
        return UsageError("a path or name holds a NUL character")
    return None


_LOOP = "Symlink loop from "  # Python 3.11's Path.resolve() on a loop (later versions raise OSError ELOOP)


def path_error(path: object, exc: BaseException) -> CodefathomError:
    """The error to report for `exc`, raised while reading `path` (as the user gave it): a usage
    error when the path itself is wrong (too long, a link loop, missing), else the machine's."""
    where = f"{shown(path)}: " if path is not None else ""
    if isinstance(exc, RuntimeError) and str(exc).startswith(_LOOP):
        return UsageError(where + _PATH_ERRNOS[errno.ELOOP])
    if isinstance(exc, OSError) and exc.errno in _PATH_ERRNOS:
        return UsageError(where + _PATH_ERRNOS[exc.errno])
    if isinstance(exc, OSError):
        return CodefathomError(where + (exc.strerror or str(exc)))
    found = input_error(exc) if not isinstance(exc, (OSError, RuntimeError)) else None
    return UsageError(where + str(found if found is not None else exc))


def shown(path: object, limit: int = 120) -> str:
    """A path (or any text) as a message shows it: its ends around an ellipsis when it is long."""
    text = path.decode("utf-8", "replace") if isinstance(path, bytes) else str(path)
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}…{text[-limit // 4 :]} ({len(text)} characters)"
