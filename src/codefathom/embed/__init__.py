"""Embedding: units and queries become vectors, through one small interface and several backends.

`load_embedder(spec)` gives the configured `Embedder`; `unit_text` is what a unit is embedded as.
"""

from __future__ import annotations

from codefathom.embed.base import DEFAULT_SPEC, Embedder, EmbedderUnavailable, load_embedder, parse_spec
from codefathom.embed.text import MAX_TEXT_CHARS, text_key, unit_text

__all__ = [
    "Embedder", "EmbedderUnavailable", "load_embedder", "parse_spec", "DEFAULT_SPEC", "unit_text", "text_key",
    "MAX_TEXT_CHARS",
]
