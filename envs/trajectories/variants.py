"""Named Household-v1 data-set variants, one per research question, each a ``CollectConfig``.

Modelled on OGBench's variants (navigate / stitch / noisy): a variant fixes how the
demonstrator behaves, a run picks the size and seed. Load one by name with
:func:`variant_config` (``rewardgym data collect --variant NAME``); :func:`variant_statistics`
measures a collected data set (success rate, mean length, stitchable segments) and
``benchmarks/embodied/variants.py`` prints the table for every variant.

A **stitchable segment** is a maximal run of at least :data:`STITCH_MIN_STEPS` consecutive
steps of a *failed* episode in which every action is the next action of the searcher's script
replanned from the state it was taken in (``rewardgym.envs.household.v1.task_progress``: the expert
that does not know the hidden placements, knowing what the agent has seen): a piece of expert
behaviour, from some state, that a learner can join to pieces of other episodes. The share of
stitchable segments is the share of the failed episodes' steps that lie in one.

====================  ======================================================================
variant               question
====================  ======================================================================
``coren``             COREN's collector as issue 10 made it (fixed scripts, 15% inserted random
                      actions never repaired, half the episodes a sibling task's script)
``navigate``          can a learner copy good demonstrations? (the expert replans after half
                      its perturbations, no siblings: mostly successes)
``noisy``             can it see through heavy noise? (30% random actions, half repaired)
``stitch``            can it learn from failures? (95% of the demonstrators give up after a
                      number of expert steps drawn uniformly below the script's length, take 3
                      random actions and stop: few successes, every failure a piece of expert
                      behaviour, late steps as common as early ones; half the 15% perturbations
                      are repaired by replanning)
``stitch-siblings``   ``stitch`` with half the episodes showing the sibling task's script under
                      this task's instruction (plausible, and wrong where the tasks part ways)
====================  ======================================================================

VirtualHome-v0 has two (:data:`VIRTUALHOME_VARIANTS`, ``--env virtualhome --variant NAME``):
``coren``, COREN's recipe as first run here (uniform random actions, mostly refused, and
give-ups), and ``executed``, its default (random actions the simulator accepts).

The suite's default (:data:`SUITE_VARIANT`) is ``stitch-siblings``: the success flag is scarce
(at most 10% of episodes), the skill is in the failures, and the sibling scripts make copying
the data (BC) go wrong where a reward that rates each step can tell (measured on validation in
``docs/embodied.md``: with a quarter of siblings, or none, BC on every episode was still the
best row).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rewardgym.envs import HOUSEHOLD_ID, VIRTUALHOME_ID
from rewardgym.envs.trajectories.config import ENV_ALIASES, CollectConfig

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset
    from rewardgym.envs.trajectories.episode import Episode

STITCH_MIN_STEPS = 3
"""The fewest consecutive expert-plan steps that count as a stitchable segment."""

DATASET_VARIANTS: dict[str, CollectConfig] = {
    "coren": CollectConfig(),
    "navigate": CollectConfig(noise=0.15, recover=0.5, sibling_fraction=0.0),
    "noisy": CollectConfig(noise=0.3, recover=0.5, sibling_fraction=0.0),
    "stitch": CollectConfig(noise=0.15, recover=0.5, give_up=0.95, sibling_fraction=0.0),
    "stitch-siblings": CollectConfig(noise=0.15, recover=0.5, give_up=0.95, sibling_fraction=0.5),
}
"""Every named Household-v1 variant (8,000 episodes, COREN's size; pick another with
``variant_config(name, episodes=...)``)."""

VIRTUALHOME_VARIANTS: dict[str, CollectConfig] = {
    "coren": CollectConfig(env=VIRTUALHOME_ID, noise=0.2, random_actions="uniform", give_up=0.8),
    "executed": CollectConfig(env=VIRTUALHOME_ID),
}
"""Every named VirtualHome-v0 variant. ``coren``: COREN's recipe as this library first ran it
(random actions from the whole action space at 20% of the steps, which the simulator mostly
refuses, and 80% of the demonstrators giving up, so nearly every failure is a give-up);
``executed``: the env's default collector (random actions the simulator accepts at that state
at 40% of the steps, 30% giving up, so executed wrong actions cause about half the failures)."""

SUITE_VARIANT = "stitch-siblings"
"""The variant ``bench embodied`` trains on by default."""


def variant_config(name: str, env: str = HOUSEHOLD_ID, **changes: Any) -> CollectConfig:
    """The variant of ``env`` called ``name``, with ``changes`` (e.g. ``episodes``, ``seed``) applied.

    Example:
        >>> variant_config("stitch", episodes=100).give_up
        0.95
        >>> variant_config("coren", env="virtualhome").random_actions
        'uniform'
    """
    env = ENV_ALIASES.get(env, env)
    tables = {HOUSEHOLD_ID: DATASET_VARIANTS, VIRTUALHOME_ID: VIRTUALHOME_VARIANTS}
    if env not in tables:
        raise ValueError(
            f"{env} has no named data-set variants: they exist for {', '.join(tables)}"
        )
    table = tables[env]
    if name not in table:
        raise ValueError(
            f"unknown data-set variant {name!r} of {env}: use one of {', '.join(table)}"
        )
    return dataclasses.replace(table[name], **changes)


def stitchable_segments(
    on_plan: Sequence[bool] | np.ndarray, min_steps: int = STITCH_MIN_STEPS
) -> list[tuple[int, int]]:
    """The ``[start, stop)`` step ranges of the maximal runs of ``on_plan`` at least ``min_steps`` long.

    Example:
        >>> stitchable_segments([True, True, True, False, True, True, False, True, True, True, True])
        [(0, 3), (7, 11)]
    """
    out = []
    start = None
    flags = [bool(f) for f in on_plan] + [False]
    for t, flag in enumerate(flags):
        if flag and start is None:
            start = t
        elif not flag and start is not None:
            if t - start >= min_steps:
                out.append((start, t))
            start = None
    return out


def segment_statistics(
    episodes: Sequence[tuple[bool, Sequence[bool] | np.ndarray]],
    min_steps: int = STITCH_MIN_STEPS,
) -> dict[str, float]:
    """Stitchable-segment statistics of ``(success, on_plan per step)`` pairs, in percent.

    - ``stitchable_share``: share of the failed episodes' steps inside a stitchable segment;
    - ``failures_with_segment``: share of failed episodes holding at least one;
    - ``recovered_segments``: share of those segments that start after step 0 (the expert's
      plan resumed from a state off the script);
    - ``segment_steps``: their mean length (steps).

    Example:
        >>> stats = segment_statistics([(False, [1, 1, 1, 0]), (False, [0, 0, 0, 0]), (True, [1])])
        >>> stats["stitchable_share"], stats["failures_with_segment"]
        (37.5, 50.0)
    """
    steps = covered = with_segment = failures = 0
    lengths: list[int] = []
    late = 0
    for success, flags in episodes:
        if success:
            continue
        failures += 1
        segments = stitchable_segments(flags, min_steps)
        steps += len(flags)
        covered += sum(b - a for a, b in segments)
        with_segment += bool(segments)
        lengths += [b - a for a, b in segments]
        late += sum(a > 0 for a, _ in segments)
    return {
        "stitchable_share": 100.0 * covered / steps if steps else 0.0,
        "failures_with_segment": 100.0 * with_segment / failures if failures else 0.0,
        "recovered_segments": 100.0 * late / len(lengths) if lengths else 0.0,
        "segment_steps": float(np.mean(lengths)) if lengths else 0.0,
    }


def episode_on_plan(data: TrajectoryDataset | Sequence[Episode]) -> list[np.ndarray]:
    """Per Household-v1 episode, whether each action was the replanned searcher's next action."""
    from rewardgym.envs.household.v1.replay import with_envs
    from rewardgym.envs.household.v1.task_progress import episode_step_facts

    return [
        np.array([f.on_plan for f in episode_step_facts(ep, env)], dtype=bool)
        for ep, env in with_envs(data)
    ]


