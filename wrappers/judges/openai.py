"""A judge behind any OpenAI-compatible chat endpoint (vLLM, Ollama, a hosted API), on httpx.

The HTTP half, :class:`OpenAIEndpoint`, also serves rewardgym's served policy
(:mod:`rewardgym.agents.llm.served`), under the same rules.

Requests go out ``concurrency`` at a time from one ``httpx.AsyncClient`` per batch, on a
private event loop (so the judge works from any thread, a notebook's included). A broken or
hostile server cannot hurt a run:

- **No redirects.** A 3xx answer is a failure and is never followed, so the key is sent to
  the configured URL only, never to the origin a ``Location`` names.
- **One deadline per attempt.** ``timeout_s`` bounds the whole attempt (connecting, sending,
  the headers and every byte of the body), not one socket read: a server that trickles bytes
  cannot hold a request longer.
- **A size cap.** A body above ``max_response_bytes`` (decoded) is abandoned as it arrives.
- **Transport errors are failures, not exceptions:** a refused connection, a malformed
  status line, a truncated body, an oversized header, broken chunking, bad TLS.
- **Clean text.** Lone surrogates in an answer become U+FFFD, so the cache can store it.

Each request is tried at most ``1 + max_retries`` times: deadlines, transport errors, HTTP
408/409/425/429/5xx and bodies that are not a chat completion are retried after an
exponential backoff, or after the wait a ``Retry-After`` header asks (seconds or an HTTP
date) when that is longer; a wait above ``max_retry_wait_s`` ends the request unanswered
instead. Redirects, oversized bodies and other 4xx answers are final. A request
that never gets a completion answers ``None`` (a failure: not cached, asked again by a rerun;
an abstention in this run). Two cases stop the run with :class:`JudgeUnavailableError`
instead of abstaining thousands of times: HTTP 401/403 (the key was refused) and a first
batch in which no request got an answer (the server is down or is not a chat endpoint).
:meth:`OpenAIJudge.preflight` asks one short completion before a run pays for anything else
(``label coren`` calls it first), so a dead port or a server that answers HTML stops the run
within about :data:`PREFLIGHT_S` seconds, naming the reason.

The API key is read from the environment variable ``api_key_env`` at call time and never
stored in the judge's identity, logged or put in an error message; a user and password
written in the URL are sent as HTTP Basic auth and shown as ``***``
(:func:`~rewardgym.redact.redact`) wherever the URL is shown or recorded. A variable that is unset
is a user's mistake at construction (:class:`~rewardgym.errors.ApiKeyNotSet`); an empty
``api_key_env`` sends no key (a local server).
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import json
import math
import os
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

import httpx

from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, POSITIVE, check_fields
from rewardgym.errors import ApiKeyNotSet, JudgeUnavailableError
from rewardgym.redact import redact
from rewardgym.wrappers.judges.base import Judge, JudgeRequest
from rewardgym.wrappers.judges.cache import storable_text

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_REFUSED_STATUS = frozenset({401, 403})
_TRANSPORT_ERRORS = (httpx.TransportError, httpx.DecodingError, httpx.StreamError, OSError)

PREFLIGHT_S = 15.0
"""Seconds :meth:`OpenAIJudge.preflight` keeps retrying (one attempt may run ``timeout_s``)."""
PREFLIGHT_ATTEMPTS = 5
"""Most attempts of the preflight completion (a flaky but working server gets through)."""
PREFLIGHT_PROMPT = "Reply with the single word: ready"
_T = TypeVar("_T")

EndpointKind = Literal["chat", "text"]
"""``chat``: ``/chat/completions`` (the server's chat template frames the prompt); ``text``: the
raw prompt of ``/completions``."""


@dataclass(frozen=True)
class OpenAIJudgeConfig:
    """How the judge talks to an OpenAI-compatible endpoint (used only by ``openai:URL`` judges)."""

    model: str = "default"
    """Model name sent with each request (what the server serves)."""
    api_key_env: str = "OPENAI_API_KEY"
    """Environment variable holding the API key (read at call time, never stored); it must be set. An empty name sends no key (a local server)."""
    concurrency: Annotated[int, AT_LEAST_1] = 8
    """Requests in flight at once (1 or more)."""
    timeout_s: Annotated[float, POSITIVE] = 30.0
    """Seconds allowed for one attempt of a request, whole: connecting, sending, every byte."""
    max_retries: Annotated[int, NON_NEGATIVE] = 3
    """Retries (0 or more) of a request after a timeout, a connection error, HTTP 429 or 5xx."""
    backoff_s: Annotated[float, NON_NEGATIVE] = 0.5
    """First retry's wait in seconds; doubles with every retry."""
    max_retry_wait_s: Annotated[float, NON_NEGATIVE] = 60.0
    """Longest wait a server's Retry-After may ask before a retry; a longer one ends the request unanswered."""
    max_tokens: Annotated[int, AT_LEAST_1] = 256
    """Longest completion asked for, in tokens."""
    temperature: Annotated[float, NON_NEGATIVE] = 0.0
    """Sampling temperature of the judge (0: greedy, so answers are reproducible)."""
    max_response_bytes: Annotated[int, AT_LEAST_1] = 1 << 20
    """Largest answer body accepted, in bytes (decoded); a larger one is abandoned as a failure."""

    def __post_init__(self) -> None:
        """Refuse numbers that are not finite or not in their range, naming the field."""
        check_fields(self)


class OpenAIEndpoint:
    """Bounded, fault-proof POSTs to one OpenAI-compatible completions endpoint (the module's rules).

    The HTTP half of :class:`OpenAIJudge`, shared with rewardgym's served policy
    (:mod:`rewardgym.agents.llm.served`): ``kind="chat"`` posts to ``/chat/completions`` and
    reads ``choices[0].message.content``; ``kind="text"`` posts to ``/completions`` and reads
    ``choices[0].text``. ``who`` opens every error message (``openai judge``,
    ``served policy``); ``on_retry`` is called once per retried attempt; ``key_option`` is the
    command-line option naming the key variable (a missing key's message names it).
    :attr:`url` and :attr:`base_url` show a user and password written in the URL as ``***``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        model: str,
        api_key_env: str,
        concurrency: int,
        timeout_s: float,
        max_retries: int,
        backoff_s: float,
        max_response_bytes: int,
        max_retry_wait_s: float = 60.0,
        kind: EndpointKind = "chat",
        who: str = "openai judge",
        on_retry: Callable[[], None] | None = None,
        key_option: str = "--openai.api-key-env",
    ) -> None:
        """Check the settings and the key variable (read, never stored); ``base_url`` ends in ``/v1``."""
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(
                f"{who}: base URL {redact(base_url)!r} must start with http:// or https:// "
                "(for example openai:http://127.0.0.1:8000/v1)"
            )
        if (
            max_retries < 0
            or concurrency < 1
            or timeout_s <= 0
            or max_response_bytes < 1
            or not max_retry_wait_s >= 0
        ):
            raise ValueError(
                f"{who}: need max_retries >= 0, concurrency >= 1, timeout_s > 0, "
                f"max_response_bytes >= 1 and max_retry_wait_s >= 0, got {max_retries}, "
                f"{concurrency}, {timeout_s}, {max_response_bytes}, {max_retry_wait_s}"
            )
        if api_key_env and not os.environ.get(api_key_env):
            raise ApiKeyNotSet(
                f"{who}: the API key variable {api_key_env} is not set; export it, or pass "
                f"{key_option} '' (api_key_env='' in Python) to send no key to a server without keys"
            )
        path = "/chat/completions" if kind == "chat" else "/completions"
        self.answer = "chat completion" if kind == "chat" else "completion"
        self._post_url = base_url.rstrip("/") + path
        self.base_url = redact(base_url.rstrip("/"))
        """The base URL as shown and recorded (a user and password as ``***``)."""
        self.url = self.base_url + path
        """The completions URL as shown and recorded (a user and password as ``***``)."""
        self.kind = kind
        self.who = who
        self.model = model
        self.api_key_env = api_key_env or None
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_retry_wait_s = max_retry_wait_s
        self.max_response_bytes = max_response_bytes
        self.on_retry = on_retry
        self.last_error: str | None = None

    def body(self, text: str, **sampling: Any) -> bytes:
        """The request asking a completion of ``text`` (the user message, or the raw prompt)."""
        prompt: dict[str, Any] = (
            {"messages": [{"role": "user", "content": text}]}
            if self.kind == "chat"
            else {"prompt": text}
        )
        return json.dumps({"model": self.model, **prompt, **sampling}).encode(
            "utf-8", "surrogatepass"
        )

    def preflight(self, body: bytes) -> None:
        """POST ``body`` until a completion comes; raise :class:`JudgeUnavailableError` naming why none came.

        Retries with the configured backoff, at most :data:`PREFLIGHT_ATTEMPTS` times and
        not past :data:`PREFLIGHT_S` seconds (an attempt already sent keeps its ``timeout_s``).
        """
        start = time.monotonic()
        tries = 0

        async def ask() -> str | None:
            nonlocal tries
            async with httpx.AsyncClient(
                follow_redirects=False, timeout=httpx.Timeout(self.timeout_s)
            ) as client:
                while True:
                    tries += 1
                    content, asked = await self._attempt(client, body)
                    if content is not None or asked is None or tries >= PREFLIGHT_ATTEMPTS:
                        return content
                    wait = self._wait(tries - 1, asked)
                    if wait is None or time.monotonic() - start + wait > PREFLIGHT_S:
                        return None
                    await asyncio.sleep(wait)

        if run_private(ask()) is None:
            raise JudgeUnavailableError(
                f"{self.who}: none of the first {tries} attempts to {self.url} got a "
                f"{self.answer} in {time.monotonic() - start:.0f} s (last: {self.last_error}); is "
                "the server up and OpenAI-compatible at that URL?"
            )

    def ask_all(
        self, bodies: Sequence[bytes], on_answer: Callable[[int, str | None], None] | None = None
    ) -> list[str | None]:
        """The completion of each body (None: none came), ``concurrency`` requests in flight.

        ``on_answer(i, answer)`` is called as each request finishes (a progress bar, a cache).
        """
        return run_private(self._ask_all(bodies, on_answer))

    async def _ask_all(
        self, bodies: Sequence[bytes], on_answer: Callable[[int, str | None], None] | None
    ) -> list[str | None]:
        limits = httpx.Limits(
            max_connections=self.concurrency, max_keepalive_connections=self.concurrency
        )
        gate = asyncio.Semaphore(self.concurrency)
        async with httpx.AsyncClient(
            follow_redirects=False, timeout=httpx.Timeout(self.timeout_s), limits=limits
        ) as client:

            async def one(index: int, body: bytes) -> str | None:
                async with gate:
                    answer = await self._ask_one(client, body)
                if on_answer is not None:
                    on_answer(index, answer)
                return answer

            return list(await asyncio.gather(*(one(i, b) for i, b in enumerate(bodies))))

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    async def _ask_one(self, client: httpx.AsyncClient, body: bytes) -> str | None:
        for attempt in range(self.max_retries + 1):
            content, asked = await self._attempt(client, body)
            if content is not None or asked is None or attempt == self.max_retries:
                return content
            wait = self._wait(attempt, asked)
            if wait is None:
                return None
            if self.on_retry is not None:
                self.on_retry()
            await asyncio.sleep(wait)
        return None

    def _wait(self, retry: int, asked: float) -> float | None:
        """Seconds before retry number ``retry + 1``: the backoff, or longer when the server asked.

        None (the request ends unanswered) when the server asked more than ``max_retry_wait_s``.
        """
        if asked > self.max_retry_wait_s:
            shown = f"{asked:.0f} s" if math.isfinite(asked) else "forever"
            self.last_error = (
                f"Retry-After asked a wait of {shown}, more than max_retry_wait_s="
                f"{self.max_retry_wait_s:g}, from {self.url}"
            )
            return None
        return max(min(self.backoff_s * 2**retry, 10.0), asked)

    async def _attempt(
        self, client: httpx.AsyncClient, body: bytes
    ) -> tuple[str | None, float | None]:
        """One POST within the deadline: the completion text (or None), and when a retry may go.

        The second value is None when no retry may go, else the least wait in seconds the
        server asked (its ``Retry-After``; 0.0 when it asked none).
        """
        try:
            async with asyncio.timeout(self.timeout_s):
                payload, asked = await self._post(client, body)
        except TimeoutError:
            return self._fail(f"no complete answer within {self.timeout_s:g} s", asked=0.0)
        except _TRANSPORT_ERRORS as err:
            return self._fail(f"transport error {type(err).__name__}", asked=0.0)
        if payload is None:
            return None, asked
        content = _completion_text(payload, self.kind)
        if content is None:
            return self._fail(f"a body that is not a {self.answer}", asked=0.0)
        return content, None

    async def _post(
        self, client: httpx.AsyncClient, body: bytes
    ) -> tuple[bytes | None, float | None]:
        async with client.stream(
            "POST", self._post_url, content=body, headers=self._headers()
        ) as r:
            status = r.status_code
            if status in _REFUSED_STATUS:
                raise JudgeUnavailableError(
                    f"{self.who}: {self.url} answered HTTP {status}: the key in "
                    f"{self.api_key_env or '(no key sent)'} was refused"
                )
            if 300 <= status < 400:
                where = r.headers.get("location", "")[:120]
                return self._fail(f"HTTP {status} redirect to {redact(where)!r}, not followed")
            if status >= 400 or status < 200:
                if status not in _RETRY_STATUS:
                    return self._fail(f"HTTP {status}")
                return self._fail(
                    f"HTTP {status}", asked=retry_after(r.headers.get("retry-after", ""))
                )
            declared = r.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_response_bytes:
                return self._too_large()
            chunks, size = [], 0
            async for chunk in r.aiter_bytes():
                size += len(chunk)
                if size > self.max_response_bytes:
                    return self._too_large()
                chunks.append(chunk)
        return b"".join(chunks), None

    def _too_large(self) -> tuple[None, float | None]:
        return self._fail(f"a body over max_response_bytes={self.max_response_bytes:,}")

    def _fail(self, reason: str, asked: float | None = None) -> tuple[None, float | None]:
        """Record why the attempt failed; None and ``asked`` (None: no retry, else the wait asked)."""
        self.last_error = f"{reason} from {self.url}"
        return None, asked


def retry_after(value: str, now: float | None = None) -> float:
    """Seconds a ``Retry-After`` header asks to wait: delay-seconds or an HTTP date (0.0 if neither).

    Example:
        >>> retry_after("3600"), retry_after("soon")
        (3600.0, 0.0)
        >>> retry_after("Thu, 01 Jan 1970 00:01:40 GMT", now=40.0)
        60.0
    """
    value = value.strip()
    if value.isdigit() and value.isascii():
        return float(value) if len(value) < 16 else math.inf
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return 0.0
    if when.tzinfo is None:  # "-0000" or no zone: an HTTP date is always GMT
        when = when.replace(tzinfo=datetime.UTC)
    now = time.time() if now is None else now
    return max(when.timestamp() - now, 0.0)


def run_private(job: Coroutine[Any, Any, _T]) -> _T:
    """Run ``job`` on a private event loop (on a thread when one already runs here, as in a notebook)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(job)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, job).result()


