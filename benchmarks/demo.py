"""The main job behind ``make demo``: baseline shoppers, then both suites' quick presets."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console


@dataclass(frozen=True)
class Demo:
    """Run the main job: baseline shoppers, then both benchmark suites at their quick presets."""

    out: Path = Path("results")
    """Directory for every suite's results (one folder per suite)."""

    def run(self) -> None:
        """Run every stage and print the time each took."""
        run_demo(self.out)


def run_demo(out: Path) -> None:
    """Build the default data, score the baselines, and run ``bench shop`` and ``bench embodied`` quick."""
    from rewardgym.benchmarks.embodied import run_bench_embodied
    from rewardgym.benchmarks.embodied_config import PRESETS as EMBODIED_PRESETS
    from rewardgym.benchmarks.shop import run_bench_shop
    from rewardgym.benchmarks.shop_baselines import run_shop_baselines

    console = Console()
    timings: dict[str, float] = {}
    stages = [
        (
            "shopping baselines on the embedded synthetic corpus",
            "shop-baselines",
            lambda: run_shop_baselines(out / "shop-baselines"),
        ),
        (
            "shopping LLM suite (SFT, GRPO, Shop-R1), quick preset",
            "shop",
            lambda: run_bench_shop("quick", out / "shop"),
        ),
        (
            "embodied suite (COREN x CQL / IQL / BC), quick preset",
            "embodied",
            lambda: run_bench_embodied(EMBODIED_PRESETS["quick"], out=out / "embodied"),
        ),
    ]
    for title, name, stage in stages:
        console.rule(f"rewardgym demo: {title}")
        start = time.perf_counter()
        stage()
        timings[name] = time.perf_counter() - start
    console.rule("rewardgym demo: done")
    for name, seconds in timings.items():
        console.print(f"{name:>16}: {seconds / 60:5.1f} min  ->  {out / name}/")


__all__ = ["Demo", "run_demo"]