def variant_statistics(
    data: TrajectoryDataset | Sequence[Episode], on_plan: Sequence[np.ndarray] | None = None
) -> dict[str, float]:
    """Episodes, success rate (%), mean length, sibling share (%) and the segment statistics.

    ``on_plan`` (from :func:`episode_on_plan`) is computed by replaying when not given.
    """
    episodes = list(data)
    flags = episode_on_plan(episodes) if on_plan is None else on_plan
    success = np.array([ep.success for ep in episodes], dtype=bool)
    return {
        "episodes": float(len(episodes)),
        "success_rate": 100.0 * float(success.mean()) if episodes else 0.0,
        "mean_length": float(np.mean([len(ep) for ep in episodes])) if episodes else 0.0,
        "sibling_share": 100.0
        * float(np.mean([bool(ep.extras.get("sibling", False)) for ep in episodes]))
        if episodes
        else 0.0,
        **segment_statistics(list(zip(success.tolist(), flags, strict=True))),
    }


__all__ = [
    "DATASET_VARIANTS",
    "STITCH_MIN_STEPS",
    "SUITE_VARIANT",
    "VIRTUALHOME_VARIANTS",
    "episode_on_plan",
    "segment_statistics",
    "stitchable_segments",
    "variant_config",
    "variant_statistics",
]
