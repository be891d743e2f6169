"""Run a shopper simulator through ``ShopStore-v0`` visits, many side by side, and keep what happened.

Example:
    >>> from rewardgym.agents.simulation.config import SimulationConfig
    >>> from rewardgym.agents.simulation.policies import ShopperPolicy
    >>> from rewardgym.envs.shopping.synthetic import StoreConfig
    >>> records = run_visits(ShopperPolicy(0), StoreConfig(), SimulationConfig(visits=3))
    >>> [r.matches == r.agent_steps for r in records]
    [True, True, True]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from rewardgym.agents.simulation.config import SimulationConfig
from rewardgym.agents.simulation.policies import SimPolicy
from rewardgym.envs.shopping.live.env import ShopStoreEnv
from rewardgym.envs.shopping.schema import ShopSession
from rewardgym.envs.shopping.synthetic.config import StoreConfig, SyntheticShopperConfig
from rewardgym.runtime import write_atomic


@dataclass(frozen=True)
class VisitRecord:
    """One finished visit: its intent, the logged session, and how the policy's outputs fared."""

    intent: int
    session: ShopSession
    agent_steps: int
    """Env steps the policy took (the opening step, when given, not included)."""
    matches: int
    """Steps whose action exactly matched the ground-truth shopper's choice in that state."""
    unparsed: int
    """Outputs from which no action could be read."""
    not_applied: int
    """Parsed actions that named nothing on their page or did nothing there."""
    truncated: bool
    """Whether the visit ended without a terminate: at the step cap, or after too many idle outputs in a row."""


def run_visits(
    policy: SimPolicy,
    store: StoreConfig,
    config: SimulationConfig,
    *,
    shopper: SyntheticShopperConfig | None = None,
    intents: Sequence[int] | None = None,
    progress: bool = False,
    desc: str = "visits",
) -> list[VisitRecord]:
    """Let ``policy`` visit ``store`` once per intent (``config.intents()`` by default), ``config.batch_size`` at a time."""
    chosen = list(config.intents() if intents is None else intents)
    options = policy.context
    envs = [
        ShopStoreEnv(
            store=store,
            shopper=shopper,
            opening=config.opening,
            context=options.context,
            max_context_chars=options.max_context_chars,
            max_context_tokens=options.max_context_tokens,
            count_tokens=options.count_tokens,
        )
        for _ in range(min(config.batch_size, len(chosen)))
    ]
    records: list[VisitRecord] = []
    with tqdm(total=len(chosen), desc=desc, disable=not progress, leave=False) as bar:
        for start in range(0, len(chosen), len(envs)):
            batch = chosen[start : start + len(envs)]
            records.extend(_run_batch(policy, envs[: len(batch)], batch, config))
            bar.update(len(batch))
    return records


def _run_batch(
    policy: SimPolicy,
    envs: Sequence[ShopStoreEnv],
    intents: Sequence[int],
    config: SimulationConfig,
) -> list[VisitRecord]:
    cap = config.max_steps if config.max_steps is not None else 1 << 30
    observations: dict[int, dict[str, Any]] = {}
    counts = {slot: [0, 0, 0, 0] for slot in range(len(envs))}  # steps, matches, unparsed, missed
    idle = dict.fromkeys(range(len(envs)), 0)
    truncated: dict[int, bool] = {}
    for slot, (env, intent) in enumerate(zip(envs, intents, strict=True)):
        observations[slot], _ = env.reset(options={"intent": intent})
        policy.start(slot, env)
    while observations:
        slots = sorted(observations)
        outputs = policy.act(slots, [observations[s] for s in slots])
        for slot, output in zip(slots, outputs, strict=True):
            obs, _, terminated, truncate, info = envs[slot].step(output)
            tally = counts[slot]
            tally[0] += 1
            tally[1] += bool(info["exact_match"])
            tally[2] += info["effect"] == "unparsed"
            tally[3] += info["effect"] != "unparsed" and not info["applied"]
            idle[slot] = 0 if info["applied"] else idle[slot] + 1
            truncate = truncate or idle[slot] >= config.max_idle_steps or info["step"] >= cap
            if terminated or truncate:
                truncated[slot] = bool(truncate)
                del observations[slot]
            else:
                observations[slot] = obs
    records = []
    for slot, (env, intent) in enumerate(zip(envs, intents, strict=True)):
        assert env.visit is not None
        steps, matches, unparsed, missed = counts[slot]
        records.append(
            VisitRecord(
                intent, env.visit.session(), steps, matches, unparsed, missed, truncated[slot]
            )
        )
    return records


def write_visits(path: str | Path, records: Iterable[VisitRecord]) -> Path:
    """Write ``records`` as JSON lines (actions, rationales, page types and URLs; pages left out), atomically."""
    lines = []
    for r in records:
        steps = [
            {
                **s.action.truth_dict(),
                "rationale": s.rationale,
                "page_type": s.meta.get("page_type"),
                "url": s.meta.get("url"),
                "timestamp": s.timestamp,
            }
            for s in r.session.steps
        ]
        lines.append(
            json.dumps(
                {
                    "intent": r.intent,
                    "agent_steps": r.agent_steps,
                    "matches": r.matches,
                    "unparsed": r.unparsed,
                    "not_applied": r.not_applied,
                    "truncated": r.truncated,
                    "steps": steps,
                },
                ensure_ascii=False,
            )
        )
    return write_atomic(path, "".join(f"{line}\n" for line in lines))


__all__ = ["VisitRecord", "run_visits", "write_visits"]
