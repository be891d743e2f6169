"""``rewardgym label coren``: relabel a trajectory data set with COREN's dense reward.

Kept light at import time: the labelling machinery (torch, the judges) loads only when the
command runs. Defaults come from ``CorenConfig``, so each one lives in one place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from rewardgym.wrappers.coren.config import ABLATIONS, CorenConfig

_D = CorenConfig()


def label_coren(
    dataset: Annotated[Path, typer.Option(help="Input data set directory (never modified).")],
    out: Annotated[Path, typer.Option(help="Directory of the relabelled data set.")],
    judge: Annotated[
        str, typer.Option(help="embedding | embedding:hashing | hf:PATH | openai:URL")
    ] = "embedding",
    ablation: Annotated[
        str, typer.Option(help=f"Reward scheme: {', '.join(ABLATIONS)}.")
    ] = _D.ablation,
    n_prompts: Annotated[int, typer.Option(help="Number of prompts N (paper: 5).")] = _D.n_prompts,
    similarity_threshold: Annotated[
        float, typer.Option(help="Structural gate on answer similarity (paper: 0.5).")
    ] = _D.similarity_threshold,
    gamma: Annotated[float, typer.Option(help="Discount of the orchestrator's return.")] = _D.gamma,
    epochs: Annotated[int, typer.Option(help="Orchestrator training epochs.")] = _D.epochs,
    holdout_fraction: Annotated[
        float, typer.Option(help="Share of episodes held out of orchestrator training.")
    ] = _D.holdout_fraction,
    seed: Annotated[int, typer.Option(help="Seed of the split and the orchestrator.")] = _D.seed,
    batch_size: Annotated[int, typer.Option(help="Judge requests per batch.")] = _D.batch_size,
    cache: Annotated[
        Path | None,
        typer.Option(help="Judge cache file (default: one per OUT under $REWARDGYM_HOME)."),
    ] = None,
    prompts: Annotated[
        Path | None, typer.Option(help="Directory of prompt *.txt files (default: shipped).")
    ] = None,
    qa: Annotated[
        Path | None, typer.Option(help="JSONL QA file for envs without ground truth.")
    ] = None,
    judge_model: Annotated[
        str, typer.Option(help="Model name sent to an openai judge.")
    ] = "default",
    api_key_env: Annotated[
        str, typer.Option(help="Env var holding the openai judge's API key.")
    ] = "OPENAI_API_KEY",
    concurrency: Annotated[int, typer.Option(help="Parallel requests of an openai judge.")] = 8,
    timeout: Annotated[float, typer.Option(help="Seconds per openai request.")] = 30.0,
    minari: Annotated[bool, typer.Option(help="Also write the Minari copy.")] = True,
    overwrite: Annotated[bool, typer.Option(help="Replace a data set already in OUT.")] = False,
) -> None:
    """Relabel every step of DATASET with COREN's dense reward and write it to OUT.

    OUT is checked before the first judge call (new, empty, or with --overwrite a rewardgym
    data set; anything else is refused and left untouched) and appears only once complete.
    A run whose judge calls all fail, or whose --api-key-env names an unset variable, stops
    with exit status 1 and writes nothing.
    """
    from rich.console import Console

    from rewardgym.agents.labelling.coren import LabellingError, label_dataset
    from rewardgym.wrappers.judges.openai import JudgeUnavailableError

    try:
        config = CorenConfig(
            n_prompts=n_prompts,
            similarity_threshold=similarity_threshold,
            gamma=gamma,
            ablation=ablation,
            epochs=epochs,
            holdout_fraction=holdout_fraction,
            seed=seed,
            batch_size=batch_size,
        )
    except ValueError as err:
        raise typer.BadParameter(str(err)) from err
    options: dict[str, object] = {}
    if judge.startswith("openai:"):
        options = {
            "model": judge_model,
            "api_key_env": api_key_env,
            "concurrency": concurrency,
            "timeout_s": timeout,
        }
    console = Console()
    try:
        report = label_dataset(
            dataset,
            out,
            judge=judge,
            config=config,
            cache_path=cache,
            prompts_dir=prompts,
            qa_file=qa,
            overwrite=overwrite,
            minari=minari,
            judge_options=options,
        )
    except (FileExistsError, NotADirectoryError, PermissionError) as err:
        raise typer.BadParameter(str(err), param_hint="--out") from err
    except (LabellingError, JudgeUnavailableError) as err:
        Console(stderr=True).print(f"[bold red]label coren stopped:[/] {err}", highlight=False)
        raise typer.Exit(1) from err
    console.print(
        f"relabelled {report.episodes:,} episodes / {report.steps:,} steps ({report.ablation}) "
        f"in {report.total_seconds:.1f} s (judging {report.judge_seconds:.1f} s): "
        f"{report.requests:,} requests, {report.judge_calls:,} judge calls, "
        f"{report.cache_hits:,} cache hits, {report.failures:,} failures, "
        f"abstentions {json.dumps(report.abstentions)}"
    )
    console.print(
        f"held-out point-biserial correlation of the dense return with success: "
        f"{report.heldout_correlation:.3f} over {report.heldout_episodes} episodes; "
        f"written to {report.out}; judge cache {report.cache}"
    )


__all__ = ["label_coren"]
