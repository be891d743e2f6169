"""Shared helpers of the simulation tests: visits one at a time, in a plain Gymnasium loop."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from rewardgym.agents.simulation import SimPolicy, SimulationConfig, VisitRecord
from rewardgym.envs.shopping.live.env import ShopStoreEnv
from rewardgym.envs.shopping.synthetic import StoreConfig

Visit = tuple[int, int, int, bool, bool, Any]
"""intent, agent steps, matches, truncated, failed, session."""


def _visit_tuple(record: VisitRecord) -> Visit:
    """What a batched run must reproduce of one visit."""
    r = record
    return (r.intent, r.agent_steps, r.matches, r.truncated, r.failed, r.session)


def _one_at_a_time(
    policy: SimPolicy, stores: Mapping[str, StoreConfig], config: SimulationConfig
) -> dict[str, list[Visit]]:
    """Each visit on its own, store after store, with the end rules of ``SimulationConfig``."""
    out: dict[str, list[Visit]] = {}
    cap = config.max_steps if config.max_steps is not None else 1 << 30
    o = policy.context
    for name, store in stores.items():
        out[name] = []
        for intent in config.intents():
            env = ShopStoreEnv(
                store=store,
                opening=config.opening,
                context=o.context,
                max_context_chars=o.max_context_chars,
                max_context_tokens=o.max_context_tokens,
                count_tokens=o.count_tokens,
            )
            obs, _ = env.reset(options={"intent": intent})
            policy.start(0, env)
            steps = matches = idle = 0
            while True:
                obs, _, terminated, truncated, info = env.step(policy.act([0], [obs])[0])
                steps += 1
                matches += bool(info["exact_match"])
                idle = 0 if info["applied"] else idle + 1
                failed = info["effect"] == "unparsed" and config.end_on_unparsed
                truncated = truncated or idle >= config.max_idle_steps or info["step"] >= cap
                if terminated or truncated or failed:
                    break
            assert env.visit is not None
            out[name].append(
                (intent, steps, matches, truncated and not failed, failed, env.visit.session())
            )
    return out


@pytest.fixture
def one_at_a_time() -> Callable[..., dict[str, list[Visit]]]:
    """The reference loop: ``one_at_a_time(policy, stores, config)``."""
    return _one_at_a_time


@pytest.fixture
def visit_tuple() -> Callable[[VisitRecord], Visit]:
    """What a batched run must reproduce of one visit: ``visit_tuple(record)``."""
    return _visit_tuple
