"""``rewardgym bench embodied``: reward schemes x offline algorithms, evaluated in the simulator.

Reads top to bottom, like the COREN pipeline it reproduces in shape (Tables 1, 3 and 5), on
Household-v1 or (``--env virtualhome``) VirtualHome-v0:

1. collect trajectories with the COREN-faithful collector (success flag only);
2. add the oracle's dense reward and, once per judge, COREN's labels for every ablation, each
   as a dense column beside the success reward;
3. train every row (algorithm x reward) on every seed in parallel processes, each reward
   composed as ``success + lambda * dense`` with the row's tuned values (rows with identical
   rewards and settings train once);
4. score every agent on the held-out splits (fine / abstract instructions, default / shifted
   layout), put 95% intervals over seeds, tasks and episodes on SR, CGC and Plan and pair
   every row with cql/sparse and bc/none on the same episodes;
5. write ``results.json`` (``rows`` and ``data``), ``.csv``, ``.md`` and plots.

``mode="tune"`` replaces 3-5 by a sweep of the tune grid per row, scored on the validation
split only (training instructions on new episodes), and writes ``tune.json`` with the values
to record in the preset; ``mode="tune-curves"`` sweeps learning rate and target speed with one
long run a point and reads each row's budget off its validation curve (``tune.py``). ``out``
is claimed before any work (``rewardgym.outputs.claim_output``): a directory of the user's is
refused, an earlier ``bench embodied`` output is taken again only with ``overwrite`` (its data
sets are reused where their settings match).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import tyro

from rewardgym.agents.evaluation.household import EvalConfig
from rewardgym.agents.offline.config import OfflineConfig, algorithm_settings
from rewardgym.benchmarks.embodied.config import (
    COREN_SCHEMES,
    PRESETS,
    EmbodiedBenchConfig,
    PresetName,
    Row,
    Tuned,
)
from rewardgym.benchmarks.embodied.curves import row_curves
from rewardgym.benchmarks.runner import RunnerArg, RunnerOptions, Unit, run_units
from rewardgym.envs.trajectories.config import ENV_ALIASES
from rewardgym.errors import UserError
from rewardgym.outputs import releases_outputs

EnvName = Literal["household", "virtualhome"]
"""The envs of ``bench embodied --env`` (the keys of ``virtualhome_presets.ENV_PRESETS``)."""

METRICS: tuple[str, ...] = ("sr", "cgc", "plan")

OUTPUT_KIND = "bench-embodied"
"""The kind of a ``bench embodied`` output directory (its ``.rewardgym-output.json`` marker)."""


@dataclass(frozen=True)
class TrainTask:
    """One agent to train and evaluate: a data set and two configs (the reward in ``offline``)."""

    key: str
    dataset: str
    offline: OfflineConfig
    evaluation: EvalConfig
    successful_only: bool = False
    latency_steps: int = 0
    validation: EvalConfig | None = None
    """The validation episodes of ``offline.eval_every``'s learning curve."""


def run_task(task: TrainTask) -> dict[str, Any]:
    """Train one agent on its data set and evaluate it (runs in a worker process)."""
    import torch

    from rewardgym.agents.evaluation.household import evaluate_household, measure_latency
    from rewardgym.agents.offline import train_offline
    from rewardgym.envs.trajectories import TrajectoryDataset

    torch.set_num_threads(task.offline.threads)  # evaluation too: workers must not oversubscribe
    data = TrajectoryDataset.from_dir(task.dataset)
    if task.successful_only:
        data = data.select(lambda episode: episode.success)
    agent = train_offline(data, task.offline, progress=False, validation=task.validation)
    start = time.perf_counter()
    results = evaluate_household(agent, task.evaluation)
    out: dict[str, Any] = {
        "key": task.key,
        "trained_with": effective_values(agent.config),
        "splits": {name: r.percent() for name, r in results.items()},
        "episodes": {name: r.episodes() for name, r in results.items()},
        "train_seconds": agent.train_seconds,
        "steps_per_second": agent.steps_per_second,
        "eval_seconds": time.perf_counter() - start,
        "torch_threads": [torch.get_num_threads(), torch.get_num_interop_threads()],
    }
    if agent.curve:  # validation every eval_every steps; the splits above used the kept weights
        out["curve"] = [point.as_list() for point in agent.curve]
        out["selected_step"] = agent.selected_step
    if task.latency_steps:
        out["latency"] = measure_latency(
            agent, env_id=task.evaluation.env_id, steps=task.latency_steps
        )
    return out


