"""The calibrated-judge page: how good a judge must be for COREN to pay, on Household-v1 and VirtualHome-v0.

Reads top to bottom, per env (each env's ``bench embodied`` preset gives the data, training,
tuned values and held-out splits):

1. collect the training data and label it with the perfect judge (COREN's ceiling);
2. label it with a calibrated judge (``rewardgym.wrappers.judges.calibrated``) at every
   accuracy of ``accuracies`` and once at ``rho_accuracy`` with errors correlated ``rho``
   across prompts, each labelling giving COREN, single-prompt and average rewards;
3. train CQL on every one of them and on the success flag alone (sparse), every seed, and score
   the held-out splits;
4. pair every row with sparse CQL and with the perfect judge on the same episodes (95%
   intervals over seeds, tasks and episodes, ``stats.SplitResamples``), and measure the
   accuracy of the judges of ``accuracy_judges`` (the embedding judge) on the same scale:
   a judge that agrees with the goal check's ratings of the logged steps on a share ``g`` has
   the accuracy ``(g - 1/5) / (1 - 1/5)`` of the calibrated judge that agrees as often.

``judge_page`` writes results.json, results.md and judges.png (each row minus sparse CQL
against ACC). The answer caches are temporary: every answer is a hash of request and seed.
Run: ``python -m rewardgym.benchmarks.embodied.judge_sweep --preset quick --out DIR``.
"""

from __future__ import annotations

import re
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import tyro

from rewardgym.benchmarks.embodied.judge_page import PERFECT, SPARSE, write_page
from rewardgym.benchmarks.runner import RunnerArg, RunnerOptions, Unit, run_units
from rewardgym.bounds import AT_LEAST_1, POSITIVE, SEED, between, check_fields
from rewardgym.wrappers.judges.factory import check_judge_spec

OUTPUT_KIND = "bench-embodied-judges"
"""The kind of a judge-sweep output directory (its ``.rewardgym-output.json`` marker)."""
EnvName = Literal["household", "virtualhome"]


