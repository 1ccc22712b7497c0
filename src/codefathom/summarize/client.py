"""The summary endpoints over HTTP (the standard library's urllib, no vendor SDK): Ollama's
`/api/generate`, an OpenAI-compatible `/chat/completions`, Anthropic's `/v1/messages`.

Every failure becomes SummarizerUnavailable with one line: the URL and why (refused, unreachable,
timed out, 401, an answer without text), and what to do.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from codefathom.errors import SummarizerUnavailable
from codefathom.summarize.config import SummaryConfig
from codefathom.summarize.prompt import MAX_OUTPUT_TOKENS, SYSTEM, estimate_tokens

__all__ = ["Reply", "Summarizer", "load_summarizer"]


@dataclass(frozen=True)
class Reply:
    text: str
    tokens_in: int  # as the endpoint counted them, else estimated
    tokens_out: int


class Summarizer(ABC):
    """One endpoint and model; `summarize` is safe to call from several threads at once."""

    path = ""

    def __init__(self, config: SummaryConfig, key: str) -> None:
        self.config = config
        self.url = config.url
        self._key = key

    @property
    def id(self) -> str:
        return self.config.id

    def summarize(self, prompt: str) -> Reply:
        body = self._post(self._payload(prompt))
        try:
            text, tokens_in, tokens_out = self._read(body)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise SummarizerUnavailable(
                f"the summary endpoint {self.url}{self.path} answered without the text this provider"
                f" ({self.config.provider}) returns; check `provider` and `url` in [summaries]"
            ) from exc
        if not isinstance(text, str):
            raise SummarizerUnavailable(f"the summary endpoint {self.url}{self.path} answered a non-string text")
        return Reply(
            text,
            int(tokens_in) if isinstance(tokens_in, int) else estimate_tokens(SYSTEM + prompt),
            int(tokens_out) if isinstance(tokens_out, int) else estimate_tokens(text),
        )

    def _headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {self._key}"} if self._key else {})

    @abstractmethod
    def _payload(self, prompt: str) -> dict[str, Any]: ...

    @abstractmethod
    def _read(self, body: Any) -> tuple[Any, Any, Any]:
        """(text, tokens in, tokens out) of an answer."""

    def _post(self, payload: dict[str, Any]) -> Any:
        where = self.url + self.path
        request = urllib.request.Request(
            where, data=json.dumps(payload).encode(), headers=self._headers(), method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.config.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = " ".join(exc.read()[:200].decode("utf-8", "replace").split())
            fix = {
                401: f"check the API key (${self.config.api_key_env or 'none configured: set api_key_env'})",
                403: "check the API key's permissions",
                404: "check `url` and `model` in [summaries]",
                429: "the endpoint is rate-limiting: lower `concurrency` or try later",
            }.get(exc.code, "check the server")
            raise SummarizerUnavailable(
                f"the summary endpoint {where} answered {exc.code} {exc.reason}" + (f" ({detail})" if detail else "")
                + f"; {fix}"
            ) from exc
        except TimeoutError as exc:
            raise SummarizerUnavailable(
                f"the summary endpoint {where} did not answer within {self.config.timeout:g} s;"
                " raise `timeout` in [summaries] or check the server"
            ) from exc
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError | socket.timeout):
                raise SummarizerUnavailable(
                    f"the summary endpoint {where} did not answer within {self.config.timeout:g} s;"
                    " raise `timeout` in [summaries] or check the server"
                ) from exc
            text = getattr(reason, "strerror", None) or str(reason)
            raise SummarizerUnavailable(
                f"the summary endpoint {where} cannot be reached ({text}); start it or fix `url` in [summaries]"
            ) from exc
        except (OSError, ValueError) as exc:  # reset mid-answer, a malformed URL
            raise SummarizerUnavailable(f"the summary endpoint {where} failed ({exc}); check the server") from exc
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise SummarizerUnavailable(f"the summary endpoint {where} did not answer JSON; check `url`") from exc


class OllamaSummarizer(Summarizer):
    path = "/api/generate"

    def _payload(self, prompt: str) -> dict[str, Any]:
        return {
            "model": self.config.model, "system": SYSTEM, "prompt": prompt, "stream": False,
            "options": {"temperature": 0, "num_predict": MAX_OUTPUT_TOKENS},
        }

    def _read(self, body: Any) -> tuple[Any, Any, Any]:
        if "error" in body:
            raise ValueError(body["error"])
        return body["response"], body.get("prompt_eval_count"), body.get("eval_count")


class OpenAISummarizer(Summarizer):
    path = "/chat/completions"

    def _payload(self, prompt: str) -> dict[str, Any]:
        return {
            "model": self.config.model, "temperature": 0, "max_tokens": MAX_OUTPUT_TOKENS,
            "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
        }

    def _read(self, body: Any) -> tuple[Any, Any, Any]:
        usage = body.get("usage") or {}
        return body["choices"][0]["message"]["content"], usage.get("prompt_tokens"), usage.get("completion_tokens")


class AnthropicSummarizer(Summarizer):
    path = "/v1/messages"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "anthropic-version": "2023-06-01"}
        return headers | ({"x-api-key": self._key} if self._key else {})

    def _payload(self, prompt: str) -> dict[str, Any]:
        return {
            "model": self.config.model, "max_tokens": MAX_OUTPUT_TOKENS, "temperature": 0, "system": SYSTEM,
            "messages": [{"role": "user", "content": prompt}],
        }

    def _read(self, body: Any) -> tuple[Any, Any, Any]:
        usage = body.get("usage") or {}
        text = "".join(part.get("text", "") for part in body["content"] if part.get("type") == "text")
        return text, usage.get("input_tokens"), usage.get("output_tokens")


_PROVIDERS: dict[str, type[Summarizer]] = {
    "ollama": OllamaSummarizer, "openai": OpenAISummarizer, "anthropic": AnthropicSummarizer,
}


def load_summarizer(config: SummaryConfig) -> Summarizer:
    """The client of the configured endpoint (reads the API key from the variable it names)."""
    return _PROVIDERS[config.provider](config, config.api_key())