def _units(tasks: list[TrainTask], root: Path) -> list[Unit]:
    """One runner unit per task: ``run_task`` on it, its data set shipped where it runs."""
    return [
        Unit(task.key, run_task, (task,), root=root, inputs=(Path(task.dataset),)) for task in tasks
    ]


def offline_config(config: EmbodiedBenchConfig, row: Row, tuned: Tuned, seed: int) -> OfflineConfig:
    """The training config of ``row``: the shared settings, ``tuned`` values and ``seed``.

    A dense row trains on the composed reward ``success + lambda * dense``; the references
    (``none``, ``sparse``) on the success flag alone. A value ``tuned`` leaves ``None`` is the
    library's: ``config.training``'s learning rate, the algorithm settings' own. lambda has one
    default, ``RewardComposition.dense_weight``, which each labelled data set records: a row
    trains with ``tuned.dense_weight`` where set (an explicit override), else
    ``config.training.dense_weight`` where set, else (``None``) the lambda its data set records;
    ``train_offline`` decides it and ``run_task`` records the value used.

    ``config.training.algorithm`` is the base of the rows of its own algorithm (for example a
    CQL target-update interval); other algorithms start from their library defaults.
    """
    name = "bc" if row.algorithm == "filtered-bc" else row.algorithm
    base = config.training.algorithm
    settings = base if base.name == name else algorithm_settings(name)
    own = {
        "cql": {"alpha": tuned.cql_alpha, "target_update_interval": tuned.target_update_interval},
        "iql": {"weight_temp": tuned.iql_weight_temp, "tau": tuned.iql_tau},
    }.get(name, {})
    settings = replace(settings, **{k: v for k, v in own.items() if v is not None})
    dense = row.reward not in ("none", "sparse")
    training = config.training
    return training.replace(
        algorithm=settings,
        n_steps=training.n_steps if tuned.n_steps is None else tuned.n_steps,
        learning_rate=training.learning_rate
        if tuned.learning_rate is None
        else tuned.learning_rate,
        seed=seed,
        reward="composed" if dense else "success",
        dense_weight=tuned.dense_weight
        if dense and tuned.dense_weight is not None
        else training.dense_weight,
    )


def effective_values(offline: OfflineConfig) -> dict[str, float | None]:
    """The hyperparameters a row trained with, as recorded in its table entry.

    Given the agent's config (``train_offline`` decided its reward), lambda is the value the
    run used; ``None`` for a row on the success flag alone, where lambda does not apply.
    """
    out: dict[str, float | None] = {
        "dense_weight": offline.dense_weight,
        "learning_rate": offline.learning_rate,
        "n_steps": offline.n_steps,
    }
    algorithm = offline.algorithm
    if algorithm.name == "cql":
        out["cql_alpha"] = algorithm.alpha  # type: ignore[attr-defined]
        out["target_update_interval"] = algorithm.target_update_interval  # type: ignore[attr-defined]
    elif algorithm.name == "iql":
        out["iql_weight_temp"] = algorithm.weight_temp  # type: ignore[attr-defined]
        out["iql_tau"] = algorithm.tau  # type: ignore[attr-defined]
    return out


def _task(
    config: EmbodiedBenchConfig,
    row: Row,
    tuned: Tuned,
    seed: int,
    datasets: dict[str, Path],
    evaluation: EvalConfig,
) -> TrainTask:
    offline = offline_config(config, row, tuned, seed)
    source = datasets[row.reward] if offline.reward == "composed" else datasets["sparse"]
    identity = (str(source), offline.as_dict())
    digest = hashlib.sha1(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:10]
    key = f"{row.algorithm}-{seed}-{digest}"
    return TrainTask(
        key=key,
        dataset=str(source),
        offline=offline,
        evaluation=evaluation,
        successful_only=row.algorithm == "filtered-bc",
        validation=config.validation if offline.eval_every else None,
    )