class OpenAIJudge(Judge):
    """Asks a chat-completions endpoint; bounded attempts, abstentions on every kind of garbage."""

    def __init__(self, base_url: str, config: OpenAIJudgeConfig | None = None) -> None:
        """Target ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``) with the settings of ``config``."""
        super().__init__()
        config = config or OpenAIJudgeConfig()
        self.endpoint = OpenAIEndpoint(
            base_url,
            model=config.model,
            api_key_env=config.api_key_env,
            concurrency=config.concurrency,
            timeout_s=config.timeout_s,
            max_retries=config.max_retries,
            backoff_s=config.backoff_s,
            max_retry_wait_s=config.max_retry_wait_s,
            max_response_bytes=config.max_response_bytes,
            on_retry=lambda: self.stats.add(retries=1),
        )
        self.url = self.endpoint.url
        self.model = config.model
        self.max_tokens = config.max_tokens
        self.temperature = config.temperature
        self.identity = f"openai:{self.endpoint.base_url}:{config.model}"
        self._answered = 0

    @property
    def last_error(self) -> str | None:
        """Why the last failed attempt failed (None before any failure)."""
        return self.endpoint.last_error

    def __repr__(self) -> str:
        """Name the endpoint and model, never the key."""
        return f"OpenAIJudge(url={self.url!r}, model={self.model!r})"

    def preflight(self) -> None:
        """Ask one short completion; raise :class:`JudgeUnavailableError` naming why none came.

        Retries with the configured backoff, at most :data:`PREFLIGHT_ATTEMPTS` times and
        not past :data:`PREFLIGHT_S` seconds (an attempt already sent keeps its
        ``timeout_s``). Nothing is cached or counted in ``stats``.
        """
        self.endpoint.preflight(self._body(PREFLIGHT_PROMPT))

    def _complete(self, requests: Sequence[JudgeRequest]) -> list[str | None]:
        answers = self.endpoint.ask_all([self._body(request.text()) for request in requests])
        got = sum(a is not None for a in answers)
        if got == 0 and self._answered == 0:
            raise JudgeUnavailableError(
                f"openai judge: none of the first {len(answers)} requests to {self.url} got a "
                f"chat completion (last: {self.last_error}); is the server up and "
                "OpenAI-compatible?"
            )
        self._answered += got
        return answers

    def _body(self, text: str) -> bytes:
        return self.endpoint.body(text, temperature=self.temperature, max_tokens=self.max_tokens)


def _completion_text(payload: bytes, kind: EndpointKind = "chat") -> str | None:
    """The first choice's text of a completions body (``message.content`` or ``text``), or ``None`` if malformed."""
    try:
        data = json.loads(payload.decode("utf-8"))
        choice = data["choices"][0]
        content = choice["message"]["content"] if kind == "chat" else choice["text"]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        return None
    if not isinstance(content, str):
        return None
    # JSON may escape a lone surrogate (\ud800), which no UTF-8 store can hold.
    return storable_text(content)


__all__ = [
    "PREFLIGHT_S",
    "EndpointKind",
    "JudgeUnavailableError",
    "OpenAIEndpoint",
    "OpenAIJudge",
    "OpenAIJudgeConfig",
    "retry_after",
    "run_private",
]
