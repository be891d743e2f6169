"""Validation curves inside one training run and the checkpoint rule (issue 47, item 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch

from rewardgym.agents.evaluation.household import EvalConfig, run_split
from rewardgym.agents.offline import BCSettings, OfflineConfig, train_offline
from rewardgym.agents.offline.agent import META_FILE, OfflineAgent
from rewardgym.agents.offline.curve import CurvePoint, select_checkpoint
from rewardgym.cli import main
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset

VALIDATION = EvalConfig(
    splits=("validation",), tasks=(0, 3), instructions_per_task=1, episodes_per_instruction=2
)
TINY = OfflineConfig(n_steps=40, batch_size=16, hidden_units=(16,), learning_rate=3e-3)


@pytest.fixture(scope="module")
def data() -> TrajectoryDataset:
    return collect_dataset(CollectConfig(episodes=16, seed=5))


def _weights(agent: OfflineAgent) -> dict[str, torch.Tensor]:
    return {
        f"{name}.{key}": value.clone()
        for name, module in agent.algo.impl.modules.get_torch_modules().items()
        for key, value in module.state_dict().items()
    }


def _same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_the_rule_keeps_the_last_step_or_the_best_sr_earliest_on_ties() -> None:
    curve = [CurvePoint(10, 5.0, 1.0), CurvePoint(20, 30.0, 2.0), CurvePoint(30, 30.0, 9.0)]
    assert select_checkpoint(curve, "validation-best").step == 20  # a tie goes to the earlier
    assert select_checkpoint(curve, "final").step == 30
    assert select_checkpoint([*curve, CurvePoint(40, 31.0, 0.0)], "validation-best").step == 40
    with pytest.raises(ValueError, match="empty"):
        select_checkpoint([], "final")


def test_a_curve_needs_a_divisor_of_the_steps_and_best_needs_a_curve() -> None:
    with pytest.raises(ValueError, match="does not divide n_steps"):
        OfflineConfig(n_steps=100, eval_every=30)
    with pytest.raises(ValueError, match="set eval_every"):
        OfflineConfig(checkpoint="validation-best")
    assert OfflineConfig(n_steps=100, eval_every=25).checkpoint == "final"


def test_a_curve_has_a_point_every_k_steps_and_leaves_training_unchanged(
    data: TrajectoryDataset,
) -> None:
    plain = train_offline(data, TINY, progress=False)
    curved = train_offline(data, TINY.replace(eval_every=10), progress=False, validation=VALIDATION)
    assert [point.step for point in curved.curve] == [10, 20, 30, 40]
    assert all(0.0 <= p.sr <= 100.0 and 0.0 <= p.cgc <= 100.0 for p in curved.curve)
    assert curved.selected_step == 40 and plain.curve == [] and plain.selected_step is None
    # Scoring restores the random states: the run ends on the very weights of one without it.
    assert _same(_weights(plain), _weights(curved))
    last = run_split(curved, VALIDATION, "validation").percent()
    assert (last["sr"], last["cgc"]) == (curved.curve[-1].sr, curved.curve[-1].cgc)


class _Scores:
    def __init__(self, sr: float) -> None:
        self.sr = sr

    def percent(self) -> dict[str, float]:
        return {"sr": self.sr, "cgc": 2.0 * self.sr}


def test_validation_best_keeps_the_weights_of_the_argmax_step(
    data: TrajectoryDataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scripted curve 10, 40, 40, 5: the agent holds step 20's weights, those of a 20-step run."""
    script = iter([10.0, 40.0, 40.0, 5.0])

    def scripted(policy: Any, config: EvalConfig, split: str) -> _Scores:
        return _Scores(next(script))

    monkeypatch.setattr("rewardgym.agents.offline.curve.run_split", scripted)
    best = TINY.replace(eval_every=10, checkpoint="validation-best")
    agent = train_offline(data, best, progress=False, validation=VALIDATION)
    assert [p.sr for p in agent.curve] == [10.0, 40.0, 40.0, 5.0]
    assert agent.selected_step == 20
    short = train_offline(data, TINY.replace(n_steps=20), progress=False)
    assert _same(_weights(agent), _weights(short))
    final = train_offline(data, TINY, progress=False)
    assert not _same(_weights(agent), _weights(final))


def test_the_saved_agent_scores_what_its_selected_point_says(
    data: TrajectoryDataset, tmp_path: Path
) -> None:
    """Re-evaluating the saved weights on validation gives the kept step's SR and CGC."""
    config = OfflineConfig(
        algorithm=BCSettings(),
        n_steps=60,
        batch_size=16,
        hidden_units=(16,),
        learning_rate=3e-3,
        eval_every=20,
        checkpoint="validation-best",
    )
    agent = train_offline(data, config, progress=False, validation=VALIDATION)
    chosen = select_checkpoint(agent.curve, "validation-best")
    assert agent.selected_step == chosen.step
    agent.save(tmp_path / "agent")
    meta = json.loads((tmp_path / "agent" / META_FILE).read_text())
    assert meta["validation_curve"]["selected_step"] == chosen.step
    assert meta["validation_curve"]["points"] == [p.as_list() for p in agent.curve]
    again = run_split(OfflineAgent.load(tmp_path / "agent"), VALIDATION, "validation").percent()
    assert (again["sr"], again["cgc"]) == (chosen.sr, chosen.cgc)


def test_train_offline_eval_every_prints_the_curve_and_records_the_kept_step(
    data: TrajectoryDataset, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "data"
    data.save(source)
    out = tmp_path / "agent"
    argv = ["train", "offline", "--dataset", str(source), "--out", str(out), "--n-steps", "10"]
    argv += ["--batch-size", "16", "--eval-every", "5", "--checkpoint", "validation-best"]
    main([*argv, "--validation-instructions", "1", "algorithm:bc"])
    said = capsys.readouterr().out
    assert said.count("validation SR") == 2 and "step 5: " in said and "step 10: " in said
    recorded = json.loads((out / META_FILE).read_text())
    assert recorded["config"]["eval_every"] == 5
    assert recorded["validation_curve"]["rule"] == "validation-best"
    assert f"kept step {recorded['validation_curve']['selected_step']}" in said