def prepare_data(
    config: EmbodiedBenchConfig, root: Path, *, quiet: bool
) -> tuple[dict[str, Path], dict[str, Any]]:
    """Collect and relabel; return the data set of every reward and what it took."""
    from rewardgym.benchmarks.embodied.data import (
        collect,
        data_summary,
        label_coren,
        label_oracle,
        reward_digest,
    )

    meta: dict[str, Any] = {}
    train = root / "data" / "train"
    meta["collect"] = collect(config, train)
    meta["data"] = data_summary(train)
    from rewardgym.benchmarks.embodied.data import variant_name

    meta["data"]["env"] = config.collect.env
    meta["data"]["variant"] = variant_name(config.collect)
    datasets: dict[str, Path] = {"sparse": train, "none": train}
    rewards = {row.reward for row in config.row_specs}
    if "oracle" in rewards:
        datasets["oracle"] = root / "data" / "oracle"
        meta["oracle"] = label_oracle(train, datasets["oracle"], config.training.gamma)
    if "perfect-judge" in rewards:
        from rewardgym.benchmarks.embodied.data import label_perfect_judge

        datasets["perfect-judge"] = root / "data" / "perfect-judge"
        meta["perfect_judge"] = label_perfect_judge(train, datasets["perfect-judge"])
    ablations = sorted({COREN_SCHEMES[r] for r in rewards if r in COREN_SCHEMES})
    if ablations:
        labelled = root / "data" / "labelled"
        meta["label"] = label_coren(config, train, labelled, ablations, quiet=quiet)
        for reward in rewards & set(COREN_SCHEMES):
            ablation = COREN_SCHEMES[reward]
            datasets[reward] = labelled / ablation if len(ablations) > 1 else labelled
    # Schemes with identical dense rewards (self-consistency and C) share one data set.
    by_digest: dict[str, Path] = {}
    for reward in sorted(datasets):
        if reward in ("sparse", "none"):
            continue
        datasets[reward] = by_digest.setdefault(reward_digest(datasets[reward]), datasets[reward])
    return datasets, meta


def _warm_embeddings(env_id: str) -> None:
    """Embed every instruction of ``env_id`` once, so worker processes read vectors from the disk cache."""
    from rewardgym.embeddings import CachedEmbedder
    from rewardgym.envs import VIRTUALHOME_ID

    if env_id == VIRTUALHOME_ID:
        from rewardgym.envs.virtualhome.programs import all_programs

        programs = all_programs().values()
        texts = sorted({p.description for p in programs} | {p.task.name for p in programs})
    else:
        from rewardgym.envs.household.v1 import INSTRUCTIONS

        texts = [instruction.text for instruction in INSTRUCTIONS]
    CachedEmbedder().embed(texts)


def _grid(config: EmbodiedBenchConfig, row: Row) -> list[Tuned]:
    """Every grid point of ``row``: lambda for dense rows, the learning rate, and the
    algorithm's own value (CQL's alpha, IQL's temperature); a value a row has no use for
    stays ``None``. With ``around_tuned`` a dense row's lambda is the one already tuned."""
    grid = config.tune_grid
    weights: tuple[float | None, ...] = (None,)
    if row.reward not in ("none", "sparse"):
        weights = (config.tuned_for(row).dense_weight,) if grid.around_tuned else grid.dense_weights
    specific: tuple[float | None, ...] = (None,)
    if row.algorithm == "cql":
        specific = grid.cql_alphas
    elif row.algorithm == "iql":
        specific = grid.iql_weight_temps
    key = {"cql": "cql_alpha", "iql": "iql_weight_temp"}.get(row.algorithm)
    out = []
    for weight, rate, value in itertools.product(weights, grid.learning_rates, specific):
        extra: dict[str, Any] = {key: value} if key else {}
        out.append(Tuned(row.algorithm, row.reward, weight, rate, **extra))
    return out


