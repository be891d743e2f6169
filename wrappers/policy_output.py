"""The one channel through which a policy hands a reward wrapper more than its text: ``PolicyOutput``.

A Shop-R1 environment's ``step`` takes the policy's raw text. The self-certainty term also needs
the policy's per-token distributions over the rationale's tokens, which the text cannot carry,
so a reward wrapper's ``step`` accepts either the plain ``str`` or a :class:`PolicyOutput` and
passes only ``.text`` on to the environment. :func:`rationale_char_span` finds the characters of
the rationale's value in the text, so a policy can map them to token positions (a Hugging Face
tokenizer's ``return_offsets_mapping=True`` gives each token's characters) and slice its
``[T, V]`` log-probabilities down to the rationale's ``[N, V]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rewardgym.envs.shopping.parsing import MAX_CANDIDATES
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
    """

    text: str
    rationale_logprobs: LogProbs | None = None
    rationale_token_certainty: Sequence[float] | np.ndarray | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"PolicyOutput.text must be a str, got {type(self.text).__name__}")

    @property
    def has_certainty_input(self) -> bool:
        """True when log-probabilities or per-token certainties of the rationale were supplied."""
        return self.rationale_logprobs is not None or self.rationale_token_certainty is not None


def as_policy_output(action: str | PolicyOutput) -> PolicyOutput:
    """Read a wrapper's ``step`` argument: a plain string becomes a ``PolicyOutput`` without log-probs."""
    if isinstance(action, PolicyOutput):
        return action
    if isinstance(action, str):
        return PolicyOutput(action)
    raise TypeError(
        "a Shop-R1 reward wrapper's step takes the policy's text (str) or a PolicyOutput, "
        f"got {type(action).__name__}"
    )


def rationale_char_span(text: str) -> tuple[int, int] | None:
    """Character range ``[start, end)`` of the first ``"rationale"`` string value's content, or None."""
    for tried, match in enumerate(_RATIONALE_KEY.finditer(text)):
        if tried >= MAX_CANDIDATES:
            break
        try:
            _, end = _DECODER.raw_decode(text, match.end() - 1)
        except ValueError:
            continue
        return match.end(), end - 1
    return None


__all__ = ["PolicyOutput", "as_policy_output", "rationale_char_span"]
