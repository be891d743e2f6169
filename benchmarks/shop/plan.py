"""The models the selected rows of ``bench shop`` need, in the order they train, and where each lives.

The rows themselves (``Method``, ``methods``) are in :mod:`rewardgym.benchmarks.shop.rows`.

A row is scored on the model its training ends at: the base model (``zero-shot``), an SFT cold
start (``sft``, ``sft/persona``), a GRPO run (``shop-r1``, ...), or another row's model
(``shop-r1/temp-<t>`` scores ``shop-r1``'s). :func:`plan_rows` turns the selected rows into
that graph once, per training seed: the training tasks, each after the task it starts from,
and the rows to score, each naming its model. The suite trains the tasks in one process
(in row order, just before the first row that needs each) or in worker processes (each once
its start is trained); both read the same :class:`Plan`. :func:`model_dir` owns the layout
on disk (``OUT/models/seed<s>/<name>``), so a rerun, ``bench fidelity --shop-run`` and the
tests all find a model where the suite wrote it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from rewardgym.benchmarks.shop.config import BenchConfig
from rewardgym.benchmarks.shop.rows import BASE, Method, methods


def run_dir(out: Path, seed: int, name: str) -> Path:
    """The folder the training of ``name`` (a task's name, or ``base``) for ``seed`` writes under ``out``.

    A GRPO row's ``/`` becomes ``__``, so ``shop-r1/no-sft`` is one folder, ``shop-r1__no-sft``.
    """
    return out / "models" / f"seed{seed}" / name.replace("/", "__")


def model_dir(out: Path, seed: int, name: str) -> Path:
    """The trained model of ``name`` (a task's name, or ``base``) for ``seed`` under a ``bench shop`` output ``out``.

    A training run keeps its logs beside the model, in :func:`run_dir`; the default base model
    is the run folder itself.
    """
    folder = run_dir(out, seed, name)
    return folder if name == BASE else folder / "model"


def sft_name(config: BenchConfig, row: Method) -> str:
    """The name of the SFT cold start ``row`` starts from: ``sft-<context>``, ``-persona`` when its prompts open with one."""
    context = (row.context if config.separate_latest_sft else None) or config.prompt.context
    persona = config.prompt.persona or row.persona
    return f"sft-{context}" + ("-persona" if persona else "")


TaskKey = tuple[int, str]
"""A training task: (seed, its name)."""


@dataclass(frozen=True)
class TrainingTask:
    """One model to train on one seed: an SFT cold start or a GRPO row's run."""

    seed: int
    name: str
    """``sft-<context>[-persona]`` for a cold start, else the GRPO row's name (its :func:`model_dir`)."""
    kind: Literal["sft", "grpo"]
    row: Method
    """SFT: the row whose context and persona its prompts take; GRPO: the row itself."""
    start: str | None
    """The task of the same seed whose model it trains from; None: the base model."""

    @property
    def key(self) -> TaskKey:
        """``(seed, name)``."""
        return (self.seed, self.name)


@dataclass(frozen=True)
class Scoring:
    """One row scored on one seed, and the task whose model it scores (None: the base model)."""

    seed: int
    row: Method
    model: str | None


@dataclass(frozen=True)
class Plan:
    """The training tasks of a run, each after the task it starts from, and the rows to score."""

    seeds: tuple[int, ...]
    """Every training seed, main seeds first."""
    tasks: tuple[TrainingTask, ...]
    scorings: tuple[Scoring, ...]
    """Per seed in :attr:`seeds` order, the rows in table order."""

    def chain(self, seed: int, name: str | None) -> list[TrainingTask]:
        """The tasks that train model ``name`` of ``seed`` from the base model, first to last."""
        tasks = {task.key: task for task in self.tasks}
        chain = []
        while name is not None:
            chain.append(tasks[(seed, name)])
            name = chain[-1].start
        return chain[::-1]

    def model(self, seed: int, row: str) -> str | None:
        """The task whose model ``row`` scores on ``seed`` (None: the base model)."""
        for scoring in self.scorings:
            if scoring.seed == seed and scoring.row.method == row:
                return scoring.model
        raise KeyError(f"row {row!r} is not scored on seed {seed} in this plan")


def plan_rows(
    config: BenchConfig,
    rows: Sequence[Method],
    *,
    seeds: Sequence[int] | None = None,
    option: str = "--only",
) -> Plan:
    """Plan the training and scoring of ``rows`` (in table order) under ``config``.

    ``seeds`` None: main rows on ``config.seeds``, the others on ``config.ablation_seeds``;
    given, every row on each of them. One SFT cold start per seed and context serves every row
    that starts from ``sft``; a row that starts from another row scores that row's model, so
    that row must be planned on the same seed, before it. ``ValueError`` names the row, the
    row it needs, the seed and ``option`` (the setting that selects the rows) otherwise.
    """
    main = tuple(config.seeds if seeds is None else seeds)
    ablation = main if seeds is not None or config.ablation_seeds is None else config.ablation_seeds
    tasks: dict[TaskKey, TrainingTask] = {}
    scorings: list[Scoring] = []
    every_seed = tuple(dict.fromkeys((*main, *ablation)))
    for seed in every_seed:
        model_of: dict[str, str | None] = {BASE: None}
        for row in rows:
            if seed not in (main if row.main else ablation):
                continue
            if row.start == "sft":
                name = sft_name(config, row)
                if (seed, name) not in tasks:
                    prompted = row if config.separate_latest_sft else replace(row, context=None)
                    tasks[(seed, name)] = TrainingTask(seed, name, "sft", prompted, None)
                model_of["sft"] = name
            if row.start not in model_of:
                raise ValueError(_missing_start(row, rows, seed, option))
            model = model_of[row.start]
            if row.reward is not None:
                tasks[(seed, row.method)] = TrainingTask(seed, row.method, "grpo", row, model)
                model = row.method
            model_of[row.method] = model
            scorings.append(Scoring(seed, row, model))
    return Plan(every_seed, tuple(tasks.values()), tuple(scorings))


def _missing_start(row: Method, rows: Sequence[Method], seed: int, option: str) -> str:
    if row.start not in {r.method for r in rows}:
        return (
            f"{option} {row.method}: row {row.method!r} starts from row {row.start!r}; "
            f"add {row.start} to {option}"
        )
    return (
        f"{option} {row.method}: row {row.method!r} runs on seed {seed}, but row {row.start!r}, "
        "which it starts from, does not (main rows run on seeds, the others on "
        f"ablation_seeds); give {row.start} seed {seed} too"
    )


__all__ = [
    "BASE",
    "Method",
    "Plan",
    "Scoring",
    "TaskKey",
    "TrainingTask",
    "methods",
    "model_dir",
    "plan_rows",
    "run_dir",
    "sft_name",
]
