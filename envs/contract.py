"""The contract every rewardgym environment and reward wrapper keeps, as checks anyone can run.

Call :func:`check_environment` on a factory of your own environment, and
:func:`check_reward_wrapper` on your reward wrapper, from your tests (like dm_env's test mixin).
"""

from __future__ import annotations

import math
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.utils.env_checker import check_env, data_equivalence


def seeded_rollout(env: gym.Env, seed: int, steps: int = 25) -> list[Any]:
    """Observations, rewards and flags of ``steps`` random steps after ``reset(seed=seed)``."""
    obs, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    trace: list[Any] = [obs]
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        trace.append((obs, reward, terminated, truncated))
        if terminated or truncated:
            obs, _ = env.reset()
            trace.append(obs)
    return trace


def check_environment(make_env: Callable[[], gym.Env], *, seed: int = 7, steps: int = 25) -> None:
    """Gymnasium's checker, a seeded determinism rollout and a pickle round trip; raise on failure."""
    env = make_env()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_env(env.unwrapped, skip_render_check=True)
    first, second = make_env(), make_env()
    if not data_equivalence(
        seeded_rollout(first, seed, steps), seeded_rollout(second, seed, steps)
    ):
        raise AssertionError("two environments reset with the same seed diverged")
    first.reset(seed=seed + 1)
    clone = pickle.loads(pickle.dumps(first))
    if not data_equivalence(seeded_rollout(first, seed, steps), seeded_rollout(clone, seed, steps)):
        raise AssertionError("a pickled and restored environment diverged from the original")
    for item in (env, first, second, clone):
        item.close()


def check_reward_wrapper(env: gym.Env, actions: list[Any], *, seed: int = 0) -> None:
    """Every step reports finite ``info["reward_terms"]`` whose ``total`` is the returned reward."""
    env.reset(seed=seed)
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
        terms = info.get("reward_terms")
        if not isinstance(terms, dict) or "total" not in terms:
            raise AssertionError(f"step({action!r}) put no reward_terms with a 'total' into info")
        bad = {k: v for k, v in terms.items() if not math.isfinite(float(v))}
        if bad:
            raise AssertionError(f"non-finite reward terms {bad} for action {action!r}")
        if float(terms["total"]) != float(reward):
            raise AssertionError(
                f"reward {reward} differs from reward_terms['total'] {terms['total']}"
            )
        if terminated or truncated:
            env.reset()


__all__ = ["check_environment", "check_reward_wrapper", "seeded_rollout"]
