"""Household-v1 data-set variants: each one's statistics, and optionally three rows on validation.

For every named variant (``rewardgym.envs.trajectories.variants.DATASET_VARIANTS``) it collects
``episodes`` episodes and prints the success rate, mean length, sibling share and the
stitchable-segment statistics of the failed episodes. With ``--train`` it also trains the
suite's rows ``cql/sparse``, ``cql/perfect-judge`` and ``filtered-bc/none`` (by default) on
``train_variant`` with the quick preset's settings (the suite's ``offline_config`` and
``run_task``, one process, one torch thread) and prints their SR on the **validation** split
(training instructions on new episodes; no held-out split is read) with 95% intervals over
seeds and episodes.

Run: ``python -m rewardgym.benchmarks.embodied.variants [--episodes 2000] [--train]
[--seeds 0 1]``.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import tyro

from rewardgym.bounds import AT_LEAST_1, POSITIVE, SEED, between, check_fields
from rewardgym.envs.trajectories.variants import DATASET_VARIANTS, SUITE_VARIANT

STAT_COLUMNS: tuple[str, ...] = (
    "variant",
    "episodes",
    "success_rate",
    "mean_length",
    "sibling_share",
    "stitchable_share",
    "failures_with_segment",
    "recovered_segments",
    "segment_steps",
)


@dataclass(frozen=True)
class Config:
    """Which variants to measure, and whether to train the validation rows."""

    variants: tuple[str, ...] = tuple(DATASET_VARIANTS)
    """The variants whose statistics are printed."""
    episodes: Annotated[int, AT_LEAST_1] = 40
    """Episodes collected per variant (and for training)."""
    seed: Annotated[int, SEED] = 0
    """Collection seed."""
    train: bool = False
    """Also train ``rows`` on ``train_variant`` and print their validation SR."""
    train_variant: str = SUITE_VARIANT
    """The variant the rows train on."""
    rows: tuple[str, ...] = ("cql/sparse", "cql/perfect-judge", "filtered-bc/none")
    """Rows of ``bench embodied`` to train (``algorithm/reward``)."""
    n_steps: Annotated[int, AT_LEAST_1] = 3000
    """Gradient steps per agent (the quick preset's)."""
    seeds: tuple[Annotated[int, SEED], ...] = (0,)
    """Training seeds per row."""
    instructions_per_task: Annotated[int, between(1, 5)] = 3
    """Validation instructions per task (the suite's validation split)."""
    learning_rate: Annotated[float, POSITIVE] | None = None
    """Learning rate of every row (None: the quick preset's tuned value per row)."""

    def __post_init__(self) -> None:
        """Reject unknown variants and empty settings, naming the field."""
        check_fields(self)
        for name in (*self.variants, self.train_variant):
            if name not in DATASET_VARIANTS:
                raise ValueError(
                    f"variant {name!r} is unknown: use one of {', '.join(DATASET_VARIANTS)}"
                )
        if not self.seeds:
            raise ValueError("Config.seeds is empty: give at least one training seed")


def variant_table(config: Config) -> list[dict[str, Any]]:
    """Collect every variant of ``config`` and measure it."""
    from rewardgym.envs.trajectories import collect_dataset
    from rewardgym.envs.trajectories.variants import variant_config, variant_statistics

    rows = []
    for name in config.variants:
        data = collect_dataset(variant_config(name, episodes=config.episodes, seed=config.seed))
        rows.append({"variant": name, **variant_statistics(data)})
        rows[-1]["episodes"] = len(data)
    return rows


def validation_rows(config: Config, root: Path) -> list[dict[str, Any]]:
    """Train ``config.rows`` on ``config.train_variant`` and score them on validation."""
    from rewardgym.agents.evaluation.household import EvalConfig
    from rewardgym.benchmarks.embodied.config import PRESETS, Row
    from rewardgym.benchmarks.embodied.data import collect, label_oracle, label_perfect_judge
    from rewardgym.benchmarks.embodied.stats import seed_episode_interval
    from rewardgym.benchmarks.embodied.suite import TrainTask, offline_config, run_task
    from rewardgym.envs.trajectories.variants import variant_config

    bench = PRESETS["quick"].replace(
        rows=config.rows,
        seeds=config.seeds,
        collect=variant_config(config.train_variant, episodes=config.episodes, seed=config.seed),
        training=PRESETS["quick"].training.replace(n_steps=config.n_steps),
    )
    validation = EvalConfig(
        splits=("validation",), instructions_per_task=config.instructions_per_task
    )
    train = root / "train"
    collected = collect(bench, train)
    datasets = {"sparse": train, "none": train}
    rewards = {row.reward for row in bench.row_specs}
    if "perfect-judge" in rewards:
        datasets["perfect-judge"] = root / "perfect-judge"
        label_perfect_judge(train, datasets["perfect-judge"])
    if "oracle" in rewards:
        datasets["oracle"] = root / "oracle"
        label_oracle(train, datasets["oracle"], bench.training.gamma)
    out: list[dict[str, Any]] = []
    for name in config.rows:
        row = Row.parse(name)
        if row.reward not in datasets:
            raise ValueError(f"row {name!r}: this script trains sparse, oracle and perfect-judge")
        if row.algorithm == "filtered-bc" and collected["success_rate"] == 0:
            out.append({"row": name, "validation SR": "no successful episode to copy"})
            continue
        tuned = bench.tuned_for(row)
        if config.learning_rate is not None:
            tuned = replace(tuned, learning_rate=config.learning_rate)
        successes = []
        for seed in config.seeds:
            offline = offline_config(bench, row, tuned, seed)
            source = datasets[row.reward] if offline.reward == "composed" else train
            task = TrainTask(
                key=f"{name}-{seed}",
                dataset=str(source),
                offline=offline,
                evaluation=validation,
                successful_only=row.algorithm == "filtered-bc",
            )
            successes.append(run_task(task)["episodes"]["validation"]["success"])
        flat = [s for per_seed in successes for s in per_seed]
        low, high = seed_episode_interval(successes, resamples=bench.bootstrap)
        out.append(
            {
                "row": name,
                "validation SR": 100.0 * sum(flat) / len(flat),
                "95% interval": f"[{100 * low:.1f}, {100 * high:.1f}]",
                "episodes": len(flat),
            }
        )
    return out


def run(config: Config) -> dict[str, list[dict[str, Any]]]:
    """Print the variant table (and the validation rows with ``train``); return both."""
    import torch

    from rewardgym.agents.offline.agent import quiet_d3rlpy_logs
    from rewardgym.benchmarks.tables import markdown_table

    torch.set_num_threads(1)
    start = time.perf_counter()
    table = variant_table(config)
    print("Household-v1 data-set variants (percent; lengths in steps)\n")
    print(markdown_table(table, STAT_COLUMNS, digits=1), flush=True)
    result: dict[str, list[dict[str, Any]]] = {"variants": table}
    if config.train:
        quiet_d3rlpy_logs()
        with tempfile.TemporaryDirectory(prefix="rewardgym-variants-") as tmp:
            rows = validation_rows(config, Path(tmp))
        print(
            f"\nvalidation SR on {config.train_variant} ({config.episodes} episodes, "
            f"{config.n_steps} steps, seeds {list(config.seeds)}, learning rate "
            f"{config.learning_rate or 'the preset value'})\n"
        )
        print(markdown_table(rows, ("row", "validation SR", "95% interval", "episodes"), digits=1))
        result["validation"] = rows
    print(f"\nwall time {time.perf_counter() - start:.1f} s")
    return result


def main() -> None:
    """Parse the command line into an ``Config`` and run it."""
    run(tyro.cli(Config))


__all__ = ["Config", "run", "validation_rows", "variant_table"]


if __name__ == "__main__":
    main()
