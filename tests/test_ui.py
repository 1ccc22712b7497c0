"""`codefathom ui`: the JSON API, the token and Host rules, the command, and the page in a real browser.

One server (no token) runs in a thread for the module, over a small project indexed for real
(no vectors); the token cases start their own. The browser is Debian's headless Chromium, run as a
subprocess on the rendered DOM (`--dump-dom`) and on a screenshot whose pixels are read back.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import threading
import time
import tomllib
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import uvicorn

from codefathom.errors import UsageError
from codefathom.mcp.http import Address
from codefathom.service import Codefathom
from codefathom.ui.app import STATIC, UiBackend, bind, build_app, cookie_name

TOKEN = "ui-test-token-7d2e"
TIMEOUT = 20  # seconds for any one request
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

FILES = {
    "pkg/__init__.py": "",
    "pkg/query.py": '''\
        """Querying rows: a lazy set of rows that filters and orders."""


        class QuerySet:
            """A lazy set of rows."""

            def __init__(self, rows):
                self.rows = list(rows)

            def filter(self, **conditions):
                """Rows matching every condition."""
                return QuerySet(row for row in self.rows if _matches(row, conditions))

            def exclude(self, **conditions):
                kept = self.filter(**conditions).rows
                return QuerySet(row for row in self.rows if row not in kept)


        def _matches(row, conditions):
            return all(row.get(key) == value for key, value in conditions.items())
    ''',
    "pkg/views.py": '''\
        """Views that list orders."""

        from pkg.query import QuerySet


        def list_orders(rows, customer):
            """The orders of one customer."""
            return QuerySet(rows).filter(customer=customer)


        def open_orders(rows):
            return QuerySet(rows).filter(status="open")


        def dashboard(rows, customer):
            return list_orders(rows, customer).rows + open_orders(rows).rows


        class Page:
            """A page of orders."""

            @property
            def size(self):
                return self._size

            @size.setter
            def size(self, value):
                self._size = value
    ''',
    "web/cart.ts": '''\
        export function cartTotal(prices: number[]): number {
          return prices.reduce((sum, price) => sum + price, 0);
        }
    ''',
    "tests/test_views.py": '''\
        from pkg.views import list_orders


        def test_list_orders():
            assert list_orders([{"customer": 1}], 1).rows == [{"customer": 1}]
    ''',
}


def write_project(root: Path) -> Path:
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@dataclass
class Running:
    address: Address
    project: Path

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        """One GET, redirects not followed; Host is this server's unless `headers` says otherwise."""
        conn = http.client.HTTPConnection(self.address.host, self.address.port, timeout=TIMEOUT)
        try:
            conn.request("GET", path, headers={"Host": self.address.netloc, **(headers or {})})
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def api(self, path: str, status: int = 200, headers: dict[str, str] | None = None) -> dict[str, Any]:
        code, _, body = self.get(path, headers)
        assert code == status, body
        data: dict[str, Any] = json.loads(body)
        return data

    def url(self, page: str = "") -> str:
        return self.address.url("/" + page)


@contextmanager
def serving(project: Path, token: str | None = None) -> Iterator[Running]:
    """The page's app for `project` under uvicorn in a thread, on a free loopback port."""
    sock = bind(Address("127.0.0.1", 0))
    address = Address("127.0.0.1", sock.getsockname()[1])
    backend = UiBackend(project)
    backend.call(lambda service: service.status())  # opened now, under this module's index home
    app = build_app(backend, address, token)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", ws="none"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield Running(address, project)
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)
        sock.close()


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The project, indexed for real (no vectors) in an index home of the module's own."""
    base = tmp_path_factory.mktemp("ui")
    project = write_project(base / "orders")
    (base / "secret.py").write_text("PASSWORD = 'hunter2'\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEFATHOM_HOME", str(base / "home"))
        patch.setenv("CODEFATHOM_EMBEDDER", "none")
        with Codefathom(project) as service:
            service.index()
        yield project


@pytest.fixture(scope="module")
def server(indexed: Path) -> Iterator[Running]:
    with serving(indexed) as running:
        yield running


# -- the API -----------------------------------------------------------------------------------


