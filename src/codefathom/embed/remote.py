"""Embedders behind an HTTP API: any OpenAI-compatible `/embeddings` endpoint, or Ollama's `/api/embed`.

For users with a GPU box or a hosted model. Every failure becomes EmbedderUnavailable with the URL
and the reason, so the caller can fall back to lexical search instead of crashing.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from codefathom.embed.base import Vectors, normalised, unavailable

__all__ = ["OpenAIEmbedder", "OllamaEmbedder"]

TIMEOUT_S = 30.0
BATCH = 64


class _Remote(ABC):
    def __init__(self, model: str, url: str, key: str = "") -> None:
        self.model = model
        self.url = url.rstrip("/")
        self._headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {key}"} if key else {})
        self._dims: int | None = None

    @property
    def id(self) -> str:
        return f"{self._kind}:{self.model}@{self.url}"

    @property
    def dims(self) -> int:
        if self._dims is None:
            self.embed_query("dimensions")
        assert self._dims is not None
        return self._dims

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        rows: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            rows.extend(self._embed(list(texts[start : start + BATCH])))
        return self._checked(rows, len(texts))

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._checked(self._embed([text]), 1)[0]
        return vector

    def _checked(self, rows: list[list[float]], expected: int) -> Vectors:
        if len(rows) != expected or not rows or any(len(r) != len(rows[0]) for r in rows):
            raise unavailable(f"{self.url} answered with {len(rows)} vectors for {expected} texts", "check the server")
        self._dims = len(rows[0])
        return normalised(rows)

    def _post(self, path: str, payload: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.url + path, data=json.dumps(payload).encode(), headers=self._headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:200].decode("utf-8", "replace")
            raise unavailable(
                f"the embedding server at {self.url} answered {exc.code}: {detail}",
                "check the model name and the API key (CODEFATHOM_EMBED_API_KEY)",
            ) from exc
        except (OSError, ValueError) as exc:  # refused, unreachable, timed out, bad URL
            raise unavailable(
                f"the embedding server at {self.url} cannot be reached ({exc})", "start it or fix its URL"
            ) from exc
        try:
            return json.loads(body)
        except ValueError as exc:
            raise unavailable(f"the embedding server at {self.url} did not answer JSON", "check its URL") from exc

    _kind = ""

    @abstractmethod
    def _embed(self, texts: list[str]) -> list[list[float]]:
        """One request's vectors, in the order of `texts`."""


class OpenAIEmbedder(_Remote):
    _kind = "openai"

    def _embed(self, texts: list[str]) -> list[list[float]]:
        body = self._post("/embeddings", {"model": self.model, "input": texts})
        try:
            return [item["embedding"] for item in sorted(body["data"], key=lambda item: item.get("index", 0))]
        except (KeyError, TypeError) as exc:
            raise unavailable(f"{self.url}/embeddings answered without `data[].embedding`", "check the URL") from exc


class OllamaEmbedder(_Remote):
    _kind = "ollama"

    def _embed(self, texts: list[str]) -> list[list[float]]:
        body = self._post("/api/embed", {"model": self.model, "input": texts})
        try:
            return list(body["embeddings"])
        except (KeyError, TypeError) as exc:
            raise unavailable(f"{self.url}/api/embed answered without `embeddings`", "check the URL") from exc
