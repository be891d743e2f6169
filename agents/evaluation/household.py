"""Evaluate an embodied policy in the household simulator: SR, CGC, Plan and per-action latency.

``evaluate_household`` runs every held-out instruction of every task in each requested
instruction kind and layout, all episodes of a setting in lock-step so that the policy sees
one batch per step, and scores each episode with the pure metrics of
``rewardgym.envs.household.metrics`` against the expert's plan from the episode's first
state. ``measure_latency`` times single decisions, the setting of an agent that acts live.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from rewardgym.envs.household import (
    INSTRUCTION_KINDS,
    LAYOUTS,
    TASKS,
    EpisodeScore,
    HouseholdEnv,
    instructions_for,
    score_episode,
    summarize,
)

HELD_OUT_KINDS: tuple[str, ...] = tuple(k for k in INSTRUCTION_KINDS if k != "train")
"""The held-out instruction splits: fine-grained and abstract."""


class BatchPolicy(Protocol):
    """Anything that picks one action per observation, given each episode's instruction."""

    def act_batch(
        self, observations: Sequence[dict[str, Any]], instructions: Sequence[str]
    ) -> np.ndarray:
        """One action id per observation."""
        ...


@dataclass(frozen=True)
class EvalConfig:
    """Which held-out episodes to run (COREN: 25 tasks x 5 instructions per kind)."""

    kinds: tuple[str, ...] = HELD_OUT_KINDS
    """Instruction splits to test: "fine-grained", "abstract" (never "train")."""
    layouts: tuple[str, ...] = LAYOUTS
    """Layouts to test: "default" and the cross-domain "shifted"."""
    instructions_per_task: int = 5
    """Held-out instructions per task and kind (1..5; COREN uses all 5)."""
    tasks: tuple[int, ...] | None = None
    """Task ids to test (all 25 when ``None``)."""
    max_steps: int = 20
    """Step limit of an evaluation episode."""
    seed: int = 0
    """Seed of the start rooms."""

    def __post_init__(self) -> None:
        """Reject splits, layouts and counts the simulator does not have."""
        for kind in self.kinds:
            if kind not in HELD_OUT_KINDS:
                raise ValueError(f"EvalConfig.kinds has {kind!r}: use {HELD_OUT_KINDS}")
        for layout in self.layouts:
            if layout not in LAYOUTS:
                raise ValueError(f"EvalConfig.layouts has {layout!r}: use {LAYOUTS}")
        if not 1 <= self.instructions_per_task <= 5:
            raise ValueError(
                f"EvalConfig.instructions_per_task={self.instructions_per_task}: use 1..5"
            )


@dataclass
class SettingResult:
    """The scores of one (instruction kind, layout) setting."""

    kind: str
    layout: str
    scores: list[EpisodeScore] = field(default_factory=list)
    actions: list[list[int]] = field(default_factory=list)
    seconds: float = 0.0

    def percent(self) -> dict[str, float]:
        """Mean SR, CGC and Plan in percent, the episode count ``n`` and two behaviour traces.

        ``steps`` is the mean episode length and ``repeats`` the percentage of actions equal to
        the action just before them (a policy stuck on one rewarding action shows up here).
        """
        summary = summarize(self.scores)
        pairs = sum(max(len(a) - 1, 0) for a in self.actions)
        repeats = sum(sum(x == y for x, y in itertools.pairwise(a)) for a in self.actions)
        return {
            "sr": 100.0 * summary["sr"],
            "cgc": 100.0 * summary["cgc"],
            "plan": 100.0 * summary["plan"],
            "n": summary["n"],
            "steps": float(np.mean([len(a) for a in self.actions])) if self.actions else 0.0,
            "repeats": 100.0 * repeats / pairs if pairs else 0.0,
        }


def episode_starts(config: EvalConfig, layout: str, kind: str) -> list[dict[str, Any]]:
    """The reset options of every episode of one setting: task, instruction and start room."""
    tasks = config.tasks if config.tasks is not None else tuple(t.id for t in TASKS)
    rng = np.random.default_rng([config.seed, LAYOUTS.index(layout), INSTRUCTION_KINDS.index(kind)])
    starts = []
    for task in tasks:
        count = min(config.instructions_per_task, len(instructions_for(task, kind)))
        for index in range(count):
            starts.append({"task": task, "instruction": index, "room": int(rng.integers(4))})
    return starts


