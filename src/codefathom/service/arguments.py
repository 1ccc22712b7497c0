"""The type of each value a verb is given, checked once at the service's edge, with the argument named.

The CLI's options and the MCP tools' schemas type their values first; a `--jsonl` line or a library call types nothing.
"""

from __future__ import annotations

from codefathom.errors import UsageError, shown

__all__ = ["integer", "flag", "text", "texts", "names"]


def integer(name: str, value: object, low: int, high: int | None = None) -> int:
    """`value` as an int in [low, high]; a bool or a float is refused, not converted."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be a whole number, got {_shown(value)}")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high:,}" if high is not None else f"{low} or more"
        raise UsageError(f"{name} must be {bounds}, got {shown(value)}")
    return value


def flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"{name} must be true or false, got {_shown(value)}")
    return value


def text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{name} must be a string, got {_shown(value)}")
    return value


def texts(name: str, value: object) -> tuple[str, ...]:
    """One string or several (a list or tuple of strings) as a tuple; None and "" are none."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, (list, tuple)):
        raise UsageError(f"{name} must be a string or a list of strings, got {_shown(value)}")
    for item in value:
        if not isinstance(item, str):
            raise UsageError(f"{name} must hold strings, got {_shown(item)} in {_shown(value)}")
    return tuple(value)


def names(name: str, value: object) -> tuple[str, ...]:
    """Like `texts`, each string also read as a comma-separated list (`"python,ts"`), blanks dropped."""
    return tuple(part.strip() for item in texts(name, value) for part in item.split(",") if part.strip())


def _shown(value: object) -> str:
    return shown(repr(value), 80)
