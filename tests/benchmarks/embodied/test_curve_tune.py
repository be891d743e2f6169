"""The tune on validation curves: the grid each row gets and the point the rule chooses (issue 47, item 1)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rewardgym.agents.evaluation.household import EvalConfig
from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.benchmarks.embodied.config import (
    FULL_EVAL_EVERY,
    PRESETS,
    CurveGrid,
    EmbodiedBenchConfig,
    Row,
    Tuned,
)
from rewardgym.benchmarks.embodied.curves import PLOT_FILE, mean_curve
from rewardgym.benchmarks.embodied.suite import offline_config, run_bench_embodied
from rewardgym.benchmarks.embodied.tune import (
    CURVE_TUNE_COMMANDS,
    choose,
    curve_config,
    curve_points,
)
from rewardgym.benchmarks.embodied.virtualhome_presets import ENV_PRESETS
from rewardgym.cli import build
from rewardgym.envs.trajectories.config import CollectConfig


def _table(curves: dict[tuple[str, float, int], dict[int, list[float]]]) -> list[dict[str, Any]]:
    """A fabricated curve table: (row, learning rate, target) -> seed -> SR at steps 100, 200, ..."""
    out = []
    for (row, rate, target), by_seed in curves.items():
        for seed, srs in by_seed.items():
            for k, sr in enumerate(srs):
                out.append(
                    {
                        "row": row,
                        "learning_rate": rate,
                        "target_update_interval": target,
                        "iql_tau": None,
                        "seed": seed,
                        "step": 100 * (k + 1),
                        "sr": sr,
                        "cgc": sr / 2,
                    }
                )
    return out


def test_the_tune_chooses_the_best_mean_over_seeds_at_any_step() -> None:
    table = _table(
        {
            # One seed's 50 at step 200 is not the best mean (25): (1e-4, 1000) at 300 is (30).
            ("cql/sparse", 1e-3, 250): {0: [10, 50, 0], 1: [10, 0, 0]},
            ("cql/sparse", 1e-4, 250): {0: [0, 10, 20], 1: [0, 10, 20]},
            ("cql/sparse", 1e-4, 1000): {0: [0, 20, 30], 1: [0, 20, 30]},
            ("cql/coren", 1e-3, 250): {0: [5, 5, 5], 1: [5, 5, 5]},
        }
    )
    best = choose(table)
    sparse = best["cql/sparse"]
    assert (sparse["learning_rate"], sparse["target_update_interval"]) == (1e-4, 1000)
    assert (sparse["n_steps"], sparse["sr"], sparse["cgc"], sparse["seeds"]) == (300, 30, 15, 2)
    assert best["cql/coren"]["n_steps"] == 100  # a flat curve: the earliest step


def test_ties_go_to_the_earlier_step_then_the_earlier_point() -> None:
    table = _table(
        {
            ("cql/sparse", 1e-3, 250): {0: [0, 20, 20], 1: [0, 20, 20]},
            ("cql/sparse", 3e-4, 250): {0: [20, 0, 0], 1: [20, 0, 0]},
            ("cql/sparse", 1e-4, 250): {0: [20, 0, 0], 1: [20, 0, 0]},
        }
    )
    best = choose(table)["cql/sparse"]
    assert (best["learning_rate"], best["n_steps"]) == (3e-4, 100)


def test_equal_means_that_differ_in_float_rounding_are_a_tie() -> None:
    """Measured (VirtualHome tune, filtered BC): 2 seeds x 62 episodes scored 33+33 successes at
    step 4,000 and 31+35 at 7,000; numpy's means differ in the last bit, and 4,000 must win."""
    high, low, even = 56.451612903225815, 50.0, 53.2258064516129  # the run's SRs, as stored
    assert float(np.mean([low, high])) != float(np.mean([even, even]))  # the float trap
    table = _table({("cql/sparse", 1e-4, 250): {0: [0, even, low], 1: [0, even, high]}})
    assert choose(table)["cql/sparse"]["n_steps"] == 200


def test_a_step_not_every_seed_scored_is_not_on_offer() -> None:
    assert mean_curve({"0": [[100, 10.0, 1.0], [200, 90.0, 9.0]], "1": [[100, 20.0, 3.0]]}) == [
        {"step": 100, "sr": 15.0, "cgc": 2.0, "seeds": 2}
    ]


def test_sparse_and_dense_rows_get_the_same_grid_and_keep_their_tuned_values() -> None:
    config = PRESETS["quick"]
    sparse = curve_points(config, Row("cql", "sparse"))
    dense = curve_points(config, Row("cql", "perfect-judge"))
    assert len(sparse) == len(dense) == config.curve_grid.size == 6
    assert {(t.learning_rate, t.target_update_interval) for t in sparse} == {
        (t.learning_rate, t.target_update_interval) for t in dense
    }
    tuned = config.tuned_for(Row("cql", "perfect-judge"))
    assert {(t.dense_weight, t.cql_alpha, t.n_steps) for t in dense} == {
        (tuned.dense_weight, tuned.cql_alpha, None)
    }
    assert len(curve_points(config, Row("iql", "sparse"))) == config.curve_grid.size
    assert len(curve_points(config, Row("iql", "oracle"))) == config.curve_grid.size
    assert {t.iql_tau for t in curve_points(config, Row("iql", "oracle"))} == {0.005, 0.001}
    assert len(curve_points(config, Row("bc", "none"))) == len(config.curve_grid.learning_rates)
    trained = curve_config(config).training
    assert (trained.n_steps, trained.eval_every) == (12_000, 1_000)


