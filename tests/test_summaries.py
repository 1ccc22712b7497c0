"""Unit summaries (`codefathom summarize`) against a fake endpoint this test starts on 127.0.0.1:
the OpenAI-compatible, Ollama and Anthropic shapes, the cache, search by a summary's words, what
results show, and the errors of an endpoint that is down or refuses the key. No real network."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import no_index, one_store

from codefathom.errors import UsageError
from codefathom.store.sqlite.db import _migration_sql
from codefathom.summarize import clean_reply, summary_config

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

FIXTURES = Path(__file__).parent / "fixtures"
RARE = "gribbleflux"  # a word only the summary of Stack.pop holds


class Fake:
    """The endpoint: records every request; answers one sentence naming the unit it was asked about."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.status = 200
        self.delay = 0.0  # seconds before answering
        self.key = ""  # when set, requests must carry it
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake._lock:
                    fake.requests.append((self.path, body, {k.lower(): v for k, v in self.headers.items()}))
                if fake.delay:
                    time.sleep(fake.delay)
                given = self.headers.get("Authorization", "").removeprefix("Bearer ") or self.headers.get("x-api-key")
                if fake.status != 200 or (fake.key and given != fake.key):
                    self._send(fake.status if fake.status != 200 else 401, {"error": {"message": "invalid api key"}})
                    return
                self._send(200, fake.answer(self.path, body))

            def _send(self, status: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                try:
                    self.end_headers()
                    self.wfile.write(raw)
                except ConnectionError:  # the client gave up waiting (a timeout's test): nothing to say,
                    pass  # least of all a traceback on the stderr of a command still running

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def count(self, path: str) -> int:
        return sum(1 for p, _, _ in self.requests if p == path)

    @staticmethod
    def sentence(prompt: str) -> str:
        head = prompt.split("\n", 1)[0]  # "method shop.stack.Stack.pop in shop/stack.py"
        if "Stack.pop " in head:
            return f"Takes the newest item off the pile, the way a {RARE} hands back what came last."
        return f"Does the work of {head.split()[1]} for the shop."

    def answer(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if path == "/v1/chat/completions":
            prompt = body["messages"][-1]["content"]
            return {"choices": [{"message": {"role": "assistant", "content": self.sentence(prompt)}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20}}
        if path == "/api/generate":
            return {"response": self.sentence(body["prompt"]), "prompt_eval_count": 90, "eval_count": 15}
        if path == "/v1/messages":
            return {"content": [{"type": "text", "text": self.sentence(body["messages"][-1]["content"])}],
                    "usage": {"input_tokens": 110, "output_tokens": 25}}
        if path == "/api/embed":  # an Ollama embedder, for the vectors of summarised units
            vectors = []
            for text in body["input"]:
                digest = hashlib.sha256(text.encode()).digest()
                vectors.append([b / 255 + 0.01 for b in digest[:8]])
            return {"embeddings": vectors}
        return {"error": "no such path"}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake() -> Iterator[Fake]:
    server = Fake()
    yield server
    server.close()


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    target = tmp_path / "shop"
    shutil.copytree(FIXTURES / "repos" / "shop", target)
    return target


def configure(project: Path, provider: str, url: str, **more: object) -> None:
    lines = ["[summaries]", f'provider = "{provider}"', 'model = "tiny"', f'url = "{url}"']
    lines += [f"{k} = {json.dumps(v)}" for k, v in more.items()]
    (project / ".codefathom.toml").write_text("\n".join(lines) + "\n")


def summarize(run_cli: Callable[..., Result], project: Path, *args: str) -> Result:
    return run_cli("summarize", "--path", str(project), *args)


def test_summaries_are_written_cached_searched_and_shown(
    shop: Path, fake: Fake, run_cli: Callable[..., Result]
) -> None:
    configure(shop, "openai", fake.url + "/v1")
    assert run_cli("index", str(shop), "-q").exit_code == 0
    dry = summarize(run_cli, shop, "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    plan = json.loads(dry.stdout)
    assert plan["planned"] > 5 and plan["tokens_in"] > 0 and not fake.requests  # estimated, nothing sent

    first = summarize(run_cli, shop, "--json")
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["written"] == plan["planned"] == fake.count("/v1/chat/completions")
    assert report["tokens_in"] == 100 * report["written"] and report["tokens_out"] == 20 * report["written"]
    assert report["coverage"]["with_summary"] >= report["written"] and report["coverage"]["model"] == "openai:tiny"
    assert report["skipped"]["tests"] >= 1  # tests/test_stack.py is left out unless asked
    sent = fake.requests[0][1]["messages"][-1]["content"]
    assert "Signature:" in sent and "```python" in sent or "```typescript" in sent

    again = summarize(run_cli, shop, "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["planned"] == 0
    assert fake.count("/v1/chat/completions") == report["written"]  # the second run sent nothing

    data = json.loads(run_cli("search", RARE, "--path", str(shop), "--json").stdout)
    assert data["results"][0]["qualified_name"].endswith("Stack.pop")
    assert RARE in data["results"][0]["summary"]
    assert all("summary" in r for r in data["results"] if r["kind"] in ("function", "method", "class"))
    text = run_cli("search", RARE, "--path", str(shop)).stdout.splitlines()
    assert text[0].split()[2].endswith("Stack.pop") and text[1].startswith("    summary: Takes the newest item")
    read = json.loads(run_cli("search", "-m", "read", "Stack.pop", "--path", str(shop), "--json").stdout)
    assert RARE in read["summary"]

    status = json.loads(run_cli("status", str(shop), "--json").stdout)
    assert status["summaries"]["with_summary"] == report["coverage"]["with_summary"]
    assert "summaries:" in run_cli("status", str(shop)).stdout

    # A re-index from scratch (or code moved elsewhere) finds the cached summaries by text: no request.
    assert run_cli("index", str(shop), "-q", "--full").exit_code == 0
    (shop / "shop" / "stack.py").rename(shop / "shop" / "piles.py")
    data = json.loads(run_cli("search", RARE, "--path", str(shop), "--json").stdout)
    assert data["results"][0]["path"] == "shop/piles.py" and RARE in data["results"][0]["summary"]
    assert json.loads(summarize(run_cli, shop, "--json").stdout)["planned"] == 0
    assert fake.count("/v1/chat/completions") == report["written"]


def test_without_summaries_results_have_no_summary_key(shop: Path, run_cli: Callable[..., Result]) -> None:
    data = json.loads(run_cli("search", "pop", "--path", str(shop), "--json").stdout)
    assert data["results"] and all("summary" not in r for r in data["results"])
    assert "summaries" not in json.loads(run_cli("status", str(shop), "--json").stdout)


def test_status_without_summaries_counts_no_definitions(
    shop: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting definitions reads every unit's row (their text included): on a large index that
    read was most of `status`, and at the end of a first index it put the whole file in memory.
    With summaries never configured nor stored, status has nothing to count."""
    from codefathom.store.postgres.store import PostgresStore
    from codefathom.store.sqlite.store import SQLiteStore

    assert run_cli("index", str(shop), "--no-embed").exit_code == 0

    def counted(*_: object) -> None:
        raise AssertionError("summary coverage counted")

    for store_class in (SQLiteStore, PostgresStore):
        monkeypatch.setattr(store_class, "summary_coverage", counted)
    result = run_cli("status", str(shop), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output).get("summaries") is None


@pytest.mark.parametrize("provider, path", [("ollama", "/api/generate"), ("anthropic", "/v1/messages")])
def test_ollama_and_anthropic_shapes(
    shop: Path, fake: Fake, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch, provider: str, path: str
) -> None:
    monkeypatch.setenv("FAKE_KEY", "sekret")
    fake.key = "sekret" if provider == "anthropic" else ""
    configure(shop, provider, fake.url, **({"api_key_env": "FAKE_KEY"} if provider == "anthropic" else {}))
    result = summarize(run_cli, shop, "--limit", "3", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["written"] == 3 == fake.count(path) and report["left"] > 0
    body, headers = fake.requests[0][1], fake.requests[0][2]
    if provider == "anthropic":
        assert headers["x-api-key"] == "sekret" and headers["anthropic-version"] and body["max_tokens"] > 0
    else:
        assert body["stream"] is False and "system" in body
    assert report["tokens_in"] == (90 if provider == "ollama" else 110) * 3


def test_an_endpoint_that_is_down_is_one_line_and_exit_3(shop: Path, run_cli: Callable[..., Result]) -> None:
    configure(shop, "ollama", "http://127.0.0.1:9")
    result = summarize(run_cli, shop)
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert result.stderr.startswith("error: the summary endpoint http://127.0.0.1:9/api/generate cannot be reached")


def test_a_refused_key_is_one_line_with_the_status(
    shop: Path, fake: Fake, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.key = "right"
    monkeypatch.setenv("FAKE_KEY", "wrong")
    configure(shop, "openai", fake.url + "/v1", api_key_env="FAKE_KEY")
    result = summarize(run_cli, shop)
    assert result.exit_code == 3 and result.stderr.count("\n") == 1
    assert "answered 401" in result.stderr and "$FAKE_KEY" in result.stderr
    assert fake.requests[0][2]["authorization"] == "Bearer wrong"
    # The key's variable not set at all: a usage error before any request.
    monkeypatch.delenv("FAKE_KEY")
    sent = len(fake.requests)
    result = summarize(run_cli, shop)
    assert result.exit_code == 2 and "FAKE_KEY" in result.stderr and len(fake.requests) == sent


def test_a_timeout_is_one_line(shop: Path, fake: Fake, run_cli: Callable[..., Result]) -> None:
    fake.delay = 1.6
    configure(shop, "ollama", fake.url, timeout=1, concurrency=1)
    result = summarize(run_cli, shop, "--limit", "1")
    assert result.exit_code == 3 and result.stderr.count("\n") == 1
    assert "did not answer within 1 s" in result.stderr


def test_a_failure_midway_keeps_what_was_written(shop: Path, fake: Fake, run_cli: Callable[..., Result]) -> None:
    configure(shop, "openai", fake.url + "/v1", concurrency=1)
    assert summarize(run_cli, shop, "--limit", "2").exit_code == 0
    fake.status = 500
    result = summarize(run_cli, shop)
    assert result.exit_code == 3 and "answered 500" in result.stderr
    fake.status = 200
    report = json.loads(summarize(run_cli, shop, "--json").stdout)
    assert report["coverage"]["with_summary"] >= report["written"] + 2  # the first two were kept


def test_not_configured_means_no_network_and_a_clear_message(
    shop: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the network was used")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    assert run_cli("index", str(shop), "-q").exit_code == 0  # `index` never summarises unless `auto = true`
    result = summarize(run_cli, shop)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: summaries are off: add a [summaries] table")
    assert result.stderr.count("\n") == 1
    (shop / ".codefathom.toml").write_text('[summaries]\nprovider = "ollama"\n')
    result = summarize(run_cli, shop)
    assert result.exit_code == 2 and "needs `model`" in result.stderr


def test_auto_summarises_after_index(shop: Path, fake: Fake, run_cli: Callable[..., Result]) -> None:
    configure(shop, "openai", fake.url + "/v1", auto=True)
    result = run_cli("index", str(shop), "-q")
    assert result.exit_code == 0, result.output
    assert fake.count("/v1/chat/completions") > 5
    data = json.loads(run_cli("search", RARE, "--path", str(shop), "--json").stdout)
    assert data["results"][0]["qualified_name"].endswith("Stack.pop")


def test_summarised_units_are_embedded_again_with_their_summary(
    shop: Path, fake: Fake, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEFATHOM_EMBEDDER", f"ollama:fake-embed@{fake.url}")
    configure(shop, "openai", fake.url + "/v1")
    assert run_cli("index", str(shop), "-q").exit_code == 0
    embedded_before = [t for p, b, _ in fake.requests if p == "/api/embed" for t in b["input"]]
    assert embedded_before and not any(RARE in t for t in embedded_before)
    result = summarize(run_cli, shop, "--json", "-q")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["to_embed_again"] >= report["written"]
    embedded = [t for p, b, _ in fake.requests if p == "/api/embed" for t in b["input"]][len(embedded_before):]
    assert any(RARE in t for t in embedded)  # Stack.pop's vector now reads its summary
    status = json.loads(run_cli("status", str(shop), "--json").stdout)
    assert status["vectors"]["with_vectors"] == status["vectors"]["units"]


@no_index
def test_config_is_checked() -> None:
    assert summary_config({}, None) is None
    assert summary_config({"summaries": {"provider": "none"}}, None) is None
    config = summary_config({"summaries": {"provider": "anthropic", "model": "claude-x"}}, None)
    assert config is not None and config.url == "https://api.anthropic.com"
    assert config.api_key_env == "ANTHROPIC_API_KEY"
    for bad in ({"provider": "gpt"}, {"provider": "ollama", "model": "m", "url": "ftp://x"},
                {"provider": "ollama", "model": "m", "api_key_env": "sk-abc def"},
                {"provider": "ollama", "model": "m", "concurrency": 0},
                {"provider": "ollama", "model": "m", "key": "x"}):
        with pytest.raises(UsageError):
            summary_config({"summaries": bad}, None)


@no_index
def test_replies_are_cleaned_to_one_sentence() -> None:
    assert clean_reply("Summary: Parses the config file.\n\nMore text.") == "Parses the config file."
    assert clean_reply("Sure! Here is the summary:\n\n**Adds two numbers.**") == "Adds two numbers."
    assert clean_reply("   ") == ""
    assert len(clean_reply("word " * 200)) <= 303


@one_store("SQLite's migration 9")
def test_migration_9_keeps_the_search_index_rows() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE units (id INTEGER PRIMARY KEY, content TEXT NOT NULL, embed_key TEXT);"
        "CREATE VIRTUAL TABLE units_fts USING fts5(name, qualified_name, signature, doc, path, body,"
        " tokenize = \"porter unicode61 remove_diacritics 2 tokenchars '_'\");"
        "INSERT INTO units_fts(rowid, name, qualified_name, signature, doc, path, body)"
        " VALUES (7, 'pop', 'Stack.pop', 'def pop', 'take it', 'stack py', 'return items pop');"
    )
    conn.executescript(_migration_sql(9))
    rows = conn.execute("SELECT rowid, name, body, summary FROM units_fts WHERE units_fts MATCH 'take'").fetchall()
    assert rows == [(7, "pop", "return items pop", "")]
    conn.execute("UPDATE units_fts SET summary = 'removes the newest' WHERE rowid = 7")
    assert conn.execute("SELECT rowid FROM units_fts WHERE units_fts MATCH 'summary:newest'").fetchall() == [(7,)]
