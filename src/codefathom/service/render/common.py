"""What every reply shares: notices first, counts in words, text cut to one line.

The helpers the other render modules use; nothing here is a reply of its own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar


class _Noticed(Protocol):
    notices: list[str]


R = TypeVar("R", bound=_Noticed)


def _noticed_json(to_json: Callable[[R], dict[str, Any]]) -> Callable[[R], dict[str, Any]]:
    """A graph reply's JSON with its `notices` (what the index has not done yet), when it has any."""

    @functools.wraps(to_json)
    def with_notices(response: R) -> dict[str, Any]:
        data = to_json(response)
        if response.notices:
            data["notices"] = response.notices
        return data

    return with_notices


def _noticed_text(to_text: Callable[[R], str]) -> Callable[[R], str]:
    """A graph reply's text with its notices first, as `# ...` lines (as a search prints them)."""

    @functools.wraps(to_text)
    def with_notices(response: R) -> str:
        return "\n".join([*(f"# {notice}" for notice in response.notices), to_text(response)])

    return with_notices


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


def _clip(text: str, size: int) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"


def _vectors_line(vectors: dict[str, Any]) -> str:
    state = vectors.get("state")
    if state in ("off", "misconfigured", "not indexed"):
        return f"{state}" + (f" ({vectors['reason']})" if vectors.get("reason") else "")
    line = f"{vectors.get('with_vectors', 0):,} of {vectors.get('units', 0):,} units ({vectors.get('percent')}%)"
    return line + f", embedder {vectors.get('index_embedder') or vectors.get('embedder')}"
