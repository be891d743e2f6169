"""The main job behind ``make demo``: each suite's finding at its ``demo`` preset, within 10 minutes."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from rewardgym.outputs import releases_outputs

OUTPUT_KIND = "demo"
"""The kind of the demo's output directory (its ``.rewardgym-output.json`` marker)."""

RECORDED_RESULTS = "docs/results/README.md"
"""Where the recorded runs of the full presets are listed (command, commit, machine, tables)."""


@dataclass(frozen=True)
class Demo:
    """Run the main job: the shop, embodied and live-store suites at their demo presets."""

    out: Path = Path("results")
    """Directory for every suite's results, one folder per suite (new or empty, or an earlier
    demo output with --overwrite)."""
    overwrite: bool = False
    """Run again into an earlier demo output in --out (each suite replaces its own results)."""

    def run(self) -> None:
        """Check --out, run every stage and print the time each took."""
        run_demo(self.out, overwrite=self.overwrite)


@releases_outputs  # --out stays locked for the run, so a second run on it is refused
def run_demo(out: Path, *, overwrite: bool = False) -> None:
    """Run ``bench shop``, ``bench embodied`` and ``bench fidelity`` at their ``demo`` presets.

    ``out`` and each suite's folder in it are checked before the first stage: a directory of
    the user's is refused, an earlier demo output is taken again only with ``overwrite``.
    """
    from rewardgym.benchmarks.embodied.config import PRESETS as EMBODIED_PRESETS
    from rewardgym.benchmarks.embodied.suite import OUTPUT_KIND as EMBODIED_KIND
    from rewardgym.benchmarks.embodied.suite import run_bench_embodied
    from rewardgym.benchmarks.fidelity.config import PRESETS as FIDELITY_PRESETS
    from rewardgym.benchmarks.fidelity.suite import OUTPUT_KIND as FIDELITY_KIND
    from rewardgym.benchmarks.fidelity.suite import run_bench_fidelity
    from rewardgym.benchmarks.provenance import restart_clock, use_process_clock
    from rewardgym.benchmarks.shop.suite import OUTPUT_KIND as SHOP_KIND
    from rewardgym.benchmarks.shop.suite import run_bench_shop
    from rewardgym.outputs import claim_output, prepare_output

    kinds = {"shop": SHOP_KIND, "embodied": EMBODIED_KIND, "fidelity": FIDELITY_KIND}
    prepare_output(out, OUTPUT_KIND, overwrite=overwrite)
    for name, kind in kinds.items():
        prepare_output(out / name, kind, overwrite=overwrite)
    out = claim_output(out, OUTPUT_KIND, overwrite=overwrite)

    stages: list[tuple[str, str, Callable[[], Any]]] = [
        (
            "shopping LLM suite: the lookup, SFT and Shop-R1 rows (bench shop --preset demo)",
            "shop",
            lambda: run_bench_shop("demo", out / "shop", overwrite=overwrite),
        ),
        (
            "embodied suite: reference rows and COREN (bench embodied --preset demo)",
            "embodied",
            lambda: run_bench_embodied(
                EMBODIED_PRESETS["demo"], out=out / "embodied", overwrite=overwrite
            ),
        ),
        (
            "live store: A/B tests of store changes (bench fidelity --preset demo)",
            "fidelity",
            lambda: run_bench_fidelity(
                FIDELITY_PRESETS["demo"], out / "fidelity", overwrite=overwrite
            ),
        ),
    ]
    console = Console()
    timings: dict[str, float] = {}
    try:
        for index, (title, name, stage) in enumerate(stages):
            console.print(f"\n== rewardgym demo: {title} ==")
            if index:  # each later suite's page counts its own time, not the suites' before it
                restart_clock()
            start = time.perf_counter()
            stage()
            timings[name] = time.perf_counter() - start
    finally:
        use_process_clock()
    console.print("\n== rewardgym demo: done ==")
    for name, seconds in timings.items():
        console.print(f"{name:>10}: {seconds / 60:5.1f} min  ->  {out / name}/results.md")
    console.print(
        f"These are demo-sized runs. The recorded runs of the full presets (command, commit, "
        f"machine, wall time, tables): {RECORDED_RESULTS}"
    )


__all__ = ["OUTPUT_KIND", "RECORDED_RESULTS", "Demo", "run_demo"]
