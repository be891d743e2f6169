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
    """Replace a data set that an earlier data collect wrote to OUT."""
    variant: str | None = None
    """A named data-set variant of --env (Household-v1: coren, navigate, noisy, stitch,
    stitch-siblings; VirtualHome-v0: coren, executed; rewardgym.envs.trajectories.variants):
    its collector settings replace the options above, except --episodes, --seed and
    --env-kwargs."""

    def run(self) -> None:
        """Collect, save and print where the data set went.

        OUT is checked before collecting (new, empty, or with --overwrite a data set rewardgym
        wrote; anything else is refused and left untouched), and the data set appears there
        only once complete, so a killed run leaves nothing to clean by hand.
        """
        from rich.console import Console
        from rich.progress import Progress

        from rewardgym.envs.trajectories.collect import collect_dataset, failure_causes
        from rewardgym.envs.trajectories.layout import DATASET_KIND
        from rewardgym.errors import UserError
        from rewardgym.outputs import atomic_output, prepare_output

        config = self.collect
        if self.variant is not None:
            from rewardgym.envs.trajectories.variants import variant_config

            try:
                config = variant_config(
                    self.variant,
                    env=config.env,
                    episodes=config.episodes,
                    seed=config.seed,
                    env_kwargs=config.env_kwargs,
                    allow_held_out=config.allow_held_out,
                )
            except ValueError as err:
                raise UserError(f"--variant: {err}") from err
        out = prepare_output(self.out, DATASET_KIND, overwrite=self.overwrite)
        console = Console()
        start = time.perf_counter()
        # Held from the start (outputs.atomic_output): a second collect on OUT is refused at
        # once, not after its episodes.
        with atomic_output(out, DATASET_KIND, overwrite=self.overwrite) as tmp:
            with Progress(transient=True, console=console) as bar:
                task = bar.add_task(f"collecting {config.env}", total=config.episodes)
                data = collect_dataset(
                    config, progress=lambda done: bar.update(task, completed=done)
                )
            collected = time.perf_counter() - start
            if self.variant is not None:  # names the Minari data set: rewardgym/household/noisy-v1
                data.info["variant"] = self.variant
            data.write_into(tmp, minari=self.minari)
        total = time.perf_counter() - start
        causes = ", ".join(f"{n:,} {cause}" for cause, n in failure_causes(data).items())
        console.print(
            f"collected {len(data):,} episodes / {data.n_steps:,} steps of {config.env} in "
            f"{collected:.1f} s; success rate {data.success_rate:.3f} (failures: {causes}); "
            f"saved to {out} in {total - collected:.1f} s (total {total:.1f} s)"
        )
        console.print(
            f"load with TrajectoryDataset.from_dir({str(out)!r})"
            + (
                f", or minari: MINARI_DATASETS_PATH={out.parent} minari.load_dataset({out.name!r})"
                if self.minari
                else ""
            )
        )


__all__ = ["DataCollect"]
