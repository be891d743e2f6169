"""What the household golden tests pin: seeded rollouts, expert scripts and collected data sets.

Each payload function returns plain data whose sha256 over a canonical JSON (:func:`digest`) is
recorded in ``golden_digests.json``; the engine may change inside, these digests may not. Change
the file only when a version's behaviour is meant to change, and then bump the env's ``-vN``
(a failing golden test prints the new digests).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401  (registers the ids)

GOLDEN_FILE = Path(__file__).with_name("golden_digests.json")
SEEDS = (0, 1, 2, 7, 123)
STEPS = 60


def _plain(value: Any) -> Any:
    """``value`` as JSON-ready data: arrays keep their dtype and shape, tuples become lists."""
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "data": value.tolist()}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value) if isinstance(value, set | frozenset) else value
        return [_plain(v) for v in items]
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    return value


def digest(value: Any) -> str:
    """The sha256 of ``value``'s canonical JSON (sorted keys, no spaces, floats by repr)."""
    text = json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def rollouts(env_id: str, kwargs: dict[str, Any], *, extra: Callable[[Any], Any]) -> list[Any]:
    """Seeded episodes mixing the replanning expert and random actions, every step recorded."""
    env = gym.make(env_id, **kwargs)
    base: Any = env.unwrapped
    records: list[Any] = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        records.append(["reset", obs, info, list(base.reference_plan), extra(base)])
        for t in range(STEPS):
            action = base.expert_action() if rng.random() < 0.6 else None
            if action is None:
                action = int(rng.integers(env.action_space.n))  # type: ignore[attr-defined]
            obs, reward, terminated, truncated, info = env.step(action)
            step = [t, action, obs, float(reward), terminated, truncated, info]
            records.append([*step, base.executable_actions(), base.expert_plan(), extra(base)])
            if terminated or truncated:
                obs, info = env.reset()
                records.append(["reset", obs, info, list(base.reference_plan), extra(base)])
    env.close()
    return records


def probe_worlds(first: Any, grabbable: list[int], n_objects: int, lidded: list[bool]) -> list[Any]:
    """States the rollouts rarely reach: one object in hand, next to any object, its door open or shut."""
    worlds = []
    for held in grabbable:
        for near in range(n_objects):
            if near == held:
                continue
            for opened in (False, True) if lidded[near] else (False,):
                world = first.copy()
                world.obj_room[held], world.obj_parent[held], world.held = -1, -1, held
                world.agent_room, world.near = world.obj_room[near], near
                world.is_open[near] = opened
                worlds.append(world)
    return worlds


def dataset_record(data: Any) -> dict[str, Any]:
    """Everything a collected ``TrajectoryDataset`` holds except its wall-clock timing."""
    info = {k: v for k, v in data.info.items() if k != "collect_seconds"}
    return {
        "env_id": data.env_id,
        "env_kwargs": data.env_kwargs,
        "action_names": data.action_names,
        "schema": {name: repr(spec) for name, spec in data.schema.items()},
        "info": info,
        "episodes": [
            {name: getattr(ep, name) for name in ep.__dataclass_fields__} for ep in data.episodes
        ],
    }


def v0_payloads() -> dict[str, Any]:
    """Household-v0's pinned payloads by name."""
    from rewardgym.envs.household import (
        ACTION_NAMES,
        INSTRUCTIONS,
        LAYOUTS,
        OBJECTS,
        ROOMS,
        TASKS,
        World,
        apply_action,
    )
    from rewardgym.envs.household import plan as v0_plan
    from rewardgym.envs.trajectories.collect import collect_dataset
    from rewardgym.envs.trajectories.config import CollectConfig

    def rule_texts(base: Any) -> list[str]:
        # What every action would do now: "" or the broken rule's sentence.
        return [apply_action(base.world.copy(), a) for a in range(len(ACTION_NAMES))]

    out: dict[str, Any] = {
        "tables": [ACTION_NAMES, [str(t.goal) for t in TASKS], [i.text for i in INSTRUCTIONS]],
        "space": repr(gym.make("rewardgym/Household-v0").observation_space),
        "expert_scripts": [
            v0_plan(World(layout, room), task)
            for layout in LAYOUTS
            for task in TASKS
            for room in range(len(ROOMS))
        ],
    }
    for layout in LAYOUTS:
        first = World(layout)
        grabbable = [o for o, spec in enumerate(OBJECTS) if spec.grabbable]
        lidded = [spec.container for spec in OBJECTS]
        probes = probe_worlds(first, grabbable, len(OBJECTS), lidded)
        out[f"probe-plans-{layout}"] = [v0_plan(w, task) for w in probes for task in TASKS]
        for split in ("train", "abstract"):
            kwargs = {"layout": layout, "instructions": split}
            out[f"rollouts-{layout}-{split}"] = rollouts(
                "rewardgym/Household-v0", kwargs, extra=rule_texts
            )
    config = CollectConfig(env="rewardgym/Household-v0", episodes=20)
    out["dataset-default"] = dataset_record(collect_dataset(config))
    return out


