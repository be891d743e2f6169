"""Benchmark the shopping data layer: corpus generation, env throughput, store random access.

Run: ``python -m rewardgym.benchmarks.perf.shop_data`` (``--help`` lists the config). Prints, in one run:
generation of the paper-size corpus (seconds, peak RSS of the generating process, bytes on
disk), ``ShopSession-v0`` reset+step throughput on the default data, and random-access
latency of ``SessionLog.step`` on the generated corpus.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import gymnasium as gym
import numpy as np
import tyro

import rewardgym  # noqa: F401
from rewardgym.bounds import AT_LEAST_1, SEED, check_fields
from rewardgym.envs import SHOP_SESSION_ID
from rewardgym.envs.shopping.session_log import SessionLog


@dataclass(frozen=True)
class Config:
    """Benchmark sizes."""

    sessions: Annotated[int, AT_LEAST_1] = 52_137
    """sessions to generate (the paper's ShopCART corpus size)"""
    env_steps: Annotated[int, AT_LEAST_1] = 5_000
    """env steps to time on the default data"""
    lookups: Annotated[int, AT_LEAST_1] = 20_000
    """random (session, step) reads to time"""
    seed: Annotated[int, SEED] = 0
    """seed of the corpus and of the random reads"""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


def run(cfg: Config) -> None:
    """Run the three measurements and print them."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "corpus"
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "rewardgym.cli",
                "data",
                "shop",
                "--sessions",
                str(cfg.sessions),
                "--seed",
                str(cfg.seed),
                "--out",
                str(out),
            ],
            check=True,
        )
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        size = sum(f.stat().st_size for f in out.iterdir())
        store = SessionLog(out)
        print(
            f"generation: {len(store):,} sessions, {store.num_steps:,} steps in {seconds:.1f} s "
            f"(incl. interpreter start); peak RSS {peak:,.0f} MiB; {size:,} bytes on disk "
            f"({size / 2**20:,.1f} MiB)"
        )

        rng = np.random.default_rng(cfg.seed)
        picks = [(int(i), 0) for i in rng.integers(len(store), size=cfg.lookups)]
        picks = [(i, int(rng.integers(store.session_length(i)))) for i, _ in picks]
        start = time.perf_counter()
        for i, j in picks:
            store.step(i, j)
        per = (time.perf_counter() - start) / cfg.lookups
        print(f"random access: {per * 1e6:.1f} us per SessionLog.step over {cfg.lookups:,} reads")

    env = gym.make(SHOP_SESSION_ID)
    env.reset(seed=cfg.seed)
    start, steps, resets = time.perf_counter(), 0, 1
    while steps < cfg.env_steps:
        _, _, terminated, truncated, _ = env.step(
            '{"rationale": "r", "action": {"type": "terminate"}}'
        )
        steps += 1
        if terminated or truncated:
            env.reset()
            resets += 1
    seconds = time.perf_counter() - start
    print(
        f"env throughput: {steps / seconds:,.0f} steps/s ({steps:,} steps, {resets:,} resets, "
        "whole-session context, default data)"
    )


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
