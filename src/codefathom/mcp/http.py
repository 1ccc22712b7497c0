"""Serves the MCP server over HTTP: streamable HTTP at /mcp, or SSE at /sse and /messages/.

The app is the SDK's Starlette app, run by uvicorn. It binds to 127.0.0.1 unless told otherwise;
any other address needs a bearer token, and once a token is set every request must carry it.
Without a token, a request must name the loopback address it was sent to (Host) and come from no
web page but a loopback one (Origin), so a page whose name is pointed at loopback is refused.
Each request let through carries its token's role in the ASGI scope (`access.ROLE_KEY`): `write`
for the one token of --token and without a token, the file's role with --token-file.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias
from urllib.parse import urlsplit

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from codefathom.errors import UsageError
from codefathom.mcp.access import ROLE_KEY, Role, describe_tokens
from codefathom.mcp.server import build_server, configure_logging

__all__ = [
    "Address", "BearerTokenAuth", "LoopbackOnly", "HttpTransport", "parse_address", "run_http", "DEFAULT_HOST"
]

DEFAULT_HOST = "127.0.0.1"

HttpTransport: TypeAlias = Literal["streamable-http", "sse"]

# The SDK's default endpoint paths.
ENDPOINTS: dict[HttpTransport, str] = {"streamable-http": "/mcp", "sse": "/sse"}


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        """Whether only this machine can connect: localhost or a loopback IP address."""
        if self.host.lower() == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:  # any other host name may resolve to anything
            return False

    @property
    def netloc(self) -> str:
        """HOST:PORT as a URL (and a Host header) writes it: an IPv6 address in brackets."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def url(self, path: str) -> str:
        return f"http://{self.netloc}{path}"


def parse_address(value: str) -> Address:
    """`PORT`, `HOST:PORT` or `[IPv6]:PORT`; the host defaults to 127.0.0.1."""
    text = value.strip()
    host, port = "", text
    if text.startswith("["):
        inner, bracket, rest = text[1:].partition("]")
        if not bracket or not rest.startswith(":"):
            raise UsageError(f"invalid address {value!r}: write [IPv6]:PORT, e.g. [::1]:8765")
        host, port = inner, rest[1:]
    elif ":" in text:
        host, port = text.rsplit(":", 1)
        if ":" in host:
            raise UsageError(f"invalid address {value!r}: write an IPv6 address in brackets, e.g. [::1]:8765")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"invalid address {value!r}: give PORT or HOST:PORT, e.g. 8765 or 127.0.0.1:8765")
    return Address(host or DEFAULT_HOST, int(port))