def _v1_extra(base: Any) -> list[Any]:
    from rewardgym.envs.household.v1.actions import apply_action, reason_text

    rules = []
    for action in range(base.action_space.n):
        world = base.world.copy()
        code = apply_action(world, action)
        rules.append((code, reason_text(world, action, code)))
    return [
        rules,
        base.expert_script(),
        base.script_for(base.task.sibling),
        base.goal_distance(),
        base.search_distance(),
        base.failure,
        sorted(base.seen),
        sorted(base.checked),
        base.replay_options(),
    ]


def v1_payloads() -> dict[str, Any]:
    """Household-v1's pinned payloads by name."""
    from rewardgym.envs.household.v1 import (
        ACTION_NAMES,
        INSTRUCTIONS,
        LAYOUTS,
        OBJECTS,
        PRIORS,
        TASKS,
        World,
        plan,
        search_script,
    )
    from rewardgym.envs.household.v1.oracle import oracle_dense_rewards
    from rewardgym.envs.household.v1.planner import default_max_steps
    from rewardgym.envs.household.v1.replay import with_envs
    from rewardgym.envs.household.v1.task_progress import episode_step_facts
    from rewardgym.envs.trajectories.collect import collect_dataset
    from rewardgym.envs.trajectories.config import CollectConfig
    from rewardgym.envs.trajectories.variants import variant_config

    out: dict[str, Any] = {
        "tables": [ACTION_NAMES, [str(t.goal) for t in TASKS], [i.text for i in INSTRUCTIONS]],
        "space": repr(gym.make("rewardgym/Household-v1").observation_space),
        "max_steps": [default_max_steps(task, layout) for layout in LAYOUTS for task in TASKS],
    }
    for layout in LAYOUTS:
        priors = PRIORS[layout]
        first = World({o: places[0][0] for o, places in priors.items()})
        grabbable = [o for o, spec in enumerate(OBJECTS) if spec.grabbable]
        lidded = [spec.lidded for spec in OBJECTS]
        probes = probe_worlds(first, grabbable, len(OBJECTS), lidded)
        out[f"probe-plans-{layout}"] = [
            (plan(w, task), search_script(w, task, priors)) for w in probes for task in TASKS
        ]
        kwargs = {"layout": layout}
        out[f"rollouts-{layout}"] = rollouts("rewardgym/Household-v1", kwargs, extra=_v1_extra)
    configs = {
        "default": CollectConfig(episodes=20),
        "stitch-siblings": variant_config("stitch-siblings", episodes=20),
    }
    for name, config in configs.items():
        data = collect_dataset(config)
        out[f"dataset-{name}"] = dataset_record(data)
        out[f"dataset-{name}-facts"] = [episode_step_facts(ep, env) for ep, env in with_envs(data)]
        out[f"dataset-{name}-oracle"] = oracle_dense_rewards(data, 0.99)
    return out


@pytest.fixture(scope="session")
def golden() -> Golden:
    """The golden helpers: payload builders, the digest and the recorded table."""
    return Golden()


class Golden:
    """The helpers a golden test needs (conftest functions are not importable by name)."""

    digest = staticmethod(digest)
    v0_payloads = staticmethod(v0_payloads)
    v1_payloads = staticmethod(v1_payloads)

    @staticmethod
    def recorded(version: str) -> dict[str, str]:
        """The digests recorded in ``golden_digests.json`` for ``version`` ("v0" or "v1")."""
        table: dict[str, dict[str, str]] = json.loads(GOLDEN_FILE.read_text())
        return table[version]
