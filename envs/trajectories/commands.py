"""``rewardgym data collect``: perturbed-expert trajectories with a success flag, to Arrow and Minari."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from rewardgym.envs.trajectories.config import RANDOM_ACTION_MODES, CollectConfig


def collect(
    out: Annotated[Path, typer.Option(help="Directory of the new data set (Arrow + Minari).")],
    env: Annotated[
        str,
        typer.Option(
            help="Env id: rewardgym/Household-v0 or rewardgym/BabyAI-{GoToLocal,PickupLoc,"
            "PutNextLocal}-Text-v0."
        ),
    ] = CollectConfig.env,
    episodes: Annotated[
        int, typer.Option(help="Number of trajectories (COREN's Household set: about 8000).")
    ] = CollectConfig.episodes,
    seed: Annotated[
        int, typer.Option(help="Seed of episode seeds, tasks and perturbations.")
    ] = CollectConfig.seed,
    noise: Annotated[
        float,
        typer.Option(help="Probability of a random action instead of the expert's, per step."),
    ] = CollectConfig.noise,
    random_actions: Annotated[
        str,
        typer.Option(
            help=f"Random actions, one of {RANDOM_ACTION_MODES}: 'executable' ones, 'uniform' "
            "over all, or 'mixed' (half each)."
        ),
    ] = CollectConfig.random_actions,
    layout: Annotated[
        str | None, typer.Option(help="Household layout: 'default' or 'shifted'.")
    ] = None,
    max_steps: Annotated[
        int | None, typer.Option(help="Household step limit (default: the env's, 20).")
    ] = None,
    minari: Annotated[bool, typer.Option(help="Also write the Minari copy under OUT/data.")] = True,
    overwrite: Annotated[bool, typer.Option(help="Replace a data set already in OUT.")] = False,
) -> None:
    """Collect expert trajectories with random actions injected, recording only success.

    OUT is checked before collecting: it must be new, empty, or (with --overwrite) a data set
    rewardgym wrote; anything else is refused and left untouched. The data set appears at
    OUT only once complete, so a killed run leaves nothing to clean by hand.
    """
    from rich.console import Console
    from rich.progress import Progress

    from rewardgym.envs.trajectories.collect import collect_dataset

    env_kwargs: dict[str, object] = {}
    if layout is not None:
        env_kwargs["layout"] = layout
    if max_steps is not None:
        env_kwargs["max_steps"] = max_steps
    try:
        config = CollectConfig(
            env=env,
            episodes=episodes,
            seed=seed,
            noise=noise,
            random_actions=random_actions,
            env_kwargs=env_kwargs,
        )
    except ValueError as err:
        raise typer.BadParameter(str(err)) from err
    from rewardgym.envs.trajectories.dataset import DATASET_KIND
    from rewardgym.runtime import prepare_output

    try:
        out = prepare_output(out, DATASET_KIND, overwrite=overwrite)
    except FileExistsError as err:
        raise typer.BadParameter(str(err), param_hint="--out") from err
    console = Console()
    start = time.perf_counter()
    with Progress(transient=True, console=console) as bar:
        task = bar.add_task(f"collecting {env}", total=episodes)
        data = collect_dataset(config, progress=lambda done: bar.update(task, completed=done))
    collected = time.perf_counter() - start
    try:
        data.save(out, minari=minari, overwrite=overwrite)
    except (FileExistsError, NotADirectoryError, PermissionError) as err:
        raise typer.BadParameter(str(err), param_hint="--out") from err
    total = time.perf_counter() - start
    console.print(
        f"collected {len(data):,} episodes / {data.n_steps:,} steps of {env} in {collected:.1f} s; "
        f"success rate {data.success_rate:.3f}; saved to {out} in {total - collected:.1f} s "
        f"(total {total:.1f} s)"
    )
    console.print(
        f"load with TrajectoryDataset.from_dir({str(out)!r})"
        + (
            f", or minari: MINARI_DATASETS_PATH={out.parent} minari.load_dataset({out.name!r})"
            if minari
            else ""
        )
    )


__all__ = ["collect"]
