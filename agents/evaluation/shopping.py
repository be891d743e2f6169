"""Score a shopper policy on held-out sessions by stepping ``ShopSession-v0`` (and its wrappers)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
from tqdm.auto import tqdm

from rewardgym.envs import SHOP_SESSION_ID
from rewardgym.envs.shopping.metrics import ShopMetrics, shop_metrics
from rewardgym.envs.shopping.schema import ShopAction


@dataclass(frozen=True)
class ShopEvaluation:
    """Metrics of one policy on one split, with the mean env reward per step."""

    metrics: ShopMetrics
    mean_reward: float
    steps: int


def collect_observations(env: gym.Env, sessions: Sequence[int]) -> list[list[dict[str, Any]]]:
    """Every observation of the given sessions; teacher forcing makes them independent of actions."""
    episodes = []
    for index in sessions:
        obs, _ = env.reset(options={"session": index})
        seen = [obs]
        while True:
            obs, _, terminated, truncated, _ = env.step("")
            if terminated or truncated:
                break
            seen.append(obs)
        episodes.append(seen)
    return episodes


def evaluate_outputs(
    env: gym.Env, sessions: Sequence[int], outputs: Sequence[Sequence[Any]]
) -> ShopEvaluation:
    """Replay ``outputs[k][t]`` as the answer to step t of session ``sessions[k]`` and score it."""
    predictions: list[ShopAction | None] = []
    truths: list[ShopAction] = []
    total = 0.0
    for index, answers in zip(sessions, outputs, strict=True):
        env.reset(options={"session": index})
        for answer in answers:
            _, reward, terminated, truncated, info = env.step(answer)
            total += float(reward)
            predicted = info["prediction"]["action"]
            predictions.append(ShopAction(**predicted) if predicted else None)
            truths.append(ShopAction(**info["truth"]))
            if terminated or truncated:
                break
    steps = len(truths)
    return ShopEvaluation(shop_metrics(predictions, truths), total / max(steps, 1), steps)


def evaluate_policy(
    act: Callable[[list[dict[str, Any]]], list[Any]],
    *,
    env: gym.Env | None = None,
    split: str = "test",
    max_sessions: int | None = None,
    batch_size: int = 64,
    progress: bool = True,
    desc: str = "evaluating",
    **env_kwargs: Any,
) -> ShopEvaluation:
    """Score ``act`` (a batch of observations -> raw outputs) on the sessions of ``split``."""
    env = env if env is not None else gym.make(SHOP_SESSION_ID, split=split, **env_kwargs)
    count = env.unwrapped.num_sessions  # type: ignore[attr-defined]
    sessions = list(range(count if max_sessions is None else min(count, max_sessions)))
    episodes = collect_observations(env, sessions)
    flat = [obs for episode in episodes for obs in episode]
    answers: list[Any] = []
    with tqdm(total=len(flat), desc=desc, disable=not progress, leave=False) as bar:
        for start in range(0, len(flat), batch_size):
            chunk = flat[start : start + batch_size]
            answers.extend(act(chunk))
            bar.update(len(chunk))
    outputs, cursor = [], 0
    for episode in episodes:
        outputs.append(answers[cursor : cursor + len(episode)])
        cursor += len(episode)
    return evaluate_outputs(env, sessions, outputs)


__all__ = ["ShopEvaluation", "collect_observations", "evaluate_outputs", "evaluate_policy"]
