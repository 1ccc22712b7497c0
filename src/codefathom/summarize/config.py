"""`[summaries]` of `.codefathom.toml` (or `[tool.codefathom.summaries]`): which endpoint writes the
summaries, and how much of the project it may be asked about in one run.

    [summaries]
    provider = "ollama"                  # "ollama" | "openai" (any OpenAI-compatible server) | "anthropic"
    model = "qwen2.5-coder:7b"
    url = "http://localhost:11434"       # default per provider
    api_key_env = "OPENAI_API_KEY"       # the NAME of the variable holding the key, never the key
    max_units = 2000                     # per run; `summarize --limit` overrides
    concurrency = 4                      # requests in flight
    auto = false                         # true: `codefathom index` summarises what is new after indexing
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codefathom.errors import UsageError

__all__ = ["SummaryConfig", "summary_config", "PROVIDERS", "DEFAULT_URLS"]

PROVIDERS = ("ollama", "openai", "anthropic")
DEFAULT_URLS = {
    "ollama": "http://localhost:11434",
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
_KNOWN = {
    "provider", "model", "url", "api_key_env", "max_units", "concurrency", "auto", "timeout", "min_lines",
    "max_code_chars", "include_tests", "price_in", "price_out",
}


@dataclass(frozen=True)
class SummaryConfig:
    provider: str
    model: str
    url: str
    api_key_env: str = ""  # the variable holding the key ('' for none)
    max_units: int = 2000
    concurrency: int = 4
    auto: bool = False
    timeout: float = 60.0  # seconds per request
    min_lines: int = 3  # shorter units are not worth a request
    max_code_chars: int = 4000  # the code a prompt shows, cut here (about 1,000 tokens)
    include_tests: bool = False
    price_in: float = 0.0  # dollars per million tokens sent, to show what a run costs (0: not shown)
    price_out: float = 0.0  # ... and per million written

    @property
    def id(self) -> str:
        """What summaries are cached under: the provider and the model (a new host of one model keeps them)."""
        return f"{self.provider}:{self.model}"

    def api_key(self) -> str:
        if not self.api_key_env:
            return ""
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise UsageError(f"[summaries] api_key_env names ${self.api_key_env}, which is not set")
        return key


def summary_config(extra: dict[str, Any], source: Path | None) -> SummaryConfig | None:
    """The configured endpoint, or None when summaries are off (no `[summaries]`, or no provider)."""
    table = extra.get("summaries")
    where = f"{source or 'the config'}: [summaries]"
    if table is None:
        return None
    if not isinstance(table, dict):
        raise UsageError(f"{where} must be a table")
    unknown = sorted(set(table) - _KNOWN)
    if unknown:
        raise UsageError(f"{where} has unknown settings: {', '.join(unknown)} (known: {', '.join(sorted(_KNOWN))})")
    provider = table.get("provider")
    if provider in (None, "", "none", "off"):
        return None
    if provider not in PROVIDERS:
        raise UsageError(f"{where} provider must be one of {', '.join(PROVIDERS)}, got {provider!r}")
    model = table.get("model")
    if not isinstance(model, str) or not model.strip():
        raise UsageError(f"{where} needs `model`, the model the {provider} endpoint runs")
    url = table.get("url", DEFAULT_URLS[provider])
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise UsageError(f"{where} url must be an http:// or https:// address, got {url!r}")
    key_env = table.get("api_key_env", DEFAULT_KEY_ENV.get(provider, "") if "url" not in table else "")
    if not isinstance(key_env, str) or (key_env and not key_env.replace("_", "").isalnum()):
        raise UsageError(f"{where} api_key_env must be the NAME of an environment variable, got {key_env!r}")

    def number(key: str, default: float, low: float, integer: bool) -> Any:
        value = table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or (integer and not isinstance(value, int)):
            raise UsageError(f"{where} {key} must be a{'n integer' if integer else ' number'}, got {value!r}")
        if value < low:
            raise UsageError(f"{where} {key} must be at least {low}, got {value!r}")
        return value

    def flag(key: str) -> bool:
        value = table.get(key, False)
        if not isinstance(value, bool):
            raise UsageError(f"{where} {key} must be true or false, got {value!r}")
        return value

    return SummaryConfig(
        provider=provider, model=model.strip(), url=url.rstrip("/"), api_key_env=key_env,
        max_units=number("max_units", 2000, 1, True), concurrency=number("concurrency", 4, 1, True),
        auto=flag("auto"), timeout=float(number("timeout", 60.0, 1, False)), min_lines=number("min_lines", 3, 1, True),
        max_code_chars=number("max_code_chars", 4000, 200, True), include_tests=flag("include_tests"),
        price_in=float(number("price_in", 0.0, 0, False)), price_out=float(number("price_out", 0.0, 0, False)),
    )
