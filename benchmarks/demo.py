"""The main job behind ``make demo``: build the embedded data and run every suite's quick preset."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from rewardgym.benchmarks.shop_baselines import run_shop_baselines


def run_demo(out: Path = Path("results")) -> None:
    """Build the default data and print the baseline shopper table (results under ``out``)."""
    console = Console()
    console.rule("rewardgym demo: shopping baselines on the embedded synthetic corpus")
    run_shop_baselines(out / "shop-baselines")
    console.print(f"\nResults written under {out}/")


__all__ = ["run_demo"]
