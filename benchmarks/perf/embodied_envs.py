"""Household vs BabyAI step throughput, and the time to collect COREN's 8,000 trajectories.

Run ``python -m rewardgym.benchmarks.perf.embodied_envs`` (``--help`` lists the options). It
prints steps/s of ``rewardgym/Household-v0`` beside minigrid's ``BabyAI-GoToLocal-v0`` and
our text version of it, their ratio (target: Household at least 5x faster per step), and
the seconds taken to collect (and save) the default 8,000 Household trajectories.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from dataclasses import dataclass
from typing import Annotated, Any

import gymnasium as gym
import tyro

from rewardgym.bounds import AT_LEAST_1, SEED, check_fields
from rewardgym.envs import HOUSEHOLD_V0_ID, babyai_text_id


@dataclass(frozen=True)
class Config:
    """Benchmark budget; every field is a command-line option of the same name."""

    household_steps: Annotated[int, AT_LEAST_1] = 100_000
    """Random-action steps timed on Household."""
    babyai_steps: Annotated[int, AT_LEAST_1] = 10_000
    """Random-action steps timed on each BabyAI env."""
    collect_episodes: Annotated[int, AT_LEAST_1] = 8000
    """Trajectories to collect (COREN's Household set: about 8,000)."""
    save: bool = True
    """Also time writing the data set (Arrow + Minari)."""
    seed: Annotated[int, SEED] = 0
    """Seed of envs, actions and collection."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def steps_per_second(env_id: str, steps: int, seed: int) -> float:
    """Random-action steps per second of ``gym.make(env_id)``, resets included."""
    env = gym.make(env_id)
    env.action_space.seed(seed)
    # minigrid prints rejected level samples on reset; keep the output readable.
    with contextlib.redirect_stdout(io.StringIO()):
        env.reset(seed=seed)
        start = time.perf_counter()
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                env.reset()
        elapsed = time.perf_counter() - start
    env.close()
    return steps / elapsed


def run(args: Config) -> dict[str, Any]:
    """Time every env and the collection; print and return the figures."""
    import minigrid  # noqa: F401  (registers BabyAI-GoToLocal-v0)

    import rewardgym  # noqa: F401  (registers the rewardgym ids)
    from rewardgym.envs.trajectories import CollectConfig, collect_dataset

    household = steps_per_second(HOUSEHOLD_V0_ID, args.household_steps, args.seed)
    babyai = steps_per_second("BabyAI-GoToLocal-v0", args.babyai_steps, args.seed)
    babyai_text = steps_per_second(babyai_text_id("GoToLocal"), args.babyai_steps, args.seed)
    print(f"{'env':38s} {'steps/s':>10s}")
    print(f"{HOUSEHOLD_V0_ID:38s} {household:10,.0f}")
    print(f"{'BabyAI-GoToLocal-v0 (minigrid)':38s} {babyai:10,.0f}")
    print(f"{babyai_text_id('GoToLocal'):38s} {babyai_text:10,.0f}")
    print(
        f"Household / BabyAI-GoToLocal: {household / babyai:.1f}x "
        f"(text version: {household / babyai_text:.1f}x; target >= 5x)"
    )

    start = time.perf_counter()
    data = collect_dataset(CollectConfig(episodes=args.collect_episodes, seed=args.seed))
    collect_s = time.perf_counter() - start
    print(
        f"collect {len(data):,} Household trajectories ({data.n_steps:,} steps): "
        f"{collect_s:.1f} s; success rate of the perturbed data {data.success_rate:.3f}"
    )
    save_s = float("nan")
    if args.save:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            data.save(f"{tmp}/household", minari=True)
            save_s = time.perf_counter() - start
        print(f"save as Arrow + Minari: {save_s:.1f} s (collect + save {collect_s + save_s:.1f} s)")
    return {
        "household_steps_per_s": household,
        "babyai_steps_per_s": babyai,
        "babyai_text_steps_per_s": babyai_text,
        "ratio": household / babyai,
        "ratio_text": household / babyai_text,
        "collect_s": collect_s,
        "save_s": save_s,
        "success_rate": data.success_rate,
        "episodes": len(data),
    }


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