@releases_outputs  # --out stays locked for the run, so a second run on it is refused
def run_bench_embodied(
    config: EmbodiedBenchConfig,
    *,
    out: str | Path,
    quiet: bool = False,
    overwrite: bool = False,
    runner: RunnerOptions | None = None,
) -> dict[str, Any]:
    """Run the embodied suite as ``config`` says and write its files under ``out``.

    ``out`` is claimed first: a directory of the user's is refused, an earlier ``bench
    embodied`` output needs ``overwrite`` (or ``runner.resume``). Every agent is a unit of
    :func:`~rewardgym.benchmarks.runner.run_units` (``runner``: here or on Ray). Returns the
    content of ``results.json`` (``mode="final"``) or ``tune.json`` (``"tune"``,
    ``"tune-curves"``).
    """
    from rewardgym.outputs import claim_output

    runner = runner or RunnerOptions()
    # Claimed before d3rlpy's import talks; --resume takes an earlier run's output again.
    root = claim_output(out, OUTPUT_KIND, overwrite=overwrite or runner.resume)
    from rich.console import Console

    from rewardgym.agents.offline.agent import quiet_d3rlpy_logs
    from rewardgym.benchmarks.embodied import report, tune

    console = Console(quiet=quiet)
    quiet_d3rlpy_logs()
    start = time.perf_counter()
    console.rule(f"bench embodied ({config.name}, {config.mode}): data")
    datasets, meta = prepare_data(config, root, quiet=quiet)
    console.print(_variant_line(meta["data"]))
    _warm_embeddings(config.collect.env)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    curves = config.mode == "tune-curves"
    if curves:  # every run max_steps long, scored on validation every eval_every steps
        config = tune.curve_config(config)
    if config.mode != "final":
        grid, seeds = (
            (tune.curve_points, config.curve_grid.seeds)
            if curves
            else (_grid, config.tune_grid.seeds)
        )
        plan = {
            (row, tuned, seed): _task(config, row, tuned, seed, datasets, config.validation)
            for row in config.row_specs
            for tuned in grid(config, row)
            for seed in seeds
        }
    else:
        plan = {
            (row, config.tuned_for(row), seed): _task(
                config, row, config.tuned_for(row), seed, datasets, config.evaluation
            )
            for row in config.row_specs
            for seed in config.seeds
        }
    tasks = {task.key: task for task in plan.values()}
    if config.mode == "final":  # time the decisions of the first agent
        first = next(iter(tasks))
        tasks[first] = replace(tasks[first], latency_steps=config.latency_steps)
    where = f"{config.workers} workers" if runner.runner == "local" else "ray"
    console.rule(f"train {len(tasks)} agents ({where})")
    tic = time.perf_counter()
    results = run_units(
        _units(list(tasks.values()), root),
        runner,
        root,
        workers=config.workers,
        desc="train + evaluate",
        quiet=quiet,
        log=console.print,
    )
    meta["timings_seconds"] = {"train_and_evaluate": time.perf_counter() - tic}
    threads, interop = max(tuple(r["torch_threads"]) for r in results.values())
    meta["worker_threads"] = {
        "workers": config.workers,
        "torch_threads": threads,
        "torch_interop_threads": interop,
    }
    assignment = {key: task.key for key, task in plan.items()}
    if config.mode != "final":
        payload = (tune.curve_summary if curves else report.tune_summary)(
            config, assignment, results
        )
        _close_timings(meta, len(tasks), start)
        saved = {**payload, "meta": meta, "config": _jsonable(config)}
        (tune.write_curve_tune if curves else report.write_tune)(root, saved)
        console.print((tune.render_curve_tune if curves else report.render_tune)(saved))
        console.print(f"\nwall time {meta['timings_seconds']['total']:.0f} s; results in {root}/")
        return payload
    rows = report.aggregate(config, assignment, results)
    from rewardgym.benchmarks.embodied.stats import episode_records, write_episodes

    write_episodes(root, config, episode_records(config, assignment, results))
    console.rule("judges: quality on held-out abstract instructions")
    from rewardgym.benchmarks.embodied.data import judge_table

    meta["judges"] = judge_table(config, meta.get("label"))
    if config.judge_policy_latency:
        console.rule("judge-as-policy latency")
        meta["judge_policy"] = report.judge_baseline(config)
    meta["reward_diagnostics"] = report_diagnostics(datasets)
    meta["agent_latency"] = {
        plan_key[0].name: results[key]["latency"]
        for plan_key, key in assignment.items()
        if "latency" in results[key]
    }
    _close_timings(meta, len(tasks), start)
    meta["tuned_source"] = config.tuned_source
    payload = {
        "rows": rows,
        "data": meta["data"],
        "judges": meta.pop("judges"),
        "meta": meta,
        "config": _jsonable(config),
        **row_curves(config, assignment, results),
    }
    report.write_all(root, payload)
    console.print(report.render_markdown(payload))
    console.print(f"\nwall time {meta['timings_seconds']['total']:.0f} s; results in {root}/")
    return payload


