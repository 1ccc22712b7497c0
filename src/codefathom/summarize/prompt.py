"""What the model is asked about a unit, and what is kept of its answer."""

from __future__ import annotations

import re

__all__ = ["SYSTEM", "unit_prompt", "clean_reply", "estimate_tokens", "MAX_SUMMARY_CHARS", "MAX_OUTPUT_TOKENS",
           "MAX_OUTPUT_TOKENS_ESTIMATE"]

SYSTEM = (
    "You summarise code for a code search index. Answer with one plain sentence (at most 30 words) that"
    " says what the code does and why it exists. No preamble, no markdown, no code, no names of"
    " parameters unless they matter."
)
MAX_OUTPUT_TOKENS = 80
MAX_OUTPUT_TOKENS_ESTIMATE = 35  # what one sentence of about 25 words costs, for a dry run
MAX_SUMMARY_CHARS = 300


def unit_prompt(kind: str, qualified_name: str, path: str, signature: str, language: str, code: str,
                max_code_chars: int) -> str:
    """The unit's qualified name, signature and code (cut at `max_code_chars`), and the question."""
    if len(code) > max_code_chars:
        code = code[:max_code_chars] + "\n... (cut)"
    signature = " ".join(signature.split())
    lines = [f"{kind} {qualified_name} in {path}"]
    if signature:
        lines.append(f"Signature: {signature[:300]}")
    lines += ["", f"```{language}", code, "```", "", "In one plain sentence: what does it do, and why?"]
    return "\n".join(lines)


def estimate_tokens(text: str) -> int:
    """About four characters a token, as code and English average for the common tokenizers."""
    return (len(text) + 3) // 4


def clean_reply(text: str) -> str:
    """The first sentence-bearing line of an answer, without markdown or quotes, cut to a length."""
    for line in text.strip().splitlines():
        line = re.sub(r"^(#+|[-*>]|\d+\.)\s+", "", line.strip()).strip().strip("`\"'*_ ")
        if line and not line.lower().startswith(("sure", "here is", "here's", "summary:")):
            break
        if line.lower().startswith("summary:"):
            line = line[len("summary:") :].strip()
            if line:
                break
    else:
        return ""
    line = " ".join(line.split())
    if len(line) > MAX_SUMMARY_CHARS:
        cut = line[:MAX_SUMMARY_CHARS].rsplit(" ", 1)[0]
        line = cut.rstrip(",;:") + "..."
    return line
