"""The HTTP client of served models and judges honours Retry-After and hides URL credentials (issue 39, items 13-14)."""

from __future__ import annotations

import base64
import email.utils
import time
from typing import Any

import pytest

from rewardgym.errors import JudgeUnavailableError
from rewardgym.wrappers.judges.openai import OpenAIEndpoint, OpenAIJudge, OpenAIJudgeConfig

SECRET = "s3cretpw"


def _endpoint(url: str, **settings: Any) -> OpenAIEndpoint:
    config: dict[str, Any] = {
        "model": "m",
        "api_key_env": "",
        "concurrency": 1,
        "timeout_s": 5.0,
        "max_retries": 3,
        "backoff_s": 0.01,
        "max_response_bytes": 1 << 20,
    }
    return OpenAIEndpoint(url, **{**config, **settings})


def _limited_once(raw: Any, after: str, stamps: list[float]) -> Any:
    """A fault function: HTTP 429 with ``Retry-After: after`` to the first request, then healthy."""
    reply = raw.http_reply(b"", "429 Too Many Requests", (f"Retry-After: {after}",))

    def fault(prompt: str) -> Any:
        stamps.append(time.monotonic())
        return [(reply, 0.0)] if len(stamps) == 1 else None

    return fault


def test_a_short_retry_after_is_waited_for(chat_server: Any, raw: Any) -> None:
    """429 with ``Retry-After: 1`` was retried after the 0.01 s backoff; now after a second."""
    stamps: list[float] = []
    endpoint = _endpoint(chat_server(_limited_once(raw, "1", stamps)).url)
    assert endpoint.ask_all([endpoint.body("hi")]) == ["Rating: 2"]
    assert len(stamps) == 2 and stamps[1] - stamps[0] >= 0.9


@pytest.mark.parametrize(
    "after",
    ["3600", email.utils.formatdate(time.time() + 3600, usegmt=True), "9" * 40],
    ids=["seconds", "http-date", "huge"],
)
def test_a_retry_after_over_the_cap_ends_the_request_at_once(
    chat_server: Any, raw: Any, after: str
) -> None:
    """``Retry-After: 3600`` (seconds or an HTTP date) was retried after 0.1 s: now no retry."""
    stamps: list[float] = []
    server = chat_server(_limited_once(raw, after, stamps))
    endpoint = _endpoint(server.url, max_retry_wait_s=5.0)
    start = time.monotonic()
    assert endpoint.ask_all([endpoint.body("hi")]) == [None]
    assert len(stamps) == 1 and time.monotonic() - start < 3.0
    assert "Retry-After" in (endpoint.last_error or "")
    assert "max_retry_wait_s=5" in (endpoint.last_error or "")
    stamps.clear()
    start = time.monotonic()
    with pytest.raises(JudgeUnavailableError, match="Retry-After asked a wait of"):
        endpoint.preflight(endpoint.body("ready?"))
    assert len(stamps) == 1 and time.monotonic() - start < 3.0


def test_credentials_in_the_url_are_sent_but_never_shown(chat_server: Any, raw: Any) -> None:
    """A password in ``http://alice:PW@host`` was printed in every error line."""
    server = chat_server(raw.marked([(raw.http_reply(b"", "500 Oops"), 0.0)]))
    url = server.url.replace("http://", f"http://alice:{SECRET}@")
    judge = OpenAIJudge(url, OpenAIJudgeConfig(api_key_env="", max_retries=0))
    endpoint = judge.endpoint
    assert endpoint.ask_all([endpoint.body("hi"), endpoint.body("FAULT")]) == ["Rating: 2", None]
    basic = "Basic " + base64.b64encode(f"alice:{SECRET}".encode()).decode()
    assert server.seen.auth == [basic, basic]  # httpx sends them as HTTP Basic auth
    shown = [repr(judge), judge.identity, endpoint.url, endpoint.last_error or ""]
    assert all(SECRET not in text and "alice" not in text for text in shown), shown
    assert endpoint.url.startswith("http://***@127.0.0.1:")
    dead = OpenAIJudge(
        f"http://alice:{SECRET}@127.0.0.1:9/v1", OpenAIJudgeConfig(api_key_env="", backoff_s=0.01)
    )
    with pytest.raises(JudgeUnavailableError) as refused:
        dead.preflight()
    assert SECRET not in str(refused.value) and "***@127.0.0.1:9" in str(refused.value)