def _close_timings(meta: dict[str, Any], agents: int, start: float) -> None:
    """Record the agents trained, the total wall time since ``start`` and the cores."""
    meta["agents_trained"] = agents
    meta["timings_seconds"]["total"] = time.perf_counter() - start
    meta["cpu_count"] = os.cpu_count()


def _variant_line(data: dict[str, Any]) -> str:
    """One line of the training data's variant statistics (``envs/trajectories/variants.py``)."""
    if "stitchable_share" not in data:  # VirtualHome-v0's data: no planner to find segments
        return (
            f"{data['env']}: {data['episodes']} episodes, success {data['success_rate']:.1f}%, "
            f"mean length {data['mean_length']:.1f} steps, {data['programs']} training programs"
        )
    return (
        f"data variant {data['variant']}: {data['episodes']} episodes, success "
        f"{data['success_rate']:.1f}%, mean length {data['mean_length']:.1f} steps, "
        f"stitchable segments {data['stitchable_share']:.1f}% of failed steps "
        f"({data['failures_with_segment']:.1f}% of failures hold one)"
    )


def report_diagnostics(datasets: dict[str, Path]) -> dict[str, dict[str, float]]:
    """Reward statistics of every dense data set."""
    from rewardgym.benchmarks.embodied.data import reward_diagnostics

    dense = {k: v for k, v in datasets.items() if k not in ("sparse", "none")}
    return reward_diagnostics(dense)


def _jsonable(config: EmbodiedBenchConfig) -> dict[str, Any]:
    out = asdict(config)
    out["training"] = config.training.as_dict()
    return out


@dataclass(frozen=True)
class BenchEmbodied:
    """COREN's tables on Household-v1 or VirtualHome-v0: reference rows and COREN schemes, SR/CGC/Plan with 95% CIs.

    Each agent is one unit, run here (--workers processes) or on Ray (--runner ray).
    """

    config: Annotated[EmbodiedBenchConfig, tyro.conf.arg(name="")]
    env: EnvName = "household"
    """The env of the run, and of the presets: household (Household-v1) or virtualhome
    (VirtualHome-v0: its presets demo, quick and full, with the VirtualHome rows, held-out test
    programs and COREN's Table 1 quoted beside the tables)."""
    preset: PresetName = "demo"
    """Named defaults for every option below: demo (filtered BC, sparse, perfect-judge and COREN
    CQL on a small data set; docs/results/embodied-demo.md), quick (the reference rows, COREN
    and two ablations, 3 seeds; docs/results/embodied-quick.md),
    full (every row of COREN's tables, 6 seeds; docs/results/embodied-full.md) or paper
    (COREN's data size)."""
    out: Path = Path("results/embodied")
    """Directory for results.json / .csv / .md and plots (tune.json with --mode tune): new or
    empty, or an earlier bench embodied output with --overwrite."""
    overwrite: bool = False
    """Run again into an earlier bench embodied output in --out: its results are replaced,
    its data sets (OUT/data) reused where their settings match."""
    runner: RunnerArg = field(default_factory=RunnerOptions)

    def run(self) -> None:
        """Run the suite and write its files (``--out`` is claimed before any work)."""
        if self.config.collect.env != ENV_ALIASES[self.env]:
            raise UserError(
                f"--env {self.env} but the settings collect {self.config.collect.env}: pass "
                f"--env {self.env} on the command line so that its presets are read"
            )
        name = self.preset if self.env == "household" else f"{self.env}-{self.preset}"
        run_bench_embodied(
            replace(self.config, name=name),
            out=self.out,
            overwrite=self.overwrite,
            runner=self.runner,
        )


__all__ = [
    "OUTPUT_KIND",
    "PRESETS",
    "BenchEmbodied",
    "EnvName",
    "TrainTask",
    "offline_config",
    "prepare_data",
    "run_bench_embodied",
    "run_task",
]
