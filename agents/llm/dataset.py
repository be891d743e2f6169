"""Prompt-completion datasets of logged steps, read by stepping ``ShopSession-v0`` itself.

Every row is one human step of a split: ``prompt`` (the policy's prompt for the observation the
env gives before that step), ``completion`` (the human's rationale and action as the canonical
JSON, the SFT target), and the env coordinates ``session`` (position in the split) and ``step``,
which GRPO's reward function uses to replay the same step through the env and its wrappers.
Reading the rows through the env keeps one source of truth for the context the policy sees.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from tqdm.auto import tqdm

from rewardgym.envs import SHOP_SESSION_ID
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.store import SessionStore

if TYPE_CHECKING:
    from datasets import Dataset

DataArg = str | os.PathLike[str] | SessionStore | None


@dataclass(frozen=True)
class StepRow:
    """One logged step as a training example: prompt, target completion and env coordinates."""

    prompt: str
    completion: str
    session: int
    step: int

    def to_dict(self) -> dict[str, Any]:
        """The row as a ``datasets`` record."""
        return {
            "prompt": self.prompt,
            "completion": self.completion,
            "session": self.session,
            "step": self.step,
        }


def make_env(data: DataArg, split: str, env_kwargs: Mapping[str, Any]) -> gym.Env:
    """The registered shopping env over ``data`` and ``split`` with the prompt's context options."""
    return gym.make(SHOP_SESSION_ID, data=data, split=split, **dict(env_kwargs))


def step_rows(
    prompt: Callable[[Mapping[str, Any]], str],
    *,
    data: DataArg = None,
    split: str = "train",
    env_kwargs: Mapping[str, Any] | None = None,
    max_sessions: int | None = None,
    progress: bool = True,
) -> list[StepRow]:
    """Every step of the first ``max_sessions`` sessions of ``split``, as prompt-completion rows."""
    env = make_env(data, split, env_kwargs or {})
    count = env.unwrapped.num_sessions  # type: ignore[attr-defined]
    sessions = range(count if max_sessions is None else min(count, max_sessions))
    rows: list[StepRow] = []
    for index in tqdm(sessions, desc=f"{split} prompts", disable=not progress, leave=False):
        obs, info = env.reset(options={"session": index})
        while True:
            text = prompt(obs)
            step = int(info["step"])
            obs, _, terminated, truncated, info = env.step("")
            action = ShopAction(**info["truth"])
            completion = format_output(info.get("truth_rationale") or "", action)
            rows.append(StepRow(text, completion, index, step))
            if terminated or truncated:
                break
            info = {"step": step + 1}
    env.close()
    return rows


def sample_rows(rows: list[StepRow], limit: int | None, seed: int) -> list[StepRow]:
    """At most ``limit`` rows drawn without replacement with ``seed`` (all of them when None)."""
    if limit is None or limit >= len(rows):
        return list(rows)
    picks = np.random.default_rng(seed).choice(len(rows), size=limit, replace=False)
    return [rows[i] for i in sorted(picks)]


def to_dataset(rows: list[StepRow]) -> Dataset:
    """A ``datasets.Dataset`` with columns ``prompt``, ``completion``, ``session``, ``step``."""
    from datasets import Dataset

    return Dataset.from_list([row.to_dict() for row in rows])


__all__ = ["DataArg", "StepRow", "make_env", "sample_rows", "step_rows", "to_dataset"]
