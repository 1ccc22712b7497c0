"""The compact text a unit is embedded as: where it lives, what it is called, its signature and doc,
then the start of its body, cut to about 256 model tokens.

Embedding cost grows with length faster than linearly, and the head of a unit says most of what it
is for, so the body is cut, not the name or the doc.
"""

from __future__ import annotations

import hashlib

__all__ = ["unit_text", "text_key", "MAX_TEXT_CHARS"]

# ~256 WordPiece tokens of code: measured 3.5-4.5 characters per token on Python, Go and TypeScript.
MAX_TEXT_CHARS = 1000
MAX_DOC_CHARS = 400


def unit_text(path: str, kind: str, qualified_name: str, signature: str, doc: str, content: str) -> str:
    """One unit as the embedder reads it. Deterministic: its hash is the vector cache key."""
    head = [path]
    if qualified_name and kind not in ("chunk", "module"):
        head.append(f"{kind} {qualified_name}")
    signature = " ".join(signature.split())
    if signature:
        head.append(signature[:200])
    doc = " ".join(doc.split())
    if doc:
        head.append(doc[:MAX_DOC_CHARS])
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
