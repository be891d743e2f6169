"""A tiny-budget run of ``rewardgym bench embodied``: every stage, the public row shape, tuning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.agents.evaluation.bootstrap import verdict
from rewardgym.agents.evaluation.household import EvalConfig
from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.benchmarks.embodied.config import PRESETS, EmbodiedBenchConfig, TuneGrid
from rewardgym.benchmarks.embodied.stats import EPISODES_FILE
from rewardgym.benchmarks.embodied.stats import main as reprint
from rewardgym.benchmarks.embodied.suite import run_bench_embodied
from rewardgym.benchmarks.repro import table_digests
from rewardgym.envs.trajectories.config import CollectConfig

TINY = EmbodiedBenchConfig(
    name="tiny",
    collect=CollectConfig(episodes=40),
    n_prompts=2,
    rows=(
        "bc/none",
        "filtered-bc/none",
        "cql/sparse",
        "iql/oracle",
        "cql/oracle",
        "cql/self-consistency",
        "cql/C",
        "cql/coren",
    ),
    training=OfflineConfig(n_steps=10, batch_size=16, hidden_units=(16,)),
    seeds=(0, 1),
    evaluation=EvalConfig(tasks=(0, 11), instructions_per_task=1),
    validation=EvalConfig(splits=("validation",), tasks=(0,), instructions_per_task=1),
    tune_grid=TuneGrid(dense_weights=(0.5, 2.0), learning_rates=(1e-3,), cql_alphas=(1.0,)),
    quality_judges=("embedding",),
    quality_states=8,
    quality_episodes=2,
    latency_steps=3,
    bootstrap=50,
    workers=1,
)


def test_tiny_bench_writes_the_public_rows_and_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rows carry algorithm, reward, split, sr/cgc/plan and an interval; files exist; the kept
    per-episode results reprint the page's intervals."""
    monkeypatch.setenv("REWARDGYM_HOME", str(tmp_path / "home"))
    result = run_bench_embodied(TINY, out=tmp_path / "out", quiet=True)
    out = tmp_path / "out"
    for name in ("results.json", "results.csv", "results.md", "sr_by_row.png", EPISODES_FILE):
        assert (out / name).exists(), name
    saved = json.loads((out / "results.json").read_text())
    assert set(saved["data"]) >= {"episodes", "success_rate", "mean_expert_steps"}
    assert saved["data"]["episodes"] == 40 and saved["data"]["mean_expert_steps"] >= 15
    rows = saved["rows"]
    assert len(rows) == len(TINY.rows) * 4
    assert {r["split"] for r in rows} == {"fine", "abstract", "shifted-fine", "shifted-abstract"}
    for row in rows:
        assert row["algorithm"] in {"cql", "iql", "bc", "filtered-bc"}
        assert (row["reward"] == "none") == (row["algorithm"] in ("bc", "filtered-bc"))
        for metric in ("sr", "cgc", "plan"):
            assert 0.0 <= row[metric] <= 100.0
        low, high = row["sr_ci"]
        assert low <= row["sr"] <= high and row["episodes"] == 2 * 2 * 1
    for row in rows:  # every row paired with both references on the very same episodes
        name = f"{row['algorithm']}/{row['reward']}"
        assert set(row["vs"]) == {"cql/sparse", "bc/none"} - {name}
        for paired in row["vs"].values():
            assert paired["sr"]["verdict"] == verdict(paired["sr"]["ci"])
    by = {(r["algorithm"], r["reward"], r["split"]): r for r in rows}
    same = by[("cql", "self-consistency", "fine")]["vs"]["cql/sparse"]["sr"]
    assert same == by[("cql", "C", "fine")]["vs"]["cql/sparse"]["sr"]  # one agent, one result
    assert "oracle" in by[("cql", "coren", "fine")]["position"]
    markdown = (out / "results.md").read_text()
    assert saved["meta"]["table_digests"] == table_digests(markdown)
    assert "Default layout: paired differences in SR" in saved["meta"]["table_digests"]
    capsys.readouterr()
    reprint([str(out)])  # python -m rewardgym.benchmarks.embodied.stats OUT
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("### Default layout") and printed in markdown
    assert "### Shifted layout" in printed and "between sparse (0) and oracle" in printed
    threads = saved["meta"]["worker_threads"]
    assert threads["workers"] == 1 and threads["torch_threads"] == TINY.training.threads
    assert saved["meta"]["cpu_model"] and "OMP_NUM_THREADS" in saved["meta"]["thread_env"]
    # self-consistency and C carry the same dense reward, so they train once.
    assert result["meta"]["agents_trained"] == 2 * (len(TINY.rows) - 1)
    assert "Default layout" in (out / "results.md").read_text()
    judge = saved["judges"]["embedding"]  # probed on abstract instructions, labelling figures too
    assert judge["split"] == "abstract" and judge["probe_states"] == 8
    assert (
        0.0 <= judge["expert_next_supportive"] <= 1.0 and "labelling_seconds_per_1k_steps" in judge
    )
    assert "### Judges" in (out / "results.md").read_text()


def test_tune_mode_scores_validation_only_and_picks_a_point_per_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDGYM_HOME", str(tmp_path / "home"))
    config = TINY.replace(mode="tune", rows=("cql/oracle", "bc/none"))
    payload = run_bench_embodied(config, out=tmp_path / "tune", quiet=True)
    assert set(payload["best"]) == {"cql/oracle", "bc/none"}
    assert len(payload["grid"]) == 2 + 1  # two lambdas for the dense row, one point for BC
    saved = json.loads((tmp_path / "tune" / "tune.json").read_text())
    assert saved["best"]["cql/oracle"]["dense_weight"] in (0.5, 2.0)
    assert saved["meta"]["git_commit"] and saved["meta"]["cpu_count"]
    tables = (tmp_path / "tune" / "tune.md").read_text()
    assert "validation split only" in tables and "Tuned('cql', 'oracle'" in tables
    assert tables.count("| cql/oracle |") == 3  # the chosen row and both grid points

    from rewardgym.benchmarks.record_results import record

    page = record(tmp_path / "tune", tmp_path / "docs", name="embodied-tune")
    assert "Tuned('bc', 'none'" in page.read_text()


def test_presets_and_config_errors() -> None:
    """The presets exist; bad rows, modes and a test split in validation are refused by name."""
    assert set(PRESETS) == {"demo", "quick", "full", "paper"}
    assert {"cql/sparse", "cql/perfect-judge", "cql/coren"} <= set(PRESETS["demo"].rows)
    assert PRESETS["paper"].collect.episodes == 8000
    assert len(PRESETS["quick"].seeds) >= 3
    with pytest.raises(ValueError, match="reward"):
        EmbodiedBenchConfig(rows=("cql/dense",))
    with pytest.raises(ValueError, match="algorithm"):
        EmbodiedBenchConfig(rows=("sac/sparse",))
    with pytest.raises(ValueError, match="none"):
        EmbodiedBenchConfig(rows=("bc/sparse",))
    with pytest.raises(ValueError, match="mode"):
        EmbodiedBenchConfig(mode="search")
    with pytest.raises(ValueError, match="validation"):
        EmbodiedBenchConfig(validation=EvalConfig(splits=("fine",)))
