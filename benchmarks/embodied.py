"""``rewardgym bench embodied``: reward schemes x offline algorithms, evaluated in the simulator.

Reads top to bottom, like the COREN pipeline it reproduces in shape (Tables 1, 3 and 5):

1. collect perturbed-expert Household trajectories that carry only a success flag;
2. label them once with the judge ensemble and write one relabelled data set per ablation
   (``rewardgym.wrappers.coren.label_ablations``; cached, so a rerun asks no judge again);
3. train DiscreteCQL, DiscreteIQL and DiscreteBC on every reward scheme and seed, in parallel
   processes (schemes with identical rewards, and BC, which ignores rewards, train once);
4. evaluate every agent on held-out fine-grained and abstract instructions in the default and
   the shifted layout (SR, CGC, Plan), and time its decisions beside the judge-as-policy;
5. write ``results.json``, ``.csv``, ``.md`` and plots, and print the tables.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import tyro

from rewardgym.benchmarks.embodied_config import PRESETS, SCHEME_HELP, SCHEMES, EmbodiedBenchConfig

SETTINGS: tuple[tuple[str, str], ...] = (
    ("fine-grained", "default"),
    ("abstract", "default"),
    ("fine-grained", "shifted"),
    ("abstract", "shifted"),
)
METRICS: tuple[str, ...] = ("sr", "cgc", "plan")


@dataclass(frozen=True)
class TrainTask:
    """One agent to train and evaluate: a data set, an offline config and an eval config."""

    key: str
    dataset: str
    offline: dict[str, Any]
    evaluation: dict[str, Any]
    latency_steps: int = 0


def run_task(task: TrainTask) -> dict[str, Any]:
    """Train one agent on its data set and evaluate it (runs in a worker process)."""
    import torch

    from rewardgym.agents.evaluation.household import (
        EvalConfig,
        evaluate_household,
        measure_latency,
    )
    from rewardgym.agents.offline import OfflineConfig, train_offline
    from rewardgym.envs.trajectories import TrajectoryDataset

    config = OfflineConfig.from_dict(task.offline)
    torch.set_num_threads(config.threads)  # evaluation too: parallel workers must not oversubscribe
    agent = train_offline(TrajectoryDataset.from_dir(task.dataset), config, progress=False)
    evaluation = dict(task.evaluation)
    for name in ("kinds", "layouts"):
        evaluation[name] = tuple(evaluation[name])
    start = time.perf_counter()
    metrics = evaluate_household(agent, EvalConfig(**evaluation))
    out: dict[str, Any] = {
        "key": task.key,
        "metrics": metrics,
        "train_seconds": agent.train_seconds,
        "steps_per_second": agent.steps_per_second,
        "eval_seconds": time.perf_counter() - start,
    }
    if task.latency_steps:
        out["latency"] = measure_latency(agent, steps=task.latency_steps)
    return out


def _collect(config: EmbodiedBenchConfig, target: Path) -> dict[str, Any]:
    """Collect the training data set into ``target``, reusing one made with the same settings."""
    from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset

    collect = CollectConfig(episodes=config.episodes, seed=config.collect_seed, noise=config.noise)
    if (target / "rewardgym_dataset.json").exists():
        existing = TrajectoryDataset.from_dir(target)
        if existing.info.get("collect_config") == asdict(collect):
            return {"reused": True, "seconds": 0.0, "success_rate": existing.success_rate}
    start = time.perf_counter()
    data = collect_dataset(collect)
    data.save(target, minari=False, overwrite=True)
    return {
        "reused": False,
        "seconds": time.perf_counter() - start,
        "success_rate": data.success_rate,
        "steps": data.n_steps,
    }


def _reward_digest(dataset: Path) -> str:
    """A digest of a data set's per-step rewards, so schemes with equal rewards train once."""
    from rewardgym.envs.trajectories import TrajectoryDataset

    data = TrajectoryDataset.from_dir(dataset)
    digest = hashlib.sha1()
    for episode in data:
        digest.update(episode.rewards.astype("float32").round(5).tobytes())
    return digest.hexdigest()[:12]


def _warm_embeddings() -> None:
    """Embed every instruction once, so worker processes read vectors from the disk cache."""
    from rewardgym.envs.household import INSTRUCTIONS
    from rewardgym.envs.trajectories import CachedEmbedder

    CachedEmbedder().embed([instruction.text for instruction in INSTRUCTIONS])


