"""A judge behind any OpenAI-compatible chat endpoint (vLLM, Ollama, a hosted API).

Requests go out concurrently from a thread pool over the standard library's HTTP client.
Each request is tried at most ``1 + max_retries`` times: timeouts, connection errors, HTTP
429 and 5xx, and bodies that are not a chat completion are retried after an exponential
backoff; any other HTTP error is final. A request that never gets a completion answers
``None`` (counted as a failure, not cached, asked again by a rerun); a completion whose text
does not parse is an abstention. The API key is read from an environment variable at call
time and is never stored in the judge's identity, logged or put in an error message.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from rewardgym.wrappers.judges.base import Judge, JudgeRequest

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class OpenAIJudgeConfig:
    """How the judge talks to an OpenAI-compatible endpoint (used only by ``openai:URL`` judges)."""

    model: str = "default"
    """Model name sent with each request (what the server serves)."""
    api_key_env: str = "OPENAI_API_KEY"
    """Environment variable that holds the API key (read at call time, never stored)."""
    concurrency: int = 8
    """Requests in flight at once."""
    timeout_s: float = 30.0
    """Seconds allowed for one request."""
    max_retries: int = 3
    """Retries of a request after a timeout, a connection error, HTTP 429 or 5xx."""
    backoff_s: float = 0.5
    """First retry's wait in seconds; doubles with every retry."""
    max_tokens: int = 256
    """Longest completion asked for."""
    temperature: float = 0.0
    """Sampling temperature of the judge (0: greedy, so answers are reproducible)."""


class OpenAIJudge(Judge):
    """Asks a chat-completions endpoint; bounded retries with backoff, abstentions on garbage."""

    def __init__(self, base_url: str, config: OpenAIJudgeConfig | None = None) -> None:
        """Target ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``) with the settings of ``config``."""
        super().__init__()
        config = config or OpenAIJudgeConfig()
        model, api_key_env, concurrency = config.model, config.api_key_env, config.concurrency
        timeout_s, max_retries, backoff_s = config.timeout_s, config.max_retries, config.backoff_s
        max_tokens, temperature = config.max_tokens, config.temperature
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(
                f"openai judge: base URL {base_url!r} must start with http:// or https:// "
                "(for example openai:http://127.0.0.1:8000/v1)"
            )
        if max_retries < 0 or concurrency < 1 or timeout_s <= 0:
            raise ValueError(
                f"openai judge: need max_retries >= 0, concurrency >= 1 and timeout_s > 0, got "
                f"{max_retries}, {concurrency}, {timeout_s}"
            )
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.identity = f"openai:{base_url.rstrip('/')}:{model}"

    def __repr__(self) -> str:
        """Name the endpoint and model, never the key."""
        return f"OpenAIJudge(url={self.url!r}, model={self.model!r})"

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        texts = [request.text() for request in requests]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(texts))) as pool:
            return list(pool.map(self._ask_one, texts))

    def _ask_one(self, text: str) -> str | None:
        body = json.dumps(
            {
                "model": self.model,
                "messages": [{"role": "user", "content": text}],
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
            }
        ).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        for attempt in range(self.max_retries + 1):
            if attempt:
                self.stats.add(retries=1)
                time.sleep(min(self.backoff_s * 2 ** (attempt - 1), 10.0))
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    payload = response.read()
            except urllib.error.HTTPError as err:
                if err.code in _RETRY_STATUS:
                    continue
                return None
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError):
                continue
            content = _completion_text(payload)
            if content is not None:
                return content
        return None


def _completion_text(payload: bytes) -> str | None:
    """The first choice's message content of a chat-completions body, or ``None`` if malformed."""
    try:
        data = json.loads(payload.decode("utf-8"))
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError):
        return None
    return content if isinstance(content, str) else None


__all__ = ["OpenAIJudge", "OpenAIJudgeConfig"]
