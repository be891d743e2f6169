"""A shopper policy served elsewhere (``openai:URL[#model]``): vLLM, ``transformers serve``, a hosted API.

:class:`ServedPolicy` answers ``ShopSession-v0`` / ``ShopStore-v0`` observations as
:class:`~rewardgym.agents.llm.policy.LLMPolicy` does, with the raw completion texts, but the
model runs on a server: prompts go out ``concurrency`` at a time through the judges' HTTP
client (:class:`~rewardgym.wrappers.judges.openai.OpenAIEndpoint`: one deadline per attempt,
a size cap, no redirects, bounded retries that honour ``Retry-After``, the API key read from
an environment variable and never stored, a user and password in the URL never shown), with
a progress bar. A server that cannot answer stops the run within seconds
(:meth:`ServedPolicy.preflight`, and a first batch without a single answer); a request that
never gets an answer is not cached and is counted apart (:attr:`ServedPolicy.failures`):
:meth:`ServedPolicy.answers` gives it as None, :meth:`ServedPolicy.complete` as the empty
output (unparsed), and ``max_consecutive_failures`` of them in
a row stop the run with :class:`JudgeUnavailableError` (a server that answered, then went
away, is not waited out visit by visit).

The prompt is the plain-text prompt of :func:`~rewardgym.agents.llm.prompt.build_prompt`
(instructions, the context the env built, the footer); its token budget is counted with
:func:`~rewardgym.envs.shopping.context.approx_token_count`, since the served model's tokenizer
is not here. ``endpoint="chat"`` sends it as the user message to ``/chat/completions`` (the
server applies its model's chat template); ``endpoint="text"`` sends it as the raw prompt to
``/completions`` (a model without a template, e.g. a ``bench shop`` checkpoint).

With ``cache`` set, answers are kept in a SQLite file (the judges' cache) as each chunk of
prompts is answered, so a killed run resumes where it stopped: keyed by the server, model,
prompt, sampling settings and seed, and, when sampling, by how many times this policy had
sent that prompt before, so a rerun with the same seed replays the same answers in order.

Constrained decoding (``SamplingConfig.decoding``) runs inside rewardgym's own generation
loop; a remote server samples by its own rules, so a served policy always decodes freely.

Example:
    >>> from rewardgym.agents.llm.served import parse_served
    >>> parse_served("openai:http://127.0.0.1:8000/v1#Qwen/Qwen2.5-3B-Instruct")
    ('http://127.0.0.1:8000/v1', 'Qwen/Qwen2.5-3B-Instruct')
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from rewardgym.agents.llm.config import PromptConfig, SamplingConfig
from rewardgym.agents.llm.prompt import TRUNCATED, build_prompt, env_kwargs
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, POSITIVE, check_fields
from rewardgym.envs.shopping.context import approx_token_count
from rewardgym.errors import UserError
from rewardgym.progress import progress_bar
from rewardgym.redact import redact
from rewardgym.wrappers.judges.openai import (
    PREFLIGHT_PROMPT,
    EndpointKind,
    JudgeUnavailableError,
    OpenAIEndpoint,
)

SERVED_PREFIX = "openai:"
"""A policy spec naming a served model starts with this: ``openai:URL[#model]``."""
_MARGIN = 8
"""Tokens kept in hand between the approximate count and the server's tokenizer."""


@dataclass(frozen=True)
class ServedConfig:
    """How rewardgym talks to a policy served at an OpenAI-compatible URL."""

    api_key_env: str = "OPENAI_API_KEY"
    """Environment variable holding the API key (read at call time, never stored); it must be set. An empty name sends no key (a local server)."""
    endpoint: EndpointKind = "chat"
    """chat: the prompt is the user message of /chat/completions (the server's chat template frames it); text: the raw prompt of /completions."""
    concurrency: Annotated[int, AT_LEAST_1] = 8
    """Requests in flight at once (1 or more)."""
    timeout_s: Annotated[float, POSITIVE] = 120.0
    """Seconds allowed for one attempt of a request, whole: connecting, sending, every byte."""
    max_retries: Annotated[int, NON_NEGATIVE] = 3
    """Retries (0 or more) of a request after a timeout, a connection error, HTTP 429 or 5xx."""
    backoff_s: Annotated[float, NON_NEGATIVE] = 0.5
    """First retry's wait in seconds; doubles with every retry."""
    max_retry_wait_s: Annotated[float, NON_NEGATIVE] = 60.0
    """Longest wait a server's Retry-After may ask before a retry; a longer one ends the request unanswered."""
    max_consecutive_failures: Annotated[int, AT_LEAST_1] = 16
    """The run stops (exit 1, nothing written but the answer cache) after this many requests in a row got no answer."""
    max_response_bytes: Annotated[int, AT_LEAST_1] = 1 << 20
    """Largest answer body accepted, in bytes (decoded); a larger one is abandoned as a failure."""
    max_prompt_tokens: Annotated[int, AT_LEAST_1] = 4096
    """Token budget of the whole prompt, counted approximately (words and punctuation marks)."""
    cache: Path | None = None
    """SQLite file keeping every answer as it comes, so a killed run resumes (None: no cache)."""

    def __post_init__(self) -> None:
        """Refuse counts, budgets and seconds outside their range before any request."""
        check_fields(self)
        ServedPrompts(PromptConfig(max_prompt_tokens=self.max_prompt_tokens))  # room for context


def is_served(spec: str) -> bool:
    """Whether a policy spec names a served model (``openai:URL[#model]``)."""
    return spec.startswith(SERVED_PREFIX)


def parse_served(spec: str, option: str = "--policy") -> tuple[str, str]:
    """The base URL and model name of ``openai:URL[#model]`` (model ``default`` when not given).

    ``ValueError`` names ``option`` and the spec when the URL is not http(s) with a host.
    """
    rest = spec.removeprefix(SERVED_PREFIX)
    url, _, model = rest.partition("#")
    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        ok = False
    if not spec.startswith(SERVED_PREFIX) or not ok:
        raise ValueError(
            f"{option} {redact(spec)!r}: a served policy is openai:URL[#model] with an http(s) URL, "
            "e.g. openai:http://127.0.0.1:8000/v1#my-model"
        )
    return url.rstrip("/"), model or "default"


def check_cache_outside(cache: Path | None, out: Path, option: str = "--served.cache") -> None:
    """Refuse an answer cache at or under the output folder ``out``, before anything is created.

    The cache outlives a run so that a rerun resumes, while ``out`` is replaced whole by
    the run's result; a cache inside it would make ``out`` hold a file the run did not
    write, and every run (this one's end included) would refuse the folder.
    """
    if cache is None:
        return
    where, folder = cache.expanduser().resolve(), out.expanduser().resolve()
    if where == folder or folder in where.parents:
        raise UserError(
            f"{option} {cache} lies inside --out {out}, which the run replaces whole; "
            "keep the answer cache outside it (e.g. beside it)"
        )


class ServedPrompts:
    """Observations to plain-text prompts whose context fits the budget by the approximate count."""

    def __init__(self, config: PromptConfig) -> None:
        if config.lookup_hint:
            raise UserError(
                "PromptConfig.lookup_hint=True: a served model's prompts carry no lookup line "
                "(the lookup is fitted on the suite's training sessions); leave it off"
            )
        self.config = config
        fixed = approx_token_count(self._frame(TRUNCATED))
        self.context_budget = config.max_prompt_tokens - fixed - _MARGIN
        if self.context_budget < 16:
            raise UserError(
                f"PromptConfig.max_prompt_tokens={config.max_prompt_tokens} leaves "
                f"{self.context_budget} tokens of context after the {fixed}-token instructions; "
                "raise it"
            )

    def _frame(self, context: str) -> str:
        return build_prompt(
            context,
            instructions=self.config.instructions,
            element_ids=self.config.element_ids,
            action_first=self.config.action_first,
        )

    def env_kwargs(self) -> dict[str, Any]:
        """``gym.make`` keyword arguments whose context fits this prompt's budget."""
        return {
            **env_kwargs(self.config),
            "max_context_tokens": self.context_budget,
            "count_tokens": approx_token_count,
        }

    def __call__(self, observation: Mapping[str, Any]) -> str:
        """The prompt for one observation (its ``context``, already fitted by the env)."""
        return self._frame(str(observation["context"]))


class ServedPolicy:
    """Batch policy over a model served at an OpenAI-compatible URL: observations in, raw texts out."""

    def __init__(
        self,
        base_url: str,
        model: str = "default",
        prompt: PromptConfig | None = None,
        sampling: SamplingConfig | None = None,
        config: ServedConfig | None = None,
        *,
        seed: int = 0,
        progress: bool = True,
    ) -> None:
        """Target ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``) serving ``model``."""
        self.config = config or ServedConfig()
        self.prompt_config = prompt or PromptConfig(max_prompt_tokens=self.config.max_prompt_tokens)
        self.sampling = sampling or SamplingConfig()
        if getattr(self.sampling, "decoding", "free") != "free":
            raise ValueError(
                "served policy: constrained decoding runs in rewardgym's own generation loop and "
                "cannot be enforced on a remote server; use SamplingConfig(decoding='free')"
            )
        self.prompts = ServedPrompts(self.prompt_config)
        self.seed = seed
        self.progress = progress
        c = self.config
        self.endpoint = OpenAIEndpoint(
            base_url,
            model=model,
            api_key_env=c.api_key_env,
            concurrency=c.concurrency,
            timeout_s=c.timeout_s,
            max_retries=c.max_retries,
            backoff_s=c.backoff_s,
            max_retry_wait_s=c.max_retry_wait_s,
            max_response_bytes=c.max_response_bytes,
            kind=c.endpoint,
            who="served policy",
            key_option="--served.api-key-env",
        )
        self.identity = f"openai:{self.endpoint.base_url}#{model}:{c.endpoint}"
        self.requests = 0
        """Requests sent to the server (cached answers are not asked again)."""
        self.failures = 0
        """Requests that got no answer after every retry (each read as the empty output)."""
        self._streak = 0
        self._answered = 0
        self._sent: dict[str, int] = {}
        self._cache: Any = None
        if c.cache is not None:
            from rewardgym.wrappers.judges.cache import JudgeCache

            self._cache = JudgeCache(c.cache)

    @classmethod
    def from_spec(
        cls,
        spec: str,
        prompt: PromptConfig | None = None,
        sampling: SamplingConfig | None = None,
        config: ServedConfig | None = None,
        *,
        seed: int = 0,
        progress: bool = True,
    ) -> ServedPolicy:
        """The policy ``openai:URL[#model]`` names (see :func:`parse_served`)."""
        url, model = parse_served(spec)
        return cls(url, model, prompt, sampling, config, seed=seed, progress=progress)

    def __repr__(self) -> str:
        """Name the endpoint and model, never the key."""
        return f"ServedPolicy(url={self.endpoint.url!r}, model={self.endpoint.model!r})"

    def env_kwargs(self) -> dict[str, Any]:
        """``gym.make`` keyword arguments whose contexts fit this policy's prompt budget."""
        return self.prompts.env_kwargs()

    def preflight(self) -> None:
        """Ask one short completion; raise :class:`JudgeUnavailableError` naming why none came (within seconds)."""
        self.endpoint.preflight(self.endpoint.body(PREFLIGHT_PROMPT, max_tokens=4, temperature=0))

    def reset_seed(self, seed: int | None = None) -> None:
        """Restart the sampling stream (optionally under a new seed)."""
        if seed is not None:
            self.seed = seed
        self._sent.clear()

    def _key(self, prompt: str, occurrence: int) -> str:
        s = self.sampling
        parts = [self.identity, prompt, s.temperature, s.top_p, s.max_new_tokens, self.seed]
        return hashlib.sha256(
            json.dumps([*parts, occurrence]).encode("utf-8", "surrogatepass")
        ).hexdigest()

    def _body(self, prompt: str, occurrence: int) -> bytes:
        s = self.sampling
        settings: dict[str, Any] = {"max_tokens": s.max_new_tokens, "temperature": s.temperature}
        if s.temperature > 0:
            # One seed per (policy seed, prompt occurrence): a rerun asks the same questions.
            digest = hashlib.blake2b(
                f"{self.seed}:{occurrence}:{prompt}".encode("utf-8", "surrogatepass"), digest_size=4
            )
            settings.update(top_p=s.top_p, seed=int.from_bytes(digest.digest(), "big") >> 1)
        return self.endpoint.body(prompt, **settings)

    def complete(self, prompts: Sequence[str]) -> list[str]:
        """Raw completions of ready-made prompts (as :attr:`prompts` makes them), in order; a
        prompt the server left unanswered reads as the empty output."""
        return ["" if answer is None else answer for answer in self.answers(prompts)]

    def answers(self, prompts: Sequence[str]) -> list[str | None]:
        """Raw completions of ready-made prompts, in order; None where no answer came after
        every retry, so a caller can count those apart (``eval shop`` scores only the answered)."""
        greedy = self.sampling.temperature <= 0
        occurrences = []
        for prompt in prompts:
            seen = 0 if greedy else self._sent.get(prompt, 0)
            occurrences.append(seen)
            if not greedy:
                self._sent[prompt] = seen + 1
        keys = [self._key(p, k) for p, k in zip(prompts, occurrences, strict=True)]
        answers: dict[str, str] = self._cache.get_many(keys) if self._cache is not None else {}
        self._answered += len(answers)  # a cached answer shows the server answered once
        first = {key: i for i, key in reversed(list(enumerate(keys)))}
        todo = [first[key] for key in dict.fromkeys(keys) if key not in answers]
        chunk = 8 * self.config.concurrency
        with progress_bar(
            total=len(todo), desc="served policy", disable=not self.progress, leave=False
        ) as bar:

            def on_answer(_index: int, answer: str | None) -> None:
                bar.update(1)
                self.requests += 1
                self.failures += answer is None
                self._streak = self._streak + 1 if answer is None else 0
                if self._streak >= self.config.max_consecutive_failures:
                    raise JudgeUnavailableError(
                        f"served policy: {self._streak} requests in a row to {self.endpoint.url} "
                        f"got no {self.endpoint.answer} (last: {self.endpoint.last_error}); "
                        f"stopped after {self.requests} requests, {self.failures} unanswered "
                        "(answers so far are cached when --served.cache is set; "
                        "max_consecutive_failures, e.g. --served.max-consecutive-failures, "
                        "sets the limit)"
                    )

            for start in range(0, len(todo), chunk):
                part = todo[start : start + chunk]
                got = self.endpoint.ask_all(
                    [self._body(prompts[i], occurrences[i]) for i in part], on_answer=on_answer
                )
                fresh = {keys[i]: a for i, a in zip(part, got, strict=True) if a is not None}
                if not fresh and self._answered == 0:
                    raise JudgeUnavailableError(
                        f"served policy: none of the first {len(part)} requests to "
                        f"{self.endpoint.url} got a {self.endpoint.answer} (last: "
                        f"{self.endpoint.last_error}); is the server up and OpenAI-compatible?"
                    )
                self._answered += len(fresh)
                answers.update(fresh)
                if self._cache is not None and fresh:
                    self._cache.put_many(fresh)
        return [answers.get(key) for key in keys]

    def __call__(self, observations: Sequence[Mapping[str, Any]]) -> list[str]:
        """Raw completions for a batch of observations, as ``env.step`` takes them."""
        return self.complete([self.prompts(o) for o in observations])


__all__ = [
    "SERVED_PREFIX",
    "ServedConfig",
    "ServedPolicy",
    "ServedPrompts",
    "check_cache_outside",
    "is_served",
    "parse_served",
]
