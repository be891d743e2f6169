"""The runner on a two-node Ray cluster: the suites' tables equal local's, retries, failures, Ctrl-C.

The equality tests run the suites' smoke-test sizes (the embodied smoke test's config on three
rows, ``bench shop --preset tiny`` on two rows), not the demo presets: each demo takes minutes.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rewardgym.benchmarks.runner import RayOptions, RunnerOptions, Unit, UnitFailed, run_units
from rewardgym.benchmarks.runner import unit_store as store_of

pytest.importorskip("ray", reason="rewardgym[ray] is not installed")

TIMINGS = {"train_seconds"}
"""Row fields that are wall times: the only ones allowed to differ between runners."""


@pytest.fixture(scope="module")
def ray_runner(ray_cluster: str) -> RunnerOptions:
    """``--runner ray --ray.address <cluster>``, this module's functions shipped by value."""
    import ray.cloudpickle

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return RunnerOptions(runner="ray", ray=RayOptions(address=ray_cluster, num_cpus=1.0))


def _rows(out: Path) -> list[dict[str, Any]]:
    rows = json.loads((out / "results.json").read_text())["rows"]
    return [{k: v for k, v in row.items() if k not in TIMINGS} for row in rows]


def test_bench_embodied_rows_equal_local_and_ray_and_resume_retrains_none(
    tmp_path: Path, ray_runner: RunnerOptions, capsys: pytest.CaptureFixture[str]
) -> None:
    from rewardgym.agents.evaluation.household import EvalConfig
    from rewardgym.agents.offline.config import OfflineConfig
    from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig
    from rewardgym.benchmarks.embodied.suite import run_bench_embodied
    from rewardgym.envs.trajectories.config import CollectConfig

    config = EmbodiedBenchConfig(  # the embodied smoke test's sizes, on three rows
        name="tiny",
        collect=CollectConfig(episodes=40),
        n_prompts=2,
        rows=("bc/none", "cql/sparse", "cql/oracle"),
        training=OfflineConfig(n_steps=10, batch_size=16, hidden_units=(16,)),
        seeds=(0, 1),
        evaluation=EvalConfig(tasks=(0, 11), instructions_per_task=1),
        quality_judges=(),
        judge_policy_latency=False,
        latency_steps=3,
        bootstrap=50,
        workers=1,
    )
    run_bench_embodied(config, out=tmp_path / "local", quiet=True)
    run_bench_embodied(config, out=tmp_path / "ray", quiet=True, runner=ray_runner)
    assert _rows(tmp_path / "ray") == _rows(tmp_path / "local")
    assert len(_rows(tmp_path / "ray")) == 3 * 4

    store = store_of(tmp_path / "ray")
    files = sorted(store.iterdir())
    assert len(files) == 3 * 2  # one file per agent (row x seed)
    stamps = {path: path.stat().st_mtime_ns for path in files}
    files[0].unlink()  # as if the run had been killed before that agent finished
    capsys.readouterr()
    resumed = RunnerOptions(runner="ray", ray=ray_runner.ray, resume=True)
    run_bench_embodied(config, out=tmp_path / "ray", runner=resumed)
    assert "resume: 5 of 6 train + evaluate already in" in capsys.readouterr().out
    assert all(path.stat().st_mtime_ns == stamps[path] for path in files[1:])  # none retrained
    assert files[0].is_file() and _rows(tmp_path / "ray") == _rows(tmp_path / "local")


def test_bench_shop_rows_and_models_equal_local_and_ray(
    tmp_path: Path, ray_runner: RunnerOptions
) -> None:
    from rewardgym.benchmarks.runner_ray import folder_digest
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.benchmarks.shop.plan import model_dir
    from rewardgym.benchmarks.shop.suite import run_bench_shop
    from rewardgym.envs.shopping.session_sources import build_synthetic_log
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    store = build_synthetic_log(
        tmp_path / "store", config=SyntheticShopperConfig(sessions=40, seed=5)
    ).path
    config = preset("tiny").replace(train_workers=2)  # local: today's spawn pool
    for name, runner in (("local", RunnerOptions()), ("ray", ray_runner)):
        only = ["sft", "shop-r1"]
        run_bench_shop(
            config, tmp_path / name, data=store, only=only, progress=False, runner=runner
        )
    assert _rows(tmp_path / "ray") == _rows(tmp_path / "local")
    for task in ("sft-compact", "shop-r1"):  # trained on a Ray worker, landed here: same weights
        ray_model = folder_digest(model_dir(tmp_path / "ray", 0, task))
        assert ray_model and ray_model == folder_digest(model_dir(tmp_path / "local", 0, task))
    assert sorted(p.name for p in store_of(tmp_path / "ray").iterdir()) == [
        "seed0-sft-compact.json",
        "seed0-shop-r1.json",
    ]


