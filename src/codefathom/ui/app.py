"""The web page's server: one static page (static/) and a JSON API under /api/, in a Starlette app.

Each API route is one service call on the project served, through the MCP server's `ServiceCache`
(the watcher and background embedding come with it), rendered as `--json` prints it.
"""

from __future__ import annotations

import hashlib
import hmac
import posixpath
import socket
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode

import anyio.to_thread
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from codefathom.errors import CodefathomError, NotFound, UsageError, exit_code, input_error
from codefathom.mcp.http import Address, BearerTokenAuth, LoopbackOnly
from codefathom.mcp.server import ServiceCache
from codefathom.service import CHANNELS, Codefathom, render
from codefathom.service.context import MIN_TOKENS, OutlineFile
from codefathom.service.lookups import LOOKUP_MODES, lookup
from codefathom.service.project import inside_root, resolve_project
from codefathom.service.snippets import query_terms

__all__ = ["UiBackend", "build_app", "bind", "run_ui", "cookie_name", "require_token", "STATIC"]

STATIC = Path(__file__).parent / "static"
MODES = (*CHANNELS, *LOOKUP_MODES)
SEARCH_LIMIT = 20  # results a search page lists unless asked for more
MAX_SEARCH_LIMIT = 100
GRAPH_DEPTH = 2  # the deepest call graph or dependency graph the page draws
GRAPH_NODES = 120  # nodes per side of a graph: a picture of more is unreadable
REFS_SHOWN = 200
MAP_TOP_FILES = 5  # files named under each box of the directory map

T = TypeVar("T")

# HTTP status for each codefathom error class: not found, the request's fault, the machine's.
_STATUS = {1: 404, 2: 400, 3: 500}

# The page loads only its own script and style; nothing inline, no other origin (it works offline).
_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self';"
                                 b" connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


@dataclass
class UiBackend:
    """The project the page shows and the service answering for it.

    Calls go through `ServiceCache.call` with the project root as the only served root, so every
    path the API takes is checked as an MCP tool's is (`file`): inside the project, symlinks resolved."""

    directory: Path  # the directory asked for (answers keep to it when it is inside the project)
    cache: ServiceCache = field(init=False)

    def __post_init__(self) -> None:
        project = resolve_project(self.directory)
        self.directory = project.root / project.within if project.within else project.root
        self.root = project.root
        self.within = project.within
        self.cache = ServiceCache(roots=(project.root,))
        self.served = self.cache.served()

    def call(self, action: Callable[[Codefathom], T]) -> T:
        return self.cache.call(self.directory, action, self.served)

    def file(self, service: Codefathom, path: str) -> str:
        """A path the page names, read from the project root; refused outside it (as MCP tools refuse it)."""
        if not path.strip():
            raise UsageError("give a path of the project")
        return str(self.served.check(inside_root(service.root, path)))

    def close(self) -> None:
        self.cache.close()


# -- request parameters --------------------------------------------------------------------------


def _text(request: Request, name: str, default: str | None = None) -> str:
    value = request.query_params.get(name, default)
    if value is None or not value.strip():
        raise UsageError(f"give {name}")
    return value


def _listed(request: Request, name: str) -> list[str]:
    """A filter given once or more, each possibly comma-separated (`lang=python,ts`)."""
    return [part.strip() for value in request.query_params.getlist(name) for part in value.split(",") if part.strip()]


def _number(request: Request, name: str, default: int, low: int, high: int) -> int:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    if not (value.isascii() and value.isdigit() and len(value) <= 9) or not low <= int(value) <= high:
        raise UsageError(f"{name} must be a number from {low} to {high}, got {value[:20]!r}")
    return int(value)


def _choice(request: Request, name: str, choices: tuple[str, ...], default: str) -> str:
    value = request.query_params.get(name) or default
    if value not in choices:
        raise UsageError(f"{name} must be one of {', '.join(choices)}, got {value[:40]!r}")
    return value


# -- the API ---------------------------------------------------------------------------------------