class BearerTokenAuth:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401.

    `tokens` is one token (full access) or each token with its role; the role of the token sent goes
    into the scope for the tools. Every token is compared, each in constant time, so how long a
    refusal takes says nothing of which token came close. Lifespan events pass through; websockets
    are closed.
    """

    def __init__(self, app: ASGIApp, tokens: str | Mapping[str, Role]) -> None:
        granted: Mapping[str, Role] = {tokens: "write"} if isinstance(tokens, str) else tokens
        if not granted or not all(granted):
            raise ValueError("an empty bearer token protects nothing")
        self._app = app
        self._tokens = [(token.encode(), role) for token, role in granted.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)
            return
        role = self._role(scope)
        if role is not None:
            scope[ROLE_KEY] = role
            await self._app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await receive()  # websocket.connect, which a close must answer
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps(
            {"error": "unauthorized", "error_description": "send the server's token as 'Authorization: Bearer <token>'"}
        ).encode()
        await send({
            "type": "http.response.start", "status": 401,
            "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Bearer realm="codefathom"'),
            ],
        })
        await send({"type": "http.response.body", "body": body})

    def _role(self, scope: Scope) -> Role | None:
        """The role of the token the request sends, None without a known one."""
        for name, value in scope.get("headers", ()):
            if name.lower() == b"authorization":
                scheme, _, given = bytes(value).strip().partition(b" ")
                if scheme.lower() != b"bearer":
                    return None
                found: Role | None = None
                for token, role in self._tokens:  # (no early exit: see the class)
                    if hmac.compare_digest(given.strip(), token):
                        found = role
                return found
        return None


class LoopbackOnly:
    """ASGI middleware for a server without a token on a loopback address: refuses what DNS rebinding sends.

    A web page can point a name it owns at 127.0.0.1 (or any loopback address) and make the browser
    send requests here: they carry that name as Host (421) or the page's origin as Origin (403).
    Host must name the bound address in any spelling (`127.0.0.2`, `[0:0::1]`), or `localhost`, with
    the bound port; an Origin, when sent, must be a loopback one (127/8, ::1 or localhost), any port.
    The SDK's own check knows only the spellings 127.0.0.1, localhost and ::1, and any port.
    """

    def __init__(self, app: ASGIApp, address: Address) -> None:
        if not address.loopback:
            raise ValueError(f"{address.host} is not a loopback address")
        self._app = app
        self._address = address
        self._ip = None if address.host.lower() == "localhost" else ipaddress.ip_address(address.host)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self._app(scope, receive, send)
            return
        hosts, origins = [], []
        for name, value in scope.get("headers", ()):
            if bytes(name).lower() == b"host":
                hosts.append(bytes(value).decode("latin-1"))
            elif bytes(name).lower() == b"origin":
                origins.append(bytes(value).decode("latin-1"))
        host = hosts[0] if len(hosts) == 1 else ""  # none, or several that could be read either way
        if not self._names_this_server(host):
            status, reason = 421, f"this server answers requests to {self._address.netloc} only, not to {host!r}"
        elif origins and (len(origins) > 1 or not _loopback_origin(origins[0])):
            status, reason = 403, "this server answers no web page but one served from this machine (Origin)"
        else:
            scope[ROLE_KEY] = "write"  # (no token: whoever reaches loopback may do what the user may)
            await self._app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": "forbidden", "error_description": reason}).encode()
        await send({
            "type": "http.response.start", "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        })
        await send({"type": "http.response.body", "body": body})

    def _names_this_server(self, host: str) -> bool:
        name, port = _split_host(host)
        if name is None or port != self._address.port:
            return False
        if name == "localhost":
            return True
        ip = _ip(name)
        if ip is None:
            return False
        return ip == self._ip if self._ip is not None else ip.is_loopback


def _split_host(value: str, default_port: int = 80) -> tuple[str | None, int | None]:
    """A Host header's name (lower case, IPv6 without brackets) and port (default: 80, plain HTTP's)."""
    value = value.strip()
    if not value or any(char in value for char in "/?#@\\"):  # more than a host and a port
        return None, None
    try:
        parts = urlsplit(f"//{value}")
        port = parts.port
    except ValueError:
        return None, None
    if not parts.hostname:
        return None, None
    return parts.hostname, default_port if port is None else port


def _loopback_origin(origin: str) -> bool:
    """Whether a browser's Origin is a page served from this machine: http(s) on localhost or a loopback IP."""
    try:
        parts = urlsplit(origin.strip())
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return True
    ip = _ip(parts.hostname)
    return ip is not None and ip.is_loopback


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:  # a host name, or an IPv6 address with a zone
        return None


def run_http(
    transport: HttpTransport,
    address: Address,
    token: str | Mapping[str, Role] | None = None,
    index_dir: Path | None = None,
    roots: tuple[Path, ...] = (),
) -> None:
    """Serve MCP over `transport` at `address` until interrupted; logs go to stderr.

    `token` is one token (full access) or tokens with their roles (`--token-file`). A non-loopback
    address without a token is refused (`UsageError`) before anything binds; on a loopback one,
    requests that do not name it are refused (`LoopbackOnly`).
    """
    if not address.loopback and not token:
        raise UsageError(
            f"refusing to serve on {address.host}, which other machines can reach, without a token:"
            " pass --token TOKEN or --token-file FILE, or set CODEFATHOM_TOKEN (or bind to 127.0.0.1)"
        )
    configure_logging()
    server = build_server(index_dir, roots)
    # Without a token LoopbackOnly checks Host and Origin for every loopback address; the SDK's own check,
    # which covers three spellings of two of them, is turned off so that one rule decides.
    security = None if token else TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = (
        server.streamable_http_app(host=address.host, transport_security=security)
        if transport == "streamable-http"
        else server.sse_app(host=address.host, transport_security=security)
    )
    served: ASGIApp = BearerTokenAuth(app, token) if token else LoopbackOnly(app, address)
    url = address.url(ENDPOINTS[transport])
    guard = "no token: anyone on this machine can connect"
    if isinstance(token, str):
        guard = "bearer token required"
    elif token:
        guard = f"bearer tokens required: {describe_tokens(token)}"
    print(f"codefathom MCP server ({transport}) at {url} ({guard})", file=sys.stderr, flush=True)
    config = uvicorn.Config(
        served, host=address.host, port=address.port, log_level="warning", lifespan="on",
        server_header=False, ws="none", timeout_graceful_shutdown=5,
    )
    uvicorn.Server(config).run()
