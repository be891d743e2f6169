"""The plan of ``bench shop``: tasks after their starts, one refusal, one task list for both training paths."""

from __future__ import annotations

import concurrent.futures
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from rewardgym.benchmarks.runner import RunnerOptions
from rewardgym.benchmarks.shop import suite as suite_module
from rewardgym.benchmarks.shop.config import preset
from rewardgym.benchmarks.shop.plan import (
    Plan,
    TaskKey,
    TrainingTask,
    methods,
    model_dir,
    plan_rows,
    run_dir,
)
from rewardgym.benchmarks.shop.suite import check_only


def _rows(config: Any, *names: str) -> list[Any]:
    return [m for m in methods(config) if m.method in names]


def test_every_task_comes_after_the_task_it_starts_from_and_rows_score_their_model() -> None:
    config = preset("quick")
    plan = plan_rows(config, methods(config))
    seen: set[TaskKey] = set()
    for task in plan.tasks:
        assert task.start is None or (task.seed, task.start) in seen, task
        seen.add(task.key)
    assert plan.seeds == (0, 1)
    assert plan.model(0, "zero-shot") is None and plan.model(0, "sft") == "sft-compact"
    assert plan.model(0, "shop-r1/temp-1") == "shop-r1"  # a temperature row scores shop-r1's model
    chain = plan.chain(1, "shop-r1")
    assert [t.name for t in chain] == ["sft-compact", "shop-r1"] and chain[0].seed == 1


def test_a_row_without_its_start_is_refused_once_naming_both_and_the_option() -> None:
    config = preset("tiny")
    with pytest.raises(ValueError, match=r"--only shop-r1/temp-1: .*'shop-r1'; add shop-r1 to"):
        plan_rows(config, _rows(config, "shop-r1/temp-1"))
    with pytest.raises(ValueError, match=r"add shop-r1 to --only"):  # the CLI check is the plan's
        check_only(config, ["shop-r1/temp-1"])
    # the start is selected but runs on other seeds: main rows on seeds, ablations on ablation_seeds
    split = config.replace(seeds=(0,), ablation_seeds=(1,))
    with pytest.raises(ValueError, match=r"seed 1.*'shop-r1'.*give shop-r1 seed 1"):
        plan_rows(split, _rows(split, "shop-r1", "shop-r1/temp-1"))
    rows = _rows(config, "shop-r1", "shop-r1/temp-1")
    assert plan_rows(config, rows, seeds=(3,)).model(3, "shop-r1/temp-1") == "shop-r1"


def test_model_dir_keeps_the_layout_recorded_runs_have(tmp_path: Path) -> None:
    assert model_dir(tmp_path, 0, "base") == tmp_path / "models" / "seed0" / "base"
    assert model_dir(tmp_path, 1, "sft-compact") == tmp_path / "models/seed1/sft-compact/model"
    assert run_dir(tmp_path, 0, "shop-r1/no-sft") == tmp_path / "models/seed0/shop-r1__no-sft"
    assert (
        model_dir(tmp_path, 0, "shop-r1/no-sft") == run_dir(tmp_path, 0, "shop-r1/no-sft") / "model"
    )


class _Recorder:
    """A suite that records what it is asked to train and score, and trains nothing."""

    def __init__(self, config: Any, out: Path) -> None:
        self.config, self.out, self.choice = config, out, None
        self.trained: list[TrainingTask] = []
        self.scored: list[tuple[int, str, Path]] = []
        self.chosen_on: list[Path] = []
        self.data = SimpleNamespace(data=None)
        self.console = Console(quiet=True)
        self.losses: dict[str, Any] = {}
        self.progress = False
        self.lock = threading.Lock()

    def base_model(self, seed: int) -> Path:
        return model_dir(self.out, seed, "base")

    def train(self, task: TrainingTask) -> Path:
        with self.lock:
            self.trained.append(task)
        return model_dir(self.out, task.seed, task.name)

    def choose_temperature(self, sft: Path, method: Any) -> float:
        self.chosen_on.append(sft)
        self.choice = {"chosen": 0.6}
        return 0.6

    def evaluate(self, path: Path, method: Any, seed: int) -> None:
        self.scored.append((seed, method.method, path))

    def timed(self, key: str, seconds: float) -> None:
        pass


def _in_threads(monkeypatch: pytest.MonkeyPatch, suite: _Recorder) -> None:
    """Run the worker path's pool in threads of this process, each task through ``suite``."""

    class Pool(concurrent.futures.ThreadPoolExecutor):
        def __init__(self, max_workers: int, **_: Any) -> None:
            super().__init__(max_workers=max_workers)

    def train(config: Any, out: Path, data: Any, task: TrainingTask) -> dict[str, Any]:
        suite.train(task)
        return {"timings": {}, "losses": {}}

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(suite_module, "train_unit", train)


def test_one_process_and_the_workers_train_the_same_planned_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = preset("quick").replace(train_workers=3)
    plan: Plan = plan_rows(config, methods(config))
    one = _Recorder(config, tmp_path)
    suite_module._run_rows(one, plan)  # type: ignore[arg-type]
    assert one.trained == list(plan.tasks)
    assert one.chosen_on == [model_dir(tmp_path, 0, "sft-compact")]  # the first seed's cold start
    assert (0, "shop-r1/temp-1", model_dir(tmp_path, 0, "shop-r1")) in one.scored
    assert (1, "zero-shot", model_dir(tmp_path, 1, "base")) in one.scored
    assert len(one.scored) == len(plan.scorings)

    workers = _Recorder(config, tmp_path)
    _in_threads(monkeypatch, workers)
    suite_module.train_in_workers(workers, plan, RunnerOptions())  # type: ignore[arg-type]
    assert sorted(t.key for t in workers.trained) == sorted(t.key for t in plan.tasks)
    order = [t.key for t in workers.trained]
    for task in workers.trained:  # submitted only once its start had finished
        assert task.start is None or order.index((task.seed, task.start)) < order.index(task.key)
