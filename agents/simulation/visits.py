"""Run a shopper simulator through ``ShopStore-v0`` visits of several stores at once, and keep what happened.

:func:`visit_stores` keeps up to ``config.batch_size`` visits open, over every store given: each
turn, one batched policy call answers every open visit (of every store), a visit that ends
leaves the batch, and the next waiting visit takes its place. A visit is a function of its
store, its intent and the policy's outputs alone, so a policy whose output depends only on its
observation (the ground-truth shopper, its seeded twins, a greedy LLM) gives the same visits
whether they run one at a time or all together.

A visit ends when the policy's ``terminate`` is carried out; as ``truncated`` at the step cap
or after ``config.max_idle_steps`` outputs in a row that did nothing; and as ``failed`` at an
output that does not parse (with ``config.end_on_unparsed``, the default).

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
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardgym.agents.simulation.config import SimulationConfig
from rewardgym.agents.simulation.policies import SimPolicy
from rewardgym.atomic import write_atomic
from rewardgym.envs.shopping.live.env import ShopStoreEnv
from rewardgym.envs.shopping.schema import ShopSession
from rewardgym.envs.shopping.synthetic.config import StoreConfig, SyntheticShopperConfig
from rewardgym.progress import progress_bar as tqdm


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
    failed: bool = False
    """Whether the visit ended at an output that did not parse (no evidence of what the shopper does)."""


@dataclass
class _Open:
    """A visit in progress: where it runs, what the policy sees, and its tallies."""

    store: str
    position: int
    intent: int
    env: ShopStoreEnv
    observation: dict[str, Any]
    counts: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    """Steps, matches, unparsed outputs, parsed actions not applied."""
    idle: int = 0


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
    return visit_stores(
        policy,
        {"store": store},
        config,
        shopper=shopper,
        intents=intents,
        progress=progress,
        desc=desc,
    )["store"]


def visit_stores(
    policy: SimPolicy,
    stores: Mapping[str, StoreConfig],
    config: SimulationConfig,
    *,
    shopper: SyntheticShopperConfig | None = None,
    intents: Sequence[int] | None = None,
    progress: bool = False,
    desc: str = "visits",
) -> dict[str, list[VisitRecord]]:
    """Let ``policy`` visit every store once per intent, all stores' visits stepped together.

    Returns each store's records in intent order. Up to ``config.batch_size`` visits are
    open at once; each turn is one ``policy.act`` call over all of them.
    """
    chosen = list(config.intents() if intents is None else intents)
    waiting = deque((name, k, intent) for name in stores for k, intent in enumerate(chosen))
    records: dict[str, list[VisitRecord | None]] = {name: [None] * len(chosen) for name in stores}
    spare: dict[str, list[ShopStoreEnv]] = {name: [] for name in stores}
    free = list(range(min(config.batch_size, len(waiting))))[::-1]
    running: dict[int, _Open] = {}
    options = policy.context
    cap = config.max_steps if config.max_steps is not None else 1 << 30

    def open_visit(slot: int, name: str, position: int, intent: int) -> None:
        env = spare[name].pop() if spare[name] else None
        if env is None:
            env = ShopStoreEnv(
                store=stores[name],
                shopper=shopper,
                opening=config.opening,
                context=options.context,
                max_context_chars=options.max_context_chars,
                max_context_tokens=options.max_context_tokens,
                count_tokens=options.count_tokens,
                persona=options.persona,
            )
        observation, _ = env.reset(options={"intent": intent})
        policy.start(slot, env)
        running[slot] = _Open(name, position, intent, env, observation)

    def close_visit(slot: int, *, truncated: bool, failed: bool) -> None:
        visit = running.pop(slot)
        assert visit.env.visit is not None
        steps, matches, unparsed, missed = visit.counts
        records[visit.store][visit.position] = VisitRecord(
            visit.intent,
            visit.env.visit.session(),
            steps,
            matches,
            unparsed,
            missed,
            truncated,
            failed,
        )
        spare[visit.store].append(visit.env)
        free.append(slot)

    total = len(waiting)
    with tqdm(total=total, desc=desc, disable=not progress, leave=False) as bar:
        while waiting or running:
            while waiting and free:
                open_visit(free.pop(), *waiting.popleft())
            slots = sorted(running)
            outputs = policy.act(slots, [running[s].observation for s in slots])
            for slot, output in zip(slots, outputs, strict=True):
                visit = running[slot]
                obs, _, terminated, truncate, info = visit.env.step(output)
                unparsed = info["effect"] == "unparsed"
                tally = visit.counts
                tally[0] += 1
                tally[1] += bool(info["exact_match"])
                tally[2] += unparsed
                tally[3] += not unparsed and not info["applied"]
                visit.idle = 0 if info["applied"] else visit.idle + 1
                failed = unparsed and config.end_on_unparsed
                truncate = bool(
                    truncate or visit.idle >= config.max_idle_steps or info["step"] >= cap
                )
                if terminated or truncate or failed:
                    close_visit(slot, truncated=truncate and not failed, failed=failed)
                    bar.update(1)
                else:
                    visit.observation = obs
    return {name: [r for r in rs if r is not None] for name, rs in records.items()}


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
                    "failed": r.failed,
                    "steps": steps,
                },
                ensure_ascii=False,
                allow_nan=False,
            )
        )
    return write_atomic(path, "".join(f"{line}\n" for line in lines))


__all__ = ["VisitRecord", "run_visits", "visit_stores", "write_visits"]