@pytest.mark.slow  # the suites' equality (above) is make test's; the sweep's repeats it (24 s)
def test_the_sweeps_candidates_on_ray_score_as_in_spawned_processes(
    tmp_path: Path, ray_runner: RunnerOptions
) -> None:
    from rewardgym.benchmarks.shop.sweep import Config, run_sweep

    toy = "sft.max_examples=16,default_model.tokenizer_sessions=8"  # the sweep test's toy size
    found = {}
    for name, runner in (("local", RunnerOptions()), ("ray", ray_runner)):
        args = Config(
            preset="tiny",
            candidates=(),
            extra=(f"base:{toy}", f"ids:{toy},prompt.element_ids=true"),
            validation_sessions=2,
            temperatures=(0.6,),
            bootstrap_samples=50,
            workers=2,
            out=tmp_path / name,
            runner=runner,
        )
        found[name] = run_sweep(args, progress=False)
    timings = ("train_s", "examples_per_s", "eval_s", "data_and_base_s", "prompts_s")
    rows = {
        name: [{k: v for k, v in row.items() if k not in timings} for row in result["rows"]]
        for name, result in found.items()
    }
    assert rows["ray"] == rows["local"] and len(rows["ray"]) == 2
    assert found["ray"]["lookup"] == found["local"]["lookup"]


def dies_once(marks: str, value: int) -> dict[str, Any]:
    """A unit whose worker process dies the first time it runs ``value`` 2."""
    mark = Path(marks) / f"{value}"
    if value == 2 and not mark.exists():
        mark.touch()
        os._exit(1)  # the whole worker process, as a kill or an out-of-memory would
    return {"square": value * value}


def logged(log: str, value: int) -> dict[str, Any]:
    """A unit that appends its value to ``log`` and refuses a negative one."""
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(f"{value}\n")
    if value < 0:
        raise ValueError(f"negative value {value}")
    return {"value": value}


def sleeps(marks: str, value: int, seconds: float) -> dict[str, Any]:
    """A unit that sleeps, then leaves a mark (so a test sees that it finished)."""
    time.sleep(seconds)
    (Path(marks) / f"{value}").touch()
    return {"value": value}


def test_a_killed_worker_is_retried_and_the_results_are_complete(
    tmp_path: Path, ray_runner: RunnerOptions
) -> None:
    units = [Unit(f"v{v}", dies_once, (str(tmp_path), v)) for v in (1, 2, 3)]
    results = run_units(units, ray_runner, tmp_path, quiet=True)
    assert results == {f"v{v}": {"square": v * v} for v in (1, 2, 3)}
    assert (tmp_path / "2").exists()  # it did die once
    assert sorted(p.name for p in store_of(tmp_path).iterdir()) == ["v1.json", "v2.json", "v3.json"]


def test_a_failing_unit_stops_the_ray_run_naming_it_and_keeps_the_finished(
    tmp_path: Path, ray_runner: RunnerOptions
) -> None:
    log = str(tmp_path / "ran.txt")
    units = [
        Unit("first", logged, (log, 1)),
        Unit("bad", logged, (log, -4), after=("first",)),
        Unit("never", logged, (log, 3), after=("bad",)),
    ]
    with pytest.raises(UnitFailed, match=r"unit bad failed: ValueError: negative value -4; the 1 "):
        run_units(units, ray_runner, tmp_path, quiet=True)
    assert [p.name for p in store_of(tmp_path).iterdir()] == ["first.json"]
    assert Path(log).read_text().split() == ["1", "-4"]  # failed once, not retried; no more ran


def test_ctrl_c_cancels_the_outstanding_ray_tasks_and_writes_no_half_unit(
    tmp_path: Path, ray_runner: RunnerOptions
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    three_at_once = RunnerOptions(runner="ray", ray=replace(ray_runner.ray, num_cpus=0.5))
    units = [Unit("quick", sleeps, (str(marks), 0, 0.0))]
    units += [Unit(f"slow{v}", sleeps, (str(marks), v, 5.0)) for v in (1, 2)]

    def interrupt(key: str, result: dict[str, Any]) -> None:
        raise KeyboardInterrupt  # Ctrl-C just after the first unit landed

    with pytest.raises(KeyboardInterrupt):
        run_units(units, three_at_once, tmp_path, quiet=True, on_result=interrupt)
    time.sleep(7.0)  # past the time the slow units would have taken
    assert sorted(p.name for p in marks.iterdir()) == ["0"]  # the slow ones were cancelled
    assert [p.name for p in store_of(tmp_path).iterdir()] == ["quick.json"]
