"""Who may do what on an HTTP server: bearer tokens with a role, read from `serve --token-file`,
and the role a request carries to the tools (index_codebase and clear_index need `write`).

A token file holds one token a line after its role, `read TOKEN` or `write TOKEN`; blank lines and
lines starting with `#` are skipped. Messages about the file name a line by its number, never its
text, so a token never reaches a log.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeAlias

from codefathom.errors import UsageError

__all__ = ["Role", "ROLES", "ROLE_KEY", "read_token_file", "request_role", "describe_tokens"]

Role: TypeAlias = Literal["read", "write"]
ROLES: tuple[Role, ...] = ("read", "write")

# The ASGI scope key the HTTP middleware sets on every request it lets through.
ROLE_KEY = "codefathom.role"


def read_token_file(path: Path) -> dict[str, Role]:
    """The tokens of a token file and their roles; a malformed line is a usage error naming its number."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # (an editor's byte-order mark is not part of line 1)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the token file {path}: {exc.__class__.__name__}") from exc
    tokens: dict[str, Role] = {}
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        role = words[0].lower()
        if len(words) != 2 or role not in ROLES:
            raise UsageError(
                f"{path}, line {number}: write the role, then the token: `read TOKEN` (search and the read tools)"
                " or `write TOKEN` (also index_codebase and clear_index)"
            )
        token = words[1]
        if token in lines:
            raise UsageError(f"{path}, line {number}: the token of line {lines[token]} again; give each its own")
        tokens[token], lines[token] = role, number
    if not tokens:
        raise UsageError(f"{path} holds no token: write one a line, `read TOKEN` or `write TOKEN`")
    _warn_if_shared(path)
    return tokens


def _warn_if_shared(path: Path) -> None:
    """A token file other users can read gives them its tokens: say so (the server still starts)."""
    if os.name != "posix":
        return
    mode = path.stat().st_mode
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        print(f"warning: other users can read {path}; `chmod 600 {path}` keeps its tokens yours",
              file=sys.stderr, flush=True)


def describe_tokens(tokens: Mapping[str, Role]) -> str:
    """How many tokens of each role, for the line a server prints when it starts."""
    readers = sum(1 for role in tokens.values() if role == "read")
    writers = len(tokens) - readers
    return f"{readers} read-only, {writers} read-write"


def request_role(request: Any) -> Role:
    """The role of the HTTP request a tool call came in (`ctx.request_context.request`).

    stdio has no request: the client is the user who started the server, with full access. An HTTP
    request the middleware did not mark is read-only, so a request that slipped past it can never write.
    """
    if request is None:
        return "write"
    scope = getattr(request, "scope", None)
    role = scope.get(ROLE_KEY) if isinstance(scope, Mapping) else None
    return "write" if role == "write" else "read"
