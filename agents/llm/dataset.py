"""Prompt-completion datasets of logged steps, read by stepping ``ShopSession-v0`` itself.

Every row is one human step of a split: ``prompt`` (the policy's prompt for the observation the
env gives before that step), ``completion`` (the human's rationale and action as the canonical
JSON, the SFT target), and the env coordinates ``session`` (position in the split) and ``step``,
which GRPO's reward function uses to replay the same step through the env and its wrappers.
Reading the rows through the env keeps one source of truth for the context the policy sees.
With the env's ``element_ids`` option on, the completion names the element by its id on the
page (``"name": "[3]"``, :func:`~rewardgym.envs.shopping.element_ids.with_ids`) and the row
keeps the page's elements, so an output can be resolved as the env resolves it.

A validation split is carved from the training split (:func:`split_sessions`): a training
session is held out for validation when ``blake2b(f"validation:{seed}:{session_id}")`` falls
below ``validation_fraction``. Settings are chosen on it; the test split is read only for the
final tables.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import gymnasium as gym
import numpy as np

from rewardgym.envs import SHOP_SESSION_ID
from rewardgym.envs.shopping.compact import page_elements
from rewardgym.envs.shopping.element_ids import with_ids
from rewardgym.envs.shopping.page_actions import PageActions
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.envs.shopping.session_log import SessionLog
from rewardgym.progress import progress_bar as tqdm

if TYPE_CHECKING:
    from datasets import Dataset

DataArg = str | os.PathLike[str] | SessionLog | None
SuiteSplit = Literal["train", "validation", "test"]

VALIDATION_FRACTION = 0.1
"""Default share of the env's training sessions held out as the validation split."""


@dataclass(frozen=True)
class StepRow:
    """One logged step as a training example: prompt, target completion and env coordinates.

    ``truth``, ``previous`` and ``first_rationale`` (the human's action, the action before it,
    the session's first rationale) let a suite score outputs and measure prompt coverage;
    ``elements`` (the page's element names, id ``i`` the i-th) is set when the env lists ids.
    """

    prompt: str
    completion: str
    session: int
    step: int
    truth: ShopAction | None = None
    previous: ShopAction | None = None
    first_rationale: str | None = None
    elements: tuple[str, ...] | None = None
    actions: PageActions | None = None
    """What the step's page allows, named as the prompt names elements (constrained decoding)."""

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


def in_validation(session_id: str, fraction: float, seed: int = 0) -> bool:
    """Whether a training session is held out for validation (module docstring's rule)."""
    digest = hashlib.blake2b(f"validation:{seed}:{session_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64 < fraction


def split_sessions(
    data: DataArg, split: SuiteSplit, *, validation_fraction: float, seed: int = 0
) -> tuple[str, list[int]]:
    """The env split and the session positions in it that make up ``split`` of a suite.

    ``train`` and ``validation`` are disjoint parts of the env's ``train`` split; ``test`` is
    the env's ``test`` split, whole.
    """
    from rewardgym.envs.shopping.session_sources import resolve_sessions

    if split == "test":
        _, positions = resolve_sessions(data, "test")
        return "test", list(range(len(positions)))
    if not 0.0 <= validation_fraction < 1.0:
        raise ValueError(f"validation_fraction must lie in [0, 1), got {validation_fraction}")
    log, train = resolve_sessions(data, "train")
    held = [in_validation(log.session_ids[index], validation_fraction, seed) for index in train]
    chosen = [k for k, h in enumerate(held) if h == (split == "validation")]
    if not chosen:
        raise ValueError(
            f"the {split!r} part of the training split is empty ({len(train)} sessions, "
            f"validation_fraction={validation_fraction})"
        )
    return "train", chosen


def step_rows(
    prompt: Callable[[Mapping[str, Any]], str],
    *,
    data: DataArg = None,
    split: str = "train",
    env_kwargs: Mapping[str, Any] | None = None,
    max_sessions: int | None = None,
    sessions: Sequence[int] | None = None,
    progress: bool = True,
    action_first: bool = False,
) -> list[StepRow]:
    """Every step of the chosen sessions of ``split``, as prompt-completion rows.

    ``sessions`` are positions in the env's split (all of them by default), of which the first
    ``max_sessions`` are read. ``action_first`` writes each completion with the action before
    the rationale (``PromptConfig.action_first``).
    """
    env = make_env(data, split, env_kwargs or {})
    count = env.unwrapped.num_sessions  # type: ignore[attr-defined]
    ids = bool(getattr(env.unwrapped, "element_ids", False))
    chosen = list(range(count)) if sessions is None else list(sessions)
    chosen = chosen if max_sessions is None else chosen[:max_sessions]
    rows: list[StepRow] = []
    for index in tqdm(chosen, desc=f"{split} prompts", disable=not progress, leave=False):
        obs, info = env.reset(options={"session": index})
        previous: ShopAction | None = None
        first: str | None = None
        while True:
            text = prompt(obs)
            step = int(info["step"])
            elements = page_elements(str(obs["page"])) if ids else None
            allowed = PageActions.of_page(str(obs["page"]), ids=ids)
            obs, _, terminated, truncated, info = env.step("")
            action = ShopAction(**info["truth"])
            rationale = info.get("truth_rationale") or ""
            first = rationale if step == 0 else first
            target = with_ids(action, elements) if elements is not None else action
            completion = format_output(rationale, target, action_first=action_first)
            row = StepRow(text, completion, index, step, action, previous, first, elements, allowed)
            rows.append(row)
            previous = action
            if terminated or truncated:
                break
            info = {"step": step + 1}
    env.close()
    return rows


def row_actions(rows: Sequence[StepRow]) -> list[PageActions]:
    """What each row's page allows (every row ``step_rows`` makes carries it)."""
    missing = [k for k, r in enumerate(rows) if r.actions is None]
    if missing:
        raise ValueError(f"rows {missing[:5]} carry no page actions: build them with step_rows")
    return [r.actions for r in rows if r.actions is not None]


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


__all__ = [
    "VALIDATION_FRACTION",
    "DataArg",
    "StepRow",
    "SuiteSplit",
    "in_validation",
    "make_env",
    "row_actions",
    "sample_rows",
    "split_sessions",
    "step_rows",
    "to_dataset",
]