def run_setting(policy: BatchPolicy, config: EvalConfig, layout: str, kind: str) -> SettingResult:
    """Play every episode of one setting in lock-step and score it."""
    start = time.perf_counter()
    starts = episode_starts(config, layout, kind)
    envs = [
        HouseholdEnv(layout=layout, instructions=kind, max_steps=config.max_steps) for _ in starts
    ]
    observations: list[dict[str, Any]] = []
    instructions: list[str] = []
    for env, options in zip(envs, starts, strict=True):
        obs, info = env.reset(seed=config.seed, options=options)
        observations.append(obs)
        instructions.append(str(info["instruction"]))
    actions: list[list[int]] = [[] for _ in envs]
    active = list(range(len(envs)))
    while active:
        chosen = policy.act_batch(
            [observations[i] for i in active], [instructions[i] for i in active]
        )
        still = []
        for i, action in zip(active, chosen.tolist(), strict=True):
            obs, _, terminated, truncated, _ = envs[i].step(int(action))
            observations[i] = obs
            actions[i].append(int(action))
            if not (terminated or truncated):
                still.append(i)
        active = still
    result = SettingResult(kind, layout, actions=actions)
    for env, taken in zip(envs, actions, strict=True):
        result.scores.append(score_episode(env.goal_flags(), taken, env.reference_plan))
    result.seconds = time.perf_counter() - start
    return result


def evaluate_household(
    policy: BatchPolicy, config: EvalConfig | None = None
) -> dict[str, dict[str, float]]:
    """SR, CGC and Plan in percent for every ``"<kind>/<layout>"`` setting of ``config``."""
    config = config or EvalConfig()
    out = {}
    for layout in config.layouts:
        for kind in config.kinds:
            out[f"{kind}/{layout}"] = run_setting(policy, config, layout, kind).percent()
    return out


def measure_latency(
    policy: BatchPolicy,
    steps: int = 100,
    layout: str = "default",
    kind: str = "fine-grained",
    seed: int = 0,
    warmup: int = 3,
) -> dict[str, float]:
    """Per-action wall time of ``policy`` deciding one observation at a time, in milliseconds.

    Walks held-out episodes with the policy's own actions and times each decision alone
    (batch of one), after ``warmup`` untimed decisions. Returns the median, the 90th
    percentile, the mean and the number of timed decisions.
    """
    env = HouseholdEnv(layout=layout, instructions=kind)
    rng = np.random.default_rng(seed)
    times: list[float] = []
    obs, info = env.reset(seed=seed)
    done = False
    while len(times) < steps:
        if done:
            obs, info = env.reset(seed=int(rng.integers(2**31)))
        tic = time.perf_counter()
        action = int(policy.act_batch([obs], [str(info["instruction"])])[0])
        elapsed = time.perf_counter() - tic
        if warmup > 0:
            warmup -= 1
        else:
            times.append(elapsed * 1000.0)
        obs, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    values = np.asarray(times)
    return {
        "median_ms": float(np.median(values)),
        "p90_ms": float(np.percentile(values, 90)),
        "mean_ms": float(values.mean()),
        "n": float(len(values)),
    }


class RandomPolicy:
    """Uniformly random actions: the floor every learned agent must clear."""

    def __init__(self, n_actions: int, seed: int = 0) -> None:
        """Draw from ``n_actions`` actions with a seeded generator."""
        self.n_actions = n_actions
        self.rng = np.random.default_rng(seed)

    def act_batch(
        self, observations: Sequence[dict[str, Any]], instructions: Sequence[str]
    ) -> np.ndarray:
        """One random action per observation."""
        return self.rng.integers(self.n_actions, size=len(observations))


__all__ = [
    "HELD_OUT_KINDS",
    "BatchPolicy",
    "EvalConfig",
    "RandomPolicy",
    "SettingResult",
    "episode_starts",
    "evaluate_household",
    "measure_latency",
    "run_setting",
]
