"""A sentence-transformers model from a local folder (the optional `[torch]` extra).

Loaded from disk only: a folder path, never a hub name, so nothing is downloaded at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codefathom.embed.base import Vectors, normalised, unavailable

__all__ = ["SentenceTransformersFolder"]


class SentenceTransformersFolder:
    def __init__(self, folder: str) -> None:
        path = Path(folder).expanduser()
        if not path.is_dir():
            raise unavailable(f"no model folder at {path}", "give the folder of a saved sentence-transformers model")
        try:
            from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
        except ImportError as exc:
            raise unavailable(
                "sentence-transformers is not installed", "install it with `pip install 'codefathom[torch]'`"
            ) from exc
        self._model: Any = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self._id = f"sentence-transformers:{path.name}"

    @property
    def id(self) -> str:
        return self._id

    @property
    def dims(self) -> int:
        return int(self._model.get_sentence_embedding_dimension())

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return normalised(self._model.encode(list(texts), convert_to_numpy=True, show_progress_bar=False))

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = normalised(self._model.encode([text], convert_to_numpy=True, show_progress_bar=False))[0]
        return vector