class Api:
    """One method per route; each returns the JSON of one or a few service calls."""

    def __init__(self, backend: UiBackend) -> None:
        self.backend = backend

    def status(self, request: Request) -> dict[str, Any]:
        data = self.backend.call(lambda service: render.status_json(service.status()))
        data["within"] = self.backend.within
        return data

    def search(self, request: Request) -> dict[str, Any]:
        query = _text(request, "q")
        mode = _choice(request, "mode", MODES, "hybrid")
        limit = _number(request, "limit", SEARCH_LIMIT, 1, MAX_SEARCH_LIMIT)
        filters: dict[str, Any] = {
            "languages": _listed(request, "lang"), "path_glob": _listed(request, "glob"),
            "exclude_glob": _listed(request, "exclude"),
        }
        kinds = _listed(request, "kind")
        if mode in LOOKUP_MODES:
            found = self.backend.call(lambda service: lookup(service, mode, query, limit=limit, kinds=kinds, **filters))
            data = found.to_json()
        else:
            response = self.backend.call(
                lambda service: service.search(query, limit=limit, kinds=kinds, channel=mode, **filters)
            )
            data = render.search_json(response)
        data["mode"] = mode
        data["terms"] = query_terms(query) if mode in CHANNELS else [query]
        return data

    def symbol(self, request: Request) -> dict[str, Any]:
        """The definitions of a name, the first one's code with the definitions around it."""
        name = _text(request, "name")

        def work(service: Codefathom) -> dict[str, Any]:
            found = service.symbol(name, limit=20, fresh=_stale(service))
            data = render.symbols_json(found)
            if found.symbols:
                first = found.symbols[0]
                code = service.read(f"{first.path}:{first.start_line}-{first.end_line}", fresh=False)
                data["definition"] = code.to_json()
            return data

        return self.backend.call(work)

    def refs(self, request: Request) -> dict[str, Any]:
        name = _text(request, "name")
        limit = _number(request, "limit", REFS_SHOWN, 1, 5000)
        return self.backend.call(
            lambda service: render.refs_json(service.refs(name, limit=limit, fresh=_stale(service)))
        )

    def calls(self, request: Request) -> dict[str, Any]:
        name = _text(request, "name")
        direction = _choice(request, "direction", ("callers", "callees"), "callers")
        depth = _number(request, "depth", 1, 1, GRAPH_DEPTH)
        response = self.backend.call(
            lambda service: service.call_hierarchy(
                name, direction=direction, depth=depth, limit=GRAPH_NODES, fresh=_stale(service)
            )
        )
        return render.hierarchy_json(response)

    def file(self, request: Request) -> dict[str, Any]:
        path = _text(request, "path")
        return self.backend.call(
            lambda service: render.brief_json(service.brief(self.backend.file(service, path), fresh=_stale(service)))
        )

    def deps(self, request: Request) -> dict[str, Any]:
        path = _text(request, "path")
        direction = _choice(request, "direction", ("dependencies", "dependents"), "dependencies")
        depth = _number(request, "depth", 1, 1, GRAPH_DEPTH)

        def work(service: Codefathom) -> dict[str, Any]:
            target = self.backend.file(service, path)
            found = service.deps(
                [target], depth=depth, reverse=direction == "dependents", limit=GRAPH_NODES, fresh=_stale(service)
            )
            return render.deps_json(found)

        return self.backend.call(work)

    def map(self, request: Request) -> dict[str, Any]:
        """A directory's entries (subdirectories and files), each with the summed PageRank of its files
        (weighted by role, as an outline ranks them), its file count, languages and top files."""
        path = request.query_params.get("path", "").strip().strip("/")

        def work(service: Codefathom) -> dict[str, Any]:
            directory = self.backend.file(service, path) if path else None
            outline = service.outline(directory, tokens=MIN_TOKENS, fresh=_stale(service))
            return _directory_map(outline.project_root, outline.path, outline.files.values(), outline.notices)

        return self.backend.call(work)


def _stale(service: Codefathom) -> bool:
    """Whether a graph verb must sync first: not when the server's watcher saw nothing change since the
    last sync (as a search skips its sweep then); the page makes four calls a symbol, each a sweep else."""
    return service.watch is None or not service.watch.clean()


