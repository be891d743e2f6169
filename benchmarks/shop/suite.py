"""``rewardgym bench shop``: train and evaluate Shop-R1's rows on held-out sessions, print its tables.

Reads top to bottom: resolve the base model (the default model built per seed, or a named or
local pretrained one); read train / validation / test rows once per tokenizer
(:mod:`~rewardgym.benchmarks.shop.data`); plan the rows once
(:mod:`~rewardgym.benchmarks.shop.plan`: the models each needs, and where each lives); per
training seed, one SFT cold start shared by every SFT row, then one GRPO run per RL row with the Shop-R1 reward config that row holds (the
preset's ``reward`` as it is or changed by the registered name the row picks,
:data:`~rewardgym.wrappers.shop_r1.REWARDS`); the first seed's
SFT model chooses the evaluation temperature on the validation split; every model is scored on
test sessions never seen in training, under both protocols, with 95% bootstrap intervals over
test sessions; the baselines are scored on the same test steps, and on the embedded synthetic
corpus so are the references ``reference/shopper-argmax`` and ``reference/shopper-resample``
(:mod:`~rewardgym.agents.baselines.shopper_reference`). With ``train_workers`` above 1 (or
``--runner ray``, or ``--resume``) every model is trained first as a unit of
:mod:`~rewardgym.benchmarks.runner`, in that many processes of one torch thread each or as Ray
tasks (seeds and GRPO rows side by side, each once its start is trained), and evaluated after. Main rows (``method``):
``zero-shot``, ``rl-binary``, ``sft``, ``sft+rl-binary``, ``shop-r1`` and the baselines
``baseline/frequency``, ``baseline/random``, ``baseline/always-terminate``,
``baseline/first-element``; ablations ``shop-r1/no-sft``, ``shop-r1/no-format``,
``shop-r1/no-rationale``, ``shop-r1/no-dars``, ``shop-r1/binary-action``, ``shop-r1/gdpo``
(per-term advantage normalisation), ``shop-r1/kang`` (Kang et al.'s self-certainty),
``shop-r1/latest-context``, ``sft/persona`` (SFT on prompts that open with the shopper's
persona, :attr:`~rewardgym.agents.llm.config.PromptConfig.persona`; on data without personas its
prompts are ``sft``'s) and ``shop-r1/temp-<t>``. Writes ``results.json`` / ``.csv`` /
``.md``, ``results.png`` and ``reward_terms.png`` under ``out``, a directory the suite marks as
its own before any work (``rewardgym.outputs.claim_output``: a directory of the user's is
refused, an earlier ``bench shop`` output is taken again only with ``overwrite``). Trained
models live under ``out/models``; a rerun into the same ``out`` reuses them, so delete that
folder after changing the config.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import tyro
from rich.console import Console

from rewardgym.agents.evaluation.shopping import ShopEvaluation, StepRecord, complete_and_score
from rewardgym.agents.llm.config import Decoding, ModelKind
from rewardgym.agents.llm.dataset import DataArg, StepRow, sample_rows, to_dataset
from rewardgym.agents.llm.rewards import WrapperFactory
from rewardgym.atomic import write_json_atomic
from rewardgym.benchmarks.runner import RunnerArg, RunnerOptions, Unit, run_units
from rewardgym.benchmarks.shop.config import BenchConfig, PresetName, constrained_name, preset
from rewardgym.benchmarks.shop.data import SuiteData, prompt_coverage
from rewardgym.benchmarks.shop.plan import (
    BASE,
    Method,
    Plan,
    TrainingTask,
    methods,
    model_dir,
    plan_rows,
    run_dir,
)
from rewardgym.benchmarks.shop.rows import BASELINES
from rewardgym.bounds import undefined_as_null
from rewardgym.errors import OutputsNoLongerParse
from rewardgym.outputs import claim_output, releases_outputs
from rewardgym.wrappers.shop_r1 import ShopR1Reward

OUTPUT_KIND = "bench-shop"
"""The kind of a ``bench shop`` output directory (its ``.rewardgym-output.json`` marker)."""


def check_only(config: BenchConfig, only: Sequence[str] | None) -> None:
    """Refuse an ``only`` selection that names no row of ``config``, or leaves out a row's start.

    ``ValueError`` names the option, the unknown values and every valid choice, so a typo
    stops the suite before any work instead of writing empty tables; a row whose start is
    missing is refused by the plan (:func:`~rewardgym.benchmarks.shop.plan.plan_rows`).
    """
    from rewardgym.agents.baselines.shopper_reference import REFERENCE_ROWS

    if only is None:
        return
    rows = {m.method: m for m in methods(config)}
    choices = [*((*BASELINES, *REFERENCE_ROWS) if config.baselines else ()), *rows]
    if not only:
        raise ValueError(f"--only names no row; choose from {', '.join(choices)}")
    unknown = [name for name in only if name not in choices]
    if unknown:
        raise ValueError(
            f"--only {' '.join(unknown)}: no such row of bench shop ({config.name}); "
            f"choose from {', '.join(choices)}"
        )
    plan_rows(config, [m for m in rows.values() if m.method in only])


def wrapper_for(method: Method) -> WrapperFactory:
    """The reward wrapper factory of a GRPO row: ``ShopR1Reward`` at the row's reward config."""
    if method.reward is None:
        raise ValueError(f"row {method.method!r} trains no GRPO: it has no reward to wrap")
    return partial(ShopR1Reward, config=method.reward)