def _run_tasks(tasks: list[TrainTask], workers: int) -> dict[str, dict[str, Any]]:
    """Run every task, in ``workers`` spawned processes when more than one, with a progress bar."""
    from tqdm.auto import tqdm

    results: dict[str, dict[str, Any]] = {}
    with tqdm(total=len(tasks), desc="train + evaluate agents", unit="agent") as bar:
        if workers <= 1:
            for task in tasks:
                results[task.key] = run_task(task)
                bar.update()
            return results
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = [pool.submit(run_task, task) for task in tasks]
            for future in as_completed(futures):
                result = future.result()
                results[result["key"]] = result
                bar.update()
    return results


def _aggregate(
    config: EmbodiedBenchConfig,
    assignment: dict[tuple[str, str, int], str],
    owners: dict[str, str],
    results: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """One row per (scheme, algorithm): metrics averaged over seeds, with their spread."""
    import numpy as np

    from rewardgym.agents.offline.factory import ALGORITHM_NAMES

    rows = []
    for scheme in config.schemes:
        for algorithm in config.algorithms:
            keys = [assignment[(scheme, algorithm, seed)] for seed in config.seeds]
            runs = [results[key] for key in keys]
            row: dict[str, Any] = {
                "scheme": scheme,
                "reward": SCHEME_HELP[scheme],
                "ablation": SCHEMES[scheme] or "",
                "algorithm": ALGORITHM_NAMES[algorithm],
                "seeds": len(runs),
                "shared_with": owners[keys[0]] if owners[keys[0]] != scheme else "",
            }
            for kind, layout in SETTINGS:
                setting = f"{kind}/{layout}"
                if setting not in runs[0]["metrics"]:
                    continue
                for metric in (*METRICS, "steps", "repeats"):
                    values = [run["metrics"][setting][metric] for run in runs]
                    row[f"{setting}/{metric}"] = float(np.mean(values))
                row[f"{setting}/sr_std"] = float(
                    np.std([r["metrics"][setting]["sr"] for r in runs])
                )
            row["train_seconds"] = float(np.mean([run["train_seconds"] for run in runs]))
            row["steps_per_second"] = float(np.mean([run["steps_per_second"] for run in runs]))
            rows.append(row)
    return rows


def run_bench_embodied(
    preset: str = "quick",
    out: str | Path = Path("results/embodied"),
    config: EmbodiedBenchConfig | None = None,
    quiet: bool = False,
    **overrides: Any,
) -> dict[str, Any]:
    """Run the embodied suite at ``preset`` (with ``overrides``), write its files under ``out``.

    Returns ``{"rows": ..., "meta": ...}``, the content of ``results.json``.
    """
    from rich.console import Console

    from rewardgym.agents.evaluation.household import EvalConfig
    from rewardgym.agents.labelling.coren import label_ablations
    from rewardgym.agents.offline.agent import quiet_d3rlpy_logs
    from rewardgym.agents.offline.factory import ALGORITHM_NAMES
    from rewardgym.benchmarks.embodied_report import (
        judge_baseline,
        plot_results,
        render_markdown,
        reward_diagnostics,
        sparse_vs_coren,
    )
    from rewardgym.benchmarks.tables import write_results
    from rewardgym.wrappers.coren.config import CorenConfig

    if config is None:
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}: use one of {tuple(PRESETS)}")
        config = PRESETS[preset].replace(**overrides)
    console = Console(quiet=quiet)
    quiet_d3rlpy_logs()
    root = Path(out)
    start = time.perf_counter()
    timings: dict[str, float] = {}

    console.rule(f"bench embodied [{config.name}]: collect {config.episodes} trajectories")
    train_dir = root / "data" / "train"
    collected = _collect(config, train_dir)
    timings["collect"] = collected["seconds"]

    ablations = sorted({a for s in config.schemes if (a := SCHEMES[s]) is not None})
    labelled_root = root / "data" / "labelled"
    dirs = {s: train_dir for s in config.schemes if SCHEMES[s] is None}
    reports: dict[str, Any] = {}
    if ablations:
        console.rule(f"label with judge {config.judge!r}: ablations {', '.join(ablations)}")
        tic = time.perf_counter()
        labelled = label_ablations(
            train_dir,
            labelled_root,
            ablations,
            judge=config.judge,
            config=CorenConfig(n_prompts=config.n_prompts),
            progress=not quiet,
            overwrite=True,
            minari=False,
        )
        timings["label"] = time.perf_counter() - tic
        reports = {name: report.as_dict() for name, report in labelled.items()}
        for scheme in config.schemes:
            ablation = SCHEMES[scheme]
            if ablation is not None:
                dirs[scheme] = labelled_root / ablation if len(ablations) > 1 else labelled_root

    _warm_embeddings()
    evaluation = EvalConfig(instructions_per_task=config.instructions_per_task)
    eval_dict = {**asdict(evaluation), "kinds": list(evaluation.kinds)}
    eval_dict["layouts"] = list(evaluation.layouts)
    digests = {scheme: _reward_digest(path) for scheme, path in dirs.items()}
    tasks: dict[str, TrainTask] = {}
    owners: dict[str, str] = {}
    assignment: dict[tuple[str, str, int], str] = {}
    latency_scheme = "coren" if "coren" in config.schemes else config.schemes[0]
    for scheme in config.schemes:
        for algorithm in config.algorithms:
            for seed in config.seeds:
                reward_key = "any" if algorithm == "bc" else digests[scheme]
                key = f"{algorithm}-{seed}-{reward_key}"
                assignment[(scheme, algorithm, seed)] = key
                if key in tasks:
                    continue
                offline = {
                    "algorithm": algorithm,
                    "encoding": config.encoding,
                    "n_steps": config.n_steps,
                    "batch_size": config.batch_size,
                    "learning_rate": config.learning_rate,
                    "target_update_interval": config.target_update_interval,
                    "cql_alpha": config.cql_alpha,
                    "seed": seed,
                }
                timed = seed == config.seeds[0] and (scheme == latency_scheme or algorithm == "bc")
                tasks[key] = TrainTask(
                    key,
                    str(dirs[scheme]),
                    offline,
                    eval_dict,
                    config.latency_steps if timed else 0,
                )
                owners[key] = scheme
    console.rule(f"train {len(tasks)} agents ({config.workers} workers, {config.n_steps} steps)")
    tic = time.perf_counter()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    results = _run_tasks(list(tasks.values()), config.workers)
    timings["train_and_evaluate"] = time.perf_counter() - tic

    console.rule("judge-as-policy baseline")
    tic = time.perf_counter()
    judge = judge_baseline(config)
    timings["judge_baseline"] = time.perf_counter() - tic

    rows = _aggregate(config, assignment, owners, results)
    agent_latency = {
        f"{ALGORITHM_NAMES[tasks[key].offline['algorithm']]}, {owners[key]}": result["latency"]
        for key, result in results.items()
        if "latency" in result
    }
    timings["total"] = time.perf_counter() - start
    meta: dict[str, Any] = {
        "config": asdict(config),
        "collect": collected,
        "label_reports": reports,
        "reward_diagnostics": reward_diagnostics(dirs),
        "agents_trained": len(tasks),
        "runs": results,
        "agent_latency": agent_latency,
        "judge_policy": judge,
        "sparse_vs_coren": sparse_vs_coren(rows),
        "timings_seconds": timings,
        "cpu_count": os.cpu_count(),
    }
    markdown = render_markdown(rows, meta)
    write_results(root, rows, markdown, meta)
    meta["plots"] = [str(p) for p in plot_results(rows, meta, root)]
    (root / "results.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    console.print(markdown)
    console.print(f"\nwall time {timings['total']:.0f} s; results in {root}/")
    return {"rows": rows, "meta": meta}


@dataclass(frozen=True)
class BenchEmbodied:
    """Reward schemes x DiscreteCQL/IQL/BC on Household: SR, CGC, Plan and action latency."""

    config: Annotated[EmbodiedBenchConfig, tyro.conf.arg(name="")]
    preset: Literal["quick", "paper"] = "quick"
    """Named defaults for every option below: quick (<= 15 min on 2 cores) or paper."""
    out: Path = Path("results/embodied")
    """Directory for results.json / .csv / .md and plots."""

    def run(self) -> None:
        """Run the suite and write its files."""
        run_bench_embodied(self.preset, self.out, config=replace(self.config, name=self.preset))


__all__ = ["SETTINGS", "BenchEmbodied", "TrainTask", "run_bench_embodied", "run_task"]