def _directory_map(root: str, prefix: str, files: Iterable[OutlineFile], notices: list[str]) -> dict[str, Any]:
    entries: dict[str, dict[str, Any]] = {}
    languages: dict[str, Counter[str]] = {}
    tops: dict[str, list[tuple[float, str]]] = {}
    for file in files:
        rest = file.path[len(prefix) + 1:] if prefix else file.path
        head, slash, _ = rest.partition("/")
        entry = entries.setdefault(head, {
            "name": head + slash, "path": posixpath.join(prefix, head), "kind": "directory" if slash else "file",
            "score": 0.0, "files": 0,
        })
        entry["score"] += file.score
        entry["files"] += 1
        languages.setdefault(head, Counter())[file.language] += 1
        tops.setdefault(head, []).append((file.score, file.path))
    for head, entry in entries.items():
        entry["score"] = round(entry["score"], 4)
        entry["languages"] = dict(languages[head].most_common())
        entry["top_files"] = [p for _, p in sorted(tops[head], key=lambda t: (-t[0], t[1]))[:MAP_TOP_FILES]]
    ordered = sorted(entries.values(), key=lambda e: (-e["score"], e["name"]))
    data: dict[str, Any] = {"project_root": root, "path": prefix, "entries": ordered}
    if notices:
        data["notices"] = notices
    return data


def _endpoint(work: Callable[[Request], dict[str, Any]]) -> Callable[[Request], Any]:
    """An async route running `work` in a worker thread (the service blocks); codefathom errors, and
    Python's own errors that bad input causes, become `{"error": ...}` with 404, 400 or 500."""

    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        try:
            data = await anyio.to_thread.run_sync(lambda: work(request))
        except Exception as exc:
            error = input_error(exc)
            if error is None:
                raise  # a bug: Starlette answers 500 and the traceback goes to the log
            return JSONResponse({"error": str(error)}, status_code=_status(error))
        response = JSONResponse(data)
        # The time the answer took here (the browser's developer tools and bench/ui.py show it).
        response.headers["server-timing"] = f"service;dur={(time.perf_counter() - started) * 1000:.1f}"
        return response

    return endpoint


def _status(error: CodefathomError) -> int:
    if isinstance(error, NotFound):
        return 404
    return _STATUS[exit_code(error)]


async def _page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")


async def _no_route(request: Request) -> Response:
    return JSONResponse({"error": f"no such API route: {request.url.path}"}, status_code=404)


def require_token(address: Address, token: str | None) -> None:
    """Refuse an address other machines can reach without a token (before anything is indexed or bound)."""
    if not address.loopback and not token:
        raise UsageError(
            f"refusing to serve on {address.host}, which other machines can reach, without a token:"
            " pass --token TOKEN (or --token-file, or set CODEFATHOM_TOKEN), or bind to 127.0.0.1"
        )


def build_app(backend: UiBackend, address: Address, token: str | None = None) -> ASGIApp:
    """The page and its API for `backend`, behind the rules of `serve --http`: with a token every request
    must carry it (a browser: once as `?token=`, then a cookie); without one, Host and Origin must be
    loopback ones (`LoopbackOnly`)."""
    require_token(address, token)
    api = Api(backend)
    routes: list[BaseRoute] = [Route("/", _page)]
    for name in ("status", "search", "symbol", "refs", "calls", "file", "deps", "map"):
        routes.append(Route(f"/api/{name}", _endpoint(getattr(api, name))))
    routes.append(Route("/api/{rest:path}", _no_route))
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await anyio.to_thread.run_sync(backend.close)

    app: ASGIApp = SecurityHeaders(Starlette(routes=routes, lifespan=lifespan))
    if token:
        return BrowserToken(app, token, address.port)
    return LoopbackOnly(app, address)


