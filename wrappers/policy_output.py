"""The one channel through which a policy hands a reward wrapper more than its text: ``PolicyOutput``.

A Shop-R1 environment's ``step`` takes the policy's raw text. The self-certainty term also needs
the policy's per-token distributions over the rationale's tokens, which the text cannot carry,
so a reward wrapper's ``step`` accepts either the plain ``str`` or a :class:`PolicyOutput` and
passes only ``.text`` on to the environment. Which characters are the rationale is decided by
the project's one parser (:func:`~rewardgym.envs.shopping.parsing.parse_output`), which the env
runs once per step: a policy that records every token's certainty hands them all over with the
tokens' character ends (``token_certainty``, ``token_ends``), and the wrapper keeps the tokens
of the rationale the env's parse found (:meth:`PolicyOutput.rationale_certainty`), so the
output is parsed once and the certainty belongs to the very rationale the reward scores.
:func:`rationale_char_span` gives those characters for a policy that slices its own ``[T, V]``
log-probabilities down to the rationale's ``[N, V]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rewardgym.envs.conventions import brief
from rewardgym.envs.shopping.parsing import MAX_CANDIDATES, ParsedOutput, parse_output
from rewardgym.errors import InvalidActionError
from rewardgym.wrappers.self_certainty import LogProbs

_RATIONALE_KEY = re.compile(r'"rationale"\s*:\s*"')
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class PolicyOutput:
    """A policy's raw text plus, optionally, what the self-certainty reward needs about its rationale.

    Attributes:
        text: the raw completion, exactly what a plain-``str`` step would receive.
        rationale_logprobs: ``[N, V]`` log-probabilities (or logits) of the policy over the whole
            vocabulary at each of the rationale's ``N`` tokens, as a numpy array or a torch tensor
            on any device (it is reduced there; only ``N`` floats leave it).
        rationale_token_certainty: instead of the ``[N, V]`` array, the ``N`` per-token values
            already computed with :func:`~rewardgym.wrappers.self_certainty.token_self_certainty`
            and the reward's ``self_certainty_kind``; used when ``rationale_logprobs`` is None.
        token_certainty: instead of the rationale's values, those of every completion token
            (as :func:`~rewardgym.agents.llm.generation.generate` records them), with
            ``token_ends``; the wrapper keeps the rationale's tokens after the env's parse.
        token_ends: for each token of ``token_certainty``, the length of ``text`` decoded up to
            and including it (so token ``i`` covers ``[token_ends[i-1], token_ends[i])``).
    """

    text: str
    rationale_logprobs: LogProbs | None = None
    rationale_token_certainty: Sequence[float] | np.ndarray | None = None
    token_certainty: Sequence[float] | np.ndarray | None = None
    token_ends: Sequence[int] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"PolicyOutput.text must be a str, got {type(self.text).__name__}")
        if (self.token_certainty is None) != (self.token_ends is None):
            raise ValueError(
                "PolicyOutput.token_certainty and token_ends go together: pass both (every "
                "token's certainty and its character end in text) or neither"
            )

    @property
    def has_certainty_input(self) -> bool:
        """True when log-probabilities or per-token certainties of the rationale were supplied."""
        return (
            self.rationale_logprobs is not None
            or self.rationale_token_certainty is not None
            or self.token_certainty is not None
        )

    def rationale_certainty(self, parsed: ParsedOutput | None = None) -> np.ndarray | None:
        """The rationale tokens' certainty values: as supplied, or cut from ``token_certainty``.

        ``parsed`` is the env's ``parse_output(text)`` (parsed here when None); only tokens that
        overlap the rationale it found are kept. None when neither kind of value was supplied.
        """
        if self.rationale_token_certainty is not None:
            return np.asarray(self.rationale_token_certainty, dtype=np.float64)
        if self.token_certainty is None or self.token_ends is None:
            return None
        values = np.asarray(self.token_certainty, dtype=np.float64).reshape(-1)
        span = rationale_char_span(self.text, parsed)
        if span is None:
            return values[:0]
        start, end = span
        ends = list(self.token_ends)[: len(values)]
        begins = [0, *ends[:-1]]
        picked = [
            i for i, (b, e) in enumerate(zip(begins, ends, strict=True)) if b < end and e > start
        ]
        return values[picked]


def as_policy_output(action: str | PolicyOutput) -> PolicyOutput:
    """Read a wrapper's ``step`` argument: a plain string becomes a ``PolicyOutput`` without log-probs."""
    if isinstance(action, PolicyOutput):
        return action
    if isinstance(action, str):
        return PolicyOutput(action)
    raise InvalidActionError(
        "a Shop-R1 reward wrapper's step takes the policy's text (a str) or a PolicyOutput, "
        f"got {type(action).__name__}: {brief(action)}"
    )


def rationale_char_span(text: str, parsed: ParsedOutput | None = None) -> tuple[int, int] | None:
    """Character range ``[start, end)`` in ``text`` of the rationale the parser found, or None.

    ``parsed`` is ``parse_output(text)`` when the caller has it (parsed here otherwise); the
    span is the first ``"rationale"`` string value in ``text`` that decodes to
    ``parsed.rationale``, so it is None whenever the parse holds no rationale string (an
    output the reward pays no rationale term for).
    """
    if parsed is None or parsed.source != text:
        parsed = parse_output(text)
    if parsed.rationale is None:
        return None
    for tried, match in enumerate(_RATIONALE_KEY.finditer(text)):
        if tried >= MAX_CANDIDATES:
            break
        try:
            value, end = _DECODER.raw_decode(text, match.end() - 1)
        except ValueError:
            continue
        if value == parsed.rationale:
            return match.end(), end - 1
    return None


__all__ = ["PolicyOutput", "as_policy_output", "rationale_char_span"]