def test_a_curve_grid_needs_two_seeds_and_a_divisor() -> None:
    with pytest.raises(ValueError, match="at least 2 distinct seeds"):
        CurveGrid(seeds=(100,))
    with pytest.raises(ValueError, match="does not divide"):
        CurveGrid(max_steps=1000, eval_every=300)


TINY = EmbodiedBenchConfig(
    name="tiny",
    collect=CollectConfig(episodes=30),
    rows=("bc/none", "cql/sparse"),
    training=OfflineConfig(n_steps=20, batch_size=16, hidden_units=(16,)),
    tuned=(Tuned("cql", "sparse", cql_alpha=3.0),),
    seeds=(0,),
    evaluation=EvalConfig(splits=("fine",), tasks=(0,), instructions_per_task=1),
    validation=EvalConfig(splits=("validation",), tasks=(0,), instructions_per_task=1),
    curve_grid=CurveGrid(
        max_steps=20, eval_every=10, learning_rates=(1e-3,), target_update_intervals=(5, 10)
    ),
    quality_judges=(),
    bootstrap=50,
    workers=1,
    judge_policy_latency=False,
)


def test_a_tiny_curve_tune_writes_the_page_the_plot_and_a_budget_on_the_curve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDGYM_HOME", str(tmp_path / "home"))
    config = TINY.replace(mode="tune-curves")
    payload = run_bench_embodied(config, out=tmp_path / "out", quiet=True)
    out = tmp_path / "out"
    assert (out / "tune.md").exists() and (out / PLOT_FILE).exists()
    saved = json.loads((out / "tune.json").read_text())
    assert saved["grid_points"] == {"bc/none": 1, "cql/sparse": 2}
    lines = saved["table"]
    assert {(x["row"], x["seed"], x["step"]) for x in lines} == {
        (row, seed, step) for row in TINY.rows for seed in (100, 101) for step in (10, 20)
    } and len(lines) == 2 * 2 * 2 + 1 * 2 * 2
    for name, chosen in choose(lines).items():  # the page's choice is the rule's on its table
        assert {k: payload["best"][name][k] for k in chosen} == chosen
    sparse = payload["best"]["cql/sparse"]
    assert sparse["n_steps"] in (10, 20) and sparse["cql_alpha"] == 3.0
    assert sparse["target_update_interval"] in (5, 10)
    assert (
        "Tuned('cql', 'sparse', learning_rate=0.001, cql_alpha=3.0" in (out / "tune.md").read_text()
    )


def test_a_final_run_with_a_curve_records_it_per_row_and_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDGYM_HOME", str(tmp_path / "home"))
    training = TINY.training.replace(eval_every=10, checkpoint="validation-best")
    run_bench_embodied(TINY.replace(training=training), out=tmp_path / "out", quiet=True)
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert set(saved["curves"]) == set(TINY.rows)
    for row in TINY.rows:
        points = saved["curves"][row]["0"]
        assert [p[0] for p in points] == [10, 20]
        best = max(points, key=lambda p: (p[1], -p[0]))
        assert saved["selected_steps"][row]["0"] == best[0]
    assert saved["checkpoint"] == "validation-best" and saved["eval_every"] == 10
    assert "### Validation curves" in (tmp_path / "out" / "results.md").read_text()
    assert (tmp_path / "out" / PLOT_FILE).exists()


@pytest.mark.parametrize("env", sorted(CURVE_TUNE_COMMANDS))
def test_each_envs_tune_command_runs_on_the_full_data_with_equal_grids(env: str) -> None:
    bench = build(shlex.split(CURVE_TUNE_COMMANDS[env])[1:])
    config = bench.config
    full = ENV_PRESETS[env]["full"]
    assert config.mode == "tune-curves" and config.collect == full.collect
    assert len(config.curve_grid.seeds) >= 2
    sizes = {row.reward: len(curve_points(config, row)) for row in config.row_specs}
    assert sizes["sparse"] == sizes["perfect-judge"] == sizes["coren"] == 6


@pytest.mark.parametrize("env", sorted(ENV_PRESETS))
def test_the_full_presets_keep_curves_at_every_rows_budget(env: str) -> None:
    full = ENV_PRESETS[env]["full"]
    assert full.training.eval_every == FULL_EVAL_EVERY
    for row in full.row_specs:  # a budget the curve does not divide would be refused here
        offline = offline_config(full, row, full.tuned_for(row), seed=0)
        assert offline.n_steps % FULL_EVAL_EVERY == 0 and offline.checkpoint == "final"
