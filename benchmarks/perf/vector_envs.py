"""Steps per second of ``gym.make_vec`` (sync, async) against N single envs stepped in a loop.

Run ``python -m rewardgym.benchmarks.perf.vector_envs`` (``--help`` lists the options). For each
env id it times ``steps`` batched steps of ``num_envs`` sub-envs three ways: N single
``gym.make`` envs stepped one after another by hand, ``SyncVectorEnv`` and ``AsyncVectorEnv``
(one process per sub-env), all made before the clock starts and reset on the same seeds, and
prints env steps per second and each one's ratio to the single envs. Async runs the shop envs
without shared memory (their texts have no fixed size) and the others with it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Annotated, Any

import gymnasium as gym
import numpy as np
import tyro

from rewardgym.bounds import AT_LEAST_1, SEED, check_fields
from rewardgym.envs import HOUSEHOLD_ID, SHOP_SESSION_ID

SHOP_ANSWER = (
    '{"rationale": "I look at the results.", "action": {"type": "click", "name": "search"}}'
)
"""The shop envs' action at every step: a parseable click (random text would time the parser's refusals)."""


@dataclass(frozen=True)
class Config:
    """Benchmark budget; every field is a command-line option of the same name."""

    env_ids: tuple[str, ...] = (SHOP_SESSION_ID, HOUSEHOLD_ID)
    """Registered ids to time (a shop id and a household id by default)."""
    num_envs: Annotated[int, AT_LEAST_1] = 4
    """Sub-envs per vector env (and single envs in the loop)."""
    steps: Annotated[int, AT_LEAST_1] = 400
    """Batched steps timed per way (each is ``num_envs`` env steps)."""
    seed: Annotated[int, SEED] = 0
    """Seed of the resets and of the household actions."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range and an empty list of ids before any work."""
        check_fields(self)
        if not self.env_ids:
            raise ValueError("Config.env_ids is empty: name at least one registered id")


def _actions(env: gym.Env[Any, Any], config: Config) -> list[list[Any]]:
    """``steps`` actions for each sub-env, drawn before timing."""
    if isinstance(env.action_space, gym.spaces.Text):
        return [[SHOP_ANSWER] * config.num_envs for _ in range(config.steps)]
    space = env.action_space
    space.seed(config.seed)
    return [[space.sample() for _ in range(config.num_envs)] for _ in range(config.steps)]


def time_singles(env_id: str, actions: list[list[Any]], config: Config) -> float:
    """Env steps per second of N single envs stepped by hand, each reset when its episode ends."""
    envs = [gym.make(env_id) for _ in range(config.num_envs)]
    for i, env in enumerate(envs):
        env.reset(seed=config.seed + i)
    start = time.perf_counter()
    for batch in actions:
        for env, action in zip(envs, batch, strict=True):
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
    elapsed = time.perf_counter() - start
    for env in envs:
        env.close()
    return len(actions) * config.num_envs / elapsed


def fits_shared_memory(space: gym.Space[Any]) -> bool:
    """Whether an ``AsyncVectorEnv`` can pass observations of ``space`` through shared memory."""
    from rewardgym.envs.spaces import UnicodeText

    if isinstance(space, gym.spaces.Dict):
        return all(fits_shared_memory(sub) for sub in space.spaces.values())
    if isinstance(space, gym.spaces.Tuple):
        return all(fits_shared_memory(sub) for sub in space.spaces)
    return not isinstance(space, UnicodeText | gym.spaces.Sequence | gym.spaces.Graph)


def time_vector(
    env_id: str, mode: str, actions: list[list[Any]], config: Config, *, shared: bool
) -> float:
    """Env steps per second of ``gym.make_vec(env_id, num_envs, mode)`` (its autoreset included)."""
    vector_kwargs = {"shared_memory": shared} if mode == "async" else {}
    envs = gym.make_vec(
        env_id, num_envs=config.num_envs, vectorization_mode=mode, vector_kwargs=vector_kwargs
    )
    try:
        envs.reset(seed=config.seed)
        discrete = isinstance(envs.single_action_space, gym.spaces.Discrete)
        batches = [np.asarray(b) if discrete else tuple(b) for b in actions]
        start = time.perf_counter()
        for batch in batches:
            envs.step(batch)
        elapsed = time.perf_counter() - start
    finally:
        envs.close()
    return len(actions) * config.num_envs / elapsed


def run(config: Config) -> dict[str, dict[str, float]]:
    """Time every id three ways; print the table and return the figures (env steps/s per way)."""
    import torch

    import rewardgym  # noqa: F401  (registers the rewardgym ids)

    print(
        f"{config.num_envs} sub-envs x {config.steps} steps; {os.cpu_count()} CPUs, "
        f"torch threads {torch.get_num_threads()}"
    )
    print(f"{'env':28s} {'way':8s} {'env steps/s':>12s} {'vs singles':>11s}")
    figures: dict[str, dict[str, float]] = {}
    for env_id in config.env_ids:
        probe = gym.make(env_id)
        actions = _actions(probe, config)
        shared = fits_shared_memory(probe.observation_space)
        probe.close()
        rates = {"singles": time_singles(env_id, actions, config)}
        for mode in ("sync", "async"):
            rates[mode] = time_vector(env_id, mode, actions, config, shared=shared)
        for way, rate in rates.items():
            print(f"{env_id:28s} {way:8s} {rate:12,.0f} {rate / rates['singles']:10.2f}x")
        figures[env_id] = rates
    for env_id, rates in figures.items():
        print(
            f"ratio {env_id}: sync/singles {rates['sync'] / rates['singles']:.2f}, "
            f"async/singles {rates['async'] / rates['singles']:.2f}, "
            f"async/sync {rates['async'] / rates['sync']:.2f}"
        )
    return figures


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
