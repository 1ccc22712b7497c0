"""One-sentence summaries of units by a language model behind an HTTP endpoint: Ollama, any
OpenAI-compatible server, or Anthropic's Messages API. Off unless `[summaries]` in the config names
a provider; never imported, and never on the network, otherwise.
"""

from __future__ import annotations

from codefathom.summarize.client import Reply, Summarizer, load_summarizer
from codefathom.summarize.config import PROVIDERS, SummaryConfig, summary_config
from codefathom.summarize.prompt import MAX_OUTPUT_TOKENS_ESTIMATE, SYSTEM, clean_reply, estimate_tokens, unit_prompt

__all__ = [
    "MAX_OUTPUT_TOKENS_ESTIMATE", "Reply", "Summarizer", "load_summarizer", "PROVIDERS", "SummaryConfig",
    "summary_config", "SYSTEM", "clean_reply", "estimate_tokens", "unit_prompt",
]
