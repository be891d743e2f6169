"""GRPO's reward: step the registered env and its wrapper stack at each completion's logged step.

The wrapper stack is the single source of reward. :class:`EnvReward` is a TRL reward function
(``(prompts, completions, **columns) -> list[float]``) that, for each completion, resets the env
to the row's session, replays the human's earlier steps (teacher forcing, as the env does) and
steps the completion, returning the reward the outermost wrapper gives. Swapping
``ShopR1Reward``'s config, or the wrapper for a user's, changes training and nothing
else. When the stack pays a self-certainty term (:func:`certainty_kind`), the completion goes in
as a :class:`~rewardgym.wrappers.PolicyOutput` carrying every token's self-certainty; the
wrapper keeps its rationale's tokens once the env has parsed the text (the one parse).

For decoupled advantages (GDPO, arXiv 2601.05242) :meth:`EnvReward.term_functions` gives one
TRL reward function per reward term the wrapper stack declares (:func:`summed_terms`: the keys
of ``info["reward_terms"]`` that sum to the total, ``ShopR1Reward.summed_terms`` for Shop-R1);
the env is stepped once per completion and every term read from that one
``info["reward_terms"]``, so TRL's ``normalize_then_sum`` normalises each term within its group
before summing.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from rewardgym.agents.llm.generation import token_char_ends
from rewardgym.wrappers.policy_output import PolicyOutput
from rewardgym.wrappers.self_certainty import CERTAINTY_KINDS, CertaintyKind, token_self_certainty

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

WrapperFactory = Callable[[gym.Env], gym.Env]
"""Builds the reward wrapper stack around a fresh ``ShopSession-v0`` env."""


def completion_text(completion: Any) -> str:
    """The text of one TRL completion: a plain string, or the last message's ``content`` of a
    conversational completion (a list of ``{"role", "content"}`` dicts); anything else is ``""``."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], Mapping):
        content = completion[-1].get("content")
        return content if isinstance(content, str) else ""
    return ""


def certainty_kind(env: gym.Env) -> CertaintyKind | None:
    """The self-certainty kind a wrapper of ``env`` pays for, or None when none does.

    A wrapper declares it with a ``self_certainty_kind`` attribute (None when it pays no such
    term, as :class:`~rewardgym.wrappers.ShopR1Reward` does at ``alpha = 0``), found through
    Gymnasium's ``get_wrapper_attr`` (the outermost layer that has it).
    """
    try:
        kind = env.get_wrapper_attr("self_certainty_kind")
    except AttributeError:
        return None
    if kind is not None and kind not in CERTAINTY_KINDS:
        raise ValueError(
            f"{type(env).__name__}.self_certainty_kind={kind!r}: use one of {CERTAINTY_KINDS} "
            "or None"
        )
    return kind


def summed_terms(env: gym.Env) -> tuple[str, ...] | None:
    """The reward terms a wrapper of ``env`` declares as adding up to its reward, or None.

    A wrapper declares them with a ``summed_terms`` attribute naming keys of its
    ``info["reward_terms"]`` (:attr:`~rewardgym.wrappers.ShopR1Reward.summed_terms`), found
    through Gymnasium's ``get_wrapper_attr`` (the outermost layer that has it).
    """
    try:
        terms = env.get_wrapper_attr("summed_terms")
    except AttributeError:
        return None
    if isinstance(terms, str) or not all(isinstance(t, str) for t in terms) or not terms:
        raise ValueError(
            f"{type(env).__name__}.summed_terms={terms!r}: declare a non-empty tuple of the "
            "info['reward_terms'] keys that add up to the reward"
        )
    return tuple(terms)


class TermReward:
    """One reward term of an :class:`EnvReward` as a TRL reward function of its own."""

    def __init__(self, parent: EnvReward, term: str) -> None:
        self.parent = parent
        self.term = term
        self.__name__ = f"term_{term}"

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float]:
        """The term's value for each completion (the env is stepped once for all terms)."""
        return self.parent.terms(prompts, completions, **kwargs)[self.term]