def test_search_returns_ranked_hits_with_the_terms_to_highlight(server: Running) -> None:
    data = server.api("/api/search?q=QuerySet.filter")
    assert data["mode"] == "hybrid"
    assert data["results"][0]["qualified_name"] == "pkg.query.QuerySet.filter"
    assert "filter" in data["terms"]
    shown = [text for hit in data["results"] for _, text in hit.get("lines", [])]
    assert any("filter" in text for text in shown)


def test_search_filters_by_language_glob_kind_and_mode(server: Running) -> None:
    data = server.api("/api/search?q=orders&kind=function&glob=pkg/")
    assert data["results"] and all(h["kind"] == "function" and h["path"].startswith("pkg/") for h in data["results"])
    assert all(h["language"] == "typescript" for h in server.api("/api/search?q=total&lang=ts")["results"])
    grep = server.api("/api/search?q=" + quote(".filter(") + "&mode=literal")
    assert {(m["path"], m["line"]) for m in grep["matches"]} == {
        ("pkg/query.py", 15), ("pkg/views.py", 8), ("pkg/views.py", 12)
    }
    files = server.api("/api/search?q=views&mode=path")
    assert files["files"][0]["path"] == "pkg/views.py"


def test_bad_search_input_is_a_400_that_names_its_cause(server: Running) -> None:
    assert "mode must be one of" in server.api("/api/search?q=x&mode=fuzzy", 400)["error"]
    assert "glob" in server.api("/api/search?q=x&glob=" + quote("src/[z-a]"), 400)["error"]
    assert "give q" in server.api("/api/search", 400)["error"]
    assert "kinds" in server.api("/api/search?q=x&mode=literal&kind=function", 400)["error"]
    for depth in ("9", "%C2%B2", "9" * 5000, "-1"):  # out of range, a digit Python reads but int() refuses, huge
        assert "depth must be" in server.api(f"/api/calls?name=QuerySet.filter&depth={depth}", 400)["error"]
    assert server.api("/api/nothing-here", 404)["error"].startswith("no such API route")


def test_symbol_page_data_definition_references_and_call_graph(server: Running) -> None:
    found = server.api("/api/symbol?name=QuerySet.filter")
    assert found["symbols"][0]["qualified_name"] == "pkg.query.QuerySet.filter"
    code = dict((line, text) for line, text in found["definition"]["lines"])
    assert code[10].strip() == "def filter(self, **conditions):"
    refs = server.api("/api/refs?name=QuerySet.filter")
    assert {(r["path"], r["line"]) for r in refs["references"]} == {
        ("pkg/query.py", 15), ("pkg/views.py", 8), ("pkg/views.py", 12)
    }
    callers = server.api("/api/calls?name=QuerySet.filter&direction=callers&depth=2")["roots"][0]["children"]
    names = {c["qualified_name"]: c for c in callers}
    assert set(names) == {"pkg.query.QuerySet.exclude", "pkg.views.list_orders", "pkg.views.open_orders"}
    second = {c["qualified_name"] for c in names["pkg.views.list_orders"]["children"]}
    assert second == {"pkg.views.dashboard", "tests.test_views.test_list_orders"}
    callees = server.api("/api/calls?name=QuerySet.filter&direction=callees")["roots"][0]["children"]
    assert "pkg.query._matches" in {c["qualified_name"] for c in callees}
    missing = server.api("/api/symbol?name=NoSuchThing")
    assert missing["symbols"] == [] and "definition" not in missing


def test_file_page_data_outline_dependencies_and_impact(server: Running) -> None:
    brief = server.api("/api/file?path=pkg/views.py")
    assert [d["qualified_name"] for d in brief["definitions"]] == [
        "pkg.views.list_orders", "pkg.views.open_orders", "pkg.views.dashboard", "pkg.views.Page",
        "pkg.views.Page.size", "pkg.views.Page.size",
    ]
    uses = server.api("/api/deps?path=pkg/views.py&direction=dependencies")["roots"][0]["children"]
    assert [n["path"] for n in uses] == ["pkg/query.py"]
    impact = server.api("/api/deps?path=pkg/query.py&direction=dependents&depth=2")["roots"][0]["children"]
    assert {n["path"] for n in impact} == {"pkg/views.py"}
    assert {n["path"] for n in impact[0]["children"]} == {"tests/test_views.py"}
    assert "not in the index" in server.api("/api/file?path=pkg/nothing.py", 404)["error"]


