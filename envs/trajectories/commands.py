"""``rewardgym data collect``: perturbed-expert trajectories with a success flag, to Arrow and Minari."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import tyro

from rewardgym.envs.trajectories.config import CollectConfig


@dataclass(frozen=True)
class DataCollect:
    """Collect expert trajectories with random actions injected, recording only success."""

    out: Path
    """Directory of the new data set (Arrow, plus the Minari copy under OUT/data)."""
    collect: Annotated[CollectConfig, tyro.conf.arg(name="")] = field(default_factory=CollectConfig)
    minari: bool = True
    """Also write the Minari copy under OUT/data."""
    overwrite: bool = False
    """Replace a data set that an earlier ``data collect`` wrote to OUT."""

    def run(self) -> None:
        """Collect, save and print where the data set went."""
        from rich.console import Console
        from rich.progress import Progress

        from rewardgym.envs.trajectories.collect import collect_dataset

        config, out = self.collect, self.out
        console = Console()
        start = time.perf_counter()
        with Progress(transient=True, console=console) as bar:
            task = bar.add_task(f"collecting {config.env}", total=config.episodes)
            data = collect_dataset(config, progress=lambda done: bar.update(task, completed=done))
        collected = time.perf_counter() - start
        data.save(out, minari=self.minari, overwrite=self.overwrite)
        total = time.perf_counter() - start
        console.print(
            f"collected {len(data):,} episodes / {data.n_steps:,} steps of {config.env} in "
            f"{collected:.1f} s; success rate {data.success_rate:.3f}; saved to {out} in "
            f"{total - collected:.1f} s (total {total:.1f} s)"
        )
        console.print(
            f"load with TrajectoryDataset.from_dir({str(out)!r})"
            + (
                f", or minari: MINARI_DATASETS_PATH={out.resolve().parent} "
                f"minari.load_dataset({out.name!r})"
                if self.minari
                else ""
            )
        )


__all__ = ["DataCollect"]
