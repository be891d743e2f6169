"""A tiny-budget calibrated-judge page on both envs: every stage, its rows, pairs and figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.agents.evaluation.household import EvalConfig
from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig
from rewardgym.benchmarks.embodied.judge_page import smallest_paying_accuracy
from rewardgym.benchmarks.embodied.judge_sweep import (
    Config,
    env_bench,
    run_judge_sweep,
)
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.trajectories.config import CollectConfig

TRAINING = OfflineConfig(n_steps=10, batch_size=16, hidden_units=(16,))


def tiny(env: str) -> EmbodiedBenchConfig:
    """One training seed, a few trajectories and episodes, two prompts."""
    if env == "virtualhome":
        collect = CollectConfig(env=VIRTUALHOME_ID, episodes=10)
        evaluation = EvalConfig(env_id=VIRTUALHOME_ID, splits=("fine",), tasks=(0, 1),
                                instructions_per_task=1)  # fmt: skip
    else:
        collect = CollectConfig(episodes=12)
        evaluation = EvalConfig(splits=("fine",), tasks=(0, 11), instructions_per_task=1)
    return env_bench(Config(preset="demo"), env).replace(
        collect=collect,
        n_prompts=2,
        training=TRAINING,
        seeds=(0,),
        evaluation=evaluation,
        bootstrap=50,
        workers=1,
    )


def test_tiny_sweep_writes_rows_pairs_and_the_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDGYM_HOME", str(tmp_path / "home"))
    config = Config(
        accuracies=(0.0, 1.0),
        rho=0.5,
        rho_accuracy=0.5,
        accuracy_judges=("embedding:hashing",),
        accuracy_steps=40,
        schemes=("coren",),  # the single-prompt and average rows share its code path
        qa_pairs=6,
        embedder="hashing",
        workers=2,  # labelling and training in two processes each
        out=tmp_path / "out",
    )
    benches = {env: tiny(env) for env in config.envs}
    payload = run_judge_sweep(config, benches=benches, quiet=True)
    out = tmp_path / "out"
    for name in ("results.json", "results.md", "judges.png"):
        assert (out / name).stat().st_size > 0, name
    saved = json.loads((out / "results.json").read_text())
    assert set(saved["envs"]) == {"household", "virtualhome"}
    for env in saved["envs"].values():
        rows = env["rows"]
        names = [r["row"] for r in rows]
        assert names[:2] == ["cql/sparse", "cql/perfect-judge"]
        specs = ("calibrated:0", "calibrated:1", "calibrated:0.5:0.5")
        assert len(rows) == 2 + len(specs)
        assert {r["judge"] for r in rows} == {None, *specs}
        sparse = rows[0]
        assert sparse["minus_sparse"] == 0.0 and sparse["minus_sparse_ci"] == [0.0, 0.0]
        for r in rows:
            low, high = r["minus_sparse_ci"]
            assert low <= r["minus_sparse"] <= high
        measured = env["measured_accuracy"]["embedding:hashing"]
        assert measured["steps"] == 40
        assert measured["accuracy"] == pytest.approx((measured["agreement"] - 0.2) / 0.8)
        assert -0.25 <= measured["constant_accuracy"] <= 1.0
        assert env["meta"]["agents"] == len(rows)
        labels = env["meta"]["labels"]["judges"]
        assert set(labels) == set(specs) and all(v["twin_conflicts"] >= 0 for v in labels.values())
    markdown = (out / "results.md").read_text()
    assert "calibrated:0.5:0.5" in markdown and "judges.png" in markdown
    assert payload["envs"]["household"]["rows"] == saved["envs"]["household"]["rows"]


def test_smallest_paying_accuracy_reads_coren_rows_without_correlation() -> None:
    def row(acc: float, rho: float, low: float, scheme: str = "coren") -> dict:
        return {"split": "fine", "scheme": scheme, "accuracy": acc, "rho": rho,
                "minus_sparse_ci": [low, low + 5]}  # fmt: skip

    rows = [row(0.25, 0.0, -3), row(0.5, 0.0, 1), row(1.0, 0.0, 2), row(0.25, 0.5, 4),
            row(0.25, 0.0, 3, "average")]  # fmt: skip
    assert smallest_paying_accuracy(rows, "fine") == 0.5
    assert smallest_paying_accuracy(rows[:1], "fine") is None


def test_judge_specs_name_every_accuracy_and_the_correlated_judge() -> None:
    config = Config()
    assert config.judge_specs() == (
        "calibrated:0", "calibrated:0.25", "calibrated:0.5", "calibrated:0.75", "calibrated:1",
        "calibrated:0.75:0.5",
    )  # fmt: skip
    assert Config(rho=0.0).judge_specs()[-1] == "calibrated:1"
    with pytest.raises(ValueError, match="accuracies"):
        Config(accuracies=())
    with pytest.raises(ValueError, match="--accuracy-judges"):
        Config(accuracy_judges=("embeding",))


@pytest.mark.parametrize("env", ["household", "virtualhome"])
def test_the_sweeps_budget_and_learning_rate_reach_every_row(env: str) -> None:
    """--n-steps and --learning-rate win over the preset's shared and per-row (tuned) values."""
    from rewardgym.benchmarks.embodied.config import Row
    from rewardgym.benchmarks.embodied.suite import offline_config

    bench = env_bench(Config(preset="quick", n_steps=1234, learning_rate=3e-4), env)
    for reward in ("sparse", "perfect-judge", "coren", "single-prompt", "average"):
        row = Row("cql", reward)
        offline = offline_config(bench, row, bench.tuned_for(row), seed=0)
        assert (offline.n_steps, offline.learning_rate) == (1234, 3e-4), reward
    preset = env_bench(Config(preset="quick"), env)
    assert preset.training == bench.training.replace(
        n_steps=preset.training.n_steps, learning_rate=preset.training.learning_rate
    )