def test_map_ranks_directories_and_status_reports_health(server: Running) -> None:
    top = server.api("/api/map")
    assert top["entries"][0]["name"] == "pkg/" and top["entries"][0]["files"] == 3
    assert top["entries"][0]["top_files"][0] == "pkg/query.py"
    inner = server.api("/api/map?path=pkg")
    assert {e["path"] for e in inner["entries"]} == {"pkg/query.py", "pkg/views.py", "pkg/__init__.py"}
    status = server.api("/api/status")
    assert status["indexed"] and status["complete"] and status["files"] == len(FILES)
    assert status["languages"] == {"python": 4, "typescript": 1}
    assert status["vectors"]["state"] == "off"


def test_paths_outside_the_project_are_refused(server: Running) -> None:
    link = server.project / "pkg" / "leak.py"
    link.symlink_to(server.project.parent / "secret.py")
    try:
        for path in ("../secret.py", str(server.project.parent / "secret.py"), "pkg/leak.py", "/etc/passwd"):
            error = server.api("/api/file?path=" + quote(path), 400)["error"]
            assert "outside" in error, error
            assert "outside" in server.api("/api/deps?path=" + quote(path), 400)["error"]
        assert "outside" in server.api("/api/map?path=..", 400)["error"]
    finally:
        link.unlink()


def test_an_edit_reaches_the_call_graph_without_a_restart(tmp_path: Path) -> None:
    """The graph routes skip the sweep while the watcher saw nothing change; an edit must still show."""
    project = write_project(tmp_path / "live")
    with serving(project) as running:
        path = "/api/calls?name=QuerySet.filter&direction=callers"

        def callers() -> set[str]:
            return {c["qualified_name"] for c in running.api(path)["roots"][0]["children"]}

        assert "pkg.views.closed_orders" not in callers()  # indexed by this first call
        views = project / "pkg" / "views.py"
        added = "\n\ndef closed_orders(rows):\n    return QuerySet(rows).filter(status='closed')\n"
        views.write_text(views.read_text(encoding="utf-8") + added, encoding="utf-8")
        deadline = time.monotonic() + TIMEOUT
        while "pkg.views.closed_orders" not in callers():
            assert time.monotonic() < deadline, "the edit never reached the graph"
            time.sleep(0.1)


# -- Host, Origin and token rules (those of `serve --http`) -----------------------------------------


def test_without_a_token_loopback_works_and_a_foreign_host_or_origin_is_refused(server: Running) -> None:
    status, headers, body = server.get("/")
    assert status == 200 and b"/static/app.js" in body
    assert "default-src 'self'" in headers["content-security-policy"]
    assert server.get("/static/app.js")[0] == 200
    assert server.get("/api/status", {"Host": f"localhost:{server.address.port}"})[0] == 200
    assert server.get("/api/status", {"Host": f"attacker.example:{server.address.port}"})[0] == 421
    assert server.get("/api/status", {"Origin": "http://attacker.example"})[0] == 403
    assert server.get("/api/status", {"Origin": f"http://127.0.0.1:{server.address.port}"})[0] == 200


def test_with_a_token_requests_need_it_and_a_browser_trades_it_for_a_cookie(indexed: Path) -> None:
    with serving(indexed, token=TOKEN) as running:
        assert running.get("/api/status")[0] == 401
        status, headers, body = running.get("/")
        assert status == 401 and headers["content-type"].startswith("text/html") and b"?token=" in body
        assert running.get("/api/status", {"Authorization": "Bearer wrong"})[0] == 401
        assert running.get("/api/status", {"Authorization": f"Bearer {TOKEN}"})[0] == 200
        assert running.get("/?token=wrong")[0] == 401
        status, headers, _ = running.get(f"/?token={TOKEN}&x=1")
        assert status == 303 and headers["location"] == "/?x=1"
        cookie = headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and TOKEN not in cookie
        pair = cookie.split(";", 1)[0]
        assert pair.startswith(cookie_name(running.address.port) + "=")
        assert running.get("/api/status", {"Cookie": pair})[0] == 200
        assert running.get("/api/status", {"Cookie": pair + "x"})[0] == 401
        other_port = f"{cookie_name(running.address.port + 1)}={pair.split('=', 1)[1]}"  # another page's name
        assert running.get("/api/status", {"Cookie": other_port})[0] == 401