@dataclass(frozen=True)
class Config:
    """Which envs, judges and rows; everything else is each env's ``bench embodied`` preset."""

    envs: tuple[EnvName, ...] = ("household", "virtualhome")
    """The envs of the page."""
    preset: Literal["demo", "quick", "full"] = "quick"
    """Each env's bench embodied preset: data, training steps, tuned values, seeds, splits."""
    accuracies: tuple[Annotated[float, between(0, 1)], ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
    """Accuracies of the calibrated judges (0: chance, every answer uniformly random)."""
    rho: Annotated[float, between(0, 1)] = 0.5
    """Error correlation across prompts of the one correlated judge (0: none)."""
    rho_accuracy: Annotated[float, between(0, 1)] = 0.75
    """Accuracy of the correlated judge."""
    schemes: tuple[Literal["coren", "single-prompt", "average"], ...] = (
        "coren",
        "single-prompt",
        "average",
    )
    """The COREN rewards trained from every judge's labels."""
    seeds: tuple[Annotated[int, SEED], ...] | None = None
    """Training seeds (None: the preset's)."""
    episodes: Annotated[int, AT_LEAST_1] | None = None
    """Training trajectories (None: the preset's)."""
    n_steps: Annotated[int, AT_LEAST_1] | None = None
    """Gradient steps per agent (None: the preset's); set it from a tune on validation curves."""
    learning_rate: Annotated[float, POSITIVE] | None = None
    """Learning rate of every agent (None: the preset's); set it from a tune on validation curves."""
    tuned_from: Path | None = None
    """A ``bench embodied --mode tune-curves`` folder (or its tune.json) of the one env swept:
    sparse CQL trains with ``cql/sparse``'s chosen values (budget, learning rate, target) and
    the perfect judge and every calibrated row with ``cql/perfect-judge``'s (None: the preset's)."""
    qa_pairs: Annotated[int, AT_LEAST_1] = 139
    """Pairs of the structural QA bank, drawn once per env from the simulator (COREN: 139)."""
    embedder: Literal["minilm", "hashing"] = "minilm"
    """Sentence encoder of the structural consistency and the QA bank (COREN's: MiniLM;
    hashing: fast and model-free, for smoke tests)."""
    judge_seed: Annotated[int, SEED] = 0
    """Seed of the calibrated judges' draws."""
    accuracy_judges: tuple[str, ...] = ("embedding",)
    """Judges whose measured accuracy is marked on the figure."""
    accuracy_steps: Annotated[int, AT_LEAST_1] = 2000
    """Logged steps (drawn at random) on which each of accuracy_judges is measured."""
    workers: Annotated[int, AT_LEAST_1] = 2
    """Labelling and training processes in parallel."""
    out: Path = Path("results/embodied-judges")
    """Directory of the page (new or empty, or an earlier judge sweep with --overwrite)."""
    overwrite: bool = False
    """Run again into an earlier judge sweep's --out (its data sets are made anew)."""
    runner: RunnerArg = field(default_factory=RunnerOptions)
    """Where the labelling and training units run (here, or on Ray: docs/cluster.md)."""

    def __post_init__(self) -> None:
        """Refuse empty settings and numbers out of range, naming the field."""
        check_fields(self)
        if not self.envs or not self.accuracies or not self.schemes:
            raise ValueError("--envs, --accuracies and --schemes need a value each")
        for spec in self.accuracy_judges:
            check_judge_spec(spec, "--accuracy-judges")
        if self.tuned_from is not None and len(self.envs) != 1:
            raise ValueError("--tuned-from is one env's tune: give one env with --envs")
        if self.tuned_from is not None and (self.n_steps or self.learning_rate):
            raise ValueError("--tuned-from sets the budget and learning rate: drop --n-steps "
                             "and --learning-rate")  # fmt: skip

    def judge_specs(self) -> tuple[str, ...]:
        """``calibrated:ACC`` for every accuracy, and ``calibrated:ACC:RHO`` when rho > 0."""
        specs = [f"calibrated:{a:g}" for a in self.accuracies]
        if self.rho > 0:
            specs.append(f"calibrated:{self.rho_accuracy:g}:{self.rho:g}")
        return tuple(dict.fromkeys(specs))


def env_bench(config: Config, env: str) -> Any:
    """The env's preset with the sweep's seeds, data size, training steps and learning rate."""
    from rewardgym.benchmarks.embodied.virtualhome_presets import ENV_PRESETS

    bench = ENV_PRESETS[env][config.preset]
    changes: dict[str, Any] = {"quality_judges": ()}
    if config.seeds is not None:
        changes["seeds"] = config.seeds
    if config.episodes is not None:
        changes["collect"] = replace(bench.collect, episodes=config.episodes)
    training: dict[str, Any] = {
        k: v
        for k, v in (("n_steps", config.n_steps), ("learning_rate", config.learning_rate))
        if v is not None
    }
    if training:  # the sweep's values win over the preset's, shared and per row alike
        changes["training"] = bench.training.replace(**training)
        changes["tuned"] = tuple(replace(t, **training) for t in bench.tuned)
    if config.tuned_from is not None:
        changes["tuned"], changes["tuned_source"] = tuned_from(
            config.tuned_from, bench.collect.env, config.schemes
        )
    return bench.replace(**changes)


def tuned_from(path: Path, env_id: str, schemes: tuple[str, ...]) -> tuple[tuple[Any, ...], str]:
    """The sweep's rows' values from a tune-curves run of ``env_id``, and where they came from.

    Sparse CQL takes the tune's ``cql/sparse`` values; the perfect judge and every calibrated
    judge's COREN rows (``schemes``) take ``cql/perfect-judge``'s, the dense reference, so the
    rows differ only in the labels they train on. ``ValueError`` names what the tune lacks.
    """
    import json

    from rewardgym.benchmarks.embodied.config import Tuned

    file = path / "tune.json" if path.is_dir() else path
    try:
        payload = json.loads(file.read_text(encoding="utf-8"))
        best, tuned_env = payload["best"], payload["config"]["collect"]["env"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"--tuned-from {path}: not a bench embodied tune ({error})") from None
    if tuned_env != env_id:
        raise ValueError(f"--tuned-from {path}: a tune of {tuned_env}, not of {env_id}")
    missing = [row for row in (SPARSE, PERFECT) if row not in best]
    if missing:
        raise ValueError(f"--tuned-from {path}: the tune has no {' or '.join(missing)} row")
    fields = {f for f in Tuned.__dataclass_fields__ if f not in ("algorithm", "reward")}

    def values(row: str, reward: str) -> Tuned:
        chosen = {k: v for k, v in best[row].items() if k in fields}
        if reward == row.split("/")[1]:  # its own validation SR; a COREN row has none yet
            chosen["validation_sr"] = best[row].get("sr")
        return Tuned("cql", reward, **chosen)

    rows = [values(SPARSE, "sparse"), values(PERFECT, "perfect-judge")]
    rows += [values(PERFECT, scheme) for scheme in schemes]
    return tuple(rows), f"{SPARSE} and {PERFECT} (every calibrated row) from {file}"


def row_name(scheme: str, spec: str) -> str:
    """The page's name of COREN scheme ``scheme`` trained on ``spec``'s labels."""
    return f"cql/{scheme} @ {spec}"


@dataclass(frozen=True)
class LabelJob:
    """One calibrated judge's labelling of the training data (runs in a worker process)."""

    spec: str
    train: str
    target: str
    ablations: tuple[str, ...]
    coren: Any
    qa: str
    embedder: str
    judge_seed: int
    quiet: bool


def label_one(job: LabelJob) -> dict[str, Any]:
    """Label ``job.train`` with ``job.spec``; its answer cache is temporary. Returns the costs.

    The goal truth is built once per process and data set (``shared_truth``), so a worker
    replays the data once for all the judges it labels.
    """
    from rewardgym.embeddings import shared_embedder
    from rewardgym.envs.trajectories import TrajectoryDataset
    from rewardgym.wrappers.coren.labelling import LabelConfig, label_ablations
    from rewardgym.wrappers.judges.calibrated import (
        CalibratedJudge,
        parse_calibrated,
        shared_truth,
    )

    start = time.perf_counter()
    truth = shared_truth(TrajectoryDataset.from_dir(job.train))
    accuracy, rho = parse_calibrated(job.spec)
    judge = CalibratedJudge(accuracy, rho, job.judge_seed, truth)
    with tempfile.TemporaryDirectory(prefix="rewardgym-calibrated-") as scratch:
        label = LabelConfig(
            judge=job.spec,
            coren=job.coren,
            cache=Path(scratch) / "answers.sqlite",
            qa=Path(job.qa),
            minari=False,
            overwrite=True,
        )
        label_ablations(
            job.train,
            job.target,
            list(job.ablations),
            label,
            judge=judge,
            embedder=shared_embedder(job.embedder),
            progress=not job.quiet,
        )
    seconds = time.perf_counter() - start
    return {"spec": job.spec, "label_seconds": seconds, "truth_states": len(truth.where),
            "twin_conflicts": truth.conflicts}  # fmt: skip


def label_judges(
    config: Config, bench: Any, train: Path, root: Path, *, quiet: bool
) -> tuple[dict[str, Path], dict[str, Any]]:
    """Label ``train`` with every calibrated judge (``config.workers`` processes at a time).

    Returns the data set of every row and what the labelling took.
    """
    from rewardgym.benchmarks.embodied.config import COREN_SCHEMES
    from rewardgym.embeddings import shared_embedder
    from rewardgym.envs.trajectories import TrajectoryDataset
    from rewardgym.wrappers.coren.config import CorenConfig
    from rewardgym.wrappers.coren.judging import default_qa_bank

    ablations = tuple(sorted({COREN_SCHEMES[s] for s in config.schemes}))
    coren = CorenConfig(
        n_prompts=bench.n_prompts,
        gamma=bench.training.gamma,
        probe_states=0,
        qa_pairs=config.qa_pairs,
    )
    tic = time.perf_counter()
    qa = root / "qa" / "qa.jsonl"  # one structural QA bank for every judge (a folder to ship)
    qa.parent.mkdir(parents=True, exist_ok=True)
    data = TrajectoryDataset.from_dir(train)
    default_qa_bank(data, coren, shared_embedder(config.embedder)).to_jsonl(qa)
    meta: dict[str, Any] = {"qa_seconds": time.perf_counter() - tic}
    jobs = [
        LabelJob(spec, str(train), str(root / re.sub(r"[^0-9a-z]+", "-", spec)), ablations,
                 coren, str(qa), config.embedder, config.judge_seed, quiet)
        for spec in config.judge_specs()
    ]  # fmt: skip
    tic = time.perf_counter()
    units = [
        Unit(f"label-{Path(job.target).name}", label_one, (job,), root=root,
             inputs=(train, root / "qa"), outputs=(Path(job.target),))
        for job in jobs
    ]  # fmt: skip
    done = run_units(units, config.runner, root, workers=config.workers,
                     desc="label", quiet=quiet)  # fmt: skip
    meta["label_seconds"] = time.perf_counter() - tic
    meta["judges"] = {d.pop("spec"): d for d in done.values()}
    datasets: dict[str, Path] = {}
    for job in jobs:
        for scheme in config.schemes:
            ablation = COREN_SCHEMES[scheme]
            target = Path(job.target)
            datasets[row_name(scheme, job.spec)] = (
                target / ablation if len(ablations) > 1 else target
            )
    return datasets, meta


def judge_accuracy(spec: str, train: Path, n_prompts: int, steps: int, seed: int = 0) -> dict:
    """The share of logged steps a judge rates as the goal check does, and its calibrated accuracy.

    Every prompt rates ``steps`` logged steps drawn at random; an abstention counts as a
    disagreement. ``accuracy`` is ``(agreement - 1/5) / (1 - 1/5)``: the accuracy of the
    calibrated judge that agrees as often (negative: worse than chance). A calibrated judge's
    errors are uniform, another judge's need not be: ``constant_accuracy`` is what the same
    formula gives a judge that always answers the commonest rating of these steps.
    """
    from rewardgym.envs.trajectories import TrajectoryDataset
    from rewardgym.wrappers.coren.grounding import episode_transitions
    from rewardgym.wrappers.judges.base import parse_rating
    from rewardgym.wrappers.judges.batching import ask_steps
    from rewardgym.wrappers.judges.factory import make_judge
    from rewardgym.wrappers.judges.prompts import load_prompts
    from rewardgym.wrappers.perfect_judge import perfect_judge_rewards

    data = TrajectoryDataset.from_dir(train)
    transitions = [
        s for ep in data for s in episode_transitions(ep, data.action_names, data.env_id)
    ]
    right = np.concatenate(perfect_judge_rewards(data))
    rng = np.random.default_rng(seed)
    picked = np.sort(rng.permutation(len(transitions))[:steps])
    judge = make_judge(spec)
    table = ask_steps("rate", [transitions[i] for i in picked], load_prompts(n_prompts), judge)
    ratings = np.array([np.nan if r is None else r for r in table.parsed(parse_rating)])
    agree = float(np.mean(ratings[table.index] == right[picked][:, None]))
    share = float(np.unique(right[picked], return_counts=True)[1].max() / len(picked))
    return {"agreement": agree, "accuracy": (agree - 0.2) / 0.8, "steps": len(picked),
            "constant_accuracy": (share - 0.2) / 0.8}  # fmt: skip


def run_env(config: Config, bench: Any, root: Path, *, quiet: bool = False) -> dict[str, Any]:
    """Every row of one env (``bench``: its settings): data, labels, agents, paired figures."""
    from rewardgym.benchmarks.embodied.config import Row
    from rewardgym.benchmarks.embodied.data import collect, label_perfect_judge
    from rewardgym.benchmarks.embodied.suite import TrainTask, _units, offline_config

    env = bench.collect.env
    start = time.perf_counter()
    train, perfect = root / "data" / "train", root / "data" / "perfect-judge"
    meta: dict[str, Any] = {"collect": collect(bench, train)}
    meta["perfect_judge"] = label_perfect_judge(train, perfect)
    datasets, meta["labels"] = label_judges(config, bench, train, root / "data", quiet=quiet)
    datasets = {SPARSE: train, PERFECT: perfect, **datasets}
    tasks: dict[tuple[str, int], TrainTask] = {}
    for name, dataset in datasets.items():
        reward = name.split(" @ ")[0].split("/")[1]
        row = Row("cql", reward)
        for seed in bench.seeds:
            offline = offline_config(bench, row, bench.tuned_for(row), seed)
            key = re.sub(r"[^0-9a-z]+", "-", f"{env.lower()}-{name}-{seed}")
            tasks[(name, seed)] = TrainTask(key, str(dataset), offline, bench.evaluation)
    tic = time.perf_counter()
    results = run_units(_units(list(tasks.values()), root), config.runner, root,
                        workers=config.workers, desc="train + evaluate", quiet=quiet)  # fmt: skip
    meta["train_and_evaluate_seconds"] = time.perf_counter() - tic
    meta["agents"] = len(tasks)
    rows = paired_rows(config, bench, tasks, results)
    accuracies = {
        spec: judge_accuracy(spec, train, bench.n_prompts, config.accuracy_steps)
        for spec in config.accuracy_judges
    }
    meta["seconds"] = time.perf_counter() - start
    return {
        "env": bench.collect.env,
        "preset": bench.name,
        "episodes": bench.collect.episodes,
        "seeds": list(bench.seeds),
        "n_steps": bench.training.n_steps,
        "training": {  # every seed of a row trains with the same values
            name: {
                "n_steps": task.offline.n_steps,
                "learning_rate": task.offline.learning_rate,
                "target_update_interval": getattr(
                    task.offline.algorithm, "target_update_interval", None
                ),
            }
            for (name, seed), task in tasks.items()
            if seed == bench.seeds[0]
        },
        "tuned_source": bench.tuned_source,
        "splits": list(bench.evaluation.splits),
        "rows": rows,
        "measured_accuracy": accuracies,
        "meta": meta,
    }


def paired_rows(
    config: Config, bench: Any, tasks: dict[tuple[str, int], Any], results: dict
) -> list[dict[str, Any]]:
    """Per split and row: SR, its interval, and SR minus sparse CQL and minus the perfect judge."""
    from rewardgym.benchmarks.embodied.stats import SplitResamples
    from rewardgym.wrappers.judges.calibrated import parse_calibrated

    names = list(dict.fromkeys(name for name, _ in tasks))
    out = []
    for split in bench.evaluation.splits:
        per_row = {
            name: [results[tasks[(name, s)].key]["episodes"][split] for s in bench.seeds]
            for name in names
        }
        samples = SplitResamples.build(split, per_row, samples=bench.bootstrap)
        for name in names:
            scheme, _, spec = name.partition(" @ ")
            accuracy, rho = parse_calibrated(spec) if spec else (None, None)
            entry: dict[str, Any] = {
                "split": split,
                "row": name,
                "scheme": scheme.split("/")[1],
                "judge": spec or None,
                "accuracy": accuracy,
                "rho": rho,
                "sr": samples.mean(name, "sr"),
                "sr_ci": samples.interval(name, "sr"),
            }
            for reference, label in ((SPARSE, "sparse"), (PERFECT, "perfect_judge")):
                diff, ci = samples.difference(name, reference, "sr")
                entry[f"minus_{label}"], entry[f"minus_{label}_ci"] = diff, ci
            out.append(entry)
    return out


def run_judge_sweep(
    config: Config, *, benches: dict[str, Any] | None = None, quiet: bool = False
) -> dict[str, Any]:
    """Run every env of ``config`` into ``config.out`` and write the page; return its payload.

    ``benches`` maps an env of ``config.envs`` to its settings (an ``EmbodiedBenchConfig``);
    by default each env's preset with the sweep's overrides (``env_bench``).
    """
    from rewardgym.agents.offline.agent import quiet_d3rlpy_logs
    from rewardgym.outputs import claim_output, release_output

    root = claim_output(config.out, OUTPUT_KIND, overwrite=config.overwrite or config.runner.resume)
    try:
        quiet_d3rlpy_logs()
        start = time.perf_counter()
        benches = benches or {env: env_bench(config, env) for env in config.envs}
        envs = {env: run_env(config, benches[env], root / env, quiet=quiet) for env in config.envs}
        payload = {
            "envs": envs,
            "config": {
                **asdict(config),
                "out": str(config.out),
                "tuned_from": None if config.tuned_from is None else str(config.tuned_from),
            },
            "seconds": time.perf_counter() - start,
        }
        markdown = write_page(root, payload)
        if not quiet:
            print(markdown)
        return payload
    finally:
        release_output(root)


def main() -> None:
    """Parse the command line into a ``Config`` and run it."""
    run_judge_sweep(tyro.cli(Config))


__all__ = [
    "OUTPUT_KIND",
    "Config",
    "LabelJob",
    "env_bench",
    "judge_accuracy",
    "label_judges",
    "label_one",
    "paired_rows",
    "row_name",
    "run_env",
    "run_judge_sweep",
    "tuned_from",
]


if __name__ == "__main__":
    main()