def _tune(tmp_path: Path, env_id: str, rows: tuple[str, ...]) -> Path:
    """A tune-curves folder whose tune.json chose a budget and learning rate per row."""
    chosen = {"cql/sparse": (8000, 1e-4, 250), "cql/perfect-judge": (3000, 3e-4, 1000)}
    best = {
        row: {"algorithm": "cql", "reward": row.split("/")[1], "dense_weight": None,
              "cql_alpha": None, "iql_weight_temp": None, "learning_rate": chosen[row][1],
              "target_update_interval": chosen[row][2], "iql_tau": None,
              "n_steps": chosen[row][0], "sr": 30.0, "cgc": 40.0, "seeds": 2}
        for row in rows
    }  # fmt: skip
    folder = tmp_path / "tune"
    folder.mkdir()
    payload = {"best": best, "config": {"collect": {"env": env_id}}}
    (folder / "tune.json").write_text(json.dumps(payload), encoding="utf-8")
    return folder


def test_tuned_from_gives_sparse_its_values_and_every_dense_row_the_perfect_judges(
    tmp_path: Path,
) -> None:
    from rewardgym.benchmarks.embodied.config import Row
    from rewardgym.benchmarks.embodied.judge_page import budgets
    from rewardgym.benchmarks.embodied.suite import offline_config

    tune = _tune(tmp_path, VIRTUALHOME_ID, ("cql/sparse", "cql/perfect-judge"))
    config = Config(preset="quick", envs=("virtualhome",), tuned_from=tune)
    bench = env_bench(config, "virtualhome")
    got = {}
    for reward in ("sparse", "perfect-judge", "coren", "single-prompt", "average"):
        offline = offline_config(bench, Row("cql", reward), bench.tuned_for(Row("cql", reward)), 0)
        got[reward] = (offline.n_steps, offline.learning_rate,
                       offline.algorithm.target_update_interval)  # fmt: skip
    assert got["sparse"] == (8000, 1e-4, 250)
    assert {got[r] for r in ("perfect-judge", "coren", "single-prompt", "average")} == {
        (3000, 3e-4, 1000)
    }
    assert str(tune) in bench.tuned_source
    env = {
        "n_steps": 800,
        "tuned_source": bench.tuned_source,
        "training": {
            "cql/sparse": {"n_steps": 8000, "learning_rate": 1e-4, "target_update_interval": 250},
            "cql/perfect-judge": {
                "n_steps": 3000,
                "learning_rate": 3e-4,
                "target_update_interval": 1000,
            },
            "cql/coren @ calibrated:1": {
                "n_steps": 3000,
                "learning_rate": 3e-4,
                "target_update_interval": 1000,
            },
        },
    }
    text = budgets(env)
    assert "cql/sparse: 8000 steps at learning rate 0.0001" in text
    assert "every calibrated row: 3000 steps at learning rate 0.0003" in text


@pytest.mark.parametrize(
    ("envs", "env_id", "rows", "extra", "message"),
    [
        (("virtualhome",), "rewardgym/Household-v1", ("cql/sparse", "cql/perfect-judge"), {},
         "a tune of rewardgym/Household-v1"),
        (("virtualhome",), VIRTUALHOME_ID, ("cql/sparse",), {}, "no cql/perfect-judge row"),
        (("household", "virtualhome"), VIRTUALHOME_ID, ("cql/sparse",), {}, "give one env"),
        (("virtualhome",), VIRTUALHOME_ID, ("cql/sparse",), {"n_steps": 5}, "drop --n-steps"),
    ],
)  # fmt: skip
def test_a_tune_that_does_not_fit_is_refused_naming_why(
    tmp_path: Path, envs: tuple, env_id: str, rows: tuple, extra: dict, message: str
) -> None:
    tune = _tune(tmp_path, env_id, rows)
    with pytest.raises(ValueError, match=message):
        env_bench(Config(preset="quick", envs=envs, tuned_from=tune, **extra), envs[0])