class Suite:
    """State of one ``bench shop`` run: config, data, models, and every scored run's records."""

    def __init__(self, config: BenchConfig, out: Path, data: DataArg, progress: bool) -> None:
        self.config, self.out, self.progress = config, out, progress
        self.console = Console()
        self.timings: dict[str, float] = {}
        self.runs: list[dict[str, Any]] = []
        self.records: dict[str, list[list[StepRecord]]] = {}
        self.grpo_logs: dict[str, list[list[dict[str, Any]]]] = {}
        self.losses: dict[str, list[float]] = {}
        self.kind: ModelKind = "scratch" if config.model is None else "pretrained"
        start = time.perf_counter()
        self.data = SuiteData(
            data,
            validation_fraction=config.validation_fraction,
            train_sessions=config.train_sessions,
            progress=progress,
        )
        self.temperature = config.sampling.temperature
        self.choice: dict[str, Any] | None = None
        self.reference_skipped: str | None = None
        self.timed("data", time.perf_counter() - start)

    def timed(self, key: str, seconds: float) -> None:
        """Add ``seconds`` to the phase ``key``."""
        self.timings[key] = self.timings.get(key, 0.0) + seconds

    def prompt(self, method: Method) -> Any:
        """The preset's prompt config in the row's context mode (instructions for a pretrained model)."""
        prompt = self.config.prompt
        return replace(
            prompt,
            context=method.context or prompt.context,
            instructions=prompt.instructions or self.kind == "pretrained",
            persona=prompt.persona or method.persona,
        )

    def base_model(self, seed: int) -> Path:
        """The named or local model, or the default model built (tokenizer trained) for this seed."""
        if self.config.model is not None:
            from rewardgym.pretrained import resolve_model

            return resolve_model(self.config.model)
        from rewardgym.agents.llm.model import create_default_model
        from rewardgym.envs.shopping.session_sources import resolve_sessions

        path = model_dir(self.out, seed, BASE)
        if not (path / "config.json").is_file():
            start = time.perf_counter()
            log, train = resolve_sessions(self.data.data, "train")
            held = set(self.data.positions("validation"))
            sessions = [s for k, s in enumerate(train) if k not in held]
            create_default_model(path, log, sessions, self.config.default_model, seed=seed)
            self.timed("base", time.perf_counter() - start)
        return path

    def rows(self, model: Path, method: Method, split: Any, limit: int | None) -> list[StepRow]:
        """Rows of ``split`` prompted for ``model``'s tokenizer in the row's context mode."""
        from rewardgym.agents.llm.model import load_tokenizer

        start = time.perf_counter()
        rows = self.data.rows(model, load_tokenizer(model), self.prompt(method), split, limit)
        self.timed("prompts", time.perf_counter() - start)
        return rows

    def model(self, seed: int, name: str | None) -> Path:
        """The model of task ``name`` for ``seed`` (None: the base model), where training leaves it."""
        return self.base_model(seed) if name is None else model_dir(self.out, seed, name)

    def train(self, task: TrainingTask) -> Path:
        """Train ``task`` from the model of the task it starts from (already trained); its model's path.

        A model already in place (an earlier run into the same ``out``) is reused.
        """
        start = self.model(task.seed, task.start)
        if task.kind == "sft":
            return self.sft(start, task)
        return self.grpo(start, task)

    def sft(self, base: Path, task: TrainingTask) -> Path:
        """The SFT cold start of this seed and context (trained once, reused by every row)."""
        from rewardgym.agents.llm.sft import train_sft

        seed, method = task.seed, task.row
        prompt = self.prompt(method)
        context = prompt.context + (" + persona" if prompt.persona else "")
        out = run_dir(self.out, seed, task.name)
        if (model_dir(self.out, seed, task.name) / "config.json").is_file():
            return model_dir(self.out, seed, task.name)
        cfg = replace(self.config.sft, seed=seed)
        rows = sample_rows(self.rows(base, method, "train", None), cfg.max_examples, seed)
        self.console.print(f"[bold]SFT[/] seed {seed}, {context} context: {len(rows)} examples")
        result = train_sft(
            base,
            to_dataset(rows),
            out,
            cfg,
            max_length=self.config.prompt.max_prompt_tokens + self.config.sampling.max_new_tokens,
            progress=self.progress,
            model_kind=self.kind,
            run=f"row 'sft' (seed {seed}, {context} context)",
        )
        self.timed("sft", result.seconds)
        self.losses[f"sft/seed{seed}/{task.name.removeprefix('sft-')}"] = result.losses
        self.console.print(
            f"  loss {result.first_loss:.3f} -> {result.last_loss:.3f} over {result.steps} "
            f"steps in {result.seconds:.0f} s"
        )
        return result.path

    def grpo(self, start: Path, task: TrainingTask) -> Path:
        """GRPO from ``start`` with the row's wrapper; returns the trained model's path."""
        import json

        from rewardgym.agents.llm.grpo import GRPOOptions, ReplayEnv, train_grpo

        seed, method = task.seed, task.row
        out = run_dir(self.out, seed, task.name)
        logs = out / "log_history.json"
        if (model_dir(self.out, seed, task.name) / "config.json").is_file() and logs.is_file():
            self.grpo_logs.setdefault(method.method, []).append(json.loads(logs.read_text()))
            return model_dir(self.out, seed, task.name)
        cfg = replace(self.config.grpo, seed=seed, advantages=method.advantages)
        rows = sample_rows(self.rows(start, method, "train", None), cfg.max_examples, seed)
        # The reward reads info["truth"], not the context: the replay env renders the latest page
        # (and resolves element ids when the prompt lists them).
        replay = {"context": "latest", "element_ids": self.prompt(method).element_ids}
        env = ReplayEnv(to_dataset(rows), self.data.data, replay)
        options = GRPOOptions(
            progress=self.progress,
            desc=f"row {method.method!r} (seed {seed})",
            model_kind=self.kind,
        )
        result = train_grpo(start, env, out, wrapper_for(method), cfg, options)
        self.timed("grpo", result.seconds)
        write_json_atomic(logs, undefined_as_null(result.log_history))
        self.grpo_logs.setdefault(method.method, []).append(result.log_history)
        rewards = result.series("reward")
        head, tail = rewards[: max(1, len(rewards) // 4)], rewards[-max(1, len(rewards) // 4) :]
        self.console.print(
            f"[bold]GRPO[/] {method.method} seed {seed}: {result.steps} steps in "
            f"{result.seconds:.0f} s, reward {sum(head) / len(head):.3f} -> "
            f"{sum(tail) / len(tail):.3f} (env + wrapper {result.reward_seconds:.1f} s)"
        )
        return result.path

    def score(
        self,
        path: Path,
        method: Method,
        rows: list[StepRow],
        temperature: float,
        seed: int,
        decoding: Decoding = "free",
    ) -> ShopEvaluation:
        """Generate for ``rows`` at ``temperature`` and score the outputs against the humans."""
        from rewardgym.agents.llm.policy import LLMPolicy

        sampling = replace(self.config.sampling, temperature=temperature, decoding=decoding)
        policy = LLMPolicy.from_path(path, self.prompt(method), sampling, seed=seed)
        start = time.perf_counter()
        result, _ = complete_and_score(policy, rows, decoding)
        self.timed("eval", time.perf_counter() - start)
        return result

    def choose_temperature(self, sft: Path, method: Method) -> float:
        """The candidate temperature with the best exact match of ``sft`` on the validation split."""
        candidates = self.config.temperature_candidates
        rows = self.rows(sft, method, "validation", self.config.validation_sessions)
        from rewardgym.benchmarks.shop.report import type_shares

        scores, shares = {}, {}
        for temperature in candidates:
            result = self.score(sft, method, rows, temperature, seed=0)
            if result.metrics.parse_rate == 0.0 and self.config.stop_when_unparsable:
                raise OutputsNoLongerParse(
                    f"row 'sft' (seed 0) after {self.config.sft.epochs:g} epochs: none of "
                    f"{result.steps} validation outputs parse at temperature {temperature:g}; "
                    "the SFT run wrecked the model (lower the learning rate)"
                )
            scores[temperature] = result.metrics.exact_match
            shares[f"{temperature:g}"] = type_shares(result.records)
        self.temperature = max(candidates, key=lambda t: (scores[t], -t))
        self.choice = {
            "candidates": scores,
            "chosen": self.temperature,
            "steps": len(rows),
            "type_shares": shares,
        }
        self.console.print(
            "temperature on validation: "
            + ", ".join(f"{t:g} -> {s:.1f}%" for t, s in scores.items())
            + f"; main rows use {self.temperature:g}"
        )
        return self.temperature

    def evaluate(self, path: Path, method: Method, seed: int) -> None:
        """Score ``path`` on the row's test sessions with every sampling seed; record each run."""
        config = self.config
        limit = config.eval_sessions if method.main else self.ablation_sessions()
        rows = self.rows(path, method, "test", config.eval_sessions)
        sessions = self.data.positions("test", limit)
        if method.main and config.split_test_across_seeds and len(config.seeds) > 1:
            sessions = sessions[config.seeds.index(seed) :: len(config.seeds)]
        keep = set(sessions)
        rows = [r for r in rows if r.session in keep]
        temperature = method.temperature if method.temperature is not None else self.temperature
        decodings: list[Decoding] = ["free"]
        if method.main and config.constrained_rows and method.method != "zero-shot":
            decodings.append("constrained")
        for eval_seed in self.config.eval_seeds:
            for decoding in decodings:
                result = self.score(
                    path, method, rows, temperature, seed * 1000 + eval_seed, decoding
                )
                name = method.method if decoding == "free" else constrained_name(method.method)
                self.records.setdefault(name, []).append(result.records)
                self.runs.append(
                    {
                        "method": name,
                        "seed": seed,
                        "eval_seed": eval_seed,
                        "temperature": temperature,
                        "decoding": decoding,
                        **result.metrics.to_dict(),
                    }
                )

    def ablation_sessions(self) -> int | None:
        """Test sessions of an ablation row."""
        limit = self.config.ablation_eval_sessions
        return self.config.eval_sessions if limit is None else limit

    def baselines(self) -> None:
        """Fit the frequency baseline on the training part and score every baseline on test."""
        from rewardgym.agents.baselines.shop import default_baselines
        from rewardgym.agents.evaluation.shopping import evaluate_policy
        from rewardgym.agents.llm.dataset import make_env

        start = time.perf_counter()
        fitted = self.data.training_sessions()
        env = make_env(self.data.data, "test", {"context": "latest"})
        sessions = self.data.positions("test", self.config.eval_sessions)
        for agent in default_baselines(fitted):

            def act(batch: list[dict[str, Any]], agent: Any = agent) -> list[Any]:
                return [agent.act(obs) for obs in batch]

            result = evaluate_policy(
                act,
                env=env,
                sessions=sessions,
                progress=False,
            )
            name = f"baseline/{agent.name}"
            self.records[name] = [result.records]
            self.runs.append({"method": name, "seed": 0, **result.metrics.to_dict()})
        env.close()
        self.timed("baselines", time.perf_counter() - start)

    def references(self) -> None:
        """Score the synthetic shopper's own argmax and one fresh draw on the baselines' test steps."""
        from rewardgym.agents.baselines.shopper_reference import reference_records
        from rewardgym.agents.evaluation.shopping import protocol_metrics
        from rewardgym.envs.shopping.session_sources import resolve_sessions

        if self.data.data is not None:
            self.reference_skipped = (
                "No reference rows: they regenerate the embedded synthetic corpus from each "
                "session's index, and --data names other sessions (their hidden intents are unknown)."
            )
            return
        start = time.perf_counter()
        log, test = resolve_sessions(None, "test")
        positions = self.data.positions("test", self.config.eval_sessions)
        sessions = [log.session(test[p]) for p in positions]
        found = reference_records(sessions, positions, resamples=self.config.reference_resamples)
        for name, records in found.by_row().items():
            self.records[name] = [records]
            metrics = protocol_metrics(records, "natural").to_dict()
            self.runs.append({"method": name, "seed": 0, **metrics})
        self.timed("references", time.perf_counter() - start)


def _run_rows(suite: Suite, plan: Plan) -> None:
    """Score every planned row in table order, training each model it needs just before (or reusing it).

    The first seed's first SFT cold start chooses the evaluation temperature on the validation
    split, so the rows scored after it use the chosen one.
    """
    for seed in plan.seeds:
        trained: dict[str | None, Path] = {None: suite.base_model(seed)}
        for scoring in (s for s in plan.scorings if s.seed == seed):
            for task in plan.chain(seed, scoring.model):
                if task.name in trained:
                    continue
                trained[task.name] = suite.train(task)
                if task.kind == "sft" and seed == suite.config.seeds[0] and suite.choice is None:
                    suite.choose_temperature(trained[task.name], task.row)
            suite.evaluate(trained[scoring.model], scoring.row, seed)


_WORKER: dict[str, Suite] = {}
"""The suite of a training worker process, per run (built once, so its prompt rows are read once)."""


def train_unit(config: BenchConfig, out: Path, data: DataArg, task: TrainingTask) -> dict[str, Any]:
    """Train one task in a worker process on one torch thread; its phase times and losses."""
    import torch

    torch.set_num_threads(1)  # the workers share the cores: one thread each
    key = repr((config, str(out), data))
    if key not in _WORKER:
        _WORKER[key] = Suite(config, out, data, progress=False)
    suite = _WORKER[key]
    suite.timings, suite.losses = {}, {}
    suite.train(task)
    return {"timings": suite.timings, "losses": suite.losses}


def _unit_key(seed: int, name: str) -> str:
    return f"seed{seed}-{name.replace('/', '__')}"


def training_units(suite: Suite, plan: Plan, data: DataArg) -> list[Unit]:
    """One runner unit per training task of ``plan``, SFT cold starts first (they unblock the most).

    A unit reads the base model and the model it starts from, writes its own run folder, and
    waits on the unit that trains its start.
    """
    config, out = suite.config, suite.out
    units = []
    for task in sorted(plan.tasks, key=lambda t: t.kind != "sft"):
        inputs = [model_dir(out, task.seed, BASE)] if config.model is None else []
        if task.start is not None:
            inputs.append(model_dir(out, task.seed, task.start))
        units.append(
            Unit(
                _unit_key(task.seed, task.name),
                train_unit,
                (config, out, data, task),
                after=(_unit_key(task.seed, task.start),) if task.start else (),
                root=out,
                inputs=tuple(inputs),
                outputs=(run_dir(out, task.seed, task.name),),
                gpu=True,  # an LLM trains on a GPU wherever torch finds one
            )
        )
    return units


def train_in_workers(suite: Suite, plan: Plan, runner: RunnerOptions) -> None:
    """Train every task of ``plan`` as runner units: ``train_workers`` processes here, or Ray.

    A task starts once the task it starts from is trained; the models land where
    :class:`Suite` looks for them, so the evaluation that follows reuses them. Phase times are
    summed over the units; ``train_wall`` is the wall time.
    """
    from rewardgym.envs.shopping.session_log import SessionLog

    if not plan.tasks:
        return
    wall = time.perf_counter()
    for seed in dict.fromkeys(task.seed for task in plan.tasks):
        suite.base_model(seed)  # built here once: no two workers write the same folder
    data = suite.data.data
    data = data.path if isinstance(data, SessionLog) else data
    where = f"{suite.config.train_workers} processes" if runner.runner == "local" else "ray"
    suite.console.print(f"[bold]training[/] {len(plan.tasks)} models ({where})")
    results = run_units(
        training_units(suite, plan, data),
        runner,
        suite.out,
        workers=suite.config.train_workers,
        desc="train",
        quiet=not suite.progress,
        log=suite.console.print,
    )
    for result in results.values():
        for phase, seconds in result["timings"].items():
            suite.timed(phase, seconds)
        suite.losses.update(result["losses"])
    suite.timed("train_wall", time.perf_counter() - wall)


@releases_outputs  # --out stays locked for the run, so a second run on it is refused
def run_bench_shop(
    config: BenchConfig | str = "quick",
    out: str | Path = Path("results/shop"),
    *,
    data: DataArg = None,
    only: list[str] | None = None,
    progress: bool = True,
    overwrite: bool = False,
    runner: RunnerOptions | None = None,
) -> dict[str, Any]:
    """Run the suite (a config or a preset name), write results under ``out``, return results.json.

    Models are trained as runner units (:func:`train_in_workers`) when ``runner`` names Ray,
    resumes, or ``config.train_workers`` is above 1; else each just before the rows it scores.

    ``only`` is checked (:func:`check_only`) and planned
    (:func:`~rewardgym.benchmarks.shop.plan.plan_rows`), and ``out`` claimed (a directory of
    the user's is refused; an earlier ``bench shop`` output needs ``overwrite``) before any
    work.
    """
    from rewardgym.agents.llm.model import local_model_dir
    from rewardgym.benchmarks.shop.report import write_report
    from rewardgym.pretrained import is_pretrained

    wall = time.perf_counter()
    config = preset(config) if isinstance(config, str) else config
    if only is None and config.rows is not None:
        only = list(config.rows)
    check_only(config, only)
    wanted = [m for m in methods(config) if only is None or m.method in only]
    plan = plan_rows(config, wanted)
    if config.model is not None and not is_pretrained(config.model):
        local_model_dir(config.model)  # a missing --model fails now, not after the baselines
    runner = runner or RunnerOptions()
    out = claim_output(out, OUTPUT_KIND, overwrite=overwrite or runner.resume)
    suite = Suite(config, out, data, progress)
    if config.baselines and (
        only is None or any(o.startswith(("baseline/", "reference/")) for o in only)
    ):
        suite.baselines()
        suite.references()
    if config.train_workers > 1 or runner.runner == "ray" or runner.resume:
        train_in_workers(suite, plan, runner)
    _run_rows(suite, plan)
    coverage = {}
    if wanted:
        from rewardgym.agents.llm.model import load_tokenizer

        base = suite.base_model(config.seeds[0])
        test_rows = suite.rows(base, Method("coverage", BASE), "test", config.eval_sessions)
        coverage = prompt_coverage(test_rows, load_tokenizer(base), config.sampling.max_new_tokens)
    suite.timed("total", time.perf_counter() - wall)
    results = write_report(suite, wanted, coverage)
    suite.console.print(f"\n{results['markdown']}\n", markup=False, soft_wrap=True)
    minutes = (time.perf_counter() - wall) / 60
    suite.console.print(f"bench shop ({config.name}): {minutes:.1f} min; results in {out}/")
    return results


@dataclass(frozen=True)
class BenchShop:
    """Train and evaluate the Shop-R1 rows (baselines, zero-shot, SFT, GRPO, ablations) on held-out sessions.

    Each trained model is one unit, run here (--train-workers processes) or on Ray (--runner ray).
    """

    config: Annotated[BenchConfig, tyro.conf.arg(name="")]
    preset: PresetName = "demo"
    """Named defaults for every option below: demo (the lookup, SFT and Shop-R1 rows; recorded run
    and its time in docs/results/shop-demo.md), tiny (a smoke test of the plumbing), quick (every main row and the
    ablations, 2 CPU cores), cpu (the claims on 2 CPU cores: main rows on two seeds, longer GRPO),
    smol (SmolLM2-135M-Instruct, GPU; benchmarks/shop/gpu_check.sh), paper (GPU)."""
    out: Path = Path("results/shop")
    """Directory for results.json / .csv / .md, plots and the trained models (new or empty, or an
    earlier bench shop output with --overwrite)."""
    data: str | None = None
    """Session data: JSONL, Parquet, store or OPeRA directory (default: the embedded corpus)."""
    only: tuple[str, ...] | None = None
    """Rows to run (default: all), e.g. --only zero-shot sft. Baselines: baseline/frequency,
    baseline/random, baseline/always-terminate, baseline/first-element; references (embedded
    corpus only): reference/shopper-argmax, reference/shopper-resample; methods: zero-shot,
    rl-binary, sft, sft+rl-binary, shop-r1; ablations: shop-r1/no-sft, shop-r1/no-format,
    shop-r1/no-rationale, shop-r1/no-dars, shop-r1/binary-action, shop-r1/gdpo, shop-r1/kang,
    shop-r1/latest-context, sft/persona (prompts open with the shopper's persona), and
    shop-r1/temp-T for each T of --temperatures (these need shop-r1 too)."""
    overwrite: bool = False
    """Run again into an earlier bench shop output in --out: its results are replaced, its
    trained models (OUT/models) reused."""
    runner: RunnerArg = field(default_factory=RunnerOptions)

    def __post_init__(self) -> None:
        """Refuse ``--only`` names that are no row of the suite, listing the rows."""
        check_only(self.config, self.only if self.only is not None else self.config.rows)

    def run(self) -> None:
        """Run the suite and write its files (``--out`` is claimed before any work)."""
        run_bench_shop(
            self.config,
            self.out,
            data=self.data,
            only=list(self.only) if self.only is not None else None,
            overwrite=self.overwrite,
            runner=self.runner,
        )


__all__ = [
    "OUTPUT_KIND",
    "BenchShop",
    "Method",
    "OutputsNoLongerParse",
    "check_only",
    "methods",
    "run_bench_shop",
    "train_in_workers",
    "wrapper_for",
]
