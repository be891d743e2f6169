"""The main job behind ``make demo``: baseline shoppers, then both suites' quick presets."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

OUTPUT_KIND = "demo"
"""The kind of the demo's output directory (its ``.rewardgym-output.json`` marker)."""

BASELINES_KIND = "shop-baselines"
"""The kind of the demo's ``shop-baselines`` folder."""


@dataclass(frozen=True)
class Demo:
    """Run the main job: baseline shoppers, then both benchmark suites at their quick presets."""

    out: Path = Path("results")
    """Directory for every suite's results, one folder per suite (new or empty, or an earlier
    demo output with --overwrite)."""
    overwrite: bool = False
    """Run again into an earlier demo output in --out (each suite replaces its own results)."""

    def run(self) -> None:
        """Check --out, run every stage and print the time each took."""
        run_demo(self.out, overwrite=self.overwrite)


def run_demo(out: Path, *, overwrite: bool = False) -> None:
    """Build the default data, score the baselines, and run ``bench shop`` and ``bench embodied`` quick.

    ``out`` and each suite's folder in it are checked before the first stage: a directory of
    the user's is refused, an earlier demo output is taken again only with ``overwrite``.
    """
    from rewardgym.benchmarks.embodied import OUTPUT_KIND as EMBODIED_KIND
    from rewardgym.benchmarks.embodied import run_bench_embodied
    from rewardgym.benchmarks.embodied_config import PRESETS as EMBODIED_PRESETS
    from rewardgym.benchmarks.shop import OUTPUT_KIND as SHOP_KIND
    from rewardgym.benchmarks.shop import run_bench_shop
    from rewardgym.benchmarks.shop_baselines import run_shop_baselines
    from rewardgym.runtime import atomic_output, claim_output, prepare_output

    kinds = {"shop-baselines": BASELINES_KIND, "shop": SHOP_KIND, "embodied": EMBODIED_KIND}
    prepare_output(out, OUTPUT_KIND, overwrite=overwrite)
    for name, kind in kinds.items():
        prepare_output(out / name, kind, overwrite=overwrite)
    out = claim_output(out, OUTPUT_KIND, overwrite=overwrite)

    def baselines() -> None:
        with atomic_output(out / "shop-baselines", BASELINES_KIND, overwrite=overwrite) as tmp:
            run_shop_baselines(tmp)

    console = Console()
    timings: dict[str, float] = {}
    stages = [
        ("shopping baselines on the embedded synthetic corpus", "shop-baselines", baselines),
        (
            "shopping LLM suite (SFT, GRPO, Shop-R1), quick preset",
            "shop",
            lambda: run_bench_shop("quick", out / "shop", overwrite=overwrite),
        ),
        (
            "embodied suite (COREN x CQL / IQL / BC), quick preset",
            "embodied",
            lambda: run_bench_embodied(
                EMBODIED_PRESETS["quick"], out=out / "embodied", overwrite=overwrite
            ),
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


__all__ = ["BASELINES_KIND", "OUTPUT_KIND", "Demo", "run_demo"]
