"""``rewardgym eval household``: score a saved offline agent with the embodied suite's metrics.

Kept light at import time: d3rlpy and torch load only when the command runs. The episodes are
``EvalConfig``'s, flattened (the env is the one the agent was trained on); SR, CGC and Plan get
95% intervals from the suites' cluster bootstrap over tasks, then episodes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import tyro

from rewardgym.agents.evaluation.bootstrap import cluster_weights, percentile_interval
from rewardgym.agents.evaluation.household import EvalConfig, SplitResult, held_out_splits
from rewardgym.bounds import SEED, between, check_fields
from rewardgym.envs import HOUSEHOLD_ID
from rewardgym.errors import UserError

if TYPE_CHECKING:
    from rewardgym.agents.offline.agent import OfflineAgent

OUTPUT_KIND = "household-eval"
"""The kind of an ``eval household --out`` directory (its ``.rewardgym-output.json`` marker)."""

MAX_SAMPLES = 100_000
"""Most bootstrap draws: each is a row of weights over every episode of a split."""

METRICS: tuple[str, ...] = ("success", "cgc", "plan")
"""Per-episode scores (fractions) averaged into the table's SR, CGC and Plan."""


@dataclass(frozen=True)
class EpisodeOptions(EvalConfig):
    """``EvalConfig`` as options: every field but the env, which is the agent's own."""

    env_id: tyro.conf.Suppress[str] = HOUSEHOLD_ID
    splits: tuple[str, ...] | None = None  # type: ignore[assignment]
    """Splits to play (None: the env's held-out ones; Household-v1: fine, abstract,
    shifted-fine, shifted-abstract; VirtualHome-v0: fine, abstract); "validation" plays the
    split that chooses settings."""

    def __post_init__(self) -> None:
        """Check the counts; the splits' names are checked against the agent's env in ``config``."""
        check_fields(self)
        if self.splits is not None and not self.splits:
            raise ValueError(
                "EvalConfig.splits is empty: name at least one split, or leave it unset"
            )

    def config(self, env_id: str) -> EvalConfig:
        """The plain ``EvalConfig`` of these options on ``env_id``."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(EvalConfig)}
        splits = held_out_splits(env_id) if self.splits is None else self.splits
        return EvalConfig(**{**values, "env_id": env_id, "splits": splits})


def split_summary(result: SplitResult, *, samples: int, seed: int) -> dict[str, Any]:
    """Mean SR, CGC and Plan of one split in percent, each with its 95% cluster-bootstrap interval.

    The draws resample tasks, then episodes within each drawn task (the suites' scheme without
    the training-seed level: one agent is one seed), and every metric uses the same draws.

    Example:
        >>> from rewardgym.envs.household.engine.metrics import EpisodeScore
        >>> r = SplitResult("fine", [EpisodeScore(True, 1.0, 1.0), EpisodeScore(False, 0.5, 0.0)])
        >>> r.tasks, r.actions = [0, 1], [[1], [2]]
        >>> s = split_summary(r, samples=200, seed=0)
        >>> s["sr"], s["n"]
        (50.0, 2)
    """
    episodes = result.episodes()
    n = len(result.scores)
    if n == 0:
        raise ValueError(f"split {result.split!r} played no episode")
    weights = cluster_weights(n, [episodes["task"]], samples=samples, seed=seed)
    out: dict[str, Any] = {"split": result.split, "n": n}
    for metric, name in zip(METRICS, ("sr", "cgc", "plan"), strict=True):
        values = 100.0 * np.asarray(episodes[metric], dtype=np.float64)
        out[name] = float(values.mean())
        out[f"{name}_ci"] = percentile_interval(weights @ values / weights.sum(axis=1))
    percent = result.percent()
    out["steps"], out["repeats"] = percent["steps"], percent["repeats"]
    return out


def table(rows: Mapping[str, Mapping[str, Any]]) -> str:
    """The splits as a markdown table: SR, CGC and Plan with their intervals."""
    lines = [
        "| split | episodes | SR [95% CI] | CGC [95% CI] | Plan [95% CI] | mean steps |",
        "|---|---|---|---|---|---|",
    ]
    for split, row in rows.items():
        cells = [
            f"{row[m]:.1f} [{row[m + '_ci'][0]:.1f}, {row[m + '_ci'][1]:.1f}]"
            for m in ("sr", "cgc", "plan")
        ]
        lines.append(f"| {split} | {row['n']} | {' | '.join(cells)} | {row['steps']:.1f} |")
    return "\n".join(lines)


@dataclass(frozen=True)
class EvalHousehold:
    """Score the offline agent saved in AGENT on its env's held-out splits (SR, CGC, Plan with 95% intervals)."""

    agent: Path
    """A saved agent's directory (`rewardgym train offline --out`, or a suite's trained agent)."""
    episodes: Annotated[EpisodeOptions, tyro.conf.arg(name="")] = field(
        default_factory=EpisodeOptions
    )
    out: Path | None = None
    """Directory for eval.json and eval.md (per-split figures and per-episode scores); none: print only."""
    overwrite: bool = False
    """Replace OUT when it holds an earlier eval of this command."""
    samples: Annotated[int, between(1, MAX_SAMPLES)] = 2000
    """Bootstrap draws of each interval (1..100000)."""
    bootstrap_seed: Annotated[int, SEED] = 0
    """Seed of the bootstrap draws."""

    def __post_init__(self) -> None:
        """Refuse numbers out of range, naming the option."""
        check_fields(self)

    def run(self) -> None:
        """Load the agent (JSON and safetensors: no code runs), play the splits, print the table.

        OUT is checked first, then the agent and the task ids; only then is OUT held
        (``outputs.atomic_output``) while the splits play, so a second eval on it is refused
        at once, and eval.json and eval.md appear there together.
        """
        from rewardgym.agents.evaluation.household import checked_tasks
        from rewardgym.agents.offline.agent import OfflineAgent
        from rewardgym.outputs import atomic_output, prepare_output

        if self.out is not None:
            prepare_output(self.out, OUTPUT_KIND, overwrite=self.overwrite)
        agent = OfflineAgent.load(self.agent)
        try:
            config = self.episodes.config(agent.env_id)
        except ValueError as err:
            raise UserError(f"{self.agent} was trained on {agent.env_id}: {err}") from err
        checked_tasks(config)
        if self.out is None:
            self._evaluate(agent, config, None)
            return
        with atomic_output(self.out, OUTPUT_KIND, overwrite=self.overwrite) as tmp:
            self._evaluate(agent, config, tmp)

    def _evaluate(self, agent: OfflineAgent, config: EvalConfig, tmp: Path | None) -> None:
        """Play the splits, print the table and, with ``tmp``, write eval.json and eval.md there."""
        from rich.console import Console

        from rewardgym.agents.evaluation.household import evaluate_household
        from rewardgym.atomic import write_json_atomic

        results = evaluate_household(agent, config)
        rows = {
            split: split_summary(result, samples=self.samples, seed=self.bootstrap_seed)
            for split, result in results.items()
        }
        text = table(rows)
        title = f"{agent.name} from {self.agent} on {agent.env_id}"
        Console(soft_wrap=True).print(f"{title}\n\n{text}", markup=False, highlight=False)
        if tmp is None:
            return
        record = {
            "agent": str(self.agent),
            "algorithm": agent.name,
            "trained_with": agent.config.as_dict(),
            "evaluation": dataclasses.asdict(config),
            "bootstrap": {"samples": self.samples, "seed": self.bootstrap_seed},
            "splits": rows,
            "episodes": {split: result.episodes() for split, result in results.items()},
        }
        write_json_atomic(tmp / "eval.json", record)
        (tmp / "eval.md").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")


__all__ = ["MAX_SAMPLES", "EpisodeOptions", "EvalHousehold", "split_summary", "table"]
