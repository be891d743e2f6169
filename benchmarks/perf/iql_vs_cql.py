"""DiscreteIQL training steps/s beside d3rlpy's DiscreteCQL, same encoder, batch and data, one run.

Both algorithms train on the same synthetic ``MDPDataset`` shaped like the Household data
(574-float structured observations, 58 actions, 15-step episodes) with the same
``VectorEncoderFactory``, batch size, learning rate and single torch thread. Rounds alternate
between the algorithms and the median round counts, so a busy machine slows both alike.
Rows: DiscreteCQL with d3rlpy's default Adam (the reference), DiscreteCQL with the fused Adam
our agents use, and DiscreteIQL with one and with two critics. The target is IQL >= 0.8x.

Run: ``python -m rewardgym.benchmarks.perf.iql_vs_cql [--batch 64] [--steps 200] [--rounds 5]``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
import tyro

from rewardgym.bounds import AT_LEAST_1, check_fields


def synthetic_mdp(n: int = 15_000, obs_dim: int = 574, actions: int = 58, seed: int = 0) -> Any:
    """A random discrete-action ``MDPDataset`` with Household's shapes and 15-step episodes."""
    import d3rlpy

    rng = np.random.default_rng(seed)
    return d3rlpy.dataset.MDPDataset(
        observations=rng.random((n, obs_dim), dtype=np.float32),
        actions=rng.integers(actions, size=(n, 1)),
        rewards=rng.random((n, 1), dtype=np.float32),
        terminals=(np.arange(n) % 15 == 14).astype(np.float32),
        action_space=d3rlpy.ActionSpace.DISCRETE,
        action_size=actions,
    )


def algorithms(batch: int, hidden: tuple[int, ...] = (256, 256)) -> dict[str, Any]:
    """The configs compared, all with the same encoder, batch and learning rate."""
    import d3rlpy
    from d3rlpy.models.encoders import VectorEncoderFactory

    from rewardgym.agents.offline.iql import DiscreteIQLConfig
    from rewardgym.agents.offline.optimizers import FusedAdamFactory

    def encoder() -> VectorEncoderFactory:
        return VectorEncoderFactory(hidden_units=list(hidden))

    lr = 1e-4
    return {
        "DiscreteCQL (d3rlpy, default Adam)": d3rlpy.algos.DiscreteCQLConfig(
            batch_size=batch,
            learning_rate=lr,
            target_update_interval=250,
            encoder_factory=encoder(),
        ),
        "DiscreteCQL (fused Adam)": d3rlpy.algos.DiscreteCQLConfig(
            batch_size=batch,
            learning_rate=lr,
            target_update_interval=250,
            encoder_factory=encoder(),
            optim_factory=FusedAdamFactory(),
        ),
        "DiscreteIQL (1 critic)": DiscreteIQLConfig(
            batch_size=batch,
            actor_learning_rate=lr,
            critic_learning_rate=lr,
            n_critics=1,
            actor_encoder_factory=encoder(),
            critic_encoder_factory=encoder(),
            value_encoder_factory=encoder(),
        ),
        "DiscreteIQL (2 critics, paper default)": DiscreteIQLConfig(
            batch_size=batch,
            actor_learning_rate=lr,
            critic_learning_rate=lr,
            n_critics=2,
            actor_encoder_factory=encoder(),
            critic_encoder_factory=encoder(),
            value_encoder_factory=encoder(),
        ),
    }


def measure(batch: int = 64, steps: int = 200, rounds: int = 5) -> dict[str, float]:
    """Median training steps/s of every config over alternating rounds of ``steps`` steps."""
    import d3rlpy
    import torch
    from d3rlpy.logging import NoopAdapterFactory

    torch.set_num_threads(1)
    data = synthetic_mdp()
    fit_args: dict[str, Any] = {
        "show_progress": False,
        "save_interval": 10**9,
        "logger_adapter": NoopAdapterFactory(),
    }
    built = {}
    for name, config in algorithms(batch).items():
        d3rlpy.seed(0)
        algo = config.create(device=False)
        algo.build_with_dataset(data)
        algo.fit(data, n_steps=20, n_steps_per_epoch=20, **fit_args)  # warm-up
        built[name] = algo
    speeds: dict[str, list[float]] = {name: [] for name in built}
    for _ in range(rounds):
        for name, algo in built.items():
            start = time.perf_counter()
            algo.fit(data, n_steps=steps, n_steps_per_epoch=steps, **fit_args)
            speeds[name].append(steps / (time.perf_counter() - start))
    return {name: float(np.median(values)) for name, values in speeds.items()}


@dataclass(frozen=True)
class Config:
    """Benchmark budget."""

    batch: Annotated[int, AT_LEAST_1] = 64
    """Mini-batch size of every algorithm."""
    steps: Annotated[int, AT_LEAST_1] = 200
    """Gradient steps per round."""
    rounds: Annotated[int, AT_LEAST_1] = 5
    """Alternating rounds (the median is reported)."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def run(config: Config) -> dict[str, float]:
    """Print the steps/s table and the IQL/CQL ratios; return the steps/s of each algorithm."""
    speeds = measure(config.batch, config.steps, config.rounds)
    reference = speeds["DiscreteCQL (d3rlpy, default Adam)"]
    print(
        f"batch {config.batch}, encoder MLP 574-256-256, 1 torch thread, median of {config.rounds}"
    )
    print(f"{'algorithm':42s} {'steps/s':>9s} {'x CQL':>7s}")
    for name, value in speeds.items():
        print(f"{name:42s} {value:9.1f} {value / reference:7.2f}")
    return speeds


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