def test_an_address_other_machines_reach_needs_a_token(indexed: Path) -> None:
    backend = UiBackend(indexed)
    try:
        with pytest.raises(UsageError, match="without a token"):
            build_app(backend, Address("0.0.0.0", 8780))
        build_app(backend, Address("0.0.0.0", 8780), TOKEN)  # with one it is built
    finally:
        backend.close()


def test_the_page_ships_as_package_data() -> None:
    """Every file of static/ is named by pyproject.toml's package-data, so a wheel holds the page."""
    config = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["codefathom"]
    shipped = {f.name for f in STATIC.iterdir() if any(fnmatch(f"ui/static/{f.name}", p) for p in patterns)}
    assert shipped == {f.name for f in STATIC.iterdir()} >= {"index.html", "app.js", "app.css"}


# -- the command ----------------------------------------------------------------------------------


def test_ui_help_teaches_the_pages_and_the_token(run_cli: Any) -> None:
    result = run_cli("ui", "--help")
    assert result.exit_code == 0
    for said in ("search", "symbol", "map", "?token=", "--token-file", "127.0.0.1:8780", "Examples:"):
        assert said in result.output


def test_ui_refuses_two_tokens_and_a_bad_address(run_cli: Any, tmp_path: Path, codefathom_home: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("x\n", encoding="utf-8")
    result = run_cli("ui", "--token", "a", "--token-file", str(token_file), "--no-open")
    assert result.exit_code == 2 and "not both" in result.stderr
    result = run_cli("ui", "--http", "localhost:http", "--no-open")
    assert result.exit_code == 2 and "invalid address" in result.stderr
    result = run_cli("ui", "--http", "0.0.0.0:8780", "--no-open", "-p", str(tmp_path))
    assert result.exit_code == 2 and "without a token" in result.stderr
    assert not list(codefathom_home.glob("*/index.db"))  # refused before indexing anything
    result = run_cli("ui", "--no-open", "-p", str(tmp_path / "nowhere"))
    assert result.exit_code == 2 and "no such directory" in result.stderr


def test_ui_command_indexes_a_new_project_then_serves_it(tmp_path: Path) -> None:
    project = write_project(tmp_path / "fresh")
    probe = bind(Address("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    env = {**os.environ, "CODEFATHOM_HOME": str(tmp_path / "home"), "CODEFATHOM_EMBEDDER": "none"}
    env.pop("CODEFATHOM_TOKEN", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "codefathom", "ui", "-p", str(project), "--http", str(port), "--no-open"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert process.stderr is not None
        said = [process.stderr.readline() for _ in range(3)]
        assert said[0].startswith(f"indexing {project} first"), said
        assert said[1].startswith(f"indexed {len(FILES)} files"), said
        assert f"at http://127.0.0.1:{port}/ (no token" in said[2], said
        running = Running(Address("127.0.0.1", port), project)
        assert running.api("/api/status")["files"] == len(FILES)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=TIMEOUT) == 0
    finally:
        if process.poll() is None:
            process.kill()


# -- in a real browser ---------------------------------------------------------------------------


def chromium(url: str, profile: Path, *extra: str) -> str:
    """Headless Chromium on `url`; what it prints (the DOM with --dump-dom)."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--virtual-time-budget=8000", *extra, url],
        capture_output=True, text=True, timeout=90,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_browser_draws_the_call_graph_of_a_symbol(server: Running, tmp_path: Path) -> None:
    dom = chromium(server.url("#/symbol?name=QuerySet.filter&depth=2"), tmp_path / "profile", "--dump-dom")
    assert 'data-ready="symbol"' in dom, dom[-3000:]
    assert dom.count('class="node caller"') == 5 and dom.count('class="node callee"') == 2
    for caller in ("pkg.views.list_orders", "pkg.views.open_orders", "pkg.query.QuerySet.exclude"):
        assert f'data-name="{caller}" data-column="-1"' in dom
    for caller in ("pkg.views.dashboard", "tests.test_views.test_list_orders"):
        assert f'data-name="{caller}" data-column="-2"' in dom
    assert 'data-name="pkg.query.QuerySet.filter" data-column="0"' in dom
    assert 'data-name="pkg.query._matches" data-column="1"' in dom
    assert dom.count('class="edge') >= 7  # 3 callers, 2 second-level callers of list_orders, 1 of open_orders, callees
    assert "def filter(self, **conditions):" in dom  # the definition's code
    assert "References (3)" in dom


def test_browser_renders_search_hits_with_highlighted_lines(server: Running, tmp_path: Path) -> None:
    dom = chromium(server.url("#/search?q=filter%20rows&kind=function"), tmp_path / "profile", "--dump-dom")
    assert 'data-ready="search"' in dom, dom[-3000:]
    assert 'class="hit"' in dom and "<mark>rows</mark>" in dom and "<mark>filter</mark>" in dom
    assert 'data-kind="method"' not in dom  # the kind filter reached the search
    assert 'href="#/symbol?name=pkg.views.list_orders"' in dom
    # A property's setter is shown with its getter, as one result.
    dom = chromium(server.url("#/search?q=Page.size"), tmp_path / "profile", "--dump-dom")
    assert 'data-ready="search"' in dom and 'class="also"' in dom and "def size(self, value)" in dom, dom[-3000:]


def test_browser_file_page_and_map_render_graph_and_bars(server: Running, tmp_path: Path) -> None:
    dom = chromium(server.url("#/file?path=pkg/query.py&depth=2"), tmp_path / "profile", "--dump-dom")
    assert 'class="node dependent"' in dom and 'data-name="pkg/views.py" data-column="-1"' in dom
    assert 'data-name="tests/test_views.py" data-column="-2"' in dom
    assert "QuerySet.filter" in dom  # the outline
    dom = chromium(server.url("#/map"), tmp_path / "profile2", "--dump-dom")
    assert 'data-path="pkg"' in dom and "Index health" in dom and "python" in dom and "ok 5" in dom


def test_browser_with_a_token_gets_in_once_through_the_url(indexed: Path, tmp_path: Path) -> None:
    """The URL `codefathom ui` prints carries ?token=: the page loads, its API calls pass on the cookie,
    and the address no longer holds the token."""
    with serving(indexed, token=TOKEN) as running:
        dom = chromium(running.url(f"?token={TOKEN}#/symbol?name=QuerySet.filter"), tmp_path / "profile", "--dump-dom")
        assert 'data-ready="symbol"' in dom and 'data-name="pkg.views.list_orders"' in dom, dom[-2000:]
        assert TOKEN not in dom
        dom = chromium(running.url("#/map"), tmp_path / "other-profile", "--dump-dom")
        assert "needs its token" in dom and "?token=" in dom  # a browser without the cookie is told how to get in


def test_browser_screenshot_shows_the_graph(server: Running, tmp_path: Path) -> None:
    """The picture, not only the DOM: the centre node's blue and the callers' pale blue are painted."""
    shot = tmp_path / "symbol.png"
    chromium(server.url("#/symbol?name=QuerySet.filter"), tmp_path / "profile", f"--screenshot={shot}",
             "--window-size=1280,900")
    width, height, pixels = read_png(shot.read_bytes())
    assert (width, height) == (1280, 900)
    counts: dict[tuple[int, int, int], int] = {}
    for pixel in pixels:
        counts[pixel] = counts.get(pixel, 0) + 1
    assert counts.get((0x24, 0x58, 0xD6), 0) > 1000  # the root node (and the active depth tab)
    assert counts.get((0xE9, 0xF2, 0xFF), 0) > 1000  # caller nodes
    assert counts.get((0xEE, 0xFB, 0xF1), 0) > 500  # callee nodes
    assert len(counts) > 50  # text and lines, not a blank page


def read_png(data: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Width, height and RGB pixels of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, [], b""
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + size
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and color in (2, 6), (depth, color)
    step = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * step
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + guess) & 0xFF
        rows.append(line)
        previous = line
    return width, height, [(row[i], row[i + 1], row[i + 2]) for row in rows for i in range(0, stride, step)]
