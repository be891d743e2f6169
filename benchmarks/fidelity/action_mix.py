"""Does the ground-truth shopper, driven through ``ShopStore-v0``, reproduce the replay corpus's action mix?

Run: ``python -m rewardgym.benchmarks.fidelity.action_mix`` (``--help`` lists the config). Prints, in one
run: the share of each action type (and of each action kind) in the replay corpus of
``--sessions`` sessions, in the ground-truth shopper's live visits with the same intents
(seed 0: the env's own shopper, so the difference must be exactly 0), and in the live visits
of shoppers with other seeds on held-out intents (``--visits`` each), with the difference in
percentage points and its 95% bootstrap interval over sessions.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

import numpy as np
import tyro

from rewardgym.agents.evaluation.fidelity import summarize
from rewardgym.agents.simulation import ShopperPolicy, SimulationConfig, run_visits
from rewardgym.bounds import AT_LEAST_1, SEED, Range, check_fields
from rewardgym.envs.shopping.schema import ACTION_TYPES, ShopSession
from rewardgym.envs.shopping.synthetic import StoreConfig, SyntheticShopperConfig, generate_sessions
from rewardgym.envs.shopping.synthetic.pages import ACTION_KINDS


@dataclass(frozen=True)
class Config:
    """Sizes of the comparison."""

    sessions: Annotated[int, Range(ge=2)] = 20_000
    """replay sessions (seed 0, the default corpus's first sessions)"""
    visits: Annotated[int, Range(ge=2)] = 20_000
    """live visits per other-seed shopper, on held-out intents"""
    seeds: tuple[Annotated[int, SEED], ...] = (1, 2)
    """seeds of the other shoppers"""
    n_boot: Annotated[int, AT_LEAST_1] = 300
    """bootstrap resamples of each interval"""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def counts(sessions: Sequence[ShopSession]) -> tuple[np.ndarray, np.ndarray]:
    """Per-session step counts by action type and by action kind."""
    rows = [summarize(s) for s in sessions]
    return np.array([r.types for r in rows], float), np.array([r.kinds for r in rows], float)


def share_gap(
    live: np.ndarray, replay: np.ndarray, n_boot: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Shares of both sides, their difference in points, and its 95% interval (sessions resampled)."""

    def shares(x: np.ndarray) -> np.ndarray:
        total = x.sum(axis=0)
        return total / total.sum()

    a, b = shares(live), shares(replay)
    boots = [
        shares(live[rng.integers(len(live), size=len(live))])
        - shares(replay[rng.integers(len(replay), size=len(replay))])
        for _ in range(n_boot)
    ]
    lo, hi = np.percentile(np.array(boots), [2.5, 97.5], axis=0)
    return a, b, 100 * (a - b), 100 * np.stack([lo, hi])


def report(
    title: str, names: Sequence[str], live: np.ndarray, replay: np.ndarray, n_boot: int
) -> float:
    """Print one comparison table; return the largest absolute gap in points."""
    a, b, gap, ci = share_gap(live, replay, n_boot, np.random.default_rng(0))
    print(f"\n{title}\n{'':>16} {'replay %':>9} {'live %':>8} {'gap pp':>8}  95% CI")
    for i, name in enumerate(names):
        print(
            f"{name:>16} {100 * b[i]:9.2f} {100 * a[i]:8.2f} {gap[i]:+8.2f}  "
            f"[{ci[0, i]:+.2f}, {ci[1, i]:+.2f}]"
        )
    return float(np.abs(gap).max())


def run(cfg: Config) -> None:
    """Generate the replay corpus, run the live visits, print the tables."""
    start = time.perf_counter()
    replay = list(generate_sessions(SyntheticShopperConfig(sessions=cfg.sessions, seed=0)))
    replay_types, replay_kinds = counts(replay)
    print(f"replay corpus: {len(replay):,} sessions in {time.perf_counter() - start:.1f} s")
    same = SimulationConfig(visits=cfg.sessions, first_intent=0, opening="home")
    t = time.perf_counter()
    canonical = run_visits(ShopperPolicy(0), StoreConfig(), same)
    identical = all(v.session == r for v, r in zip(canonical, replay, strict=True))
    print(
        f"seed 0 through ShopStore-v0 on the corpus's own intents: {len(canonical):,} visits in "
        f"{time.perf_counter() - t:.1f} s; every session identical to the replay: {identical}"
    )
    worst = []
    for seed in cfg.seeds:
        held_out = SimulationConfig(visits=cfg.visits, opening="home")
        t = time.perf_counter()
        visits = run_visits(ShopperPolicy(seed), StoreConfig(), held_out)
        types, kinds = counts([v.session for v in visits])
        print(
            f"\nshopper seed {seed}: {len(visits):,} held-out visits in {time.perf_counter() - t:.1f} s"
        )
        worst.append(report("action types", ACTION_TYPES, types, replay_types, cfg.n_boot))
        report("action kinds", ACTION_KINDS, kinds, replay_kinds, cfg.n_boot)
    print(f"\nlargest action-type gap over seeds {cfg.seeds}: {max(worst):.2f} points")
    print(f"total {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
