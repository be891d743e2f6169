"""``rewardgym eval household``: a saved agent scored on its env's splits with cluster-bootstrap intervals.

Issue 30, item 3: the suites' metrics for one agent, from the command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rewardgym.agents.evaluation.commands import EvalHousehold, split_summary, table
from rewardgym.agents.evaluation.household import TEST_SPLITS, EvalConfig, SplitResult
from rewardgym.agents.offline import BCSettings, OfflineConfig, train_offline
from rewardgym.cli import build, main
from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.household.engine.metrics import EpisodeScore
from rewardgym.envs.trajectories import CollectConfig, collect_dataset


def _result(successes: list[bool], tasks: list[int]) -> SplitResult:
    scores = [EpisodeScore(s, 1.0 if s else 0.5, 1.0 if s else 0.0) for s in successes]
    return SplitResult("fine", scores, [[0, 1]] * len(scores), list(tasks), ["x"] * len(scores))


def test_split_summary_means_and_intervals() -> None:
    constant = split_summary(_result([True] * 6, [0, 0, 1, 1, 2, 2]), samples=300, seed=0)
    assert constant["sr"] == 100.0 and constant["sr_ci"] == [100.0, 100.0]
    mixed = split_summary(_result([True, False] * 10, list(range(20))), samples=2000, seed=1)
    assert mixed["sr"] == 50.0 and mixed["cgc"] == 75.0 and mixed["n"] == 20
    low, high = mixed["sr_ci"]
    assert 20.0 < low < 50.0 < high < 80.0
    # Whole tasks are resampled: a task that always fails widens the interval.
    clustered = split_summary(
        _result([True] * 10 + [False] * 10, [0] * 10 + [1] * 10), samples=2000, seed=1
    )
    assert clustered["sr_ci"][1] - clustered["sr_ci"][0] > high - low
    assert "| fine | 20 | 50.0 [" in table({"fine": mixed})


def test_episode_options_keep_eval_configs_defaults_and_take_the_agents_env() -> None:
    command = build(["eval", "household", "--agent", "a", "--splits", "fine"])
    assert isinstance(command, EvalHousehold)
    config = command.episodes.config("rewardgym/Household-v0")
    assert config == EvalConfig(env_id="rewardgym/Household-v0", splits=("fine",))


def test_eval_scores_a_saved_agent_and_writes_its_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = collect_dataset(CollectConfig(episodes=8, seed=2))
    agent = train_offline(data, OfflineConfig(algorithm=BCSettings(), n_steps=2), progress=False)
    agent.save(tmp_path / "agent")
    out = tmp_path / "eval"
    main(
        [
            "eval",
            "household",
            "--agent",
            str(tmp_path / "agent"),
            "--splits",
            "fine",
            "--instructions-per-task",
            "1",
            "--tasks",
            "0",
            "1",
            "2",
            "--samples",
            "100",
            "--out",
            str(out),
        ]
    )
    assert "| fine | 3 |" in capsys.readouterr().out
    record = json.loads((out / "eval.json").read_text())
    assert record["algorithm"] == "DiscreteBC" and record["trained_with"]["n_steps"] == 2
    row = record["splits"]["fine"]
    episodes = record["episodes"]["fine"]
    assert row["sr"] == pytest.approx(100.0 * np.mean(episodes["success"]))
    assert row["sr_ci"][0] <= row["sr"] <= row["sr_ci"][1]
    with pytest.raises(SystemExit) as stop:  # an earlier eval is replaced only with --overwrite
        main(["eval", "household", "--agent", str(tmp_path / "agent"), "--out", str(out)])
    assert stop.value.code == 2


def test_household_agents_keep_their_four_held_out_splits_by_default() -> None:
    command = build(["eval", "household", "--agent", "a"])
    assert command.episodes.config("rewardgym/Household-v1").splits == TEST_SPLITS
    assert command.episodes.config(VIRTUALHOME_ID).splits == ("fine", "abstract")


def test_eval_scores_a_virtualhome_agent_on_its_held_out_programs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = collect_dataset(CollectConfig(env="virtualhome", episodes=6, seed=0))
    agent = train_offline(data, OfflineConfig(algorithm=BCSettings(), n_steps=2), progress=False)
    agent.save(tmp_path / "agent")
    base = ["eval", "household", "--agent", str(tmp_path / "agent"), "--samples", "50"]
    main([*base, "--instructions-per-task", "1", "--tasks", "0", "1", "--out", str(tmp_path / "e")])
    printed = capsys.readouterr().out
    assert "on rewardgym/VirtualHome-v0" in printed
    assert "| fine | 2 |" in printed and "| abstract | 2 |" in printed
    record = json.loads((tmp_path / "e" / "eval.json").read_text())
    fine, abstract = record["episodes"]["fine"], record["episodes"]["abstract"]
    assert fine["task"] == abstract["task"] == [0.0, 1.0]  # the same programs, two instructions
    assert [e.split("/")[1] for e in fine["episode"]] == [
        e.split("/")[1] for e in abstract["episode"]
    ]
    with pytest.raises(SystemExit) as stop:  # no shifted layout in VirtualHome-v0's one scene
        main([*base, "--splits", "shifted-fine"])
    assert stop.value.code == 2
    assert "VirtualHome-v0 has ('validation', 'fine', 'abstract')" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:  # one program is one episode: no repeats
        main([*base, "--episodes-per-instruction", "4", "--out", str(tmp_path / "e4")])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "episodes_per_instruction=4" in err and "use 1" in err
    assert not (tmp_path / "e4").exists()