class EnvReward:
    """A TRL reward function that scores completions by stepping the env + wrapper stack."""

    __name__ = "env_reward"

    def __init__(self, env: gym.Env, *, order_log: str | Path | None = None) -> None:
        self.env = env
        self.kind = certainty_kind(env)
        self.order_log = Path(order_log) if order_log is not None else None
        self.durations: list[float] = []
        self.model: PreTrainedModel | None = None
        self.tokenizer: PreTrainedTokenizerBase | None = None
        self._last_key: tuple[Any, ...] | None = None
        self._last_terms: dict[str, list[float]] = {}

    def term_functions(self) -> list[TermReward]:
        """One TRL reward function per term the wrapper stack declares, for decoupled advantages."""
        return [TermReward(self, term) for term in self._summed_terms()]

    def _summed_terms(self) -> tuple[str, ...]:
        terms = summed_terms(self.env)
        if terms is None:
            raise ValueError(
                f"per-term advantages need the reward wrapper to declare its terms, and no layer "
                f"of {self.env} has a summed_terms attribute: give the wrapper class "
                "summed_terms = (...), the info['reward_terms'] keys that add up to its reward "
                "(as ShopR1Reward does), or train with advantages='summed'"
            )
        return terms

    def terms(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> dict[str, list[float]]:
        """Every reward term per completion; a repeated call with the same batch is not rescored."""
        key = (
            tuple(str(c) for c in completions),
            tuple(int(s) for s in kwargs["session"]),
            tuple(int(j) for j in kwargs["step"]),
        )
        if key != self._last_key:
            self._last_terms = {}
            self(prompts, completions, **kwargs)
            self._last_key = key
        terms = self._summed_terms()
        missing = [t for t in terms if t not in self._last_terms]
        if missing:
            raise KeyError(
                f"per-term advantages need every term the wrapper declares, {terms}, in "
                f"info['reward_terms']; the wrapper stack gives none for {missing}"
            )
        return self._last_terms

    @property
    def seconds(self) -> float:
        """Wall time spent in this reward function so far (env stepping and scoring)."""
        return float(sum(self.durations))

    def bind_model(self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase) -> None:
        """Use ``model`` for self-certainty by an extra forward pass when rollouts bring none."""
        self.model, self.tokenizer = model, tokenizer

    def score(self, output: str | PolicyOutput, session: int, step: int) -> tuple[float, dict]:
        """The wrapper stack's reward and info for ``output`` at step ``step`` of ``session``."""
        self.env.reset(options={"session": int(session)})
        for _ in range(int(step)):
            self.env.step("")
        _, reward, _, _, info = self.env.step(output)
        return float(reward), info

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        session: Sequence[int],
        step: Sequence[int],
        completion_ids: Sequence[Sequence[int]] | None = None,
        token_certainty: Sequence[np.ndarray] | None = None,
        token_ends: Sequence[Sequence[int]] | None = None,
        trainer_state: Any = None,
        log_metric: Callable[[str, float], None] | None = None,
        **kwargs: Any,
    ) -> list[float]:
        """One reward per completion, from the env's outermost wrapper.

        ``token_certainty`` and ``token_ends`` (every completion token's self-certainty and
        character end, from the rollout) go to the wrapper in a :class:`PolicyOutput`, which
        keeps the rationale's tokens after the env's parse; when the stack pays self-certainty
        and the rollout brought none, one forward pass of the bound model computes them.
        """
        start = time.perf_counter()
        texts = [completion_text(c) for c in completions]
        if self.kind is not None and token_certainty is None and completion_ids is not None:
            token_certainty, token_ends = self._forward_certainty(prompts, completion_ids)
        rewards: list[float] = []
        terms: dict[str, list[float]] = defaultdict(list)
        for k, (text, s, j) in enumerate(zip(texts, session, step, strict=True)):
            output: str | PolicyOutput = text
            if self.kind is not None and token_certainty is not None and token_ends is not None:
                output = PolicyOutput(
                    text, token_certainty=token_certainty[k], token_ends=token_ends[k]
                )
            reward, info = self.score(output, s, j)
            rewards.append(reward)
            for name, value in info.get("reward_terms", {}).items():
                terms[name].append(float(value))
        self.durations.append(time.perf_counter() - start)
        self._last_terms = dict(terms)
        if log_metric is not None:
            for name, series in terms.items():
                log_metric(f"reward_terms/{name}", float(np.mean(series)))
        if self.order_log is not None:
            global_step = int(getattr(trainer_state, "global_step", -1))
            line = {
                "step": global_step,
                "rows": [[int(s), int(j)] for s, j in zip(session, step, strict=True)],
            }
            with open(self.order_log, "a") as handle:
                handle.write(json.dumps(line, allow_nan=False) + "\n")
        return rewards

    def _forward_certainty(
        self, prompts: Sequence[Any], completion_ids: Sequence[Sequence[int]]
    ) -> tuple[list[np.ndarray], list[list[int]]]:
        if self.model is None or self.tokenizer is None or self.kind is None:
            raise RuntimeError(
                "EnvReward needs bind_model(model, tokenizer) to compute self-certainty when the "
                "rollout does not supply it"
            )
        values = forward_token_certainty(
            self.model, self.tokenizer, [str(p) for p in prompts], completion_ids, self.kind
        )
        return values, [token_char_ends(self.tokenizer, ids) for ids in completion_ids]


def forward_token_certainty(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[str],
    completion_ids: Sequence[Sequence[int]],
    kind: CertaintyKind,
) -> list[np.ndarray]:
    """Self-certainty of every completion token by one no-grad forward pass of ``model``.

    The values :func:`~rewardgym.agents.llm.generation.generate` records while sampling, for
    completions sampled elsewhere (vLLM returns no logits).
    """
    import torch

    device = next(model.parameters()).device
    prompt_ids = tokenizer(list(prompts), add_special_tokens=False)["input_ids"]
    sequences = [list(p) + list(c) for p, c in zip(prompt_ids, completion_ids, strict=True)]
    width = max(len(s) for s in sequences)
    pad = int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0)
    ids = torch.full((len(sequences), width), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = 1
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
    model.train(was_training)
    values = []
    for row, (p, c) in enumerate(zip(prompt_ids, completion_ids, strict=True)):
        # The logits at position t predict token t + 1: completion token i is predicted at p + i - 1.
        rows = logits[row, len(p) - 1 : len(p) + len(c) - 1]
        values.append(token_self_certainty(rows, kind) if len(c) else np.zeros(0))
    return values


__all__ = [
    "EnvReward",
    "TermReward",
    "WrapperFactory",
    "certainty_kind",
    "completion_text",
    "forward_token_certainty",
    "summed_terms",
]
