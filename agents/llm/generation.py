"""Batch sampling from a causal LM that also records the policy's self-certainty of every sampled token.

A forward hook on the model's output embedding sees the raw logits the model produces for each
new token (before temperature or nucleus filtering), which are the policy's own distributions
the Shop-R1 rationale reward needs. It reduces each step's ``[B, V]`` logits at once to ``B``
per-token self-certainty values with the wrappers' pure
:func:`~rewardgym.wrappers.self_certainty.token_self_certainty`, so memory stays ``O(B x T)``
whatever the vocabulary. :func:`policy_output` hands them, with each token's character end, to
a reward wrapper in a :class:`~rewardgym.wrappers.PolicyOutput`; the wrapper keeps the
rationale's tokens after the env's one parse. No extra forward pass is needed.
:func:`rationale_positions` finds the rationale's tokens for callers outside a wrapper.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.wrappers.policy_output import PolicyOutput, rationale_char_span
from rewardgym.wrappers.self_certainty import CertaintyKind, token_self_certainty

if TYPE_CHECKING:
    import torch
    from transformers import (
        GenerationConfig,
        LogitsProcessorList,
        PreTrainedModel,
        PreTrainedTokenizerBase,
    )


class CertaintyRecorder:
    """Collects, per generated position, each row's self-certainty from the model's raw logits."""

    def __init__(self, kind: CertaintyKind = "paper") -> None:
        self.kind: CertaintyKind = kind
        self.steps: list[np.ndarray] = []

    def __call__(self, module: Any, args: Any, output: torch.Tensor) -> None:
        """Forward hook of the output embedding: reduce the last position's logits to ``[B]``."""
        self.steps.append(token_self_certainty(output[:, -1, :], self.kind))

    def matrix(self) -> np.ndarray:
        """The recorded values as ``[B, T]`` (T = generated positions)."""
        if not self.steps:
            return np.zeros((0, 0))
        return np.stack(self.steps, axis=1)


@contextmanager
def record_certainty(
    model: PreTrainedModel, kind: CertaintyKind = "paper"
) -> Iterator[CertaintyRecorder]:
    """Record per-token self-certainty while ``model.generate`` runs inside the ``with`` block."""
    recorder = CertaintyRecorder(kind)
    head = model.get_output_embeddings()
    if head is None:
        raise ValueError(f"{type(model).__name__} has no output embedding to read logits from")
    handle = head.register_forward_hook(recorder)
    try:
        yield recorder
    finally:
        handle.remove()


@dataclass(frozen=True)
class Generation:
    """Sampled completions (token ids up to and including EOS) and, optionally, per-token certainty."""

    completion_ids: list[list[int]]
    certainty: list[np.ndarray] | None


def generate(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    prompt_ids: Sequence[Sequence[int]],
    generation_config: GenerationConfig,
    *,
    certainty: CertaintyKind | None = None,
    logits_processor: LogitsProcessorList | None = None,
) -> Generation:
    """Sample one completion per prompt (left-padded batch); record self-certainty when asked.

    ``logits_processor`` runs after ``generation_config``'s own processors (constrained
    decoding passes its mask and the warpers that must follow it).
    """
    import torch

    device = next(model.parameters()).device
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    width = max(len(p) for p in prompt_ids)
    ids = torch.full((len(prompt_ids), width), int(pad), dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, prompt in enumerate(prompt_ids):
        if prompt:
            ids[row, width - len(prompt) :] = torch.tensor(list(prompt))
            mask[row, width - len(prompt) :] = 1
    ids, mask = ids.to(device), mask.to(device)
    runner: Any = model  # transformers' stubs type ``generate`` loosely
    kwargs: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
    kwargs["generation_config"] = generation_config
    if logits_processor is not None:
        kwargs["logits_processor"] = logits_processor
    with torch.no_grad():
        if certainty is None:
            out = runner.generate(**kwargs)
            values = None
        else:
            with record_certainty(model, certainty) as recorder:
                out = runner.generate(**kwargs)
            values = recorder.matrix()
    completions = out[:, width:].cpu().tolist()
    eos = _eos_ids(generation_config, tokenizer)
    trimmed = [_cut_after_eos(row, eos) for row in completions]
    rows = None if values is None else [values[i, : len(c)] for i, c in enumerate(trimmed)]
    return Generation(trimmed, rows)


def _eos_ids(config: GenerationConfig, tokenizer: PreTrainedTokenizerBase) -> set[int]:
    raw = config.eos_token_id if config.eos_token_id is not None else tokenizer.eos_token_id
    if raw is None:
        return set()
    return {int(raw)} if isinstance(raw, int) else {int(t) for t in raw}


def _cut_after_eos(ids: list[int], eos: set[int]) -> list[int]:
    for position, token in enumerate(ids):
        if token in eos:
            return ids[: position + 1]
    return ids


def token_char_ends(tokenizer: PreTrainedTokenizerBase, ids: Sequence[int]) -> list[int]:
    """For each token, the length of the decoded text of the tokens up to and including it."""
    prefixes = [list(ids[: k + 1]) for k in range(len(ids))]
    if not prefixes:
        return []
    return [len(t) for t in tokenizer.batch_decode(prefixes, skip_special_tokens=True)]


def rationale_positions(
    tokenizer: PreTrainedTokenizerBase, ids: Sequence[int], text: str
) -> np.ndarray:
    """Indices of the tokens of ``ids`` (decoding to ``text``) that overlap the rationale's value."""
    span = rationale_char_span(text)
    if span is None:
        return np.zeros(0, dtype=np.int64)
    start, end = span
    ends = token_char_ends(tokenizer, ids)
    begins = [0, *ends[:-1]]
    picked = [i for i, (b, e) in enumerate(zip(begins, ends, strict=True)) if b < end and e > start]
    return np.asarray(picked, dtype=np.int64)


def policy_output(
    tokenizer: PreTrainedTokenizerBase,
    ids: Sequence[int],
    text: str,
    certainty: np.ndarray | None,
) -> PolicyOutput:
    """The reward channel for one completion: its text plus every token's certainty and end.

    The wrapper keeps the values of the rationale's tokens once the env has parsed the text
    (:meth:`~rewardgym.wrappers.PolicyOutput.rationale_certainty`), so nothing is parsed here.
    """
    if certainty is None:
        return PolicyOutput(text)
    return PolicyOutput(text, token_certainty=certainty, token_ends=token_char_ends(tokenizer, ids))


__all__ = [
    "CertaintyRecorder",
    "Generation",
    "generate",
    "policy_output",
    "rationale_positions",
    "record_certainty",
    "token_char_ends",
]
