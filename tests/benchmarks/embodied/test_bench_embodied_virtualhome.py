"""``bench embodied --env virtualhome``: the suite's rows on VirtualHome-v0 at a tiny budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.agents.evaluation.household import EvalConfig
from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.benchmarks.embodied.config import EmbodiedBenchConfig
from rewardgym.benchmarks.embodied.stats import read_episodes
from rewardgym.benchmarks.embodied.suite import BenchEmbodied, run_bench_embodied
from rewardgym.benchmarks.embodied.virtualhome_presets import ENV_PRESETS, VIRTUALHOME_PRESETS
from rewardgym.cli import build, main
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.trajectories.config import ENV_ALIASES, CollectConfig

TINY = VIRTUALHOME_PRESETS["demo"].replace(
    name="virtualhome-tiny",
    collect=CollectConfig(env=VIRTUALHOME_ID, episodes=10),
    judge="embedding:hashing",
    n_prompts=2,
    rows=("bc/none", "cql/sparse", "cql/perfect-judge", "cql/single-prompt"),
    training=OfflineConfig(n_steps=10, batch_size=16, hidden_units=(16,)),
    evaluation=EvalConfig(
        env_id=VIRTUALHOME_ID, splits=("fine", "abstract"), tasks=(0, 1), instructions_per_task=1
    ),
    latency_steps=3,
    bootstrap=50,
    workers=1,
)


def test_tiny_virtualhome_bench_writes_held_out_rows_paired_and_the_papers_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDGYM_HOME", str(tmp_path / "home"))
    run_bench_embodied(TINY, out=tmp_path / "out", quiet=True)
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["data"]["env"] == VIRTUALHOME_ID and saved["data"]["episodes"] == 10
    assert saved["data"]["programs"] == 10 and saved["data"]["mean_expert_steps"] > 3
    rows = saved["rows"]
    assert {r["split"] for r in rows} == {"fine", "abstract"}
    assert len(rows) == len(TINY.rows) * 2 and all(r["episodes"] == 2 for r in rows)
    for row in rows:
        name = f"{row['algorithm']}/{row['reward']}"
        assert set(row["vs"]) == {"cql/sparse", "bc/none"} - {name}
    diagnostics = saved["meta"]["reward_diagnostics"]["perfect-judge"]
    assert diagnostics["expert_step"] > diagnostics["impossible_step"] == -2.0
    assert "judge_policy" not in saved["meta"]
    markdown = (tmp_path / "out" / "results.md").read_text()
    assert "VirtualHome-v0, 10 trajectories" in markdown
    assert "Held-out test programs: paired differences in SR" in markdown
    assert "| COREN | 66.4 | 74.5 | 69.5 | 57.6 | 68.3 | 64.8 |" in markdown
    assert "Shifted layout" not in markdown
    columns, _ = read_episodes(tmp_path / "out")  # kept beside results.json, one line an episode
    assert len(columns["row"]) == len(TINY.rows) * 2 * 2 and set(columns["seed"]) == {0}
    assert set(columns["instructions"]) == {"fine", "abstract"}


def test_env_picks_its_presets_on_the_command_line() -> None:
    assert set(ENV_PRESETS) == set(ENV_ALIASES)  # every --env of data collect has presets
    command = build(["bench", "embodied", "--env", "virtualhome", "--preset", "quick"])
    assert isinstance(command, BenchEmbodied) and command.env == "virtualhome"
    assert command.config == VIRTUALHOME_PRESETS["quick"]
    assert command.config.name == "virtualhome-quick"  # its recorded page is not Household's
    assert (
        build(["bench", "embodied", "--preset", "quick"]).config
        == ENV_PRESETS["household"]["quick"]
    )
    for preset in VIRTUALHOME_PRESETS.values():
        assert preset.evaluation.env_id == preset.validation.env_id == VIRTUALHOME_ID
        assert "oracle" not in {row.reward for row in preset.row_specs}


def test_mixed_envs_and_oracle_rows_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="must name one env"):
        EmbodiedBenchConfig(evaluation=EvalConfig(env_id=VIRTUALHOME_ID, splits=("fine",)))
    with pytest.raises(ValueError, match="no planner"):
        TINY.replace(rows=("cql/oracle",))
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "embodied", "--env", "virtualhome", "--preset", "paper"])
    assert exit_info.value.code == 2
    assert "choose one of demo, quick, full" in capsys.readouterr().err
