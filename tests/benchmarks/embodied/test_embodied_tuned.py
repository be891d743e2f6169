"""The embodied suite's tuned values: ``None`` reads the library's defaults, presets share them."""

from __future__ import annotations

import dataclasses

from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.agents.offline.cql import CQLSettings
from rewardgym.benchmarks.embodied.config import (
    COREN_SCHEMES,
    PRESETS,
    QUICK_ROWS,
    TUNED,
    EmbodiedBenchConfig,
    Row,
    Tuned,
    TuneGrid,
)
from rewardgym.benchmarks.embodied.suite import _grid, effective_values, offline_config


def test_an_untuned_value_is_the_librarys_own_default() -> None:
    config = EmbodiedBenchConfig(training=OfflineConfig(n_steps=10, learning_rate=2e-4))
    offline = offline_config(config, Row("cql", "oracle"), Tuned("cql", "oracle"), seed=3)
    assert offline.learning_rate == 2e-4
    assert offline.dense_weight == OfflineConfig().dense_weight
    assert offline.algorithm.alpha == CQLSettings().alpha  # type: ignore[attr-defined]
    assert offline.seed == 3 and offline.reward == "composed"


def test_tuned_values_reach_the_training_config_and_the_table() -> None:
    config = EmbodiedBenchConfig()
    tuned = Tuned(
        "cql",
        "perfect-judge",
        dense_weight=5.0,
        learning_rate=1e-3,
        cql_alpha=3.0,
        n_steps=6000,
        target_update_interval=1000,
    )
    offline = offline_config(config, Row("cql", "perfect-judge"), tuned, seed=0)
    assert effective_values(offline) == {
        "dense_weight": 5.0,
        "learning_rate": 1e-3,
        "n_steps": 6000,
        "cql_alpha": 3.0,
        "target_update_interval": 1000,
    }
    iql = offline_config(config, Row("iql", "sparse"), Tuned("iql", "sparse", iql_tau=0.001), 0)
    assert effective_values(iql)["iql_tau"] == 0.001
    assert effective_values(iql)["n_steps"] == config.training.n_steps  # unset: the shared budget
    sparse = offline_config(config, Row("cql", "sparse"), tuned, seed=0)
    assert sparse.reward == "success"  # lambda never applies to the success flag alone


def test_the_grid_leaves_unused_values_unset() -> None:
    config = EmbodiedBenchConfig(
        tune_grid=TuneGrid(dense_weights=(1.0, 5.0), learning_rates=(3e-4, 1e-3), cql_alphas=(1.0,))
    )
    assert len(_grid(config, Row("cql", "oracle"))) == 4
    bc = _grid(config, Row("bc", "none"))
    assert [(t.dense_weight, t.cql_alpha, t.learning_rate) for t in bc] == [
        (None, None, 3e-4),
        (None, None, 1e-3),
    ]


def test_the_issue_grid_is_the_default() -> None:
    grid = TuneGrid()
    assert grid.learning_rates == (3e-4, 1e-3)
    assert grid.dense_weights == (1.0, 5.0, 10.0)
    assert grid.cql_alphas == (1.0, 3.0)
    assert EmbodiedBenchConfig().validation.episodes_per_instruction == 8


def test_every_preset_trains_with_the_recorded_values_and_ablations_share_corens() -> None:
    for preset in PRESETS.values():
        assert preset.tuned == TUNED
    coren = PRESETS["quick"].tuned_for(Row("cql", "coren"))
    for scheme in COREN_SCHEMES:
        shared = PRESETS["full"].tuned_for(Row("cql", scheme))
        assert (shared.learning_rate, shared.dense_weight, shared.cql_alpha) == (
            coren.learning_rate,
            coren.dense_weight,
            coren.cql_alpha,
        )
    assert set(QUICK_ROWS) == set(PRESETS["quick"].rows)
    assert len(PRESETS["full"].rows) > len(QUICK_ROWS)


def test_a_second_stage_keeps_each_rows_tuned_lambda() -> None:
    grid = TuneGrid(around_tuned=True, learning_rates=(1e-3, 3e-3), cql_alphas=(3.0, 10.0))
    config = EmbodiedBenchConfig(tune_grid=grid, tuned=TUNED)
    for reward in ("oracle", "perfect-judge", "coren"):
        chosen = config.tuned_for(Row("cql", reward)).dense_weight
        points = _grid(config, Row("cql", reward))
        assert {t.dense_weight for t in points} == {chosen}
        assert {(t.learning_rate, t.cql_alpha) for t in points} == {
            (1e-3, 3.0),
            (1e-3, 10.0),
            (3e-3, 3.0),
            (3e-3, 10.0),
        }
    assert {t.dense_weight for t in _grid(config, Row("cql", "sparse"))} == {None}
    first = dataclasses.replace(config, tune_grid=TuneGrid())
    assert {t.dense_weight for t in _grid(first, Row("cql", "coren"))} == {1.0, 5.0, 10.0}