class SecurityHeaders:
    """ASGI middleware: every response says the page loads nothing from elsewhere, is never framed,
    and sends no Referer (the first URL may hold the token)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *_HEADERS]}
            await send(message)

        await self._app(scope, receive, with_headers)


def cookie_name(port: int) -> str:
    """Cookies ignore ports: two pages on two ports of one host get cookies of their own names."""
    return f"codefathom_ui_{port}"


class BrowserToken:
    """ASGI middleware: `BearerTokenAuth`, plus a way in for a browser, which cannot send a header.

    A request with the right `?token=` is answered by a redirect to the same URL without it, setting
    an HttpOnly, SameSite=Strict cookie; a request carrying that cookie passes as if it sent
    `Authorization: Bearer <token>`. The cookie holds a hash of the token, not the token.
    """

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self._app = BearerTokenAuth(app, token)
        self._token = token.encode()
        self._cookie = cookie_name(port)
        self._pass = hashlib.sha256(b"codefathom-ui-cookie\0" + self._token).hexdigest()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        query = parse_qsl(bytes(scope.get("query_string", b"")).decode("latin-1"), keep_blank_values=True)
        given = [value for key, value in query if key == "token"]
        if given and hmac.compare_digest(given[-1].encode(), self._token):
            await self._let_in(scope, [(k, v) for k, v in query if k != "token"], send)
            return
        headers = list(scope.get("headers", ()))
        if not any(bytes(name).lower() == b"authorization" for name, _ in headers):
            if self._has_cookie(headers):
                scope = {**scope, "headers": [*headers, (b"authorization", b"Bearer " + self._token)]}
            elif scope["path"] == "/":  # a browser that never got the cookie: say how to get in
                await _send(send, 401, _SIGN_IN, b"text/html; charset=utf-8")
                return
        await self._app(scope, receive, send)

    def _has_cookie(self, headers: list[tuple[bytes, bytes]]) -> bool:
        for name, value in headers:
            if bytes(name).lower() != b"cookie":
                continue
            for part in bytes(value).decode("latin-1").split(";"):
                key, _, given = part.strip().partition("=")
                if key == self._cookie and hmac.compare_digest(given.encode(), self._pass.encode()):
                    return True
        return False

    async def _let_in(self, scope: Scope, rest: list[tuple[str, str]], send: Send) -> None:
        location = scope.get("root_path", "") + scope["path"] + (f"?{urlencode(rest)}" if rest else "")
        cookie = f"{self._cookie}={self._pass}; Path=/; HttpOnly; SameSite=Strict"
        await _send(send, 303, b"", extra=[
            (b"location", location.encode("latin-1", errors="replace")), (b"set-cookie", cookie.encode()),
        ])


_SIGN_IN = (
    b"<!doctype html><meta charset=utf-8><title>codefathom: token needed</title>"
    b"<p style='font:15px system-ui;margin:40px'>This codefathom page needs its token. Open the URL"
    b" <code>codefathom ui</code> printed when it started (it ends in <code>?token=...</code>), or add"
    b" <code>?token=TOKEN</code> to this address once; the page then remembers it in a cookie.</p>"
)


async def _send(
    send: Send, status: int, body: bytes, kind: bytes = b"text/plain", extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send({
        "type": "http.response.start", "status": status,
        "headers": [
            (b"content-type", kind), (b"content-length", str(len(body)).encode()), (b"referrer-policy", b"no-referrer"),
            (b"cache-control", b"no-store"), *(extra or []),
        ],
    })
    await send({"type": "http.response.body", "body": body})


# -- running it ----------------------------------------------------------------------------------


def bind(address: Address) -> socket.socket:
    """A listening socket on `address`, or a usage error that says what to do (a port in use)."""
    host = "127.0.0.1" if address.host.lower() == "localhost" else address.host
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, address.port))
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"cannot listen on {address.netloc}: {exc.strerror or exc}; pick another with --http PORT"
        ) from exc
    sock.listen(128)
    return sock


def run_ui(app: ASGIApp, sock: socket.socket, on_ready: Callable[[], None] | None = None) -> None:
    """Serve `app` on the bound socket until interrupted (Ctrl-C); `on_ready` runs once it accepts."""
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", server_header=False, ws="none", timeout_graceful_shutdown=5,
    )
    server = _Server(config, on_ready)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    if server.failed:
        print("codefathom ui stopped: the server failed to start (see above)", file=sys.stderr)


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None] | None) -> None:
        super().__init__(config)
        self._on_ready = on_ready
        self.failed = False

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.should_exit:
            self.failed = True
        elif self._on_ready is not None:
            self._on_ready()
