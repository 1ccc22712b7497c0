"""The compact text a unit is embedded as: where it lives, what it is called, its signature, doc and
summary (when `codefathom summarize` wrote one), then the start of its body, cut to 600 characters
(about 150 tokens of e5's vocabulary).

Embedding cost grows with length faster than linearly, and the head of a unit says most of what it
is for, so the body is cut, not the name or the doc.
"""

from __future__ import annotations

import hashlib

__all__ = ["unit_text", "text_key", "MAX_TEXT_CHARS"]

# Django core's units: 2.75 characters per e5 (XLM-R) token. At 600 characters a unit is 152 tokens
# on average, 225 at the 90th percentile (188 and 354 at 1000): the model's cost per unit falls by a
# fifth, its attention's by nearly half, and the head of a unit, which says what it is for, is kept.
MAX_TEXT_CHARS = 600
MAX_DOC_CHARS = 300


def unit_text(
    path: str, kind: str, qualified_name: str, signature: str, doc: str, content: str, summary: str = ""
) -> str:
    """One unit as the embedder reads it. Deterministic: its hash is the vector cache key. Without a
    summary the text is what it was before summaries existed, so cached vectors still match."""
    head = [path]
    if qualified_name and kind not in ("chunk", "module"):
        head.append(f"{kind} {qualified_name}")
    signature = " ".join(signature.split())
    if signature:
        head.append(signature[:200])
    doc = " ".join(doc.split())
    if doc:
        head.append(doc[:MAX_DOC_CHARS])
    summary = " ".join(summary.split())
    if summary:
        head.append(summary[:MAX_DOC_CHARS])
    text = "\n".join(head)
    body = _body_after_signature(content, signature)
    room = MAX_TEXT_CHARS - len(text) - 1
    if room > 40 and body:
        text += "\n" + _squeeze(body)[:room]
    return text


def text_key(embedder_id: str, text: str) -> str:
    """The cache key of one vector: the embedder and the exact text it read."""
    return hashlib.blake2b(f"{embedder_id}\0{text}".encode(), digest_size=16).hexdigest()


def _body_after_signature(content: str, signature: str) -> str:
    # The signature is already in the head; repeating it would spend the budget twice.
    lines = content.split("\n")
    if signature and lines and " ".join(lines[0].split()) and " ".join(lines[0].split()) in signature:
        lines = lines[1:]
    return "\n".join(lines)


def _squeeze(body: str) -> str:
    """Indentation and blank lines carry no meaning for the model but cost tokens."""
    return "\n".join(line.strip() for line in body.split("\n") if line.strip())
