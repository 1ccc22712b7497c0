"""Serves the MCP server over HTTP: streamable HTTP at /mcp, or SSE at /sse and /messages/.

The app is the SDK's Starlette app, run by uvicorn. It binds to 127.0.0.1 unless told otherwise;
any other address needs a bearer token, and once a token is set every request must carry it.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from codefathom.errors import UsageError
from codefathom.mcp.server import build_server, configure_logging

__all__ = ["Address", "BearerTokenAuth", "HttpTransport", "parse_address", "run_http", "DEFAULT_HOST"]

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

    def url(self, path: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{path}"


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

    The token is compared in constant time. Lifespan events pass through; websockets are closed.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("an empty bearer token protects nothing")
        self._app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._authorized(scope):
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

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name.lower() == b"authorization":
                scheme, _, given = bytes(value).strip().partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._token)
        return False


def run_http(
    transport: HttpTransport,
    address: Address,
    token: str | None = None,
    index_dir: Path | None = None,
    roots: tuple[Path, ...] = (),
) -> None:
    """Serve MCP over `transport` at `address` until interrupted; logs go to stderr.

    A non-loopback address without a token is refused (`UsageError`) before anything binds.
    """
    if not address.loopback and not token:
        raise UsageError(
            f"refusing to serve on {address.host}, which other machines can reach, without a token:"
            " pass --token TOKEN or set CODEFATHOM_TOKEN (or bind to 127.0.0.1)"
        )
    configure_logging()
    server = build_server(index_dir, roots)
    app = (
        server.streamable_http_app(host=address.host)
        if transport == "streamable-http"
        else server.sse_app(host=address.host)
    )
    served: ASGIApp = BearerTokenAuth(app, token) if token else app
    url = address.url(ENDPOINTS[transport])
    guard = "bearer token required" if token else "no token: anyone on this machine can connect"
    print(f"codefathom MCP server ({transport}) at {url} ({guard})", file=sys.stderr, flush=True)
    config = uvicorn.Config(
        served, host=address.host, port=address.port, log_level="warning", lifespan="on",
        server_header=False, ws="none", timeout_graceful_shutdown=5,
    )
    uvicorn.Server(config).run()
